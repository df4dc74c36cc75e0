//! A local stand-in for the two providers' batch APIs, on 127.0.0.1 (port 0), speaking their
//! documented wire formats: OpenAI's Files and Batch API (`POST /v1/files` as multipart with
//! `purpose=batch`, `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/files/{id}/content`) and
//! Anthropic's Message Batches (`POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, the
//! JSONL at its `results_url`). Every request is checked — key, version header, each item's body by
//! the same rules as the ordinary endpoint's (`mock_provider`), custom ids unique and well formed —
//! and what is wrong is recorded. Each item is answered by a word in the task's prompt:
//!
//! | word | answer |
//! |---|---|
//! | `expire` | the first turn's first submission expires (OpenAI `batch_expired`; Anthropic `expired`), then a call |
//! | `flaky` | the first turn's first submission fails with a server error, then a call |
//! | `invalid` | an invalid-request error, every time |
//! | `echo-key` | an invalid-request error whose message repeats the request's key |
//! | `Bergen` after an Oslo result (`chain`) | a second call, for Bergen |
//! | `Oslo` / `Bergen` | a `weather_get` call for that city; text once a result is in |
//! | anything else | text only |
//!
//! `hold` keeps every batch in progress until it is released: a run can be killed between
//! submitting and collecting.

use super::mock_provider::{
    Dialect, TEST_KEY, check_anthropic, check_openai, conversation, reply_body, serve_provider,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What one item of a batch got.
#[derive(Debug, Clone)]
enum ItemResult {
    Answer(Value),
    Expired,
    ServerError,
    Invalid,
    /// Refused, with the key in the message (a provider echoing what it was sent).
    EchoKey,
}

struct Batch {
    /// (custom id, result), in submission order.
    items: Vec<(String, ItemResult)>,
    endpoint: String,
}

#[derive(Default)]
pub struct BatchState {
    pub violations: Mutex<Vec<String>>,
    /// How many times each custom id was submitted, over every batch.
    pub submissions: Mutex<HashMap<String, usize>>,
    /// Per prompt, how many times an item with it was submitted (for fail-once scenarios).
    seen: Mutex<HashMap<String, usize>>,
    /// Uploaded files, by id: their JSONL lines (OpenAI).
    files: Mutex<HashMap<String, String>>,
    batches: Mutex<Vec<Batch>>,
    pub polls: Mutex<usize>,
    pub hold: AtomicBool,
    base_url: Mutex<String>,
}

pub struct BatchProvider {
    pub base_url: String,
    pub dialect: Dialect,
    pub state: Arc<BatchState>,
    _runtime: tokio::runtime::Runtime,
}

impl BatchProvider {
    pub fn start(dialect: Dialect) -> BatchProvider {
        let state = Arc::new(BatchState::default());
        let app = axum::Router::new()
            .fallback(handle)
            .with_state((dialect, Arc::clone(&state)));
        let (base_url, runtime) = serve_provider(dialect, app);
        let origin = base_url.trim_end_matches("/v1").to_string();
        *state.base_url.lock().unwrap() = origin;
        BatchProvider {
            base_url,
            dialect,
            state,
            _runtime: runtime,
        }
    }

    pub fn violations(&self) -> Vec<String> {
        self.state.violations.lock().unwrap().clone()
    }

    pub fn batches_created(&self) -> usize {
        self.state.batches.lock().unwrap().len()
    }

    /// The batches' sizes, in creation order.
    pub fn batch_sizes(&self) -> Vec<usize> {
        let batches = self.state.batches.lock().unwrap();
        batches.iter().map(|b| b.items.len()).collect()
    }

    pub fn polls(&self) -> usize {
        *self.state.polls.lock().unwrap()
    }

    pub fn submissions(&self) -> HashMap<String, usize> {
        self.state.submissions.lock().unwrap().clone()
    }
}

type Shared = (Dialect, Arc<BatchState>);

async fn handle(
    State((dialect, state)): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let mut problems = Vec::new();
    match dialect {
        Dialect::OpenAi => {
            if header("authorization") != Some(&format!("Bearer {TEST_KEY}")) {
                problems.push(format!("authorization {:?}", header("authorization")));
            }
        }
        Dialect::Anthropic => {
            if header("x-api-key") != Some(TEST_KEY) {
                problems.push(format!("x-api-key {:?}", header("x-api-key")));
            }
            if header("anthropic-version") != Some("2023-06-01") {
                problems.push(format!(
                    "anthropic-version {:?}",
                    header("anthropic-version")
                ));
            }
        }
    }
    let path = uri.path().to_string();
    // The batch endpoints take no query; a query means an id was sent that carried one.
    if let Some(query) = uri.query() {
        problems.push(format!("{method} {path} with a query {query:?}"));
    }
    // Every id mcpick sends back is one this provider gave out: letters, digits, `_` and `-`.
    if path.contains('%') || path.contains("..") {
        problems.push(format!("{method} {path} names no id this provider gave"));
    }
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let response = match (dialect, method.as_str(), segments.as_slice()) {
        (Dialect::OpenAi, "POST", ["v1", "files"]) => upload(
            &state,
            header("content-type").unwrap_or(""),
            &body,
            &mut problems,
        ),
        (Dialect::OpenAi, "POST", ["v1", "batches"]) => create_openai(&state, &body, &mut problems),
        (Dialect::OpenAi, "GET", ["v1", "batches", id]) => openai_batch(&state, id),
        (Dialect::OpenAi, "GET", ["v1", "files", id, "content"]) => openai_file(&state, id),
        (Dialect::Anthropic, "POST", ["v1", "messages", "batches"]) => {
            create_anthropic(&state, &body, header("anthropic-beta"), &mut problems)
        }
        (Dialect::Anthropic, "GET", ["v1", "messages", "batches", id]) => {
            anthropic_batch(&state, id)
        }
        (Dialect::Anthropic, "GET", ["v1", "messages", "batches", id, "results"]) => {
            anthropic_results(&state, id)
        }
        _ => {
            problems.push(format!("{method} {path} is not a batch endpoint"));
            (StatusCode::NOT_FOUND, "not found").into_response()
        }
    };
    if !problems.is_empty() {
        state.violations.lock().unwrap().extend(problems.clone());
        let message = problems.join("; ");
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": {"message": message}})),
        )
            .into_response();
    }
    response
}

