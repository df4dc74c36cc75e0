//! A suggestible model behind the OpenAI Chat Completions wire format (127.0.0.1, port 0): it
//! reads the tools it is given as a model does and calls the one whose name and description share
//! the most words with the request — unless a description tells it to ALWAYS use its tool, which it
//! obeys. That is the weakness an assertive description exploits (Faghih et al. measured more than
//! ten times the usage from such edits), made deterministic, so a test can check that the A/B
//! report flags the variant that exploits it. With a tool result in the conversation it answers in
//! text; with no word in common and no order to obey, it answers in text too.

use super::mock_provider::{Dialect, reply_body, serve_provider};
use axum::extract::Json;
use serde_json::Value;
use std::collections::BTreeSet;

pub struct SuggestibleProvider {
    /// Base URL to give `--base-url`.
    pub base_url: String,
    _runtime: tokio::runtime::Runtime,
}

impl SuggestibleProvider {
    pub fn start() -> SuggestibleProvider {
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(|Json(body): Json<Value>| async move { Json(answer(&body)) }),
        );
        let (base_url, runtime) = serve_provider(Dialect::OpenAi, app);
        SuggestibleProvider {
            base_url,
            _runtime: runtime,
        }
    }
}

fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect()
}

fn answer(body: &Value) -> Value {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if messages.iter().any(|m| m["role"] == "tool") {
        return reply_body(Dialect::OpenAi, "Done.", &[]);
    }
    let request = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    let asked = words(request);
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let best = tools
        .iter()
        .map(|tool| {
            let function = &tool["function"];
            let name = function["name"].as_str().unwrap_or_default();
            let description = function["description"].as_str().unwrap_or_default();
            let shared = words(&format!("{} {description}", name.replace('_', " ")))
                .intersection(&asked)
                .count();
            let obeyed = if description.contains("ALWAYS") {
                100
            } else {
                0
            };
            (shared + obeyed, name.to_string())
        })
        .fold((0, String::new()), |best, candidate| {
            if candidate.0 > best.0 {
                candidate
            } else {
                best
            }
        });
    if best.0 == 0 {
        return reply_body(Dialect::OpenAi, "I can answer that without a tool.", &[]);
    }
    reply_body(
        Dialect::OpenAi,
        "",
        &[("call_1", best.1.as_str(), serde_json::json!({}))],
    )
}
