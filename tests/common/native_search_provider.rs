//! A local stand-in for the two provider-native tool searches, speaking their documented wire
//! formats on 127.0.0.1 (port 0): Anthropic's Messages API with the tool search tool (beta
//! `advanced-tool-use-2025-11-20`; tools with `defer_loading: true`; a reply's `server_tool_use`
//! and `tool_search_tool_result` blocks with `tool_reference`s, then `tool_use`) and OpenAI's
//! Responses API with `tool_search` (deferred functions; `tool_search_call`, `tool_search_output`
//! with the loaded definitions, then `function_call`). It checks each request — the search tool
//! offered, every tool deferred, a call of a deferred tool sent back only after the search that
//! loaded it, every result answering a call — and records what is wrong. It answers by a word in
//! the prompt: `native-nothing` searches and finds nothing, then says so; `native-weather`
//! searches for "weather", finds `weather_get` and calls it for Oslo; once a tool result is in the
//! conversation it answers with text.

use super::mock_provider::{Dialect, TEST_KEY};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct NativeState {
    pub violations: Mutex<Vec<String>>,
    pub bodies: Mutex<Vec<Value>>,
    dialect: Option<Dialect>,
}

pub struct NativeSearchProvider {
    pub base_url: String,
    pub state: Arc<NativeState>,
    _runtime: tokio::runtime::Runtime,
}

impl NativeSearchProvider {
    pub fn start(dialect: Dialect) -> NativeSearchProvider {
        let state = Arc::new(NativeState {
            dialect: Some(dialect),
            ..NativeState::default()
        });
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&state));
        let (base_url, runtime) = super::mock_provider::serve_provider(dialect, app);
        NativeSearchProvider {
            base_url,
            state,
            _runtime: runtime,
        }
    }

    pub fn violations(&self) -> Vec<String> {
        self.state.violations.lock().unwrap().clone()
    }
}

const WEATHER_SCHEMA: &str =
    r#"{"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}"#;

async fn handle(
    State(state): State<Arc<NativeState>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let dialect = state.dialect.unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    state.bodies.lock().unwrap().push(body.clone());
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let mut problems = Vec::new();
    let reply = match dialect {
        Dialect::Anthropic => {
            if uri.path() != "/v1/messages" {
                problems.push(format!("path {}", uri.path()));
            }
            if header("x-api-key") != Some(TEST_KEY) {
                problems.push("x-api-key".into());
            }
            if !header("anthropic-beta").is_some_and(|b| {
                b.split(',')
                    .any(|b| b.trim() == "advanced-tool-use-2025-11-20")
            }) {
                problems.push(format!("anthropic-beta {:?}", header("anthropic-beta")));
            }
            check_anthropic(&body, &mut problems);
            anthropic_reply(&body)
        }
        Dialect::OpenAi => {
            if uri.path() != "/v1/responses" {
                problems.push(format!("path {}", uri.path()));
            }
            if header("authorization") != Some(&format!("Bearer {TEST_KEY}")) {
                problems.push("authorization".into());
            }
            check_responses(&body, &mut problems);
            responses_reply(&body)
        }
    };
    if !problems.is_empty() {
        state.violations.lock().unwrap().extend(problems.clone());
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": {"message": problems.join("; ")}})),
        )
            .into_response();
    }
    (StatusCode::OK, axum::Json(reply)).into_response()
}

/// The tool search tool first, every other tool deferred; a `tool_use` only after the search
/// result that referenced its tool, in the same assistant message; each result answering a call.
fn check_anthropic(body: &Value, problems: &mut Vec<String>) {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    match tools.first() {
        Some(t)
            if t["type"] == "tool_search_tool_bm25_20251119"
                && t["name"] == "tool_search_tool_bm25" => {}
        other => problems.push(format!(
            "the first tool is not the BM25 tool search tool: {other:?}"
        )),
    }
    for tool in tools.iter().skip(1) {
        if tool["defer_loading"] != true || tool["input_schema"]["type"] != "object" {
            problems.push(format!("a tool not deferred: {tool}"));
        }
    }
    let mut open: Vec<String> = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        let blocks = message["content"].as_array().cloned().unwrap_or_default();
        if message["role"] == "assistant" {
            let mut referenced: Vec<String> = Vec::new();
            let mut searches: Vec<String> = Vec::new();
            open.clear();
            for block in &blocks {
                match block["type"].as_str() {
                    Some("server_tool_use") => {
                        searches.push(block["id"].as_str().unwrap_or("").into())
                    }
                    Some("tool_search_tool_result") => {
                        if !searches
                            .iter()
                            .any(|id| block["tool_use_id"] == id.as_str())
                        {
                            problems.push(format!("a search result for no search: {block}"));
                        }
                        for reference in block["content"]["tool_references"]
                            .as_array()
                            .into_iter()
                            .flatten()
                        {
                            referenced.push(reference["tool_name"].as_str().unwrap_or("").into());
                        }
                    }
                    Some("tool_use") => {
                        let name = block["name"].as_str().unwrap_or("");
                        if !referenced.iter().any(|r| r == name) {
                            problems.push(format!(
                                "a call of {name}, which no search in the message loaded"
                            ));
                        }
                        open.push(block["id"].as_str().unwrap_or("").into());
                    }
                    _ => {}
                }
            }
        } else {
            let answered: Vec<String> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| b["tool_use_id"].as_str().unwrap_or("").to_string())
                .collect();
            if !open.is_empty() && answered != open {
                problems.push(format!("results {answered:?} do not answer {open:?}"));
            }
            open.clear();
        }
    }
}

