//! The tools the official conformance suite calls by name, served only with `--conformance-fixtures`.
//! Placeholder list until the scenario details are confirmed; see `tools()`.

use super::call::ToolCall;
use crate::model::Tool;
use serde_json::{Map, Value};

/// The fixture tools' definitions.
pub fn tools() -> Vec<Tool> {
    Vec::new()
}

/// Runs a fixture tool; `None` when `name` is not one.
pub async fn run(
    _name: &str,
    _call: &ToolCall<'_>,
    _arguments: &Map<String, Value>,
    _progress: Option<&Value>,
) -> Option<Value> {
    None
}
