//! A scripted drafter behind the OpenAI Chat Completions wire format (127.0.0.1, port 0), for
//! `mcpick draft --drafter openai:…`. Asked for requests (its tools hold `submit_requests`), it
//! reads which tool the ask is about from the prompt (`name: TOOL`, `Tool A: TOOL`, or the no-call
//! ask) and submits the scripted requests for it — or, for a tool scripted as `Script::Garbage`,
//! answers in words, and as `Script::Hang`, never answers. Asked to pick (a trial of the agreement
//! run or of `run`), it answers in words: it never calls a tool. Every request is checked against
//! the Chat Completions rules and counted.

use super::mock_provider::{
    Dialect, check_openai, first_user_text, offers_tool, reply_body, serve_provider,
};
use axum::extract::{Json, State};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the drafter does for one ask.
#[derive(Clone)]
pub enum Script {
    /// Submits these `{"request", "arguments"}` items.
    Requests(Vec<Value>),
    /// Answers in words, calling nothing.
    Garbage,
    /// Never answers.
    Hang,
}

#[derive(Default)]
pub struct DrafterState {
    /// Asks for requests received, per ask key (`tool:NAME`, `pair:NAME`, `none`).
    pub asks: Mutex<HashMap<String, usize>>,
    /// Turns of a picking trial received.
    pub picks: AtomicUsize,
    pub violations: Mutex<Vec<String>>,
    scripts: HashMap<String, Script>,
    /// Held before each answer to an ask.
    delay: Duration,
}

pub struct DrafterProvider {
    pub base_url: String,
    pub state: Arc<DrafterState>,
    _runtime: tokio::runtime::Runtime,
}

impl DrafterProvider {
    /// `scripts` by ask key; an ask without a script gets `Script::Garbage`.
    pub fn start(scripts: HashMap<String, Script>, delay: Duration) -> DrafterProvider {
        let state = Arc::new(DrafterState {
            scripts,
            delay,
            ..DrafterState::default()
        });
        let app = axum::Router::new()
            .route("/v1/chat/completions", axum::routing::post(answer))
            .with_state(Arc::clone(&state));
        let (base_url, runtime) = serve_provider(Dialect::OpenAi, app);
        DrafterProvider {
            base_url,
            state,
            _runtime: runtime,
        }
    }

    pub fn asks(&self) -> HashMap<String, usize> {
        self.state.asks.lock().unwrap().clone()
    }

    pub fn violations(&self) -> Vec<String> {
        self.state.violations.lock().unwrap().clone()
    }
}

/// The ask key a drafting prompt is about.
fn ask_key(prompt: &str) -> String {
    let after = |marker: &str| {
        prompt
            .split(marker)
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .map(|name| name.trim().to_string())
    };
    if let Some(tool) = after("Tool A: ") {
        format!("pair:{tool}")
    } else if let Some(tool) = after("\nname: ") {
        format!("tool:{tool}")
    } else {
        "none".into()
    }
}

async fn answer(State(state): State<Arc<DrafterState>>, Json(body): Json<Value>) -> Json<Value> {
    let mut problems = Vec::new();
    check_openai(&body, &mut problems);
    state.violations.lock().unwrap().extend(problems);
    let drafting = offers_tool(&body, "submit_requests");
    if !drafting {
        state.picks.fetch_add(1, Ordering::SeqCst);
        return Json(reply_body(
            Dialect::OpenAi,
            "I cannot help with that here.",
            &[],
        ));
    }
    let prompt = first_user_text(&body);
    let key = ask_key(&prompt);
    *state.asks.lock().unwrap().entry(key.clone()).or_default() += 1;
    tokio::time::sleep(state.delay).await;
    match state.scripts.get(&key).cloned().unwrap_or(Script::Garbage) {
        Script::Requests(items) => Json(reply_body(
            Dialect::OpenAi,
            "",
            &[(
                "call_1",
                "submit_requests",
                serde_json::json!({ "requests": items }),
            )],
        )),
        Script::Garbage => Json(reply_body(
            Dialect::OpenAi,
            "Sure! Here are some ideas: ask about the weather.",
            &[],
        )),
        Script::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Json(Value::Null)
        }
    }
}
