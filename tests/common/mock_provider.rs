//! A local stand-in for the OpenAI Chat Completions and Anthropic Messages APIs, speaking their
//! documented wire formats on 127.0.0.1 (port 0). It checks every request it gets — path, headers,
//! body shape, tool names, that tool results answer earlier calls — and records what is wrong, and
//! it answers by a scenario word in the task's prompt:
//!
//! | word in the prompt | answer |
//! |---|---|
//! | `parallel` | two `weather_get` calls in one reply (Oslo, Bergen) |
//! | `malformed` | a call whose arguments are not JSON |
//! | `ratelimit` | first 429 with `Retry-After: 1`, then a call |
//! | a word of `LONG_WAITS` | always 429, asking for a wait nobody can serve (`Retry-After: 1e300`, a day, a date in 9999) |
//! | `flaky` | first 500, then a call |
//! | `bad-shape` | 200 with a reply in no documented shape (`tool_calls` a string; `content` a string) |
//! | `huge-reply` | a 5 MB text reply |
//! | `huge-args` | a `weather_get` call whose `city` is 20 MB long, then text |
//! | `echo-headers` | 400 whose body repeats every request header, the key's among them |
//! | `echo-key` | the request's key in the reply's text and in a call's arguments |
//! | `hang` | never answers |
//! | `garbage` | 200 with a body that is not JSON |
//! | `weather` | one `weather_get` call for Oslo |
//! | `loop` | the same `weather_get` call for Oslo on every turn, tool results or not |
//! | `search-nothing` | a `search_tools` call for "zzzz qqqq", then text once it has the result |
//! | `search-weather` | a `search_tools` call for "weather", then `weather_get` for Oslo once it is listed |
//! | anything else | text only |
//!
//! Once a tool result is in the conversation, it answers with text. `reject_key` makes every
//! request a 401, as a provider does for a bad key.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dialect {
    OpenAi,
    Anthropic,
}

pub const TEST_KEY: &str = "test-key-123";

#[derive(Default)]
pub struct MockState {
    pub requests: AtomicUsize,
    pub violations: Mutex<Vec<String>>,
    /// How many times each prompt has been seen (for fail-once scenarios).
    seen: Mutex<HashMap<String, usize>>,
    /// Every request body, in arrival order.
    pub bodies: Mutex<Vec<Value>>,
    reject_key: bool,
    delay: Duration,
    dialect: Option<Dialect>,
}

pub struct MockProvider {
    /// Base URL to give `--base-url` (with `/v1` for OpenAI, without for Anthropic).
    pub base_url: String,
    pub state: Arc<MockState>,
    _runtime: tokio::runtime::Runtime,
}

impl MockProvider {
    pub fn start(dialect: Dialect, reject_key: bool, delay: Duration) -> MockProvider {
        let state = Arc::new(MockState {
            reject_key,
            delay,
            dialect: Some(dialect),
            ..MockState::default()
        });
        // A conversation that carries a runaway call back (`huge-args`) is larger than axum's
        // 2 MB default; providers take far larger requests.
        let app = axum::Router::new()
            .fallback(handle)
            .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
            .with_state(Arc::clone(&state));
        let (base_url, runtime) = serve_provider(dialect, app);
        MockProvider {
            base_url,
            state,
            _runtime: runtime,
        }
    }

    pub fn violations(&self) -> Vec<String> {
        self.state.violations.lock().unwrap().clone()
    }

    pub fn requests(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }
}

/// A local provider's server: `app` served on 127.0.0.1 (port 0) by a runtime of its own, and the
/// base URL a backend is given (with `/v1` for OpenAI, without for Anthropic). Keep the runtime:
/// dropping it stops the server.
pub fn serve_provider(dialect: Dialect, app: axum::Router) -> (String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    runtime.spawn(async move { axum::serve(listener, app).await });
    let base_url = match dialect {
        Dialect::OpenAi => format!("http://{address}/v1"),
        Dialect::Anthropic => format!("http://{address}"),
    };
    (base_url, runtime)
}

/// Prompt words that get a 429 asking for a wait beyond any run: the word, the header, its value.
pub const LONG_WAITS: &[(&str, &str, &str)] = &[
    ("wait-e300", "retry-after", "1e300"),
    ("wait-a-day", "retry-after", "86400"),
    ("wait-ms-e300", "retry-after-ms", "1e300"),
    ("wait-ms-huge", "retry-after-ms", "99999999999999999999999"),
    (
        "wait-till-9999",
        "retry-after",
        "Fri, 31 Dec 9999 23:59:59 GMT",
    ),
];

