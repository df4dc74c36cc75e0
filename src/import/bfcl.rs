//! The Berkeley Function Calling Leaderboard's single-turn files (`BFCL_v4_simple_python.json`,
//! `multiple`, `parallel`, `parallel_multiple`, `irrelevance`, `live_*`, the Java and JavaScript
//! files): JSON Lines of `{id, question, function}`, with possible answers in a second file of
//! `{id, ground_truth: [{TOOL: {param: [acceptable values]}}]}`.
//!
//! Functions are translated the way BFCL's function-calling handlers show them to a model
//! (`func_doc_language_specific_pre_processing`, then `convert_to_tool` with `GORILLA_TO_OPENAPI`):
//! the language hint appended to each description; `dict` → `object`, `float` → `number` (with
//! BFCL's "This is a float type value." note), `tuple` → `array`, Java and JavaScript parameters as
//! strings with BFCL's type notes, a parameter without a type or of an unknown type as `string`. Two
//! deliberate differences: `any` has no type constraint (BFCL sends `string`, which would reject the
//! non-string answers Python records give), and a property's draft-3 `"required": true` moves into
//! its parent's `required` list. Names keep their dots (MCP allows them; backends that cannot send
//! them rename them and record it).
//!
//! Answers map onto mcpick's matchers with BFCL's checker semantics: a list of acceptable values,
//! `""` = may be omitted, a dict holds lists again (an object matcher), a list of dicts is expanded
//! into its acceptable lists, and a parameter the answer leaves out must be omitted (BFCL rejects
//! unexpected parameters). Java and JavaScript answers that are typed values (`true`, `42`,
//! `[101, 202]`) are matched as the source text BFCL's type converters read them from (`"true"`,
//! `"42L"` for a long, `"new ArrayList<>(Arrays.asList(101, 202))"`; see `source_text`), since the
//! parameters are strings. Several answers are parallel calls in any order (`expect_all_of`);
//! irrelevance records expect no call; live relevance records expect any call of a listed tool.
//! Each task keeps its own function list. Functions that share a name but differ are kept apart in
//! the toolset (`name-v2`, ...) and shown to their task under the name the record uses.
//!
//! The import keeps every record BFCL's checker can pass. An answer value the translated schema
//! rejects (`null`, `"dontcare"` for an integer, a string outside an enum, a date not in `format:
//! date`) widens the parameter's schema (`anyOf` with an `enum` of those values, noted); a
//! required parameter loses the answer's `""` (BFCL checks required parameters first); an answer
//! argument the function does not declare is left out when the answer allows omitting it; every
//! function forbids undeclared arguments (`additionalProperties: false`), as BFCL's checker does. A
//! record is refused only where BFCL passes no call either, and the reason says so. Each task also
//! carries BFCL's own record (`bfcl`: category, functions, possible answers) for the `bfcl`
//! scoring profile, which the suite names.

use super::source_text::{SourceLanguage, answer_pattern};
use super::{Imported, Skipped};
use crate::backend::oracle_arguments;
use crate::model::{ArgMatcher, ScoringProfile};
use crate::registry::{compile_object_schema, compile_schema};
use crate::score::match_arguments;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The most acceptable lists a list-of-dicts answer may expand into before it is reported instead.
const MAX_EXPANSION: usize = 256;

/// The source language of a BFCL category, which decides the hints and the Java/JavaScript typing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Python,
    Java,
    JavaScript,
}

impl Language {
    fn of(category: &str) -> Language {
        if category.ends_with("javascript") {
            Language::JavaScript
        } else if category.ends_with("java") {
            Language::Java
        } else {
            Language::Python
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Language::Python => " Note that the provided function is in Python 3 syntax.",
            Language::Java => " Note that the provided function is in Java 8 SDK syntax.",
            Language::JavaScript => " Note that the provided function is in JavaScript syntax.",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
        }
    }
}

/// Translates a BFCL questions file (and its possible answers) into a suite named `name`.
pub fn import_bfcl(questions: &str, answers: Option<&str>, name: &str) -> Imported {
    let mut imported = Imported {
        name: name.to_string(),
        description: format!(
            "BFCL single-turn tasks ({name}), imported by mcpick import-bfcl; each task shows its own functions"
        ),
        scoring: Some(ScoringProfile::Bfcl),
        ..Imported::default()
    };
    let mut gold: HashMap<String, (usize, Value)> = HashMap::new();
    for (line, text) in lines(answers.unwrap_or_default()) {
        match serde_json::from_str::<Value>(text) {
            Ok(record) => match (record["id"].as_str(), record.get("ground_truth")) {
                (Some(id), Some(truth)) => {
                    gold.insert(id.to_string(), (line, truth.clone()));
                }
                _ => imported.skipped.push(Skipped {
                    record: format!("answers line {line}"),
                    line,
                    reason: "an answer needs `id` and `ground_truth`".into(),
                }),
            },
            Err(e) => imported.skipped.push(Skipped {
                record: format!("answers line {line}"),
                line,
                reason: format!("answers file: not JSON: {e}"),
            }),
        }
    }
    let mut toolset = Toolset::default();
    for (line, text) in lines(questions) {
        imported.records += 1;
        let record: Value = match serde_json::from_str(text) {
            Ok(record) => record,
            Err(e) => {
                imported.skipped.push(Skipped {
                    record: "(unreadable)".into(),
                    line,
                    reason: format!("not JSON: {e}"),
                });
                continue;
            }
        };
        let id = record["id"]
            .as_str()
            .map_or_else(|| "(no id)".to_string(), str::to_string);
        let answer = gold.remove(&id).map(|(_, truth)| truth);
        match translate_record(&record, answer.as_ref(), &toolset) {
            Ok(translated) => {
                for note in &translated.notes {
                    imported.note(note.clone());
                }
                imported.tasks.push(translated.task);
                toolset.commit(translated.new_tools, &mut imported.tools);
            }
            Err(reason) => imported.skipped.push(Skipped {
                record: id,
                line,
                reason,
            }),
        }
    }
    let mut unused: Vec<(usize, String)> =
        gold.into_iter().map(|(id, (line, _))| (line, id)).collect();
    unused.sort();
    for (line, id) in unused {
        imported.skipped.push(Skipped {
            record: id,
            line,
            reason: "answers file: no question has this id".into(),
        });
    }
    imported
}

