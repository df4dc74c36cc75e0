//! A tool's parameters as other checks need them: their names for help text, a property's schema
//! in the context of its root, and a literal validated against it.

use crate::registry::{compile_schema, property_schema};
use serde_json::Value;

pub fn parameters_help(properties: &[String]) -> String {
    if properties.is_empty() {
        "the tool takes no parameters".to_string()
    } else {
        format!("the tool's parameters are: {}", properties.join(", "))
    }
}

/// Validates a literal against a property's schema; `Err` carries the first reason.
pub fn check_literal(input_schema: &Value, property: &str, literal: &Value) -> Result<(), String> {
    let Some(schema) = property_schema(input_schema, property) else {
        return Ok(());
    };
    let validator = compile_schema(&schema).map_err(|e| e.to_string())?;
    match validator.iter_errors(literal).next() {
        None => Ok(()),
        Some(error) => Err(error.to_string()),
    }
}