async fn handle(
    State(state): State<Arc<MockState>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    state.requests.fetch_add(1, Ordering::SeqCst);
    let dialect = state.dialect.unwrap();
    let mut problems = Vec::new();
    let body: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            problems.push(format!("body is not JSON: {e}"));
            Value::Null
        }
    };
    state.bodies.lock().unwrap().push(body.clone());
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match dialect {
        Dialect::OpenAi => {
            if uri.path() != "/v1/chat/completions" {
                problems.push(format!("path {}", uri.path()));
            }
            if state.reject_key {
                return error(
                    dialect,
                    401,
                    "authentication_error",
                    "Incorrect API key provided",
                );
            }
            if header("authorization") != Some(&format!("Bearer {TEST_KEY}")) {
                problems.push(format!("authorization {:?}", header("authorization")));
            }
            check_openai(&body, &mut problems);
        }
        Dialect::Anthropic => {
            if uri.path() != "/v1/messages" {
                problems.push(format!("path {}", uri.path()));
            }
            if state.reject_key {
                return error(dialect, 401, "authentication_error", "invalid x-api-key");
            }
            if header("x-api-key") != Some(TEST_KEY) {
                problems.push(format!("x-api-key {:?}", header("x-api-key")));
            }
            if header("anthropic-version") != Some("2023-06-01") {
                problems.push(format!(
                    "anthropic-version {:?}",
                    header("anthropic-version")
                ));
            }
            check_anthropic(&body, &mut problems);
        }
    }
    if !problems.is_empty() {
        state.violations.lock().unwrap().extend(problems.clone());
        return error(dialect, 400, "invalid_request_error", &problems.join("; "));
    }
    if !state.delay.is_zero() {
        tokio::time::sleep(state.delay).await;
    }

    let (prompt, answered) = conversation(dialect, &body);
    let seen = {
        let mut seen = state.seen.lock().unwrap();
        let n = seen.entry(prompt.clone()).or_default();
        *n += 1;
        *n
    };
    if prompt.contains("hang") {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    if prompt.contains("garbage") {
        return (StatusCode::OK, "<html>upstream proxy says hello</html>").into_response();
    }
    if prompt.contains("bad-shape") {
        let body = match dialect {
            Dialect::OpenAi => json!({
                "id": "chatcmpl-bad", "object": "chat.completion", "model": "mock-model",
                "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": null, "tool_calls": "weather_get"}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
            }),
            Dialect::Anthropic => json!({
                "id": "msg_bad", "type": "message", "role": "assistant", "model": "mock-model",
                "content": "weather_get", "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 1}
            }),
        };
        return (StatusCode::OK, axum::Json(body)).into_response();
    }
    if prompt.contains("huge-reply") {
        return reply(dialect, &"blah ".repeat(1_000_000), &[]);
    }
    if prompt.contains("huge-args") && !answered {
        let city = "Oslo ".repeat(4_000_000);
        return reply(dialect, "", &[("call_h", json!({"city": city}))]);
    }
    if prompt.contains("echo-headers") {
        let echoed: Vec<String> = headers
            .iter()
            .map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("?")))
            .collect();
        let message = format!("unexpected request; headers were {}", echoed.join(", "));
        return error(dialect, 400, "invalid_request_error", &message);
    }
    if prompt.contains("echo-key") {
        let key = header("authorization")
            .or(header("x-api-key"))
            .unwrap_or("")
            .to_string();
        let text = format!("I saw the credential {key}.");
        if answered {
            return reply(dialect, &text, &[]);
        }
        return reply(dialect, &text, &[("call_k", json!({"city": key}))]);
    }
    if let Some((_, name, value)) = LONG_WAITS.iter().find(|(word, ..)| prompt.contains(word)) {
        let mut response = error(dialect, 429, "rate_limit_error", "slow down");
        response.headers_mut().insert(*name, value.parse().unwrap());
        return response;
    }
    if prompt.contains("ratelimit") && seen == 1 {
        let mut response = error(dialect, 429, "rate_limit_error", "slow down");
        response
            .headers_mut()
            .insert("retry-after", "1".parse().unwrap());
        return response;
    }
    if prompt.contains("flaky") && seen == 1 {
        return error(dialect, 500, "api_error", "internal error");
    }
    if prompt.contains("loop") {
        let id = format!("call_loop_{seen}");
        return reply(dialect, "", &[(id.as_str(), json!({"city": "Oslo"}))]);
    }
    let listed = |name: &str| tool_names(dialect, &body).iter().any(|n| n == name);
    if prompt.contains("search-nothing") {
        if answered {
            return reply(dialect, "No tool fits this request.", &[]);
        }
        return reply_with(
            dialect,
            "",
            &[("call_s", "search_tools", json!({"query": "zzzz qqqq"}))],
        );
    }
    if prompt.contains("search-weather") && !listed("weather_get") {
        return reply_with(
            dialect,
            "",
            &[("call_s", "search_tools", json!({"query": "weather"}))],
        );
    }
    if prompt.contains("search-weather")
        && !results_of(dialect, &body).contains(&"call_w".to_string())
    {
        return reply_with(
            dialect,
            "",
            &[("call_w", "weather_get", json!({"city": "Oslo"}))],
        );
    }
    if answered {
        return reply(dialect, "It is 18 degrees in Oslo.", &[]);
    }
    if prompt.contains("parallel") {
        return reply(
            dialect,
            "",
            &[
                ("call_a", json!({"city": "Oslo"})),
                ("call_b", json!({"city": "Bergen"})),
            ],
        );
    }
    if prompt.contains("malformed") {
        return reply(dialect, "", &[("call_m", json!("{\"city\": "))]);
    }
    if prompt.contains("weather") || prompt.contains("ratelimit") || prompt.contains("flaky") {
        return reply(dialect, "", &[("call_1", json!({"city": "Oslo"}))]);
    }
    reply(dialect, "Hello! How can I help?", &[])
}