/// Non-blank lines with their 1-based numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// The toolset built so far: every distinct definition once, under a unique name.
#[derive(Default)]
struct Toolset {
    /// Function name → its distinct definitions (without the name) and the toolset name of each.
    definitions: HashMap<String, Vec<(Value, String)>>,
    taken: HashSet<String>,
}

impl Toolset {
    /// The toolset name for this definition: the one it already has, or a new one (`name`, or
    /// `name-v2`, `name-v3`, ... when another definition took the name), not yet committed.
    fn name_for(&self, name: &str, definition: &Value, pending: &[(String, Value)]) -> String {
        if let Some((_, key)) = self
            .definitions
            .get(name)
            .into_iter()
            .flatten()
            .find(|(d, _)| d == definition)
        {
            return key.clone();
        }
        let free = |key: &str| !self.taken.contains(key) && pending.iter().all(|(k, _)| k != key);
        if free(name) {
            return name.to_string();
        }
        (2..)
            .map(|n| format!("{name}-v{n}"))
            .find(|key| free(key))
            .unwrap_or_default()
    }

    fn commit(&mut self, new_tools: Vec<(String, Value)>, tools: &mut Vec<Value>) {
        for (key, tool) in new_tools {
            let name = tool["name"].as_str().unwrap_or_default().to_string();
            let definition = definition(&tool);
            self.definitions
                .entry(name)
                .or_default()
                .push((definition, key.clone()));
            self.taken.insert(key.clone());
            let mut tool = tool;
            tool["name"] = Value::String(key);
            tools.push(tool);
        }
    }
}

/// A tool without its name: what two functions of one name are compared by.
fn definition(tool: &Value) -> Value {
    let mut definition = tool.clone();
    definition["name"] = Value::Null;
    definition
}

/// One record, translated.
struct Translated {
    task: Value,
    /// Tools the toolset does not have yet: (toolset name, tool as the record defines it).
    new_tools: Vec<(String, Value)>,
    notes: Vec<String>,
}

fn translate_record(
    record: &Value,
    answer: Option<&Value>,
    toolset: &Toolset,
) -> Result<Translated, String> {
    let id = record["id"]
        .as_str()
        .ok_or("the record has no string `id`")?;
    let category = id.rsplit_once('_').map_or(id, |(category, _)| category);
    let language = Language::of(category);
    let mut notes = Vec::new();

    let functions = record["function"]
        .as_array()
        .ok_or("`function` is not a list")?;
    let mut tools: Vec<Value> = Vec::with_capacity(functions.len());
    for (i, function) in functions.iter().enumerate() {
        let tool = translate_function(function, language, &mut notes)
            .map_err(|e| format!("function {}: {e}", i + 1))?;
        if tools.iter().any(|t| t["name"] == tool["name"]) {
            return Err(format!(
                "two functions are named {} in one record",
                tool["name"]
            ));
        }
        tools.push(tool);
    }
    let (expect_field, expectation) = if category.ends_with("irrelevance") {
        ("expect_no_call", json!(true))
    } else if category.ends_with("relevance") {
        // Relevance: any call of a listed function is right; BFCL checks no arguments. A function
        // no valid call can reach (a schema that contradicts itself) is left out of the
        // alternatives, as long as one remains.
        let all: Vec<Value> = tools.iter().map(|t| json!({"tool": t["name"]})).collect();
        let mut calls: Vec<Value> = all
            .iter()
            .filter(|call| check_reachable(call, &tools).is_ok())
            .cloned()
            .collect();
        if calls.len() < all.len() {
            notes.push("relevance record: a function no valid call can reach left out of the right answers".into());
        }
        if calls.is_empty() {
            calls = all;
        }
        if calls.len() == 1 {
            ("expect", Value::Array(calls))
        } else {
            ("expect_any_of", Value::Array(calls))
        }
    } else {
        let truth = answer.ok_or("no possible answer has this id (give --answers)")?;
        let calls = expected_calls(truth, &mut tools, functions, language, &mut notes)?;
        if calls.len() == 1 {
            ("expect", Value::Array(calls))
        } else {
            ("expect_all_of", Value::Array(calls))
        }
    };
    // Each function's toolset name, and the task's list (`{tool, as}` where the two differ).
    let mut new_tools: Vec<(String, Value)> = Vec::new();
    let mut listed = Vec::with_capacity(tools.len());
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        let key = toolset.name_for(name, &definition(tool), &new_tools);
        if !toolset.taken.contains(&key) {
            new_tools.push((key.clone(), tool.clone()));
        }
        if key == name {
            listed.push(json!(name));
        } else {
            notes.push("function sharing its name with a different one: kept as `name-vN` in the toolset, shown under its own name".into());
            listed.push(json!({"tool": key, "as": name}));
        }
    }

    let mut task = Map::new();
    task.insert("id".into(), json!(id));
    task.insert("tags".into(), json!([category]));
    let (field, input) = conversation(&record["question"])?;
    task.insert(field.into(), input);
    task.insert("tools".into(), Value::Array(listed));

    task.insert(expect_field.into(), expectation.clone());
    task.insert(
        "bfcl".into(),
        json!({
            "category": category,
            "function": functions,
            "ground_truth": answer.cloned().unwrap_or_else(|| json!([])),
        }),
    );
    if let Some(calls) = expectation.as_array() {
        for call in calls {
            check_reachable(call, &tools)?;
        }
    }
    Ok(Translated {
        task: Value::Object(task),
        new_tools,
        notes,
    })
}

/// The record's turns as a `prompt` (one user message) or `messages`.
fn conversation(question: &Value) -> Result<(&'static str, Value), String> {
    let turns = question.as_array().ok_or("`question` is not a list")?;
    let mut messages = Vec::new();
    for turn in turns {
        // Turns are lists of messages; a bare message is taken as a turn of one.
        let turn_messages = match turn {
            Value::Array(messages) => messages.as_slice(),
            single => std::slice::from_ref(single),
        };
        for message in turn_messages {
            let role = message["role"].as_str().ok_or("a message has no `role`")?;
            if !matches!(role, "system" | "user" | "assistant") {
                return Err(format!(
                    "a message has role {role:?}; single-turn tasks take system, user and assistant turns"
                ));
            }
            let content = message["content"]
                .as_str()
                .ok_or("a message's `content` is not a string")?;
            messages.push(json!({"role": role, "content": content}));
        }
    }
    match messages.as_slice() {
        [] => Err("`question` holds no message".into()),
        [only] if only["role"] == "user" => Ok(("prompt", only["content"].clone())),
        [.., last] if last["role"] == "user" => Ok(("messages", Value::Array(messages))),
        _ => Err("the conversation does not end with a user message".into()),
    }
}

