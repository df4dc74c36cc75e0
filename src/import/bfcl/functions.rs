//! BFCL functions as MCP tool definitions: the description with its language hint, the parameters'
//! schema translated from BFCL's dialect into JSON Schema, and the widening of a parameter's schema
//! to accept answer values the translation rejects.
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

use crate::registry::compile_object_schema;
use crate::score::bfcl::Language;
use serde_json::{Map, Value, json};

/// A BFCL function as an MCP tool definition.
pub fn translate_function(
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

/// Widens a parameter's schema to also accept answer values the translation rejects (a `null`, a
/// `"dontcare"` for an integer, a string outside an enum, a date not in `format: date`): the
/// translation was stricter than BFCL, whose checker accepts them.
pub fn widen(schema: &mut Value, outside: &[Value], at: &str, notes: &mut Vec<String>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::bfcl::tests::{imported, tool};
    use crate::import::bfcl::{Toolset, translate_record};

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