fn prompt_and_answered(body: &Value, dialect: Dialect) -> (String, bool) {
    match dialect {
        Dialect::Anthropic => {
            let messages = body["messages"].as_array().cloned().unwrap_or_default();
            let prompt = messages
                .iter()
                .find_map(|m| m["content"].as_str())
                .unwrap_or("")
                .to_string();
            let answered = messages.iter().any(|m| {
                m["content"]
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| b["type"] == "tool_result"))
            });
            (prompt, answered)
        }
        Dialect::OpenAi => {
            let input = body["input"].as_array().cloned().unwrap_or_default();
            let prompt = input
                .iter()
                .find(|i| i["role"] == "user")
                .and_then(|i| i["content"].as_str())
                .unwrap_or("")
                .to_string();
            let answered = input.iter().any(|i| i["type"] == "function_call_output");
            (prompt, answered)
        }
    }
}

fn anthropic_reply(body: &Value) -> Value {
    let (prompt, answered) = prompt_and_answered(body, Dialect::Anthropic);
    let message = |content: Vec<Value>, stop: &str| {
        json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "mock-model",
            "content": content, "stop_reason": stop,
            "usage": {"input_tokens": 60, "output_tokens": 8, "server_tool_use": {"tool_search_requests": 1}}
        })
    };
    if answered {
        return message(
            vec![json!({"type": "text", "text": "It is 18 degrees in Oslo."})],
            "end_turn",
        );
    }
    let search = |query: &str, found: &[&str]| {
        vec![
            json!({"type": "server_tool_use", "id": "srvtoolu_01", "name": "tool_search_tool_bm25", "input": {"query": query}}),
            json!({"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01", "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": found.iter().map(|n| json!({"type": "tool_reference", "tool_name": n})).collect::<Vec<_>>()}}),
        ]
    };
    if prompt.contains("native-weather") {
        let mut content = search("weather", &["weather_get"]);
        content.push(json!({"type": "text", "text": "Let me check."}));
        content.push(json!({"type": "tool_use", "id": "toolu_01", "name": "weather_get", "input": {"city": "Oslo"}}));
        return message(content, "tool_use");
    }
    let mut content = search("zzzz", &[]);
    content.push(json!({"type": "text", "text": "No tool fits this request."}));
    message(content, "end_turn")
}

/// `tool_search` offered, every function deferred; a `function_call` only after a
/// `tool_search_output` that loaded it; every `function_call_output` answering a call.
fn check_responses(body: &Value, problems: &mut Vec<String>) {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    if tools.first() != Some(&json!({"type": "tool_search"})) {
        problems.push(format!(
            "the first tool is not tool_search: {:?}",
            tools.first()
        ));
    }
    for tool in tools.iter().skip(1) {
        if tool["type"] != "function"
            || tool["defer_loading"] != true
            || !tool["name"].is_string()
            || tool["parameters"]["type"] != "object"
        {
            problems.push(format!("a function not deferred: {tool}"));
        }
    }
    if body["store"] != false || !body["instructions"].is_string() {
        problems.push("store or instructions".into());
    }
    let mut loaded: Vec<String> = Vec::new();
    let mut calls: Vec<String> = Vec::new();
    for item in body["input"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("tool_search_output") => {
                for tool in item["tools"].as_array().into_iter().flatten() {
                    loaded.push(tool["name"].as_str().unwrap_or("").into());
                }
            }
            Some("function_call") => {
                let name = item["name"].as_str().unwrap_or("");
                if !loaded.iter().any(|l| l == name) || !item["arguments"].is_string() {
                    problems.push(format!("a call of {name} no search loaded before it"));
                }
                calls.push(item["call_id"].as_str().unwrap_or("").into());
            }
            Some("function_call_output") => {
                if !calls.iter().any(|c| item["call_id"] == c.as_str())
                    || !item["output"].is_string()
                {
                    problems.push(format!("an output for no call: {item}"));
                }
            }
            Some("tool_search_call") => {}
            None if item["role"] == "user" || item["role"] == "assistant" => {}
            other => problems.push(format!("an input item of type {other:?}")),
        }
    }
}

fn responses_reply(body: &Value) -> Value {
    let (prompt, answered) = prompt_and_answered(body, Dialect::OpenAi);
    let response = |output: Vec<Value>| {
        json!({
            "id": "resp_1", "object": "response", "status": "completed", "model": "mock-model",
            "output": output, "usage": {"input_tokens": 60, "output_tokens": 8, "total_tokens": 68}
        })
    };
    let text = |t: &str| {
        json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": t, "annotations": []}]})
    };
    if answered {
        return response(vec![text("It is 18 degrees in Oslo.")]);
    }
    let search = |query: &str, loaded: Vec<Value>| {
        vec![
            json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_ts1", "execution": "server",
                "status": "completed", "arguments": {"query": query}}),
            json!({"type": "tool_search_output", "id": "tso_1", "call_id": "call_ts1", "execution": "server",
                "status": "completed", "tools": loaded}),
        ]
    };
    if prompt.contains("native-weather") {
        let schema: Value = serde_json::from_str(WEATHER_SCHEMA).unwrap();
        let mut output = search(
            "weather",
            vec![
                json!({"type": "function", "name": "weather_get", "parameters": schema, "defer_loading": true}),
            ],
        );
        output.push(json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather_get",
            "arguments": "{\"city\":\"Oslo\"}", "status": "completed"}));
        return response(output);
    }
    let mut output = search("zzzz", vec![]);
    output.push(text("No tool fits this request."));
    response(output)
}
