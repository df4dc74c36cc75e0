//! A model that writes JSON (`draft`'s drafter, `improve`'s rewriter), behind the backend specs
//! `run` takes. The embedded model (`local…`) writes its reply under a grammar made from the ask's
//! JSON Schema, so the reply is always that JSON; a hosted model (`openai:…`, `anthropic:…`, any
//! OpenAI-compatible `--base-url`) is shown one tool, the ask's submitting tool, whose input schema
//! is the ask's, and its call is the reply (a reply in text is read as JSON if it is JSON). The
//! reply comes back redacted; the asker checks it against the schema before taking anything from it.

use super::{AnyBackend, BackendOptions, ChatMessage, JsonSampling, TrialLabel, Turn};
use crate::observation::CallArguments;
use serde_json::{Value, json};
use std::time::Duration;

/// What a writer is asked for, whoever asks (`draft`'s requests, `improve`'s descriptions): the
/// two messages, the JSON Schema of the reply, and the one tool a hosted model submits it through.
pub struct JsonAsk<'a> {
    /// Names the ask in the sampling seed and in a hosted request's label.
    pub id: &'a str,
    pub system: &'a str,
    pub user: &'a str,
    pub schema: &'a Value,
    pub max_tokens: u32,
    /// The submitting tool's name and description.
    pub submit: (&'static str, &'static str),
}

/// A loaded model that writes.
pub struct JsonWriter {
    backend: AnyBackend,
    /// The spec as given (`local`, `openai:gpt-4o-mini`).
    pub spec: String,
    /// The backend's id (`local:score`, `openai:gpt-4o-mini`).
    pub id: String,
    /// What the model is: its SHA-256 for an embedded model, else the backend's id.
    pub model: String,
    /// The sampling temperature (the embedded model samples at 0.7 so that the items of one ask
    /// differ; its stream is seeded by `--seed` and the ask).
    temperature: f32,
    seed: u64,
    timeout: Duration,
}

impl JsonWriter {
    /// Loads the backend a spec names (given by `flag`, which errors name); the offline baselines
    /// cannot write and are refused.
    pub fn load(
        flag: &str,
        spec: &str,
        options: &BackendOptions,
        seed: u64,
        timeout: Duration,
    ) -> Result<JsonWriter, String> {
        // A model that writes runs by itself: it takes every core the flags leave open.
        let backend =
            AnyBackend::load(spec, &options.clone().alone()).map_err(|e| e.to_string())?;
        let model = match &backend {
            AnyBackend::Local(local) => crate::backend::local_model_sha256(&local.options)
                .map(|sha| format!("sha256:{sha}"))
                .unwrap_or_else(|| backend.id()),
            AnyBackend::OpenAi(_) | AnyBackend::Anthropic(_) => backend.id(),
            _ => {
                return Err(format!(
                    "{flag} {spec}: {} cannot write text; use local, openai:MODEL or anthropic:MODEL",
                    backend.id()
                ));
            }
        };
        let temperature = match &backend {
            AnyBackend::Local(local) if local.options.temperature > 0.0 => {
                local.options.temperature
            }
            _ => 0.7,
        };
        Ok(JsonWriter {
            id: backend.id(),
            spec: spec.to_string(),
            model,
            backend,
            temperature,
            seed,
            timeout,
        })
    }

    /// The backend spec that picks with the writer's model in a run (draft's agreement check): the
    /// embedded model scores, a hosted one answers as in `run`.
    pub fn picker_spec(&self) -> String {
        match &self.backend {
            AnyBackend::Local(local) => match &local.options.model_name {
                Some(name) if name == crate::catalogue::DEFAULT_LOCAL_MODEL => "local".into(),
                Some(name) => format!("local:score:{name}"),
                None => format!("local:score:{}", local.options.model.display()),
            },
            _ => self.spec.clone(),
        }
    }

    /// The writer's reply to one ask, redacted, not yet checked against the schema (the asker
    /// knows which parts it may forgive).
    pub async fn write_json(&self, ask: &JsonAsk<'_>) -> Result<Value, String> {
        let (submit_tool, submit_description) = ask.submit;
        let seed = self.seed ^ crate::hashing::fnv1a(ask.id);
        let written = match &self.backend {
            AnyBackend::Local(local) => {
                let sampling = JsonSampling {
                    temperature: self.temperature,
                    seed: (seed ^ (seed >> 32)) as u32,
                    max_tokens: ask.max_tokens,
                };
                let text = tokio::task::block_in_place(|| {
                    local.write_json(ask.system, ask.user, ask.schema, sampling)
                })
                .map_err(|e| format!("the drafter failed: {e}"))?;
                serde_json::from_str(&text).map_err(|e| {
                    format!(
                        "the drafter's reply is not JSON ({e}), e.g. it stopped at its token limit: {}",
                        excerpt(&text)
                    )
                })?
            }
            backend => {
                let messages = [
                    ChatMessage::System {
                        content: ask.system.to_string(),
                    },
                    ChatMessage::User {
                        content: format!(
                            "{}\n\nSubmit them with the {submit_tool} tool.",
                            ask.user
                        ),
                    },
                ];
                let tools = [json!({
                    "name": submit_tool,
                    "description": submit_description,
                    "inputSchema": ask.schema,
                })];
                let turn = Turn {
                    messages: &messages,
                    tools: &tools,
                    trial: TrialLabel {
                        suite: "draft",
                        variant: None,
                        task: ask.id,
                    },
                    seed,
                    repeat: 0,
                    deferred_tools: false,
                };
                let reply = tokio::time::timeout(self.timeout, backend.complete(turn))
                    .await
                    .map_err(|_| {
                        format!(
                            "the drafter did not answer within {} s",
                            self.timeout.as_secs()
                        )
                    })?
                    .map_err(|e| format!("the drafter failed: {e}"))?;
                match reply.calls.into_iter().find(|c| c.tool == submit_tool) {
                    Some(call) => match call.arguments {
                        CallArguments::Parsed(arguments) => Value::Object(arguments),
                        CallArguments::Malformed { reason, .. } => {
                            return Err(format!(
                                "the drafter's {submit_tool} call does not parse: {reason}"
                            ));
                        }
                    },
                    None => {
                        let text = reply.text.unwrap_or_default();
                        serde_json::from_str(text.trim()).map_err(|_| {
                            format!(
                                "the drafter answered without calling {submit_tool}: {}",
                                excerpt(&text)
                            )
                        })?
                    }
                }
            }
        };
        // A provider may echo the request, key included: nothing it wrote is kept unredacted.
        let secrets: Vec<String> = self
            .backend
            .hosted()
            .and_then(|h| h.api_key.clone())
            .into_iter()
            .collect();
        Ok(super::redact(written, &secrets))
    }
}

/// The start of a reply, for an error message (a reply is the drafter's text, never a secret).
fn excerpt(text: &str) -> String {
    let short: String = text.chars().take(160).collect();
    if short.len() < text.len() {
        format!("{short:?}…")
    } else {
        format!("{short:?}")
    }
}
