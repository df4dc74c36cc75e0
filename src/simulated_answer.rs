//! A simulated answer for a tool that has none: what `import` gives each tool of a server it
//! snapshots, and what a JSON toolset holding a plain `tools/list` result gets when it is loaded.
//! Structured content built from the tool's `outputSchema` (strings filled with placeholders naming
//! the field and the tool, checked against the schema), else a text naming the tool and echoing the
//! arguments. Nothing here pretends to be the server's real answer, and the notes say so.

use crate::gold_arguments::example_instance;
use crate::registry::compile_schema;
use serde_json::{Value, json};

/// Adds a simulated answer to a tool: structured content from its `outputSchema` (strings filled
/// with placeholders), else a text naming the tool and echoing its arguments.
pub fn with_simulated_answer(mut tool: Value, notes: &mut Vec<String>) -> Value {
    let name = tool["name"].as_str().unwrap_or("").to_string();
    let behavior = match tool.get("outputSchema").cloned() {
        Some(schema) => {
            let validator = compile_schema(&schema).ok();
            let valid = |instance: &Value| validator.as_ref().is_some_and(|v| v.is_valid(instance));
            let plain = example_instance(&schema, &schema);
            let mut instance = plain.clone();
            fill_in(&mut instance, &schema, &schema, &name, "");
            if !valid(&instance) {
                // The placeholders broke a constraint (a pattern, a length): the schema's own
                // minimal instance, empty strings filled where that still validates.
                instance = plain;
                let before = instance.clone();
                fill_in(&mut instance, &Value::Null, &schema, &name, "");
                if !valid(&instance) {
                    instance = before;
                }
            }
            if valid(&instance) && instance.is_object() {
                notes.push(format!(
                    "{name}: simulated structured output built from its outputSchema; edit it to look real"
                ));
                json!({ "structured": instance })
            } else {
                notes.push(format!("{name}: no structured output could be built from its outputSchema; it answers with an error until you add one"));
                json!({ "error": format!("mcpick has no simulated output for {name}: add `behavior.structured` matching its outputSchema to this toolset file") })
            }
        }
        None => {
            let parameters: Vec<String> = tool["inputSchema"]["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(parameter, _)| format!("{parameter}={{{parameter}}}"))
                .collect();
            json!({ "text": format!("(simulated by mcpick) {name} called with {}", parameters.join(", ")) })
        }
    };
    if let Value::Object(object) = &mut tool {
        object.insert("behavior".into(), behavior);
    }
    tool
}

/// Fills a built instance so it says something: each empty string becomes a placeholder naming
/// its field and the tool, and each empty array (whose schema gives its items) one item.
fn fill_in(value: &mut Value, schema: &Value, root: &Value, tool: &str, field: &str) {
    let schema = resolved(schema, root);
    match value {
        Value::String(text) if text.is_empty() => {
            let field = if field.is_empty() { "value" } else { field };
            *text = format!("(simulated {field} of {tool})");
        }
        Value::Object(object) => {
            for (key, nested) in object.iter_mut() {
                let property = &schema["properties"][key.as_str()];
                fill_in(nested, property, root, tool, key);
            }
        }
        Value::Array(items) => {
            let item_schema = resolved(&schema["items"], root);
            if items.is_empty() && item_schema.is_object() {
                items.push(example_instance(item_schema, root));
            }
            for item in items.iter_mut() {
                fill_in(item, item_schema, root, tool, field);
            }
        }
        _ => {}
    }
}

/// A schema with a local `$ref` followed, and of `anyOf` / `oneOf` the first branch.
fn resolved<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let schema = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/"))
        .and_then(|target| target.split('/').try_fold(root, |node, key| node.get(key)))
        .unwrap_or(schema);
    ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key)?.as_array()?.first())
        .map_or(schema, |branch| resolved(branch, root))
}
