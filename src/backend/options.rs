//! The settings a backend is built with, one type wherever they come from — the command line, a
//! profile in `mcpick.toml`, or a run's manifest on `--resume`: where a hosted API lives, which
//! variable holds its key, how long a reply may be, and (`LocalOptions`) how the embedded model runs.
//! A profile's settings overlay the command line's field by field (`or`).

use serde::{Deserialize, Serialize};

/// Backend settings; `None` everywhere means each backend's own default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BackendOptions {
    /// The API's base URL (hosted and OpenAI-compatible backends).
    pub base_url: Option<String>,
    /// The environment variable holding the API key (never the key itself).
    pub api_key_env: Option<String>,
    /// Longest reply, in tokens (hosted and local).
    pub max_tokens: Option<u32>,
    /// How the embedded model runs (flattened: the manifest spells these at the top level).
    #[serde(flatten)]
    pub local: LocalOptions,
}

/// The `local` backend's settings as given; `LocalSettings` is what they resolve to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LocalOptions {
    /// A catalogue name or a GGUF path [default: the catalogue's default model].
    pub model: Option<String>,
    pub threads: Option<u32>,
    pub threads_batch: Option<u32>,
    pub ctx_size: Option<u32>,
    pub temperature: Option<f32>,
    pub seed: Option<u32>,
    /// Record how sure the model was of each pick (`local` in `score` mode: the probability of
    /// every action); `ab` turns it on, `run --graded` too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graded: Option<bool>,
    /// In `score` mode, stop at the pick: the call goes out with `{}` for arguments instead of
    /// arguments written under a grammar. `explain` measures picks only, and writing arguments
    /// was a third of its time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick_only: Option<bool>,
    /// How prompt prefixes go through the persistent prefix cache [default (`None`): restored,
    /// and saved when worth keeping; `--no-kv-cache`: neither]. Not part of the plan: it changes when a trial's numbers are
    /// computed, never what they are.
    #[serde(skip)]
    pub kv_cache: Option<PrefixCacheUse>,
}

/// How the embedded model uses the persistent prefix cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefixCacheUse {
    /// Neither read nor written (`--no-kv-cache`).
    Off,
    /// Prefixes are restored, none is saved: for prompts no later run will share, such as
    /// `explain`'s wordings that each lack one sentence (an entry of the travel list is 160 MB).
    RestoreOnly,
}

impl BackendOptions {
    /// These settings for a model that runs by itself (a drafter, a rewriter): the threads left
    /// open take every core, where a run's lanes share them.
    pub fn alone(self) -> BackendOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        let threads = self.local.threads.unwrap_or(cores);
        BackendOptions {
            local: LocalOptions {
                threads: Some(threads),
                threads_batch: Some(self.local.threads_batch.unwrap_or(threads)),
                ..self.local
            },
            ..self
        }
    }

    /// These settings, with each one left open taken from `fallback`.
    pub fn or(self, fallback: BackendOptions) -> BackendOptions {
        BackendOptions {
            base_url: self.base_url.or(fallback.base_url),
            api_key_env: self.api_key_env.or(fallback.api_key_env),
            max_tokens: self.max_tokens.or(fallback.max_tokens),
            local: LocalOptions {
                model: self.local.model.or(fallback.local.model),
                threads: self.local.threads.or(fallback.local.threads),
                threads_batch: self.local.threads_batch.or(fallback.local.threads_batch),
                ctx_size: self.local.ctx_size.or(fallback.local.ctx_size),
                temperature: self.local.temperature.or(fallback.local.temperature),
                seed: self.local.seed.or(fallback.local.seed),
                graded: self.local.graded.or(fallback.local.graded),
                pick_only: self.local.pick_only.or(fallback.local.pick_only),
                kv_cache: self.local.kv_cache.or(fallback.local.kv_cache),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_overlays_the_command_line_field_by_field() {
        let command_line = BackendOptions {
            base_url: Some("http://a".into()),
            max_tokens: Some(64),
            local: LocalOptions {
                threads: Some(2),
                ..LocalOptions::default()
            },
            ..BackendOptions::default()
        };
        let profile = BackendOptions {
            base_url: Some("http://b".into()),
            api_key_env: Some("KEY".into()),
            ..BackendOptions::default()
        };
        let merged = profile.or(command_line);
        assert_eq!(merged.base_url.as_deref(), Some("http://b"));
        assert_eq!(merged.api_key_env.as_deref(), Some("KEY"));
        assert_eq!(merged.max_tokens, Some(64));
        assert_eq!(merged.local.threads, Some(2));
    }

    #[test]
    fn serialised_flat_as_the_manifest_spells_them() {
        let options = BackendOptions {
            local: LocalOptions {
                model: Some("m".into()),
                ..LocalOptions::default()
            },
            ..BackendOptions::default()
        };
        let text = serde_json::to_string(&options).unwrap();
        assert_eq!(
            text,
            r#"{"base_url":null,"api_key_env":null,"max_tokens":null,"model":"m","threads":null,"threads_batch":null,"ctx_size":null,"temperature":null,"seed":null}"#
        );
        assert_eq!(
            serde_json::from_str::<BackendOptions>(&text).unwrap(),
            options
        );
    }
}