/// What a model answers an item, by the words of its prompt and the attempt.
fn answer(state: &BatchState, dialect: Dialect, body: &Value) -> ItemResult {
    let (prompt, answered) = conversation(dialect, body);
    let attempt = {
        let mut seen = state.seen.lock().unwrap();
        let key = format!("{prompt}|{answered}|{}", body.to_string().len());
        let n = seen.entry(key).or_default();
        *n += 1;
        *n
    };
    if prompt.contains("invalid") {
        return ItemResult::Invalid;
    }
    if prompt.contains("echo-key") {
        return ItemResult::EchoKey;
    }
    if prompt.contains("expire") && attempt == 1 && !answered {
        return ItemResult::Expired;
    }
    if prompt.contains("flaky") && attempt == 1 && !answered {
        return ItemResult::ServerError;
    }
    let results = body.to_string().matches("18 degrees").count();
    let call = |id: &str, city: &str| {
        ItemResult::Answer(reply_body(
            dialect,
            "",
            &[(id, "weather_get", json!({"city": city}))],
        ))
    };
    if prompt.contains("chain") {
        return match results {
            0 => call("call_1", "Oslo"),
            1 => call("call_2", "Bergen"),
            _ => ItemResult::Answer(reply_body(dialect, "Done: Oslo and Bergen.", &[])),
        };
    }
    if answered {
        return ItemResult::Answer(reply_body(dialect, "It is 18 degrees.", &[]));
    }
    for city in ["Oslo", "Bergen"] {
        if prompt.contains(city) {
            return call("call_1", city);
        }
    }
    ItemResult::Answer(reply_body(dialect, "Hello! How can I help?", &[]))
}

/// Books a batch's items: custom ids checked and counted, each body checked and answered.
fn book(
    state: &BatchState,
    dialect: Dialect,
    endpoint: &str,
    items: Vec<(String, Value)>,
    problems: &mut Vec<String>,
) -> usize {
    let mut answered = Vec::new();
    let mut ids = std::collections::HashSet::new();
    for (id, body) in items {
        let well_formed = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !well_formed {
            problems.push(format!(
                "custom_id {id:?} does not match ^[a-zA-Z0-9_-]{{1,64}}$"
            ));
        }
        if !ids.insert(id.clone()) {
            problems.push(format!("custom_id {id} twice in one batch"));
        }
        match dialect {
            Dialect::OpenAi => check_openai(&body, problems),
            Dialect::Anthropic => check_anthropic(&body, problems),
        }
        *state
            .submissions
            .lock()
            .unwrap()
            .entry(id.clone())
            .or_default() += 1;
        answered.push((id, answer(state, dialect, &body)));
    }
    let mut batches = state.batches.lock().unwrap();
    batches.push(Batch {
        items: answered,
        endpoint: endpoint.to_string(),
    });
    batches.len() - 1
}

