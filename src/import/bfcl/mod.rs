//! The Berkeley Function Calling Leaderboard's single-turn files (`BFCL_v4_simple_python.json`,
//! `multiple`, `parallel`, `parallel_multiple`, `irrelevance`, `live_*`, the Java and JavaScript
//! files): JSON Lines of `{id, question, function}`, with possible answers in a second file of
//! `{id, ground_truth: [{TOOL: {param: [acceptable values]}}]}`.
//!
//! Several answers are parallel calls in any order (`expect_all_of`); irrelevance records expect no
//! call; live relevance records expect any call of a listed tool. Each task keeps its own function
//! list. Functions that share a name but differ are kept apart in the toolset (`name-v2`, ...) and
//! shown to their task under the name the record uses.
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
//!
//! This file reads the questions and answers files and assembles the import: each record
//! translated into a task, the toolset, and the check that every gold answer can be reached.
//! `records` reads a record's category and conversation, `functions` translates its functions into
//! tools, `answers` its possible answers into expectations, and `source_text` gives the patterns
//! for Java and JavaScript answers.

mod answers;
mod functions;
mod records;
mod source_text;
#[cfg(test)]
mod tests;

use super::{Imported, Skipped};
use crate::gold_arguments::gold_arguments;
use crate::model::{ArgMatcher, ScoringProfile};
use crate::registry::compile_object_schema;
use crate::score::bfcl::Language;
use crate::score::match_arguments;
use answers::expected_calls;
use functions::translate_function;
use records::conversation;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};

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
    let arguments = gold_arguments(&matchers, schema);
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
