//! The conformance fixtures that ask the client for input — sampling, elicitation, roots — served in
//! both eras through `input_required::Dialogue`: the 2025 scenarios see real server-to-client
//! requests, the 2026-07-28 ones (`input-required-result-*`, `test_missing_capability`,
//! `test_streaming_elicitation`) see `input_required` results and signed request states. Each
//! fixture is its dialogue and what it answers once the last round is in.

use super::fixtures::fixture;
use super::input_required::{Dialogue, InputRequest, Interim, RoundInput};
use super::session::ToolCall;
use crate::model::Tool;
use serde_json::{Map, Value, json};

/// The fixture tools' definitions.
pub fn tools() -> Vec<Tool> {
    let none = json!({ "type": "object", "additionalProperties": false });
    let mut tools = vec![
        fixture(
            "test_sampling",
            "Asks the client's model to complete a prompt (conformance fixture).",
            json!({ "type": "object", "properties": { "prompt": { "type": "string", "description": "The prompt to send" } }, "required": ["prompt"] }),
        ),
        fixture(
            "test_elicitation",
            "Asks the user for a username and an email address (conformance fixture).",
            json!({ "type": "object", "properties": { "message": { "type": "string", "description": "What to ask the user" } }, "required": ["message"] }),
        ),
    ];
    for (name, description) in [
        (
            "test_elicitation_sep1034_defaults",
            "Asks the user for fields that have defaults",
        ),
        (
            "test_elicitation_sep1330_enums",
            "Asks the user to pick from every enum style",
        ),
        (
            "test_streaming_elicitation",
            "Asks the user for a name, mid-call",
        ),
        (
            "test_missing_capability",
            "Needs the client's sampling capability",
        ),
        (
            "test_input_required_result_elicitation",
            "Asks the user's name",
        ),
        (
            "test_input_required_result_sampling",
            "Asks the client's model for a reply",
        ),
        (
            "test_input_required_result_list_roots",
            "Asks the client for its roots",
        ),
        (
            "test_input_required_result_request_state",
            "Asks for a confirmation, carrying requestState",
        ),
        (
            "test_input_required_result_multiple_inputs",
            "Asks for elicitation, sampling and roots at once",
        ),
        (
            "test_input_required_result_multi_round",
            "Asks in two rounds, a new requestState each",
        ),
        (
            "test_input_required_result_tampered_state",
            "Refuses a requestState it did not sign",
        ),
        (
            "test_input_required_result_capabilities",
            "Asks only what the client declared it can answer",
        ),
    ] {
        tools.push(fixture(
            name,
            &format!("{description} (conformance fixture)."),
            none.clone(),
        ));
    }
    tools
}

/// Runs an input fixture; `None` when `name` is not one.
pub async fn run(
    name: &str,
    call: &ToolCall<'_>,
    arguments: &Map<String, Value>,
    input: &RoundInput,
) -> Option<Interim> {
    let dialogue = dialogue(name, call, arguments)?;
    Some(match dialogue.gather(call, input, name, arguments).await {
        Ok(answers) => Ok(finish(name, &answers)),
        Err(interim) => interim,
    })
}

fn elicit(key: &'static str, message: &str, requested_schema: Value) -> InputRequest {
    InputRequest {
        key,
        method: "elicitation/create",
        params: json!({ "mode": "form", "message": message, "requestedSchema": requested_schema }),
    }
}

fn sample(key: &'static str, prompt: &str) -> InputRequest {
    InputRequest {
        key,
        method: "sampling/createMessage",
        params: json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
            "maxTokens": 100
        }),
    }
}

fn roots(key: &'static str) -> InputRequest {
    InputRequest {
        key,
        method: "roots/list",
        params: json!({}),
    }
}

fn name_schema() -> Value {
    json!({ "type": "object", "properties": { "name": { "type": "string", "description": "Your name" } }, "required": ["name"] })
}

fn dialogue(name: &str, call: &ToolCall<'_>, arguments: &Map<String, Value>) -> Option<Dialogue> {
    let stateful = |rounds: Vec<Vec<InputRequest>>| Dialogue {
        rounds,
        stateful: true,
    };
    Some(match name {
        "test_sampling" => {
            let prompt = arguments
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or("");
            Dialogue::single(vec![sample("reply", prompt)])
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
            Dialogue::single(vec![elicit("user_info", message, schema)])
        }
        "test_elicitation_sep1034_defaults" => Dialogue::single(vec![elicit(
            "user_info",
            "Please review and update the form fields with defaults",
            defaults_schema(),
        )]),
        "test_elicitation_sep1330_enums" => Dialogue::single(vec![elicit(
            "user_info",
            "Please select options from the enum fields",
            enums_schema(),
        )]),
        "test_streaming_elicitation" | "test_input_required_result_elicitation" => {
            Dialogue::single(vec![elicit(
                "user_name",
                "What is your name?",
                name_schema(),
            )])
        }
        "test_missing_capability" | "test_input_required_result_sampling" => {
            Dialogue::single(vec![sample("reply", "Say hello in one word.")])
        }
        "test_input_required_result_list_roots" => Dialogue::single(vec![roots("roots")]),
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] });
            stateful(vec![vec![elicit("confirm", "Go ahead?", schema)]])
        }
        "test_input_required_result_multiple_inputs" => stateful(vec![vec![
            elicit("user_name", "What is your name?", name_schema()),
            sample("reply", "Say hello in one word."),
            roots("roots"),
        ]]),
        "test_input_required_result_multi_round" => {
            let color = json!({ "type": "object", "properties": { "color": { "type": "string" } }, "required": ["color"] });
            stateful(vec![
                vec![elicit("user_name", "What is your name?", name_schema())],
                vec![elicit(
                    "favorite_color",
                    "And your favourite colour?",
                    color,
                )],
            ])
        }
        "test_input_required_result_capabilities" => {
            // Ask only what this request's client can answer: elicitation if declared, else sampling.
            let request = if call.session.client_declared("elicitation") {
                elicit("user_name", "What is your name?", name_schema())
            } else {
                sample("reply", "Say hello in one word.")
            };
            Dialogue::single(vec![request])
        }
        _ => return None,
    })
}

/// What a fixture answers once it has the answers of its last round.
fn finish(name: &str, answers: &Map<String, Value>) -> Value {
    let text = |text: String| json!({ "content": [{ "type": "text", "text": text }] });
    let reply_text = |key: &str| {
        answers
            .get(key)
            .and_then(|a| a.get("content"))
            .and_then(|c| c.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    match name {
        "test_sampling" => text(format!("LLM response: {}", reply_text("reply"))),
        "test_elicitation"
        | "test_elicitation_sep1034_defaults"
        | "test_elicitation_sep1330_enums" => {
            let reply = answers.get("user_info").cloned().unwrap_or(Value::Null);
            let action = reply
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            let content = reply.get("content").cloned().unwrap_or(Value::Null);
            text(format!(
                "Elicitation completed: action={action}, content={content}"
            ))
        }
        _ => {
            let parts: Vec<String> = answers
                .iter()
                .map(|(key, answer)| format!("{key}={answer}"))
                .collect();
            text(format!("Completed with {}", parts.join(", ")))
        }
    }
}

fn defaults_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
            "verified": { "type": "boolean", "description": "Verification status", "default": true }
        }
    })
}

fn enums_schema() -> Value {
    json!({
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
    })
}
