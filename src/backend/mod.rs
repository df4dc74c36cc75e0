//! Model backends behind one interface: given the conversation so far and the tools the MCP server
//! listed, produce the model's next reply (text and/or tool calls). A closed enum dispatches to the
//! kinds (`AnyBackend`). This module owns the provider-neutral message types; each backend turns them
//! into its own wire format, and the hosted ones also into an item of their provider's batch API
//! (`batch_api`). Backends never call tools: the runner does, through the MCP client.

mod anthropic;
mod batch_api;
mod bm25;
mod embed;
mod hosted;
mod json_writer;
mod local;
mod openai;
mod openai_responses;
mod options;
mod oracle;
mod provider_names;
mod random;
mod redact;
mod replay;

pub use anthropic::AnthropicBackend;
pub use batch_api::{
    BatchApi, BatchItem, BatchItemResult, BatchRequest, BatchState, ResultsAt, usable_id,
};
pub use bm25::Bm25Backend;
pub use embed::EmbedBackend;
pub use hosted::{DEFAULT_SYSTEM_PROMPT, HostedConfig, default_system_prompt};
pub use json_writer::{JsonAsk, JsonWriter};
pub use local::{
    CacheLocation, JsonSampling, LocalBackend, LocalMode, LocalSettings, Work, llama_backend,
    prefix_cache,
};
pub use openai::OpenAiBackend;
pub use options::{BackendOptions, LocalOptions, PrefixCacheUse};
pub use oracle::{OracleAnswers, OracleBackend};
pub use provider_names::ToolNameMap;
pub use random::RandomBackend;
pub use redact::{REDACTED, redact};
pub use replay::ReplayBackend;

use crate::observation::CallArguments;
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
        /// Searches the provider's own tool search ran within this reply (`native-search`), which
        /// the provider needs to see again in later turns.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        searches: Vec<crate::tool_exposure::ObservedSearch>,
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

/// Which trial a turn belongs to: names, not content. No model prompt includes them; `replay` finds
/// the recorded reply by them and the `oracle` its answer, which the plan gave it, never the turn.
#[derive(Debug, Clone, Copy)]
pub struct TrialLabel<'a> {
    pub suite: &'a str,
    /// The description arm, `None` when the run names no variants.
    pub variant: Option<&'a str>,
    pub task: &'a str,
}

/// What a backend is asked for one turn: what a model may see (the conversation and the tools
/// listed), the trial's label and its seed. The expected calls are not here.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    pub messages: &'a [ChatMessage],
    /// The tools as `tools/list` returned them (MCP `Tool` objects).
    pub tools: &'a [Value],
    pub trial: TrialLabel<'a>,
    /// A per-trial seed, for backends that draw at random.
    pub seed: u64,
    /// Which repeat of the trial this is (0 for the first): repeats of a hosted model must not be
    /// answered from the cache by the first one's reply.
    pub repeat: u32,
    /// The `native-search` exposure: the tools go to the provider deferred, behind its own tool
    /// search (only backends whose API has one accept it; `supports_native_search`).
    pub deferred_tools: bool,
}

/// A model's reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub text: Option<String>,
    pub calls: Vec<ToolCallRequest>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Searches the provider's own tool search ran within this reply (`native-search`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<crate::tool_exposure::ObservedSearch>,
    /// The probability of every action the model could take at this reply (answering in text, or
    /// calling each tool shown), summing to 1: given by a backend that scores every action
    /// (`local` in `score` mode with `action_probabilities`), empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<crate::pick_distribution::ActionProbability>,
}

/// Why a backend produced no reply, classified so the runner knows whether to retry.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum BackendError {
    #[error("rate limited (retry after {retry_after_ms:?} ms)")]
    RateLimited { retry_after_ms: Option<u64> },
    #[error("transient failure: {0}")]
    Transient(String),
    #[error(
        "authentication failed ({detail}): check the key in the environment variable {env_var}"
    )]
    Auth { env_var: String, detail: String },
    #[error("the provider rejected the request: {0}")]
    BadRequest(String),
    #[error("the provider's reply could not be decoded: {0}")]
    Decode(String),
}

