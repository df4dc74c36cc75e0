//! The run configuration file (`mcpick.toml`): named backend profiles, so one run can mix, say, a
//! hosted OpenAI model and a local OpenAI-compatible server, each with its own URL, key variable,
//! limits and price. Keys are never written here, only the names of the variables that hold them.
//! Its `[lint]` table allows lint rules for the toolsets of the workspace, so a toolset imported
//! from a server need not be edited to silence a finding.

use super::toolset::LintAllow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// `[backend.NAME]` tables; `--backend NAME` uses one.
    #[serde(default)]
    pub backend: BTreeMap<String, BackendProfile>,
    /// `[lint]`: rules `mcpick lint` allows here.
    #[serde(default)]
    pub lint: LintConfig,
}

impl ConfigFile {
    /// The config file and where it was read from: `explicit`, else `mcpick.toml` in the current
    /// folder when there is one, else the empty config (`None`).
    pub fn load(explicit: Option<&Path>) -> Result<(ConfigFile, Option<PathBuf>), String> {
        let path = match explicit {
            Some(path) => path.to_path_buf(),
            None if Path::new("mcpick.toml").is_file() => PathBuf::from("mcpick.toml"),
            None => return Ok((ConfigFile::default(), None)),
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let config = toml::from_str(&text).map_err(|e| {
            let position = e
                .span()
                .map(|span| {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!(":{line}")
                })
                .unwrap_or_default();
            format!("{}{position}: error: {}", path.display(), e.message())
        })?;
        Ok((config, Some(path)))
    }
}

/// `[lint]` of `mcpick.toml`: `allow` for every toolset linted in the workspace, and
/// `[lint.toolset.NAME] allow` for the toolset named NAME; entries are `RULE` or `TOOL:RULE`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintConfig {
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub toolset: BTreeMap<String, LintAllow>,
}

impl LintConfig {
    /// The entries that apply to the toolset named `toolset`.
    pub fn allowed_for(&self, toolset: &str) -> Vec<String> {
        let own = self
            .toolset
            .get(toolset)
            .into_iter()
            .flat_map(|t| t.allow.iter());
        self.allow.iter().chain(own).cloned().collect()
    }
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
