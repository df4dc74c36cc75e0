//! The tools the official MCP conformance suite (`@modelcontextprotocol/conformance`) calls by name,
//! served beside a toolset's own tools only with `serve --conformance-fixtures`. Each answers exactly
//! what the suite's scenario checks: content of every block type, an `isError` result, three progress
//! notifications before the response, three log messages, a tool whose input schema uses JSON
//! Schema 2020-12 keywords verbatim, one with an `x-mcp-header` parameter, and one that announces a
//! tool-list change. The fixtures that ask the client for input live in `fixtures_input`.

use super::fixtures_input;
use super::input_required::{Interim, RoundInput};
use super::session::{LogLevel, ToolCall};
use crate::model::{Behavior, Tool};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// A 1×1 red PNG, the image the suite's reference server returns.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file (the suite requires the mimeType `audio/wav`).
const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
/// Pause between a fixture's notifications, as the reference server spaces them.
const STEP: Duration = Duration::from_millis(50);

/// The fixture tools' definitions.
pub fn tools() -> Vec<Tool> {
    let no_arguments = json!({ "type": "object", "additionalProperties": false });
    let mut tools: Vec<Tool> = [
        (
            "test_simple_text",
            "Returns a simple text response (conformance fixture).",
        ),
        (
            "test_image_content",
            "Returns a small PNG image (conformance fixture).",
        ),
        (
            "test_audio_content",
            "Returns a short WAV clip (conformance fixture).",
        ),
        (
            "test_embedded_resource",
            "Returns an embedded text resource (conformance fixture).",
        ),
        (
            "test_multiple_content_types",
            "Returns text, an image and a resource together (conformance fixture).",
        ),
        (
            "test_tool_with_logging",
            "Sends three log messages while it runs (conformance fixture).",
        ),
        (
            "test_error_handling",
            "Always fails with an isError result (conformance fixture).",
        ),
        (
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100 while it runs (conformance fixture).",
        ),
        (
            "test_logging_tool",
            "Sends three log messages while it runs (conformance fixture).",
        ),
        (
            "test_trigger_tool_change",
            "Announces that the tool list changed (conformance fixture).",
        ),
    ]
    .into_iter()
    .map(|(name, description)| fixture(name, description, no_arguments.clone()))
    .collect();
    tools.push(fixture(
        "test_custom_header",
        "Echoes a region that also travels as the Mcp-Param-Region header (conformance fixture).",
        json!({ "type": "object", "properties": {
            "region": { "type": "string", "description": "A region name", "x-mcp-header": "Region" }
        }, "required": ["region"] }),
    ));
    tools.extend(fixtures_input::tools());
    tools.push(fixture(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features (conformance fixture).",
        json_schema_2020_12(),
    ));
    tools
}

pub(super) fn fixture(name: &str, description: &str, input_schema: Value) -> Tool {
    Tool {
        name: name.to_string(),
        title: None,
        description: Some(description.to_string()),
        input_schema,
        output_schema: None,
        annotations: None,
        icons: None,
        execution: None,
        meta: None,
        behavior: Behavior::default(),
        line: None,
    }
}

/// The input schema the `json-schema-2020-12` scenario expects to find verbatim.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}

fn text(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

/// Runs a fixture tool; `None` when `name` is not one.
pub async fn run(
    name: &str,
    call: &ToolCall<'_>,
    arguments: &Map<String, Value>,
    progress: Option<&Value>,
    input: &RoundInput,
) -> Option<Interim> {
    Some(Ok(match name {
        "test_simple_text" => text("This is a simple text response for testing."),
        "test_image_content" => {
            json!({ "content": [{ "type": "image", "data": PNG_BASE64, "mimeType": "image/png" }] })
        }
        "test_audio_content" => {
            json!({ "content": [{ "type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav" }] })
        }
        "test_embedded_resource" => json!({ "content": [{ "type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."
        } }] }),
        "test_multiple_content_types" => json!({ "content": [
            { "type": "text", "text": "Multiple content types test:" },
            { "type": "image", "data": PNG_BASE64, "mimeType": "image/png" },
            { "type": "resource", "resource": {
                "uri": "test://mixed-content-resource", "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"
            } }
        ] }),
        "test_tool_with_logging" | "test_logging_tool" => {
            for (i, message) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .iter()
            .enumerate()
            {
                if i > 0 {
                    tokio::time::sleep(STEP).await;
                }
                call.session
                    .log(call.outbox, LogLevel::Info, "conformance", json!(message));
            }
            text("Tool with logging executed successfully")
        }
        "test_error_handling" => json!({
            "content": [{ "type": "text", "text": "This tool intentionally returns an error for testing" }],
            "isError": true
        }),
        "test_tool_with_progress" => {
            if let Some(token) = progress {
                for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(STEP).await;
                    }
                    call.progress(
                        token,
                        step,
                        Some(100.0),
                        Some(&format!("Completed step {step} of 100")),
                    );
                }
            }
            text(&progress.map_or_else(|| "no progress token".to_string(), |t| t.to_string()))
        }
        "test_trigger_tool_change" => {
            call.session.server.announce_tools_changed();
            text("The tool list change was announced")
        }
        "test_custom_header" => text(&format!(
            "Region: {}",
            arguments
                .get("region")
                .and_then(Value::as_str)
                .unwrap_or("")
        )),
        "json_schema_2020_12_tool" => {
            text(&format!("Received: {}", Value::Object(arguments.clone())))
        }
        _ => return fixtures_input::run(name, call, arguments, input).await,
    }))
}
