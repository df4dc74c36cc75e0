//! A scripted rewriter behind the OpenAI Chat Completions wire format (127.0.0.1, port 0), for
//! `mcpick improve --rewriter openai:…`. Asked for wordings (its tools hold `submit_wordings`), it
//! records the user prompt it was shown and submits what the test's script makes of that prompt.
//! Every request is checked against the Chat Completions rules.

use super::mock_provider::{
    Dialect, check_openai, first_user_text, offers_tool, reply_body, serve_provider,
};
use axum::extract::{Json, State};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Makes the submitted `{"wordings": [...]}` from the prompt.
pub type RewriteScript = Box<dyn Fn(&str) -> Value + Send + Sync>;

pub struct RewriterState {
    pub prompts: Mutex<Vec<String>>,
    pub violations: Mutex<Vec<String>>,
    script: RewriteScript,
}

pub struct RewriterProvider {
    pub base_url: String,
    pub state: Arc<RewriterState>,
    _runtime: tokio::runtime::Runtime,
}

impl RewriterProvider {
    pub fn start(script: RewriteScript) -> RewriterProvider {
        let state = Arc::new(RewriterState {
            prompts: Mutex::new(Vec::new()),
            violations: Mutex::new(Vec::new()),
            script,
        });
        let app = axum::Router::new()
            .route("/v1/chat/completions", axum::routing::post(answer))
            .with_state(Arc::clone(&state));
        let (base_url, runtime) = serve_provider(Dialect::OpenAi, app);
        RewriterProvider {
            base_url,
            state,
            _runtime: runtime,
        }
    }

    pub fn prompts(&self) -> Vec<String> {
        self.state.prompts.lock().unwrap().clone()
    }

    pub fn violations(&self) -> Vec<String> {
        self.state.violations.lock().unwrap().clone()
    }
}

async fn answer(State(state): State<Arc<RewriterState>>, Json(body): Json<Value>) -> Json<Value> {
    let mut problems = Vec::new();
    check_openai(&body, &mut problems);
    state.violations.lock().unwrap().extend(problems);
    let rewriting = offers_tool(&body, "submit_wordings");
    if !rewriting {
        state
            .violations
            .lock()
            .unwrap()
            .push("asked something other than wordings".into());
        return Json(reply_body(Dialect::OpenAi, "I only rewrite.", &[]));
    }
    let prompt = first_user_text(&body);
    let reply = (state.script)(&prompt);
    state.prompts.lock().unwrap().push(prompt);
    Json(reply_body(
        Dialect::OpenAi,
        "",
        &[("call_1", "submit_wordings", reply)],
    ))
}
