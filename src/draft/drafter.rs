//! The drafter's side of an ask: put to the model that writes (`backend::JsonWriter`) through the
//! `submit_requests` tool, and its reply checked against the ask's schema before anything is taken
//! from it: a reply that is not the JSON asked for is an error naming why, never a candidate.

use super::asks::Ask;
use crate::backend::{JsonAsk, JsonWriter};
use crate::registry::compile_schema;
use serde_json::{Value, json};

/// The tool a hosted drafter submits its requests through.
pub const SUBMIT_TOOL: &str = "submit_requests";

/// The drafter's reply to one ask, checked against the ask's schema.
pub async fn write(drafter: &JsonWriter, ask: &Ask) -> Result<Value, String> {
    let written = drafter
        .write_json(&JsonAsk {
            id: &ask.id,
            system: &ask.system,
            user: &ask.user,
            schema: &ask.schema,
            max_tokens: ask.max_tokens,
            submit: (
                SUBMIT_TOOL,
                "Submit the messages you wrote, with their tool calls.",
            ),
        })
        .await?;
    check_shape(&written, &ask.schema)?;
    Ok(written)
}

/// The reply follows the ask's schema — but for the expected calls' arguments, which need only be
/// objects here (each is checked against its tool's schema with the candidate it belongs to, so one
/// bad call does not cost the reply's other requests), and the style labels, which may be left out.
/// Otherwise the validator's first complaint.
fn check_shape(reply: &Value, schema: &Value) -> Result<(), String> {
    let mut schema = schema.clone();
    if let Some(Value::Array(items)) = schema.pointer_mut("/properties/requests/prefixItems") {
        for item in items {
            if let Some(arguments) = item.pointer_mut("/properties/arguments") {
                *arguments = json!({"type": "object"});
            }
            // The style label helps the writer; a reply without it is as usable.
            if let Some(Value::Array(required)) = item.get_mut("required") {
                required.retain(|r| r != "style");
            }
        }
    }
    let validator = compile_schema(&schema).map_err(|e| format!("the ask's schema: {e}"))?;
    match validator.iter_errors(reply).next() {
        None => Ok(()),
        Some(error) => Err(format!(
            "the drafter's reply is not the JSON asked for (at {:?}: {error})",
            error.instance_path().to_string()
        )),
    }
}
