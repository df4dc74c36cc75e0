//! The run configuration file (`mcpick.toml`): named backend profiles, so one run can mix, say, a
//! hosted OpenAI model and a local OpenAI-compatible server, each with its own URL, key variable,
//! limits and price. Keys are never written here, only the names of the variables that hold them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// `[backend.NAME]` tables; `--backend NAME` uses one.
    #[serde(default)]
    pub backend: BTreeMap<String, BackendProfile>,
}

/// One `[backend.NAME]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendProfile {
    /// The backend spec, e.g. `openai:gpt-4o-mini`.
    pub spec: String,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub max_tokens: Option<u32>,
    /// The model of `local` specs: a catalogue name or a GGUF file.
    pub model: Option<String>,
    pub concurrency: Option<u32>,
    pub requests_per_minute: Option<u32>,
    pub tokens_per_minute: Option<u32>,
    /// US dollars per million input tokens.
    pub price_input: Option<f64>,
    /// US dollars per million output tokens.
    pub price_output: Option<f64>,
}