fn upload(
    state: &BatchState,
    content_type: &str,
    body: &[u8],
    problems: &mut Vec<String>,
) -> Response {
    let Some(boundary) = content_type
        .strip_prefix("multipart/form-data; boundary=")
        .map(str::to_string)
    else {
        problems.push(format!("upload content-type {content_type:?}"));
        return StatusCode::BAD_REQUEST.into_response();
    };
    let text = String::from_utf8_lossy(body);
    let mut purpose = None;
    let mut file = None;
    for part in text.split(&format!("--{boundary}")) {
        let Some((head, content)) = part.split_once("\r\n\r\n") else {
            continue;
        };
        let content = content.strip_suffix("\r\n").unwrap_or(content);
        if head.contains("name=\"purpose\"") {
            purpose = Some(content.to_string());
        } else if head.contains("name=\"file\"") && head.contains("filename=") {
            file = Some(content.to_string());
        }
    }
    if purpose.as_deref() != Some("batch") {
        problems.push(format!("upload purpose {purpose:?}"));
    }
    let Some(file) = file else {
        problems.push("upload without a file part".into());
        return StatusCode::BAD_REQUEST.into_response();
    };
    let mut files = state.files.lock().unwrap();
    let id = format!("file-{}", files.len() + 1);
    files.insert(id.clone(), file.clone());
    axum::Json(
        json!({"id": id, "object": "file", "bytes": file.len(), "created_at": 1,
        "filename": "mcpick-batch.jsonl", "purpose": "batch"}),
    )
    .into_response()
}

fn create_openai(state: &BatchState, body: &[u8], problems: &mut Vec<String>) -> Response {
    let request: Value = serde_json::from_slice(body).unwrap_or_default();
    let endpoint = request["endpoint"].as_str().unwrap_or_default().to_string();
    if !["/v1/chat/completions", "/v1/responses"].contains(&endpoint.as_str()) {
        problems.push(format!("batch endpoint {endpoint:?}"));
    }
    if request["completion_window"] != "24h" {
        problems.push(format!(
            "completion_window {}",
            request["completion_window"]
        ));
    }
    let file_id = request["input_file_id"].as_str().unwrap_or_default();
    let Some(jsonl) = state.files.lock().unwrap().get(file_id).cloned() else {
        problems.push(format!("input_file_id {file_id:?} was never uploaded"));
        return StatusCode::BAD_REQUEST.into_response();
    };
    let mut items = Vec::new();
    for line in jsonl.lines() {
        let line: Value = match serde_json::from_str(line) {
            Ok(line) => line,
            Err(e) => {
                problems.push(format!("an input line is not JSON: {e}"));
                continue;
            }
        };
        if line["method"] != "POST" || line["url"] != endpoint.as_str() {
            problems.push(format!(
                "input line method {} url {} (endpoint {endpoint})",
                line["method"], line["url"]
            ));
        }
        items.push((
            line["custom_id"].as_str().unwrap_or_default().to_string(),
            line["body"].clone(),
        ));
    }
    let index = book(state, Dialect::OpenAi, &endpoint, items, problems);
    axum::Json(openai_object(state, index)).into_response()
}

fn openai_object(state: &BatchState, index: usize) -> Value {
    let held = state.hold.load(Ordering::SeqCst);
    let batches = state.batches.lock().unwrap();
    let batch = &batches[index];
    let failed = batch
        .items
        .iter()
        .filter(|(_, r)| !matches!(r, ItemResult::Answer(_)))
        .count();
    let expired = batch
        .items
        .iter()
        .any(|(_, r)| matches!(r, ItemResult::Expired));
    let status = match (held, expired) {
        (true, _) => "in_progress",
        (false, true) => "expired",
        (false, false) => "completed",
    };
    json!({"id": format!("batch_{index}"), "object": "batch", "endpoint": batch.endpoint,
        "input_file_id": "file-x", "completion_window": "24h", "status": status,
        "output_file_id": if held { Value::Null } else { json!(format!("file-out-{index}")) },
        "error_file_id": if held || failed == 0 { Value::Null } else { json!(format!("file-err-{index}")) },
        "created_at": 1, "errors": null,
        "request_counts": {"total": batch.items.len(), "completed": batch.items.len() - failed, "failed": failed}})
}

fn batch_index(id: &str, prefix: &str) -> Option<usize> {
    id.strip_prefix(prefix)?.parse().ok()
}

fn openai_batch(state: &BatchState, id: &str) -> Response {
    *state.polls.lock().unwrap() += 1;
    match batch_index(id, "batch_").filter(|i| *i < state.batches.lock().unwrap().len()) {
        Some(index) => axum::Json(openai_object(state, index)).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"error": {"message": "No batch found"}})),
        )
            .into_response(),
    }
}