/// The first user text, and whether a tool result is already in the conversation.
pub fn conversation(dialect: Dialect, body: &Value) -> (String, bool) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let prompt = messages
        .iter()
        .find(|m| m["role"] == "user" && m["content"].is_string())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string();
    let answered = match dialect {
        Dialect::OpenAi => messages.iter().any(|m| m["role"] == "tool"),
        Dialect::Anthropic => messages.iter().any(|m| {
            m["content"]
                .as_array()
                .is_some_and(|b| b.iter().any(|b| b["type"] == "tool_result"))
        }),
    };
    (prompt, answered)
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Chat Completions request rules (platform.openai.com/docs/api-reference/chat/create).
/// Whether a Chat Completions request offers a tool of this name.
pub fn offers_tool(body: &Value, name: &str) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["function"]["name"] == name))
}

/// The first user message of a Chat Completions request.
pub fn first_user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

pub fn check_openai(body: &Value, problems: &mut Vec<String>) {
    if !body["model"].is_string() {
        problems.push("model is not a string".into());
    }
    if body["stream"] == true {
        problems.push("stream requested".into());
    }
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if messages.first().map(|m| &m["role"]) != Some(&json!("system")) {
        problems.push("the first message is not a system message".into());
    }
    let mut call_ids = Vec::new();
    for m in &messages {
        match m["role"].as_str() {
            Some("system") | Some("user") => {
                if !m["content"].is_string() {
                    problems.push(format!("{} content is not a string", m["role"]));
                }
            }
            Some("assistant") => {
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    if call["type"] != "function"
                        || !call["function"]["arguments"].is_string()
                        || !valid_tool_name(call["function"]["name"].as_str().unwrap_or(""))
                    {
                        problems.push(format!("bad assistant tool call {call}"));
                    }
                    call_ids.push(call["id"].as_str().unwrap_or("").to_string());
                }
            }
            Some("tool") => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                if !call_ids.iter().any(|c| c == id) || !m["content"].is_string() {
                    problems.push(format!("tool message answers no call: {m}"));
                }
            }
            other => problems.push(format!("unknown role {other:?}")),
        }
    }
    if let Some(tools) = body["tools"].as_array() {
        if body["tool_choice"] != "auto" {
            problems.push(format!("tool_choice {}", body["tool_choice"]));
        }
        for tool in tools {
            let function = &tool["function"];
            if tool["type"] != "function"
                || !valid_tool_name(function["name"].as_str().unwrap_or(""))
                || function["parameters"]["type"] != "object"
            {
                problems.push(format!("bad tool {tool}"));
            }
        }
    }
}

