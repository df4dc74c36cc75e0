//! Model backends behind one interface: given the conversation so far and the tools the MCP server
//! listed, produce the model's next reply (text and/or tool calls). A closed enum dispatches to the
//! kinds (`AnyBackend`). This module owns the provider-neutral message types; each backend turns them
//! into its own wire format. Backends never call tools: the runner does, through the MCP client.

mod bm25;
mod oracle;
mod random;

pub use bm25::Bm25Backend;
pub use oracle::OracleBackend;
pub use random::RandomBackend;

use crate::model::Task;
use crate::score::CallArguments;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message of a conversation, provider-neutral.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        text: Option<String>,
        calls: Vec<ToolCallRequest>,
    },
    Tool {
        call_id: String,
        tool: String,
        content: String,
        is_error: bool,
    },
}

/// A tool call as a model wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    pub id: String,
    pub tool: String,
    pub arguments: CallArguments,
}

/// What a backend is asked for one turn.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    pub messages: &'a [ChatMessage],
    /// The tools as `tools/list` returned them (MCP `Tool` objects).
    pub tools: &'a [Value],
    /// The task, which only the `oracle` may read.
    pub task: &'a Task,
    /// A per-trial seed, for backends that draw at random.
    pub seed: u64,
}

/// A model's reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub text: Option<String>,
    pub calls: Vec<ToolCallRequest>,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Why a backend produced no reply, classified so the runner knows whether to retry.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum BackendError {
    #[error("rate limited (retry after {retry_after_ms:?} ms)")]
    RateLimited { retry_after_ms: Option<u64> },
    #[error("transient failure: {0}")]
    Transient(String),
    #[error("authentication failed: set the environment variable {env_var}")]
    Auth { env_var: String },
    #[error("the provider rejected the request: {0}")]
    BadRequest(String),
    #[error("the provider's reply could not be decoded: {0}")]
    Decode(String),
}

/// A backend spec from the command line that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown backend {0:?}: use bm25, random, random:SEED or oracle")]
    Unknown(String),
    #[error("backend {spec:?}: {reason}")]
    Invalid { spec: String, reason: String },
}

/// Every backend kind.
#[derive(Debug, Clone)]
pub enum AnyBackend {
    Bm25(Bm25Backend),
    Random(RandomBackend),
    Oracle(OracleBackend),
}

impl AnyBackend {
    /// Parses `kind[:option]` as given on the command line.
    pub fn parse(spec: &str) -> Result<AnyBackend, SpecError> {
        let (kind, option) = spec
            .split_once(':')
            .map_or((spec, None), |(k, o)| (k, Some(o)));
        match (kind, option) {
            ("bm25", None) => Ok(AnyBackend::Bm25(Bm25Backend::default())),
            ("oracle", None) => Ok(AnyBackend::Oracle(OracleBackend)),
            ("random", None) => Ok(AnyBackend::Random(RandomBackend::new(0))),
            ("random", Some(seed)) => seed
                .parse()
                .map(|seed| AnyBackend::Random(RandomBackend::new(seed)))
                .map_err(|_| SpecError::Invalid {
                    spec: spec.into(),
                    reason: "the seed must be a whole number".into(),
                }),
            _ => Err(SpecError::Unknown(spec.to_string())),
        }
    }

    /// The name results are reported under, e.g. `bm25` or `random:7`.
    pub fn id(&self) -> String {
        match self {
            AnyBackend::Bm25(_) => "bm25".into(),
            AnyBackend::Random(b) => {
                if b.seed == 0 {
                    "random".into()
                } else {
                    format!("random:{}", b.seed)
                }
            }
            AnyBackend::Oracle(_) => "oracle".into(),
        }
    }

    /// The model's next reply.
    pub async fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        match self {
            AnyBackend::Bm25(b) => Ok(b.complete(turn)),
            AnyBackend::Random(b) => Ok(b.complete(turn)),
            AnyBackend::Oracle(b) => Ok(b.complete(turn)),
        }
    }
}

/// How many tool results the conversation holds (offline baselines act once, then stop).
fn tool_results(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .filter(|m| matches!(m, ChatMessage::Tool { .. }))
        .count()
}

/// The text of the last user message.
fn last_user_text(messages: &[ChatMessage]) -> &str {
    messages
        .iter()
        .rev()
        .find_map(|m| match m {
            ChatMessage::User { content } => Some(content.as_str()),
            _ => None,
        })
        .unwrap_or("")
}