fn openai_file(state: &BatchState, id: &str) -> Response {
    let (errors, index) = match (batch_index(id, "file-out-"), batch_index(id, "file-err-")) {
        (Some(i), _) => (false, i),
        (_, Some(i)) => (true, i),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let batches = state.batches.lock().unwrap();
    let Some(batch) = batches.get(index) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut text = String::new();
    for (n, (custom_id, result)) in batch.items.iter().enumerate() {
        let line = match (result, errors) {
            (ItemResult::Answer(body), false) => {
                json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                "response": {"status_code": 200, "request_id": format!("req_{n}"), "body": body}, "error": null})
            }
            (ItemResult::Expired, true) => {
                json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                "response": null, "error": {"code": "batch_expired",
                "message": "This request could not be executed before the completion window expired."}})
            }
            (ItemResult::ServerError, true) => {
                json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                "response": {"status_code": 500, "request_id": format!("req_{n}"),
                "body": {"error": {"message": "The server had an error", "type": "server_error"}}}, "error": null})
            }
            (ItemResult::EchoKey, true) => {
                json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                "response": {"status_code": 400, "request_id": format!("req_{n}"),
                "body": {"error": {"message": format!("bad request from Bearer {TEST_KEY}"), "type": "invalid_request_error"}}}, "error": null})
            }
            (ItemResult::Invalid, true) => {
                json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                "response": {"status_code": 400, "request_id": format!("req_{n}"),
                "body": {"error": {"message": "Invalid value for 'tools'", "type": "invalid_request_error"}}}, "error": null})
            }
            _ => continue,
        };
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text.into_response()
}

fn create_anthropic(
    state: &BatchState,
    body: &[u8],
    beta: Option<&str>,
    problems: &mut Vec<String>,
) -> Response {
    let request: Value = serde_json::from_slice(body).unwrap_or_default();
    let Some(requests) = request["requests"].as_array() else {
        problems.push("a batch without a requests array".into());
        return StatusCode::BAD_REQUEST.into_response();
    };
    let items = requests
        .iter()
        .map(|r| {
            (
                r["custom_id"].as_str().unwrap_or_default().to_string(),
                r["params"].clone(),
            )
        })
        .collect();
    let index = book(
        state,
        Dialect::Anthropic,
        beta.unwrap_or(""),
        items,
        problems,
    );
    axum::Json(anthropic_object(state, index)).into_response()
}

fn anthropic_object(state: &BatchState, index: usize) -> Value {
    let held = state.hold.load(Ordering::SeqCst);
    let batches = state.batches.lock().unwrap();
    let batch = &batches[index];
    let count = |f: fn(&ItemResult) -> bool| batch.items.iter().filter(|(_, r)| f(r)).count();
    let base = state.base_url.lock().unwrap().clone();
    json!({"id": format!("msgbatch_{index}"), "type": "message_batch",
        "processing_status": if held { "in_progress" } else { "ended" },
        "request_counts": if held {
            json!({"processing": batch.items.len(), "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0})
        } else {
            json!({"processing": 0, "succeeded": count(|r| matches!(r, ItemResult::Answer(_))),
                "errored": count(|r| matches!(r, ItemResult::ServerError | ItemResult::Invalid | ItemResult::EchoKey)),
                "canceled": 0, "expired": count(|r| matches!(r, ItemResult::Expired))})
        },
        "created_at": "2026-12-03T10:00:00Z", "expires_at": "2026-12-04T10:00:00Z",
        "ended_at": if held { Value::Null } else { json!("2026-12-03T10:05:00Z") },
        "cancel_initiated_at": null,
        "results_url": if held { Value::Null } else { json!(format!("{base}/v1/messages/batches/msgbatch_{index}/results")) }})
}

fn anthropic_batch(state: &BatchState, id: &str) -> Response {
    *state.polls.lock().unwrap() += 1;
    match batch_index(id, "msgbatch_").filter(|i| *i < state.batches.lock().unwrap().len()) {
        Some(index) => axum::Json(anthropic_object(state, index)).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"type": "error",
            "error": {"type": "not_found_error", "message": "batch not found"}})),
        )
            .into_response(),
    }
}

fn anthropic_results(state: &BatchState, id: &str) -> Response {
    let batches = state.batches.lock().unwrap();
    let Some(batch) = batch_index(id, "msgbatch_").and_then(|i| batches.get(i)) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut text = String::new();
    for (custom_id, result) in &batch.items {
        let result = match result {
            ItemResult::Answer(message) => json!({"type": "succeeded", "message": message}),
            ItemResult::Expired => json!({"type": "expired"}),
            ItemResult::ServerError => json!({"type": "errored", "error": {"type": "error",
                "error": {"type": "api_error", "message": "Internal server error"}}}),
            ItemResult::EchoKey => json!({"type": "errored", "error": {"type": "error",
                "error": {"type": "invalid_request_error", "message": format!("bad x-api-key {TEST_KEY}")}}}),
            ItemResult::Invalid => json!({"type": "errored", "error": {"type": "error",
                "error": {"type": "invalid_request_error", "message": "tools.0.name: invalid"}}}),
        };
        text.push_str(&json!({"custom_id": custom_id, "result": result}).to_string());
        text.push('\n');
    }
    text.into_response()
}
