//! The tools the official MCP conformance suite (`@modelcontextprotocol/conformance`) calls by name,
//! served beside a toolset's own tools only with `serve --conformance-fixtures`. Each answers exactly
//! what the suite's scenario checks: content of every block type, an `isError` result, three progress
//! notifications before the response, three log messages, sampling and elicitation requests sent to the
//! client mid-call, and a tool whose input schema uses JSON Schema 2020-12 keywords verbatim.

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
            "test_elicitation_sep1034_defaults",
            "Asks the user for fields that have defaults (conformance fixture).",
        ),
        (
            "test_elicitation_sep1330_enums",
            "Asks the user to pick from every enum style (conformance fixture).",
        ),
    ]
    .into_iter()
    .map(|(name, description)| fixture(name, description, no_arguments.clone()))
    .collect();
    tools.push(fixture(
        "test_sampling",
        "Asks the client's model to complete a prompt (conformance fixture).",
        json!({ "type": "object", "properties": { "prompt": { "type": "string", "description": "The prompt to send" } }, "required": ["prompt"] }),
    ));
    tools.push(fixture(
        "test_elicitation",
        "Asks the user for a username and an email address (conformance fixture).",
        json!({ "type": "object", "properties": { "message": { "type": "string", "description": "What to ask the user" } }, "required": ["message"] }),
    ));
    tools.push(fixture(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features (conformance fixture).",
        json_schema_2020_12(),
    ));
    tools
}

fn fixture(name: &str, description: &str, input_schema: Value) -> Tool {
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
) -> Option<Value> {
    Some(match name {
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
        "test_tool_with_logging" => {
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
        "test_sampling" => {
            let prompt = arguments
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or("");
            let params = json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
                "maxTokens": 100
            });
            if !call.session.client_declared("sampling") {
                return Some(client_refused(
                    "sampling",
                    "the client did not declare the sampling capability",
                ));
            }
            match call
                .session
                .request_client(call.outbox, "sampling/createMessage", params)
                .await
            {
                Ok(reply) => {
                    let answer = reply
                        .get("content")
                        .and_then(|c| c.get("text"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    text(&format!("LLM response: {answer}"))
                }
                Err(e) => client_refused("sampling", &e.message),
            }
        }
        "test_elicitation" => {
            let message = arguments
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("Please provide your information");
            let schema = json!({
                "type": "object",
                "properties": {
                    "username": { "type": "string", "description": "User's response" },
                    "email": { "type": "string", "description": "User's email address" }
                },
                "required": ["username", "email"]
            });
            elicit(call, message, schema).await
        }
        "test_elicitation_sep1034_defaults" => {
            let schema = json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "User name", "default": "John Doe" },
                    "age": { "type": "integer", "description": "User age", "default": 30 },
                    "score": { "type": "number", "description": "User score", "default": 95.5 },
                    "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
                    "verified": { "type": "boolean", "description": "Verification status", "default": true }
                }
            });
            elicit(
                call,
                "Please review and update the form fields with defaults",
                schema,
            )
            .await
        }
        "test_elicitation_sep1330_enums" => {
            let schema = json!({
                "type": "object",
                "properties": {
                    "untitledSingle": { "type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"] },
                    "titledSingle": { "type": "string", "description": "Select one option with titles", "oneOf": [
                        { "const": "value1", "title": "First Option" },
                        { "const": "value2", "title": "Second Option" },
                        { "const": "value3", "title": "Third Option" }
                    ] },
                    "legacyEnum": { "type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"] },
                    "untitledMulti": { "type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                        "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
                    "titledMulti": { "type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
                        "items": { "anyOf": [
                            { "const": "value1", "title": "First Choice" },
                            { "const": "value2", "title": "Second Choice" },
                            { "const": "value3", "title": "Third Choice" }
                        ] } }
                },
                "required": []
            });
            elicit(call, "Please select options from the enum fields", schema).await
        }
        "json_schema_2020_12_tool" => {
            text(&format!("Received: {}", Value::Object(arguments.clone())))
        }
        _ => return None,
    })
}

async fn elicit(call: &ToolCall<'_>, message: &str, requested_schema: Value) -> Value {
    if !call.session.client_declared("elicitation") {
        return client_refused(
            "elicitation",
            "the client did not declare the elicitation capability",
        );
    }
    let params = json!({ "mode": "form", "message": message, "requestedSchema": requested_schema });
    match call
        .session
        .request_client(call.outbox, "elicitation/create", params)
        .await
    {
        Ok(reply) => {
            let action = reply
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            let content = reply.get("content").cloned().unwrap_or(Value::Null);
            text(&format!(
                "Elicitation completed: action={action}, content={content}"
            ))
        }
        Err(e) => client_refused("elicitation", &e.message),
    }
}

fn client_refused(what: &str, why: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": format!("The client did not complete {what}: {why}") }], "isError": true })
}