/// A backend spec from the command line that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    #[error(
        "unknown backend {0:?}: use local[:MODE[:MODEL]] (MODE score, generate or generate-json), embed, bm25, random[:SEED], oracle, openai:MODEL, anthropic:MODEL, replay:RUN_DIR[#BACKEND] or a profile from the config file"
    )]
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
    /// Boxed: its two HTTP clients make it the largest kind by far.
    OpenAi(Box<OpenAiBackend>),
    Anthropic(AnthropicBackend),
    Replay(ReplayBackend),
    /// Shared: the model is loaded once, however many lanes or clones use it.
    Local(std::sync::Arc<LocalBackend>),
    Embed(std::sync::Arc<EmbedBackend>),
}

impl AnyBackend {
    /// The backend `kind[:option]` names, as given on the command line, made ready to answer: a
    /// hosted one with its key read, an embedded one with its model loaded — fetched first, for a
    /// catalogue model not yet on disk.
    pub fn load(spec: &str, options: &BackendOptions) -> Result<AnyBackend, SpecError> {
        let (kind, option) = spec
            .split_once(':')
            .map_or((spec, None), |(k, o)| (k, Some(o)));
        let invalid = |reason: String| SpecError::Invalid {
            spec: spec.into(),
            reason,
        };
        let hosted_config = |model: &str, base: &str, env: &str| {
            let mut config = HostedConfig::new(
                model,
                options.base_url.as_deref(),
                base,
                options.api_key_env.as_deref(),
                env,
            )
            .map_err(invalid)?;
            if let Some(max_tokens) = options.max_tokens {
                config.max_tokens = max_tokens;
            }
            Ok::<_, SpecError>(config)
        };
        match (kind, option) {
            ("openai", Some(model)) => {
                let config =
                    hosted_config(model, openai::DEFAULT_BASE_URL, openai::DEFAULT_API_KEY_ENV)?;
                OpenAiBackend::new(config)
                    .map(|b| AnyBackend::OpenAi(Box::new(b)))
                    .map_err(invalid)
            }
            ("anthropic", Some(model)) => {
                let config = hosted_config(
                    model,
                    anthropic::DEFAULT_BASE_URL,
                    anthropic::DEFAULT_API_KEY_ENV,
                )?;
                AnthropicBackend::new(config)
                    .map(AnyBackend::Anthropic)
                    .map_err(invalid)
            }
            ("local", rest) => {
                // local[:MODE[:MODEL]]: the model in the spec, else --model, else the default.
                let (mode, model) = rest.map_or((None, None), |r| {
                    r.split_once(':')
                        .map_or((Some(r), None), |(m, model)| (Some(m), Some(model)))
                });
                let mode = match mode.filter(|m| !m.is_empty()) {
                    None => LocalMode::Score,
                    Some(text) => LocalMode::parse(text).ok_or_else(|| {
                        invalid("the mode must be score, generate or generate-json".into())
                    })?,
                };
                let model = model
                    .map(str::to_string)
                    .or_else(|| options.local.model.clone());
                let (path, model_name) = resolve_local_model(model.as_deref()).map_err(invalid)?;
                let local = &options.local;
                let resolved = LocalSettings {
                    model: path,
                    model_name,
                    threads: local.threads.unwrap_or(1),
                    threads_batch: local.threads_batch.unwrap_or(2),
                    ctx_size: local.ctx_size,
                    max_tokens: options.max_tokens.unwrap_or(256),
                    temperature: local.temperature.unwrap_or(0.0),
                    seed: local.seed.unwrap_or(0),
                    action_probabilities: local.graded.unwrap_or(false),
                    pick_only: local.pick_only.unwrap_or(false),
                    prefix_cache: match local.kv_cache {
                        Some(PrefixCacheUse::Off) => None,
                        Some(PrefixCacheUse::RestoreOnly) => Some(CacheLocation {
                            saves: false,
                            ..CacheLocation::from_env().map_err(invalid)?
                        }),
                        _ => Some(CacheLocation::from_env().map_err(invalid)?),
                    },
                };
                LocalBackend::load(mode, resolved)
                    .map(|b| AnyBackend::Local(std::sync::Arc::new(b)))
                    .map_err(invalid)
            }
            ("replay", Some(source)) => {
                let (folder, backend) = source
                    .split_once('#')
                    .map_or((source, None), |(f, b)| (f, Some(b)));
                ReplayBackend::load(std::path::Path::new(folder), backend)
                    .map(AnyBackend::Replay)
                    .map_err(invalid)
            }
            ("bm25", None) => Ok(AnyBackend::Bm25(Bm25Backend::default())),
            ("embed", None) => EmbedBackend::load_default()
                .map(|b| AnyBackend::Embed(std::sync::Arc::new(b)))
                .map_err(invalid),
            ("oracle", None) => Ok(AnyBackend::Oracle(OracleBackend::default())),
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
            AnyBackend::Embed(_) => "embed".into(),
            AnyBackend::Random(b) => {
                if b.seed == 0 {
                    "random".into()
                } else {
                    format!("random:{}", b.seed)
                }
            }
            AnyBackend::Oracle(_) => "oracle".into(),
            AnyBackend::OpenAi(b) => format!("openai:{}", b.config.model),
            AnyBackend::Anthropic(b) => format!("anthropic:{}", b.config.model),
            AnyBackend::Replay(b) => format!("replay:{}", b.recorded),
            AnyBackend::Local(b) => {
                let mode = b.mode.as_str();
                match &b.options.model_name {
                    Some(name) if name == crate::catalogue::DEFAULT_LOCAL_MODEL => {
                        format!("local:{mode}")
                    }
                    Some(name) => format!("local:{mode}:{name}"),
                    None => {
                        let stem = b.options.model.file_stem().unwrap_or_default();
                        format!("local:{mode}:{}", stem.to_string_lossy())
                    }
                }
            }
        }
    }