/// Messages API request rules (docs.anthropic.com/en/api/messages).
pub fn check_anthropic(body: &Value, problems: &mut Vec<String>) {
    if !body["model"].is_string() || !body["max_tokens"].is_u64() {
        problems.push("model or max_tokens missing".into());
    }
    if !body["system"].is_string() {
        problems.push("system is not a string".into());
    }
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let mut expected_role = "user";
    let mut open_calls: Vec<String> = Vec::new();
    for m in &messages {
        if m["role"] != expected_role {
            problems.push(format!("roles do not alternate from user: {}", m["role"]));
        }
        expected_role = if expected_role == "user" {
            "assistant"
        } else {
            "user"
        };
        let blocks = m["content"].as_array().cloned().unwrap_or_default();
        if m["role"] == "assistant" {
            open_calls = blocks
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .map(|b| {
                    if !b["input"].is_object() || !valid_tool_name(b["name"].as_str().unwrap_or(""))
                    {
                        problems.push(format!("bad tool_use {b}"));
                    }
                    b["id"].as_str().unwrap_or("").to_string()
                })
                .collect();
        } else if !blocks.is_empty() {
            let answered: Vec<String> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| b["tool_use_id"].as_str().unwrap_or("").to_string())
                .collect();
            // Every tool_use of the previous turn must be answered in this one message.
            if !open_calls.is_empty() && answered != open_calls {
                problems.push(format!(
                    "tool results {answered:?} do not answer the calls {open_calls:?}"
                ));
            }
            open_calls.clear();
        }
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        if !valid_tool_name(tool["name"].as_str().unwrap_or(""))
            || tool["input_schema"]["type"] != "object"
        {
            problems.push(format!("bad tool {tool}"));
        }
    }
}

/// The tool names a request offers.
fn tool_names(dialect: Dialect, body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| match dialect {
            Dialect::OpenAi => t["function"]["name"].as_str(),
            Dialect::Anthropic => t["name"].as_str(),
        })
        .map(str::to_string)
        .collect()
}

/// The call ids the conversation already holds results for.
fn results_of(dialect: Dialect, body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    match dialect {
        Dialect::OpenAi => messages
            .iter()
            .filter(|m| m["role"] == "tool")
            .filter_map(|m| m["tool_call_id"].as_str().map(str::to_string))
            .collect(),
        Dialect::Anthropic => messages
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b["type"] == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str().map(str::to_string))
            .collect(),
    }
}

fn reply(dialect: Dialect, text: &str, calls: &[(&str, Value)]) -> Response {
    let named: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, args)| (*id, "weather_get", args.clone()))
        .collect();
    reply_with(dialect, text, &named)
}

/// A reply with calls of named tools, as (id, provider name, arguments).
fn reply_with(dialect: Dialect, text: &str, calls: &[(&str, &str, Value)]) -> Response {
    (StatusCode::OK, axum::Json(reply_body(dialect, text, calls))).into_response()
}

/// The body of a reply with calls of named tools, as (id, provider name, arguments).
pub fn reply_body(dialect: Dialect, text: &str, calls: &[(&str, &str, Value)]) -> Value {
    match dialect {
        Dialect::OpenAi => {
            let tool_calls: Vec<Value> = calls
                .iter()
                .map(|(id, name, args)| {
                    let arguments = match args {
                        Value::String(raw) => raw.clone(),
                        other => other.to_string(),
                    };
                    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
            if !tool_calls.is_empty() {
                message["tool_calls"] = json!(tool_calls);
            }
            json!({
                "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "mock-model",
                "choices": [{"index": 0, "message": message,
                    "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
            })
        }
        Dialect::Anthropic => {
            let mut content = Vec::new();
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            for (id, name, input) in calls {
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            }
            json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": "mock-model",
                "content": content,
                "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" },
                "usage": {"input_tokens": 100, "output_tokens": 10}
            })
        }
    }
}

fn error(dialect: Dialect, status: u16, kind: &str, message: &str) -> Response {
    let body = match dialect {
        Dialect::OpenAi => {
            json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
        }
        Dialect::Anthropic => {
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
    };
    (StatusCode::from_u16(status).unwrap(), axum::Json(body)).into_response()
}
