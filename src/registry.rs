//! The immutable tool registry a server serves: tools in their listed order, a name index, and each
//! tool's input and output validators compiled exactly once. Also owns the one place where a JSON
//! Schema is compiled (`compile_schema`), so the loader's check and the server's validation can never
//! disagree about what a schema means. No I/O happens here.

use crate::model::Tool;
use jsonschema::{Draft, Validator};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Why a schema was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemaError {
    #[error("a schema must be a JSON object, found {found}")]
    NotAnObject { found: &'static str },
    #[error(
        "the schema's root \"type\" must be \"object\" (MCP requires tool schemas to describe an object), found {found}"
    )]
    RootNotObject { found: String },
    #[error(
        "unsupported \"$schema\" {uri:?}: use JSON Schema 2020-12 (omit \"$schema\"), 2019-09, draft-07, -06 or -04"
    )]
    UnsupportedDialect { uri: String },
    #[error("invalid JSON Schema: {reason}")]
    Invalid { reason: String },
}

/// Why a registry could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegistryError {
    #[error("duplicate tool name {name:?}")]
    DuplicateName { name: String },
    #[error("tool {tool:?}: {which}: {error}")]
    Schema {
        tool: String,
        which: &'static str,
        error: SchemaError,
    },
}

/// One served tool with its compiled validators.
#[derive(Debug)]
pub struct RegisteredTool {
    pub tool: Tool,
    pub input: Validator,
    pub output: Option<Validator>,
    /// Each parameter's schema `default`, gathered once: response templates fill omitted arguments from it.
    pub defaults: Map<String, Value>,
}

/// The tools one server exposes, in order, with validators compiled once.
#[derive(Debug)]
pub struct ToolRegistry {
    tools: Vec<RegisteredTool>,
    index: HashMap<String, usize>,
}

impl ToolRegistry {
    /// Compiles every tool's schemas; fails on the first duplicate name or bad schema.
    pub fn build(tools: Vec<Tool>) -> Result<ToolRegistry, RegistryError> {
        let mut index = HashMap::with_capacity(tools.len());
        let mut registered = Vec::with_capacity(tools.len());
        for tool in tools {
            if index.insert(tool.name.clone(), registered.len()).is_some() {
                return Err(RegistryError::DuplicateName { name: tool.name });
            }
            let schema_error = |which, error| RegistryError::Schema {
                tool: tool.name.clone(),
                which,
                error,
            };
            let input = compile_object_schema(&tool.input_schema)
                .map_err(|e| schema_error("inputSchema", e))?;
            let output = match &tool.output_schema {
                Some(schema) => Some(
                    compile_object_schema(schema).map_err(|e| schema_error("outputSchema", e))?,
                ),
                None => None,
            };
            let defaults = parameter_defaults(&tool.input_schema);
            registered.push(RegisteredTool {
                tool,
                input,
                output,
                defaults,
            });
        }
        Ok(ToolRegistry {
            tools: registered,
            index,
        })
    }

    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    pub fn tools(&self) -> &[RegisteredTool] {
        &self.tools
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// The `default` of each property of an input schema.
fn parameter_defaults(schema: &Value) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    properties
        .into_iter()
        .flatten()
        .filter_map(|(name, property)| property.get("default").map(|d| (name.clone(), d.clone())))
        .collect()
}

/// Compiles a tool's input or output schema: a JSON object whose root type is "object".
pub fn compile_object_schema(schema: &Value) -> Result<Validator, SchemaError> {
    let object = schema.as_object().ok_or(SchemaError::NotAnObject {
        found: json_type_name(schema),
    })?;
    match object.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        other => {
            let found = other.map_or_else(|| "no \"type\"".to_string(), Value::to_string);
            return Err(SchemaError::RootNotObject { found });
        }
    }
    compile_schema(schema)
}

/// A property schema in the context of its root, so `$ref: "#/$defs/..."` still resolves.
pub fn property_schema(input_schema: &Value, property: &str) -> Option<Value> {
    let mut schema = input_schema.get("properties")?.get(property)?.clone();
    if let Value::Object(object) = &mut schema {
        for defs in ["$defs", "definitions"] {
            if let Some(d) = input_schema.get(defs) {
                object.entry(defs).or_insert_with(|| d.clone());
            }
        }
        if let Some(dialect) = input_schema.get("$schema") {
            object.entry("$schema").or_insert_with(|| dialect.clone());
        }
    }
    Some(schema)
}

/// Compiles any schema: 2020-12 unless `$schema` names another supported draft; formats are asserted
/// (a tool that declares `"format": "date"` rejects "14/03/2026", which is what self-correction tasks
/// need); remote `$ref`s are never fetched (the crate is built without its network resolvers).
pub fn compile_schema(schema: &Value) -> Result<Validator, SchemaError> {
    let draft = match schema.get("$schema") {
        None => Draft::Draft202012,
        Some(uri) => dialect(uri).ok_or_else(|| SchemaError::UnsupportedDialect {
            uri: display_uri(uri),
        })?,
    };
    jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| SchemaError::Invalid {
            reason: e.to_string(),
        })
}

fn dialect(uri: &Value) -> Option<Draft> {
    let uri = uri.as_str()?.trim_end_matches('#');
    let uri = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))?;
    match uri {
        "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft202012),
        "json-schema.org/draft/2019-09/schema" => Some(Draft::Draft201909),
        "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
        "json-schema.org/draft-06/schema" => Some(Draft::Draft6),
        "json-schema.org/draft-04/schema" => Some(Draft::Draft4),
        _ => None,
    }
}

fn display_uri(uri: &Value) -> String {
    uri.as_str().map_or_else(|| uri.to_string(), str::to_string)
}

/// The JSON type name of a value, for messages.
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_default_to_2020_12_and_assert_formats() {
        let v = compile_object_schema(&json!({
            "type": "object",
            "properties": {"date": {"type": "string", "format": "date"}, "n": {"type": "integer", "minimum": 1}},
            "required": ["date"],
            "additionalProperties": false
        }))
        .unwrap();
        assert!(v.is_valid(&json!({"date": "2026-03-14"})));
        assert!(!v.is_valid(&json!({"date": "14/03/2026"})));
        assert!(!v.is_valid(&json!({"date": "2026-03-14", "n": 0})));
        assert!(!v.is_valid(&json!({"date": "2026-03-14", "extra": 1})));
        assert!(!v.is_valid(&json!({})));
    }

    #[test]
    fn bad_schemas_are_refused_with_a_reason() {
        assert_eq!(
            compile_object_schema(&json!([])).unwrap_err(),
            SchemaError::NotAnObject { found: "an array" }
        );
        assert!(matches!(
            compile_object_schema(&json!({"type": "string"})),
            Err(SchemaError::RootNotObject { .. })
        ));
        assert!(matches!(
            compile_object_schema(
                &json!({"type": "object", "properties": {"a": {"type": "strnig"}}})
            ),
            Err(SchemaError::Invalid { .. })
        ));
        assert!(matches!(
            compile_object_schema(
                &json!({"$schema": "https://example.com/my-dialect", "type": "object"})
            ),
            Err(SchemaError::UnsupportedDialect { .. })
        ));
        assert!(
            compile_object_schema(
                &json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})
            )
            .is_ok()
        );
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/schema.json"}}});
        assert!(matches!(
            compile_object_schema(&schema),
            Err(SchemaError::Invalid { .. })
        ));
    }
}