    /// The backend with the run's expectations: the oracle keeps them, every other backend is
    /// returned as it is (they never see an answer).
    pub fn with_answers(self, answers: &std::sync::Arc<OracleAnswers>) -> AnyBackend {
        match self {
            AnyBackend::Oracle(_) => AnyBackend::Oracle(OracleBackend::new(answers.clone())),
            other => other,
        }
    }

    /// Whether the backend computes on this machine's cores with one model state (llama.cpp's KV
    /// cache): parallel trials would only share them, so its lane runs one trial at a time.
    pub fn one_trial_at_a_time(&self) -> bool {
        matches!(self, AnyBackend::Local(_))
    }

    /// Whether the provider's API has a tool search of its own, which `native-search` defers the
    /// tools behind.
    pub fn supports_native_search(&self) -> bool {
        matches!(self, AnyBackend::OpenAi(_) | AnyBackend::Anthropic(_))
    }

    /// Whether the backend keeps its last prompt evaluated, so consecutive trials sharing a prefix
    /// cost less (the order `prefix_order` gives pays off).
    pub fn reuses_last_prompt(&self) -> bool {
        matches!(self, AnyBackend::Local(_))
    }

    /// The embedded model's description for the manifest (mode, settings, prompt style, the model's
    /// SHA-256); null for other backends.
    /// For a `local` backend, what llama.cpp computed over the run so far.
    pub fn local_work(&self) -> Option<Work> {
        match self {
            AnyBackend::Local(b) => Some(b.total_work()),
            _ => None,
        }
    }

    pub fn local_description(&self) -> Value {
        match self {
            AnyBackend::Local(b) => serde_json::json!({"mode": b.mode, "options": b.options,
                "prompt_style": b.prompt_style(), "model_sha256": local_model_sha256(&b.options)}),
            _ => Value::Null,
        }
    }

    /// The hosted model's settings, for backends that call a network API (cached, rate-limited,
    /// priced); `None` for the offline ones.
    pub fn hosted(&self) -> Option<&HostedConfig> {
        match self {
            AnyBackend::OpenAi(b) => Some(&b.config),
            AnyBackend::Anthropic(b) => Some(&b.config),
            _ => None,
        }
    }

    /// Provider tool names that differ from the MCP names, as (MCP, provider); empty for backends
    /// that take MCP names as they are.
    pub fn renamed_tools(&self, tools: &[Value]) -> Vec<(String, String)> {
        match self {
            AnyBackend::OpenAi(_) | AnyBackend::Anthropic(_) => {
                ToolNameMap::new(tools.iter().filter_map(|t| t["name"].as_str())).renamed()
            }
            _ => Vec::new(),
        }
    }

