//! A model swayed by known words, behind the OpenAI Chat Completions wire format (127.0.0.1, port
//! 0), for `explain`'s test: a tool's weight for a request is 1, plus 8 for each of the deciding
//! words (`DECIDING`) that both the request and the tool's description hold; with no deciding word
//! shared it answers in text. Its picks are drawn from those weights as a model samples — the k-th
//! time the same request comes with the same tools, the pick is the tool at quantile (k + ½) / K of
//! the weights (K = `REPEATS`) — so over K repeats each tool is picked in proportion to its weight,
//! exactly. A sentence holding a deciding word therefore moves the picks by a known amount, and
//! every other sentence by none. It records the order of the tools it was shown.

use super::mock_provider::{Dialect, reply_body, serve_provider};
use axum::extract::{Json, State};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// The words that decide a pick.
pub const DECIDING: [&str; 3] = ["now", "coming", "days"];
/// The repeats a test asks for.
pub const REPEATS: usize = 4;

#[derive(Default)]
pub struct SwayedState {
    /// How often each (request, tools) came.
    seen: HashMap<String, usize>,
    /// The tools' names, in the order shown, per request.
    pub orders: Vec<Vec<String>>,
}

pub struct SwayedProvider {
    pub base_url: String,
    pub state: Arc<Mutex<SwayedState>>,
    _runtime: tokio::runtime::Runtime,
}

impl SwayedProvider {
    pub fn start() -> SwayedProvider {
        let state = Arc::new(Mutex::new(SwayedState::default()));
        let app = axum::Router::new()
            .route(
                "/v1/chat/completions",
                axum::routing::post(
                    |State(state): State<Arc<Mutex<SwayedState>>>, Json(body): Json<Value>| async move {
                        Json(answer(&state, &body))
                    },
                ),
            )
            .with_state(Arc::clone(&state));
        let (base_url, runtime) = serve_provider(Dialect::OpenAi, app);
        SwayedProvider {
            base_url,
            state,
            _runtime: runtime,
        }
    }

    pub fn requests(&self) -> usize {
        self.state.lock().unwrap().orders.len()
    }
}

fn deciding_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| DECIDING.contains(&w.as_str()))
        .collect()
}

fn answer(state: &Mutex<SwayedState>, body: &Value) -> Value {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let request = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string();
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let asked = deciding_words(&request);
    let weighted: Vec<(String, usize)> = tools
        .iter()
        .map(|tool| {
            let function = &tool["function"];
            let description = function["description"].as_str().unwrap_or_default();
            let shared = deciding_words(description).intersection(&asked).count();
            (
                function["name"].as_str().unwrap_or_default().to_string(),
                1 + 8 * shared,
            )
        })
        .collect();
    let k = {
        let mut state = state.lock().unwrap();
        state
            .orders
            .push(weighted.iter().map(|(name, _)| name.clone()).collect());
        let key = format!("{request}\u{0}{}", json!(tools));
        let seen = state.seen.entry(key).or_default();
        *seen += 1;
        *seen - 1
    };
    if weighted.iter().all(|(_, weight)| *weight == 1) {
        return reply_body(Dialect::OpenAi, "I can answer that without a tool.", &[]);
    }
    let total: usize = weighted.iter().map(|(_, w)| w).sum();
    let quantile = ((k % REPEATS) as f64 + 0.5) / REPEATS as f64 * total as f64;
    let mut reached = 0.0;
    let picked = weighted
        .iter()
        .find(|(_, weight)| {
            reached += *weight as f64;
            quantile < reached
        })
        .map_or(weighted[0].0.clone(), |(name, _)| name.clone());
    reply_body(
        Dialect::OpenAi,
        "",
        &[("call_1", picked.as_str(), json!({"city": "Oslo"}))],
    )
}