/// A BFCL function as an MCP tool definition.
fn translate_function(
    function: &Value,
    language: Language,
    notes: &mut Vec<String>,
) -> Result<Value, String> {
    let name = function["name"]
        .as_str()
        .filter(|n| !n.is_empty())
        .ok_or("no `name`")?;
    let description = function["description"].as_str().unwrap_or_default();
    let mut parameters = match function.get("parameters") {
        None | Some(Value::Null) => json!({"type": "dict", "properties": {}}),
        Some(Value::Object(p)) => Value::Object(p.clone()),
        Some(_) => return Err(format!("{name}: `parameters` is not an object")),
    };
    if language != Language::Python
        && let Some(properties) = parameters
            .get_mut("properties")
            .and_then(Value::as_object_mut)
    {
        for property in properties.values_mut() {
            as_language_string(property, language);
        }
        notes.push(format!(
            "{} function: parameters served as strings with BFCL's type notes",
            language.label()
        ));
    }
    let mut schema = translate_schema(&parameters, name, true, notes)?;
    // BFCL rejects an argument the function does not declare; the server does too.
    if let Some(fields) = schema.as_object_mut() {
        fields
            .entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    compile_object_schema(&schema).map_err(|e| format!("{name}: {e}"))?;
    Ok(json!({
        "name": name,
        "description": format!("{description}{}", language.hint()),
        "inputSchema": schema,
    }))
}

/// BFCL's Java and JavaScript preprocessing: the value is written as source text, so the parameter
/// becomes a string whose description names the language type.
fn as_language_string(property: &mut Value, language: Language) {
    let Some(fields) = property.as_object_mut() else {
        return;
    };
    let written_type = fields
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("any")
        .to_string();
    let language_name = language.label();
    let mut description = fields
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if written_type == "any" {
        description.push_str(&format!(
            " This parameter can be of any type of {language_name} object in string representation."
        ));
    } else {
        description.push_str(&format!(
            " This is {language_name} {written_type} type parameter in string representation."
        ));
    }
    let list_type = match language {
        Language::Java => matches!(written_type.as_str(), "ArrayList" | "Array"),
        _ => written_type == "array",
    };
    if list_type {
        let element = fields
            .get("items")
            .and_then(|i| i.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("any");
        description.push_str(&format!(
            " The list elements are of type {element}; they are not in string representation."
        ));
        fields.remove("items");
    }
    if language == Language::JavaScript
        && written_type == "dict"
        && let Some(properties) = fields.remove("properties")
    {
        description.push_str(&format!(
            " The dictionary entries have the following schema; they are not in string representation. {}",
            python_json(&properties)
        ));
    }
    fields.insert("description".into(), json!(description));
    fields.insert("type".into(), json!("string"));
}

/// JSON as Python's `json.dumps` writes it (`", "` and `": "` separators), for text BFCL builds so.
fn python_json(value: &Value) -> String {
    match value {
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(python_json).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), python_json(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        scalar => scalar.to_string(),
    }
}

/// One schema in BFCL's dialect as JSON Schema (see the module documentation for the mapping).
fn translate_schema(
    schema: &Value,
    at: &str,
    root: bool,
    notes: &mut Vec<String>,
) -> Result<Value, String> {
    let mut fields = schema
        .as_object()
        .cloned()
        .ok_or_else(|| format!("{at}: the schema is not an object"))?;
    match fields.get("type").cloned() {
        None if root => {
            fields.insert("type".into(), json!("object"));
        }
        None => {
            notes.push("parameter without a type: served as string (as BFCL does)".into());
            fields.insert("type".into(), json!("string"));
        }
        Some(Value::String(written)) => {
            let json_type = match written.as_str() {
                "dict" | "object" | "HashMap" | "Hashtable" => Some("object"),
                "float" | "number" | "double" => Some("number"),
                "integer" | "byte" | "short" | "long" | "Bigint" => Some("integer"),
                "string" | "char" | "String" => Some("string"),
                "boolean" | "bool" | "Boolean" => Some("boolean"),
                "array" | "list" | "tuple" | "ArrayList" | "Array" | "Queue" | "Stack" => {
                    Some("array")
                }
                "any" | "Any" => None,
                unknown => {
                    notes.push(format!(
                        "unknown type {unknown:?}: served as string (as BFCL does)"
                    ));
                    Some("string")
                }
            };
            if written == "float" {
                let description = fields
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let noted = format!("{description} This is a float type value.");
                fields.insert("description".into(), json!(noted));
            }
            if written == "any" || written == "Any" {
                notes.push("`any` parameter: no type constraint".into());
            }
            if written == "tuple" {
                notes.push("`tuple` served as array".into());
            }
            match json_type {
                Some(t) => {
                    fields.insert("type".into(), json!(t));
                }
                None => {
                    fields.remove("type");
                }
            }
        }
        Some(Value::Array(_)) => {}
        Some(other) => return Err(format!("{at}: `type` is {other}, not a type name")),
    }
    // A property's own draft-3 `"required": true|false` is left for its parent, which moves it
    // into its `required` list; the root has no parent to take it.
    if root && fields.get("required").is_some_and(|r| !r.is_array()) {
        fields.remove("required");
        notes.push("`required` that is not a list of names: left out".into());
    }
    if let Some(properties) = fields.get("properties").cloned() {
        let properties = properties
            .as_object()
            .ok_or_else(|| format!("{at}: `properties` is not an object"))?;
        let mut required: Vec<Value> = match fields.get("required") {
            Some(Value::Array(names)) => names.clone(),
            _ => Vec::new(),
        };
        let mut translated = Map::new();
        for (name, property) in properties {
            let mut property = translate_schema(property, &format!("{at}.{name}"), false, notes)?;
            if let Some(fields) = property.as_object_mut()
                && let Some(flag) = fields.get("required").filter(|r| !r.is_array()).cloned()
            {
                fields.remove("required");
                notes.push("a property's own `\"required\": true|false` moved into its parent's `required` list".into());
                if flag == json!(true) && !required.contains(&json!(name)) {
                    required.push(json!(name));
                }
            }
            translated.insert(name.clone(), property);
        }
        fields.insert("properties".into(), Value::Object(translated));
        if !required.is_empty() {
            fields.insert("required".into(), Value::Array(required));
        }
    }
    // An `enum` of scalars on an array (BFCL writes some so) can never validate an array: it lists
    // the allowed elements, so it belongs to `items`.
    if fields.get("type") == Some(&json!("array"))
        && let Some(Value::Array(members)) = fields.get("enum")
        && members.iter().all(|m| !m.is_array())
        && fields["items"].is_object()
        && fields["items"].get("enum").is_none()
        && let Some(members) = fields.remove("enum")
    {
        fields["items"]["enum"] = members;
        notes.push("`enum` on an array moved into its `items`".into());
    }
    match fields.get("items").cloned() {
        Some(items @ Value::Object(_)) => {
            let items = translate_schema(&items, &format!("{at}[]"), false, notes)?;
            fields.insert("items".into(), items);
        }
        Some(Value::Array(_)) => {
            return Err(format!(
                "{at}: `items` is a list of schemas, which JSON Schema 2020-12 spells `prefixItems`"
            ));
        }
        _ => {}
    }
    if let Some(extra @ Value::Object(_)) = fields.get("additionalProperties").cloned() {
        let extra = translate_schema(&extra, &format!("{at}{{}}"), false, notes)?;
        fields.insert("additionalProperties".into(), extra);
    }
    Ok(Value::Object(fields))
}

/// The expected calls of a BFCL answer, one per `{TOOL: {param: [values]}}` entry.
fn expected_calls(
    truth: &Value,
    tools: &mut [Value],
    functions: &[Value],
    language: Language,
    notes: &mut Vec<String>,
) -> Result<Vec<Value>, String> {
    let entries = match truth {
        Value::Array(entries) => entries.as_slice(),
        single => std::slice::from_ref(single),
    };
    if entries.is_empty() {
        return Err("the possible answer lists no call".into());
    }
    let mut calls = Vec::with_capacity(entries.len());
    for entry in entries {
        let (tool, params) = match entry.as_object().map(|o| o.iter().collect::<Vec<_>>()) {
            Some(pairs) if pairs.len() == 1 => pairs[0],
            _ => return Err(format!("an answer entry is not {{TOOL: {{...}}}}: {entry}")),
        };
        let schema = &mut tools
            .iter_mut()
            .find(|t| t["name"] == tool.as_str())
            .ok_or_else(|| format!("the answer calls {tool:?}, which the record does not offer"))?
            ["inputSchema"];
        let params = params
            .as_object()
            .ok_or_else(|| format!("the answer's arguments for {tool} are not an object"))?;
        let required: Vec<&str> = functions
            .iter()
            .find(|f| f["name"] == tool.as_str())
            .and_then(|f| f["parameters"]["required"].as_array())
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut args = Map::new();
        for (param, acceptable) in params {
            if schema["properties"].get(param).is_none() {
                if contains_omission(acceptable) {
                    // BFCL rejects any value for it, and it may be left out: that is the answer.
                    notes.push(
                        "answer argument the function does not declare, marked optional: left out"
                            .into(),
                    );
                    continue;
                }
                return Err(format!(
                    "the answer gives {tool} an argument {param:?}, which the function does not declare (BFCL's checker rejects it as an unexpected parameter, so it passes no call either)"
                ));
            }
            let at = format!("{tool}.{param}");
            let mut acceptable = acceptable.clone();
            if required.contains(&param.as_str()) && contains_omission(&acceptable) {
                // BFCL checks required parameters before the answer's `""`: leaving one out fails.
                if let Value::Array(values) = &mut acceptable {
                    values.retain(|v| v != "");
                }
                notes.push("`\"\"` (may be omitted) on a required parameter: dropped, as BFCL's checker requires the parameter".into());
                if acceptable.as_array().is_some_and(Vec::is_empty) {
                    return Err(format!(
                        "{at}: required, but the answer only allows leaving it out (BFCL's checker passes no call either)"
                    ));
                }
            }
            let declared = functions
                .iter()
                .find(|f| f["name"] == tool.as_str())
                .map_or(&Value::Null, |f| &f["parameters"]["properties"][param]);
            let parameter = Parameter {
                schema: &schema["properties"][param],
                declared,
                language,
            };
            let (matcher, outside) =
                acceptable_values(&acceptable, &parameter).map_err(|e| format!("{at}: {e}"))?;
            if !outside.is_empty() {
                widen(&mut schema["properties"][param], &outside, &at, notes);
            }
            args.insert(param.clone(), matcher);
        }
        // BFCL rejects a parameter its answer does not list: it must be left out.
        for param in schema["properties"].as_object().into_iter().flatten() {
            if !args.contains_key(param.0) {
                args.insert(param.0.clone(), json!(""));
            }
        }
        calls.push(json!({"tool": tool, "args": args}));
    }
    Ok(calls)
}

/// Whether a BFCL list of acceptable values allows leaving the parameter out (`""`).
fn contains_omission(acceptable: &Value) -> bool {
    acceptable
        .as_array()
        .is_some_and(|values| values.iter().any(|v| v == ""))
}

/// Widens a parameter's schema to also accept answer values the translation rejects (a `null`, a
/// `"dontcare"` for an integer, a string outside an enum, a date not in `format: date`): the
/// translation was stricter than BFCL, whose checker accepts them.
fn widen(schema: &mut Value, outside: &[Value], at: &str, notes: &mut Vec<String>) {
    let shown: Vec<String> = outside.iter().map(Value::to_string).collect();
    notes.push(format!(
        "{at}: schema widened to accept the answer's {} (`anyOf` with an `enum`)",
        shown.join(", ")
    ));
    let original = schema.take();
    let description = original.get("description").cloned();
    let mut widened = json!({"anyOf": [original, {"enum": outside}]});
    if let Some(description) = description {
        widened["description"] = description;
    }
    *schema = widened;
}

/// The parameter an answer's values are for.
struct Parameter<'a> {
    /// Its schema as translated (what the server validates).
    schema: &'a Value,
    /// Its schema as BFCL wrote it (the Java or JavaScript type).
    declared: &'a Value,
    language: Language,
}

/// A BFCL list of acceptable values as an mcpick matcher, and the values the parameter's schema
/// rejects (kept in the matcher: the caller widens the schema to accept them). Java and JavaScript
/// answers that are not strings are matched as the source text BFCL's type converters read them
/// from (`source_text`).
fn acceptable_values(
    acceptable: &Value,
    parameter: &Parameter<'_>,
) -> Result<(Value, Vec<Value>), String> {
    let values = match acceptable {
        Value::Array(values) => values.as_slice(),
        single => std::slice::from_ref(single),
    };
    let validator = compile_schema(parameter.schema).map_err(|e| e.to_string())?;
    let source = match parameter.language {
        Language::Python => None,
        Language::Java => Some(SourceLanguage::Java),
        Language::JavaScript => Some(SourceLanguage::JavaScript),
    };
    let mut matcher = Vec::with_capacity(values.len());
    let mut rejected = Vec::new();
    for value in values {
        match (value, source) {
            (Value::String(s), _) if s.is_empty() => matcher.push(json!("")),
            (Value::String(s), Some(SourceLanguage::JavaScript))
                if parameter.declared["type"] == "String" =>
            {
                // BFCL's JavaScript converter takes a string with or without its quotes.
                matcher.push(value.clone());
                matcher.push(json!(format!("\"{s}\"")));
            }
            (Value::String(_), _) => {
                if validator.is_valid(value) {
                    matcher.push(value.clone());
                } else {
                    rejected.push(value.clone());
                }
            }
            (typed, Some(language)) => {
                let pattern = answer_pattern(typed, parameter.declared, language)?;
                matcher.push(json!({ "regex": pattern }));
            }
            (value, None) => match value {
                Value::Object(fields) => {
                    let nested = nested_matcher(fields)?;
                    matcher.push(nested);
                }
                Value::Array(items) if items.iter().any(Value::is_object) => {
                    for expanded in expand_list(items)? {
                        if validator.is_valid(&expanded) {
                            matcher.push(expanded);
                        } else {
                            rejected.push(expanded);
                        }
                    }
                }
                literal => {
                    if validator.is_valid(literal) {
                        matcher.push(literal.clone());
                    } else {
                        rejected.push(literal.clone());
                    }
                }
            },
        }
    }
    if values.is_empty() {
        return Err(
            "the answer lists no acceptable value (no call can be right; BFCL's checker passes none either)"
                .into(),
        );
    }
    matcher.extend(rejected.iter().cloned());
    Ok((Value::Array(matcher), rejected))
}

/// A dict answer (`{key: [acceptable values]}`) as an object matcher.
fn nested_matcher(fields: &Map<String, Value>) -> Result<Value, String> {
    if (fields.len() == 1 && fields.contains_key("regex")) || fields.contains_key("approx") {
        return Err("a dict answer keyed `regex` or `approx` reads as an mcpick matcher".into());
    }
    let mut nested = Map::new();
    for (key, acceptable) in fields {
        let values = match acceptable {
            Value::Array(values) => values.clone(),
            single => vec![single.clone()],
        };
        let mut alternatives = Vec::with_capacity(values.len());
        for value in values {
            match value {
                Value::Object(inner) => alternatives.push(nested_matcher(&inner)?),
                Value::Array(items) if items.iter().any(Value::is_object) => {
                    alternatives.extend(expand_list(&items)?);
                }
                other => alternatives.push(other),
            }
        }
        nested.insert(key.clone(), Value::Array(alternatives));
    }
    Ok(Value::Object(nested))
}

/// A list answer whose elements are dicts of acceptable values, as every acceptable list it stands
/// for (`""` in a dict: the key may be left out).
fn expand_list(items: &[Value]) -> Result<Vec<Value>, String> {
    let mut lists: Vec<Vec<Value>> = vec![Vec::new()];
    for item in items {
        let forms = match item {
            Value::Object(fields) => expand_dict(fields)?,
            other => vec![other.clone()],
        };
        lists = lists
            .into_iter()
            .flat_map(|list| {
                forms.iter().map(move |form| {
                    let mut list = list.clone();
                    list.push(form.clone());
                    list
                })
            })
            .collect();
        if lists.len() > MAX_EXPANSION {
            return Err(format!(
                "a list of dicts stands for more than {MAX_EXPANSION} acceptable lists"
            ));
        }
    }
    Ok(lists.into_iter().map(Value::Array).collect())
}

fn expand_dict(fields: &Map<String, Value>) -> Result<Vec<Value>, String> {
    let mut forms: Vec<Map<String, Value>> = vec![Map::new()];
    for (key, acceptable) in fields {
        let values = match acceptable {
            Value::Array(values) => values.clone(),
            single => vec![single.clone()],
        };
        // `None`: the key left out.
        let mut options: Vec<Option<Value>> = Vec::new();
        for value in values {
            match value {
                Value::String(s) if s.is_empty() => options.push(None),
                Value::Object(inner) => options.extend(expand_dict(&inner)?.into_iter().map(Some)),
                Value::Array(items) if items.iter().any(Value::is_object) => {
                    options.extend(expand_list(&items)?.into_iter().map(Some));
                }
                other => options.push(Some(other)),
            }
        }
        forms = forms
            .into_iter()
            .flat_map(|form| {
                options.iter().map(move |option| {
                    let mut form = form.clone();
                    if let Some(value) = option {
                        form.insert(key.clone(), value.clone());
                    }
                    form
                })
            })
            .collect();
        if forms.len() > MAX_EXPANSION {
            return Err(format!(
                "a dict answer stands for more than {MAX_EXPANSION} acceptable dicts"
            ));
        }
    }
    Ok(forms.into_iter().map(Value::Object).collect())
}

/// The oracle's call for this expected call validates against the tool's schema and matches the
/// expectation: the gold answer can be reached.
fn check_reachable(call: &Value, tools: &[Value]) -> Result<(), String> {
    let tool = call["tool"].as_str().unwrap_or_default();
    let schema = tools
        .iter()
        .find(|t| t["name"] == tool)
        .map(|t| &t["inputSchema"])
        .ok_or_else(|| format!("the answer calls {tool:?}, which the record does not offer"))?;
    let mut matchers = BTreeMap::new();
    for (param, written) in call["args"].as_object().into_iter().flatten() {
        let matcher = ArgMatcher::parse(written).map_err(|e| format!("{tool}.{param}: {e}"))?;
        matchers.insert(param.clone(), matcher);
    }
    let arguments = oracle_arguments(&matchers, schema);
    let validator = compile_object_schema(schema).map_err(|e| format!("{tool}: {e}"))?;
    if let Some(error) = validator
        .iter_errors(&Value::Object(arguments.clone()))
        .next()
    {
        return Err(format!(
            "the gold call to {tool} would not validate against its schema: {error} (at {})",
            error.instance_path()
        ));
    }
    let mismatches = match_arguments(&matchers, &arguments);
    if let Some(m) = mismatches.first() {
        return Err(format!(
            "the gold call to {tool} cannot be built: {}: {}",
            m.argument, m.problem
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Expectation, ExpectedCall};
    use crate::score::{CallArguments, ObservedCall, Outcome, TrialRecord, score};

    /// Hand-written records in BFCL's format (tests/data/bfcl/): every type of the dialect, nested
    /// and list-of-dict answers, `""`, several acceptable values, parallel calls, irrelevance and
    /// relevance, Java and JavaScript, two functions sharing a name, and records that cannot be
    /// translated.
    const QUESTIONS: &str = include_str!("../../tests/data/bfcl/BFCL_v4_sample.json");
    const ANSWERS: &str = include_str!("../../tests/data/bfcl/possible_answer/BFCL_v4_sample.json");

    fn imported() -> Imported {
        import_bfcl(QUESTIONS, Some(ANSWERS), "bfcl_sample")
    }

    fn task<'a>(imported: &'a Imported, id: &str) -> &'a Value {
        imported
            .tasks
            .iter()
            .find(|t| t["id"] == id)
            .unwrap_or_else(|| panic!("{id} was not translated: {:?}", imported.skipped))
    }

    fn tool<'a>(imported: &'a Imported, name: &str) -> &'a Value {
        imported.tools.iter().find(|t| t["name"] == name).unwrap()
    }

    /// The task's expectation as the loader would build it.
    fn expectation(task: &Value) -> Expectation {
        let calls = |field: &str| -> Vec<ExpectedCall> {
            task[field]
                .as_array()
                .unwrap()
                .iter()
                .map(|call| ExpectedCall {
                    tool: call["tool"].as_str().unwrap().into(),
                    args: call["args"]
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), ArgMatcher::parse(v).unwrap()))
                        .collect(),
                })
                .collect()
        };
        if task.get("expect_no_call").is_some() {
            Expectation::NoCall
        } else if task.get("expect_all_of").is_some() {
            Expectation::AllOf(calls("expect_all_of"))
        } else if task.get("expect_any_of").is_some() {
            Expectation::AnyOf(calls("expect_any_of"))
        } else {
            Expectation::Calls(calls("expect"))
        }
    }

    /// The outcome of a trial making these calls (each `(tool, arguments)`).
    fn judge(task: &Value, calls: &[(&str, Value)]) -> Outcome {
        let shown: Vec<String> = task["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.get("as").unwrap_or(t).as_str().unwrap().to_string())
            .collect();
        let record = TrialRecord {
            shown_tools: shown,
            calls: calls
                .iter()
                .map(|(tool, arguments)| ObservedCall {
                    tool: tool.to_string(),
                    arguments: CallArguments::Parsed(arguments.as_object().unwrap().clone()),
                    result_is_error: Some(false),
                    reply: 0,
                })
                .collect(),
            backend_error: None,
        };
        score(&expectation(task), &record).outcome
    }

    #[test]
    fn every_type_of_the_dialect_becomes_json_schema() {
        let imported = imported();
        let schema = &tool(&imported, "travel.plan_trip")["inputSchema"];
        assert_eq!(schema["type"], "object", "dict at the root");
        let property = |name: &str| &schema["properties"][name];
        assert_eq!(property("city")["type"], "string");
        assert_eq!(property("days")["type"], "integer");
        assert_eq!(property("budget")["type"], "number", "float");
        assert!(
            property("budget")["description"]
                .as_str()
                .unwrap()
                .ends_with("This is a float type value.")
        );
        assert_eq!(property("stops")["type"], "array", "tuple");
        assert_eq!(property("stops")["items"]["type"], "string");
        assert_eq!(property("options")["type"], "object", "nested dict");
        assert_eq!(
            property("options")["properties"]["rooms"]["type"],
            "integer"
        );
        assert_eq!(property("options")["required"], json!(["rooms"]));
        assert!(property("note").get("type").is_none(), "any: no constraint");
        assert_eq!(property("refundable")["default"], false, "default kept");
        assert_eq!(property("currency")["optional"], true, "optional kept");
        assert_eq!(schema["required"], json!(["city", "days"]));
        assert!(
            tool(&imported, "travel.plan_trip")["description"]
                .as_str()
                .unwrap()
                .ends_with("Note that the provided function is in Python 3 syntax.")
        );
        // A property's draft-3 `"required": true` joins its parent's list.
        let order = &tool(&imported, "shop.place_order")["inputSchema"];
        assert_eq!(order["required"], json!(["express"]));
        assert!(order["properties"]["express"].get("required").is_none());
        assert_eq!(order["properties"]["items"]["items"]["type"], "object");
        for tool in &imported.tools {
            compile_object_schema(&tool["inputSchema"]).unwrap();
        }
    }

    #[test]
    fn java_and_javascript_parameters_are_strings_with_bfcl_notes() {
        let imported = imported();
        let java = &tool(&imported, "SortUtil.sortList");
        assert!(
            java["description"]
                .as_str()
                .unwrap()
                .ends_with("Java 8 SDK syntax.")
        );
        let items = &java["inputSchema"]["properties"]["items"];
        assert_eq!(items["type"], "string");
        assert!(items.get("items").is_none());
        assert_eq!(
            items["description"],
            "The strings to sort. This is Java ArrayList type parameter in string representation. The list elements are of type String; they are not in string representation."
        );
        let comparator = &java["inputSchema"]["properties"]["comparator"];
        assert!(
            comparator["description"]
                .as_str()
                .unwrap()
                .contains("any type of Java object")
        );
        let js = &tool(&imported, "fetchData")["inputSchema"]["properties"];
        assert_eq!(js["options"]["type"], "string");
        assert!(js["options"].get("properties").is_none());
        assert!(
            js["options"]["description"]
                .as_str()
                .unwrap()
                .ends_with(r#"{"method": {"type": "String", "description": "HTTP method."}}"#),
            "{}",
            js["options"]["description"]
        );
        assert_eq!(js["retries"]["type"], "string");
    }

    #[test]
    fn answers_become_matchers_with_bfcl_semantics() {
        let imported = imported();
        let trip = task(&imported, "simple_python_0");
        let args = &trip["expect"][0]["args"];
        assert_eq!(
            args["tags"], "",
            "a parameter the answer leaves out must be left out"
        );
        assert_eq!(args["note"], json!(["", "quiet hotel"]));
        let right = json!({"city": "paris", "days": 3, "budget": 1200, "stops": ["Louvre", "Orsay"],
            "options": {"pace": "slow", "rooms": 2}});
        // (case, arguments, outcome)
        let cases = [
            (
                "every optional left out, strings normalised, int for float",
                right.clone(),
                Outcome::Correct,
            ),
            (
                "another acceptable value",
                json!({"city": "Paris, France", "days": 3, "budget": 1200.0,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}, "currency": "EUR"}),
                Outcome::Correct,
            ),
            (
                "optional given a listed value",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}, "note": "Quiet hotel"}),
                Outcome::Correct,
            ),
            (
                "an unexpected parameter",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}, "tags": ["art"]}),
                Outcome::WrongArgs,
            ),
            (
                "a required value missing",
                json!({"city": "Paris", "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}}),
                Outcome::WrongArgs,
            ),
            (
                "a nested value wrong",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"pace": "fast", "rooms": 2}}),
                Outcome::WrongArgs,
            ),
            (
                "a list out of order",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Orsay", "Louvre"], "options": {"rooms": 2}}),
                Outcome::WrongArgs,
            ),
        ];
        for (case, arguments, outcome) in cases {
            assert_eq!(
                judge(trip, &[("travel.plan_trip", arguments)]),
                outcome,
                "{case}"
            );
        }
        // A list of dicts: each dict's keys may be omitted where the answer says "".
        let order = task(&imported, "simple_python_3");
        let items = order["expect"][0]["args"]["items"].as_array().unwrap();
        assert_eq!(items.len(), 2, "{items:?}");
        let ordered = |gift: Value| {
            let mut first = json!({"sku": "A1", "quantity": 2});
            if !gift.is_null() {
                first["gift"] = gift;
            }
            json!({"items": [first, {"sku": "B2", "quantity": 1, "gift": true}], "express": true})
        };
        assert_eq!(
            judge(order, &[("shop.place_order", ordered(Value::Null))]),
            Outcome::Correct
        );
        assert_eq!(
            judge(order, &[("shop.place_order", ordered(json!(false)))]),
            Outcome::Correct
        );
        assert_eq!(
            judge(order, &[("shop.place_order", ordered(json!(true)))]),
            Outcome::WrongArgs
        );
    }

    /// Typed Java and JavaScript answers are matched as the source text BFCL's converters parse.
    #[test]
    fn java_and_javascript_answers_match_the_source_text_bfcl_reads() {
        let imported = imported();
        let java = task(&imported, "simple_java_0");
        let sort = |items: &str, ascending: Option<&str>| {
            let mut arguments =
                json!({"items": items, "comparator": "String.CASE_INSENSITIVE_ORDER"});
            if let Some(ascending) = ascending {
                arguments["ascending"] = json!(ascending);
            }
            judge(java, &[("SortUtil.sortList", arguments)])
        };
        let as_list = r#"new ArrayList<>(Arrays.asList("alice", "bob"))"#;
        assert_eq!(sort(as_list, Some("true")), Outcome::Correct);
        assert_eq!(sort(as_list, None), Outcome::Correct);
        assert_eq!(
            sort(
                r#"new ArrayList<String>() {{ add("alice"); add("bob"); }}"#,
                Some("true")
            ),
            Outcome::Correct
        );
        assert_eq!(sort(as_list, Some("false")), Outcome::WrongArgs);
        assert_eq!(
            sort(r#"new ArrayList<>(Arrays.asList("bob", "alice"))"#, None),
            Outcome::WrongArgs
        );
        let js = task(&imported, "simple_javascript_0");
        let fetch = |url: &str, retries: &str| {
            let arguments = json!({"url": url, "options": "{method: 'GET'}", "retries": retries});
            judge(js, &[("fetchData", arguments)])
        };
        assert_eq!(
            fetch("https://example.com/data", "[1, 2]"),
            Outcome::Correct
        );
        assert_eq!(
            fetch("'https://example.com/data'", "new Array(1,2)"),
            Outcome::Correct
        );
        assert_eq!(
            fetch("https://example.com/data", "[2, 1]"),
            Outcome::WrongArgs
        );
    }

    #[test]
    fn parallel_answers_match_in_any_order() {
        let imported = imported();
        let two_cities = task(&imported, "parallel_0");
        assert_eq!(two_cities["expect_all_of"].as_array().unwrap().len(), 2);
        let paris = ("get_weather", json!({"city": "Paris"}));
        let lyon = ("get_weather", json!({"city": "Lyon", "unit": "celsius"}));
        assert_eq!(
            judge(two_cities, &[paris.clone(), lyon.clone()]),
            Outcome::Correct
        );
        assert_eq!(
            judge(two_cities, &[lyon.clone(), paris.clone()]),
            Outcome::Correct
        );
        assert_eq!(
            judge(two_cities, &[paris.clone(), paris.clone()]),
            Outcome::WrongArgs
        );
        assert_eq!(judge(two_cities, &[lyon]), Outcome::WrongArgs);
        let mixed = task(&imported, "parallel_multiple_0");
        let weather = ("get_weather", json!({"city": "Berlin"}));
        let flights = (
            "search_flights",
            json!({"origin": "BER", "destination": "LIS", "passengers": 2}),
        );
        assert_eq!(
            judge(mixed, &[weather.clone(), flights.clone()]),
            Outcome::Correct
        );
        assert_eq!(judge(mixed, &[flights.clone(), weather]), Outcome::Correct);
        assert_eq!(judge(mixed, &[flights]), Outcome::WrongTool);
    }

    #[test]
    fn irrelevance_expects_no_call_and_relevance_any_call() {
        let imported = imported();
        for id in ["irrelevance_0", "live_irrelevance_0-0-0"] {
            let no_call = task(&imported, id);
            assert_eq!(no_call["expect_no_call"], true);
            assert_eq!(judge(no_call, &[]), Outcome::CorrectAbstain);
            assert_eq!(
                judge(no_call, &[("search_flights", json!({"origin": "BER"}))]),
                Outcome::FalseCall
            );
        }
        let relevance = task(&imported, "live_relevance_0-0-0");
        assert_eq!(relevance["expect_any_of"].as_array().unwrap().len(), 2);
        assert_eq!(
            judge(relevance, &[("get_weather", json!({"city": "x"}))]),
            Outcome::Correct
        );
        assert_eq!(judge(relevance, &[]), Outcome::NoCall);
        let single = task(&imported, "live_relevance_1-1-0");
        assert_eq!(single["expect"], json!([{"tool": "get_weather"}]));
    }

    #[test]
    fn functions_sharing_a_name_are_kept_apart_and_shown_by_their_own_name() {
        let imported = imported();
        let second = task(&imported, "simple_python_1");
        assert_eq!(
            second["tools"],
            json!([{"tool": "get_weather-v2", "as": "get_weather"}])
        );
        assert_eq!(second["expect"][0]["tool"], "get_weather");
        assert!(tool(&imported, "get_weather-v2")["inputSchema"]["properties"]["days"].is_object());
        // The first definition again shares its toolset name.
        assert_eq!(
            task(&imported, "simple_python_2")["tools"],
            json!(["get_weather"])
        );
        let names: Vec<&str> = imported
            .tools
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let unique: HashSet<&&str> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }

    #[test]
    fn conversations_keep_their_turns() {
        let imported = imported();
        let messages = &task(&imported, "live_simple_0-0-0")["messages"];
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(messages[1]["content"], "Define serendipity.");
        assert!(task(&imported, "parallel_0")["prompt"].is_string());
    }

    #[test]
    fn records_that_cannot_be_translated_are_reported_with_the_reason() {
        let imported = imported();
        assert_eq!(imported.records, 18);
        assert_eq!(imported.tasks.len(), 15);
        let reason = |record: &str| {
            imported
                .skipped
                .iter()
                .find(|s| s.record == record)
                .map(|s| (s.line, s.reason.clone()))
                .unwrap_or_else(|| panic!("{record} not reported: {:?}", imported.skipped))
        };
        assert_eq!(reason("simple_python_4").0, 15);
        assert!(reason("simple_python_4").1.contains("does not offer"));
        // "forty-two" for an integer: BFCL accepts what its answer lists, so the schema widens.
        assert!(
            imported
                .skipped
                .iter()
                .all(|s| s.record != "simple_python_5")
        );
        assert!(reason("simple_python_6").1.contains("--answers"));
        assert!(reason("(unreadable)").1.contains("not JSON"));
        assert!(
            reason("simple_python_99")
                .1
                .contains("no question has this id")
        );
        let report = imported.report("sample");
        assert!(report.contains("| simple_python_6 | 17 |"), "{report}");
        assert!(report.contains("18 records read: 15 tasks written, 3 not translated"));
    }

    #[test]
    fn answers_outside_the_translated_schema_widen_it() {
        // An enum the answer falls outside of, and a format the answer does not satisfy: BFCL's
        // checker accepts both, so the schema is widened rather than the record refused.
        let record = json!({"id": "simple_python_0", "question": [[{"role": "user", "content": "x"}]],
            "function": [{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {
                "mode": {"type": "string", "enum": ["a", "b"]}, "day": {"type": "string", "format": "date"},
                "limit": {"type": "integer"}},
                "required": ["mode", "day"]}}]});
        let answer =
            json!([{"f": {"mode": ["c"], "day": ["tomorrow", "2026-01-02"], "limit": [null, ""]}}]);
        let kept = translate_record(&record, Some(&answer), &Toolset::default()).unwrap();
        let schema = &kept.new_tools[0].1["inputSchema"];
        let validator = compile_object_schema(schema).unwrap();
        for arguments in [
            json!({"mode": "c", "day": "tomorrow"}),
            json!({"mode": "a", "day": "2026-01-02", "limit": null}),
        ] {
            assert!(
                validator.is_valid(&arguments),
                "{arguments} against {schema}"
            );
        }
        assert!(!validator.is_valid(&json!({"mode": "d", "day": "2026-01-02"})));
        assert!(
            !validator.is_valid(&json!({"mode": "a", "day": "2026-01-02", "extra": 1})),
            "undeclared arguments are rejected"
        );
        assert_eq!(kept.task["expect"][0]["args"]["mode"], json!(["c"]));
        assert!(
            kept.notes
                .iter()
                .any(|n| n.contains("f.mode: schema widened")),
            "{:?}",
            kept.notes
        );
        // A required parameter cannot be left out, whatever the answer's `""` says.
        let answer = json!([{"f": {"mode": ["a", ""], "day": ["2026-01-02"]}}]);
        let kept = translate_record(&record, Some(&answer), &Toolset::default()).unwrap();
        assert_eq!(kept.task["expect"][0]["args"]["mode"], json!(["a"]));
        let answer = json!([{"f": {"mode": [""], "day": ["2026-01-02"]}}]);
        let refused = translate_record(&record, Some(&answer), &Toolset::default())
            .err()
            .unwrap();
        assert!(
            refused.contains("BFCL's checker passes no call either"),
            "{refused}"
        );
        let answer = json!([{"f": {"mode": [], "day": ["2026-01-02"]}}]);
        let refused = translate_record(&record, Some(&answer), &Toolset::default())
            .err()
            .unwrap();
        assert!(refused.contains("lists no acceptable value"), "{refused}");
    }

    #[test]
    fn an_enum_of_elements_on_an_array_moves_into_its_items() {
        let record = json!({"id": "live_simple_0-0-0", "question": [[{"role": "user", "content": "x"}]],
            "function": [{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {
                "metrics": {"type": "array", "items": {"type": "string"}, "enum": ["trust", "view"]}},
                "required": ["metrics"]}}]});
        let answer = json!([{"f": {"metrics": [["view"]]}}]);
        let translated = translate_record(&record, Some(&answer), &Toolset::default()).unwrap();
        let metrics = &translated.new_tools[0].1["inputSchema"]["properties"]["metrics"];
        assert_eq!(metrics["items"]["enum"], json!(["trust", "view"]));
        assert!(metrics.get("enum").is_none());
        assert!(
            translated
                .notes
                .iter()
                .any(|n| n.contains("moved into its `items`"))
        );
    }
}