    /// The provider's batch API, for the backends that have one (`--batch`).
    pub fn batch_api(&self) -> Option<BatchApi> {
        match self {
            AnyBackend::OpenAi(b) => Some(b.batch_api()),
            AnyBackend::Anthropic(b) => Some(b.batch_api()),
            _ => None,
        }
    }

    /// One turn as a request of a provider batch; `None` for backends without a batch API.
    pub fn batch_request(&self, turn: &Turn<'_>) -> Option<BatchRequest> {
        match self {
            AnyBackend::OpenAi(b) => Some(b.batch_request(turn)),
            AnyBackend::Anthropic(b) => Some(b.batch_request(turn)),
            _ => None,
        }
    }

    /// A batch result's body read as the reply to `turn`, as the provider's ordinary endpoint's
    /// reply would be read.
    pub fn parse_batch_reply(&self, turn: &Turn<'_>, body: &Value) -> Result<Reply, BackendError> {
        let names = || ToolNameMap::new(turn.tools.iter().filter_map(|t| t["name"].as_str()));
        match self {
            AnyBackend::OpenAi(b) => b.parse_batch_reply(turn, body),
            AnyBackend::Anthropic(_) => anthropic::parse_reply(body, &names()),
            _ => Err(BackendError::BadRequest(format!(
                "{} has no batch API",
                self.id()
            ))),
        }
    }

    /// The model's next reply.
    pub async fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        match self {
            AnyBackend::Bm25(b) => Ok(b.complete(turn)),
            AnyBackend::Random(b) => Ok(b.complete(turn)),
            AnyBackend::Oracle(b) => Ok(b.complete(turn)),
            AnyBackend::OpenAi(b) => b.complete(turn).await,
            AnyBackend::Anthropic(b) => b.complete(turn).await,
            AnyBackend::Replay(b) => b.complete(turn),
            // llama.cpp and candle compute on this thread; the (multi-thread) runtime `run` uses
            // moves its other tasks elsewhere meanwhile.
            AnyBackend::Local(b) => tokio::task::block_in_place(|| b.complete(turn)),
            AnyBackend::Embed(b) => tokio::task::block_in_place(|| b.complete(turn)),
        }
    }
}

/// The GGUF a `local` backend runs, and its catalogue name: a catalogue name is fetched once
/// (verified), `hf:ORG/REPO/FILE` comes from the Hugging Face Hub, anything else is a path; none
/// is the default model.
fn resolve_local_model(
    model: Option<&str>,
) -> Result<(std::path::PathBuf, Option<String>), String> {
    let name = model.unwrap_or(crate::catalogue::DEFAULT_LOCAL_MODEL);
    if let Some(path) = name.strip_prefix("hf:") {
        return Ok((crate::catalogue::ensure_hub_file(path)?, None));
    }
    match crate::catalogue::catalogue().get(name) {
        Some(entry) if entry.kind == crate::catalogue::ModelKind::Llm => {
            let mut paths = crate::catalogue::ensure(name)?;
            Ok((paths.remove(0), Some(name.to_string())))
        }
        Some(_) => Err(format!(
            "{name} is not a language model (see `mcpick models`)"
        )),
        None => Ok((std::path::PathBuf::from(name), None)),
    }
}

/// The local model's SHA-256: the catalogue's pin for a catalogue model (verified when fetched),
/// else the file's.
pub(crate) fn local_model_sha256(options: &LocalSettings) -> Option<String> {
    let pinned = options.model_name.as_deref().and_then(|name| {
        let model = crate::catalogue::catalogue().get(name)?;
        Some(model.files.first()?.sha256.clone())
    });
    pinned.or_else(|| crate::hashing::file_sha256(&options.model).ok())
}

/// How many tool results the conversation holds (offline baselines act once, then stop).
fn tool_results(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .filter(|m| matches!(m, ChatMessage::Tool { .. }))
        .count()
}

/// The request the conversation makes (`ranking::request_text`: its last user message).
fn last_user_text(messages: &[ChatMessage]) -> &str {
    crate::ranking::request_text(messages.iter().filter_map(|m| match m {
        ChatMessage::User { content } => Some(content.as_str()),
        _ => None,
    }))
}
