//! What a run is asked to do, resolved once from the command line (`commands::resolve` builds it
//! from the clap struct; `Default` is what `run` gives when no flag is set) or read back from a
//! run's manifest on `--resume`: the suites, the backends and their settings, the experiment
//! (variants, sizes, seeds, repeats) and the lanes' limits. The library takes this value and never
//! the command line; it is also what `manifest.json` records under `options` and what the plan hash
//! covers, so its serialised form must not change. `Price` is here too: what a lane pays per token,
//! which the settings override and the manifest records.

use crate::backend::BackendOptions;
use crate::tool_exposure::Exposure;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How a sweep picks the distractors it adds to a task's gold tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Distractors {
    /// Drawn at random from the pool.
    #[default]
    Random,
    /// The tools nearest to the gold tool (BM25 over name and description: the hard case).
    Similar,
}

impl Distractors {
    pub fn as_str(self) -> &'static str {
        match self {
            Distractors::Random => "random",
            Distractors::Similar => "similar",
        }
    }
}

fn one() -> u32 {
    1
}

fn default_max_retry_wait() -> f64 {
    60.0
}

/// A run's settings. Fields added later carry serde defaults, so older manifests still resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// Suite files or folders (empty: `tasks/`).
    pub paths: Vec<PathBuf>,
    /// Backend specs or profile names, in the order results are reported.
    pub backends: Vec<String>,
    pub max_turns: usize,
    /// The scoring profile for every task (`mcp` or `bfcl`); `None`: each suite's own.
    #[serde(default)]
    pub scoring: Option<String>,
    /// Only tasks carrying one of these tags (empty: every task).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only the tasks with these ids (empty: every task); how `improve` runs one part of a split.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<String>,
    /// Description arms, in the order the run names them (A first).
    #[serde(default)]
    pub variants: Vec<String>,
    /// Tools listed after all the others, in this order, under every arm (empty: the toolset's
    /// order). `explain` lists the tools it measures last, so that taking a sentence out of one
    /// changes the prompt only from that tool on and the rest comes from the prefix cache.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listed_last: Vec<String>,
    /// Toolset sizes of a sweep (empty: each suite's whole toolset).
    #[serde(default)]
    pub sizes: Vec<u32>,
    #[serde(default)]
    pub distractors: Distractors,
    /// Exposure strategies, each a series paired with the others (empty: every tool listed, and
    /// trials carry no strategy label).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exposures: Vec<Exposure>,
    /// The client profile tools are shown as (`client_profile`; `None`: the server's own list, as
    /// `raw` shows it, and not written, so manifests before `--client` read the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    #[serde(default = "one")]
    pub seeds: u32,
    #[serde(default = "one")]
    pub repeats: u32,
    /// How a report's comparisons are adjusted for each other (Holm unless said; not written then,
    /// so a manifest of a run before `--adjust` reads the same).
    #[serde(default, skip_serializing_if = "Adjustment::is_holm")]
    pub adjust: Adjustment,
    /// Where a sweep draws distractors from (default: the other toolsets of the run).
    #[serde(default)]
    pub pool: Option<PathBuf>,
    /// Bystander servers (names in `toolsets/bystanders/`, or `all`) whose tools every trial shows
    /// beside the suite's own (empty: none; not written then, so older manifests read the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bystanders: Vec<String>,
    /// The config file of backend profiles (default: `mcpick.toml` when there is one).
    pub config: Option<PathBuf>,
    #[serde(flatten)]
    pub backend: BackendOptions,
    pub concurrency: u32,
    pub requests_per_minute: Option<u32>,
    pub tokens_per_minute: Option<u32>,
    /// Seconds a request may take.
    pub timeout: f64,
    pub max_retries: u32,
    #[serde(default = "default_max_retry_wait")]
    pub max_retry_wait: f64,
    /// Dollars the run may spend.
    pub budget: Option<f64>,
    /// Price overrides, `SPEC=IN,OUT` in dollars per million tokens.
    pub price: Vec<String>,
    pub no_cache: bool,
    pub cache: Option<PathBuf>,
    /// Provider batch mode for the hosted backends (`--batch`); `None`: each turn is one request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<BatchMode>,
    /// Put each toolset's `instructions` (what its server asks hosts to tell the model) into the
    /// system prompt, as Claude Desktop and other hosts do (`--server-instructions`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub server_instructions: bool,
}

/// The settings of a run nothing was said about: the defaults `mcpick run` shows in its help, and
/// what `draft` and `improve` start their runs from.
impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            paths: Vec::new(),
            backends: Vec::new(),
            max_turns: 4,
            scoring: None,
            tags: Vec::new(),
            tasks: Vec::new(),
            variants: Vec::new(),
            listed_last: Vec::new(),
            sizes: Vec::new(),
            distractors: Distractors::Random,
            exposures: Vec::new(),
            client: None,
            seeds: one(),
            repeats: one(),
            adjust: Adjustment::Holm,
            pool: None,
            bystanders: Vec::new(),
            config: None,
            backend: BackendOptions::default(),
            concurrency: 4,
            requests_per_minute: None,
            tokens_per_minute: None,
            timeout: 120.0,
            max_retries: 4,
            max_retry_wait: default_max_retry_wait(),
            budget: None,
            price: Vec::new(),
            no_cache: false,
            cache: None,
            batch: None,
            server_instructions: false,
        }
    }
}

impl RunSettings {
    /// Settings for runs that measure only the first pick (`explain`, `improve`'s working part):
    /// one turn, and an embedded model does not write its pick's arguments (a third of a trial's
    /// time). Such a run's argument scores mean nothing, so a run whose report is read keeps the
    /// full settings.
    pub fn first_pick_only(mut self) -> RunSettings {
        self.max_turns = 1;
        self.backend.local.pick_only = Some(true);
        self
    }

    /// The arms' labels, in the order named: a variant named again is an A/A test (the same
    /// descriptions on both sides, to check the statistics find nothing), its later arms labelled
    /// `NAME#2`, `NAME#3`.
    pub fn arm_labels(&self) -> Vec<String> {
        let mut seen: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        self.variants
            .iter()
            .map(|name| {
                let count = seen.entry(name).or_insert(0);
                *count += 1;
                if *count == 1 {
                    name.clone()
                } else {
                    format!("{name}#{count}")
                }
            })
            .collect()
    }
}

/// How `--batch` sends hosted turns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BatchMode {
    /// Trials a batch lane keeps in flight, and the most requests one batch holds.
    pub size: u32,
    /// Seconds before a submitted batch is first polled.
    pub poll: f64,
}

/// A price in US dollars per million tokens (the runner's list prices, `--price`, a profile's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

impl Price {
    /// The price through the provider's batch API: half, as OpenAI's Batch API and Anthropic's
    /// Message Batches both charge.
    pub fn batch(self) -> Price {
        Price {
            input_per_mtok: self.input_per_mtok / 2.0,
            output_per_mtok: self.output_per_mtok / 2.0,
        }
    }

    pub fn cost(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.input_per_mtok + output_tokens as f64 * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// How a family of p-values — the comparisons one report prints — is adjusted for each other
/// before verdicts are drawn (`analysis::statistics::adjust` does the arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Adjustment {
    None,
    #[default]
    Holm,
    /// Benjamini–Hochberg.
    Bh,
}

impl Adjustment {
    pub fn as_str(self) -> &'static str {
        match self {
            Adjustment::None => "none",
            Adjustment::Holm => "holm",
            Adjustment::Bh => "bh",
        }
    }

    pub fn is_holm(&self) -> bool {
        *self == Adjustment::Holm
    }

    /// How a table cell names it beside an adjusted p-value.
    pub fn short_name(self) -> &'static str {
        match self {
            Adjustment::None => "raw",
            Adjustment::Holm => "Holm",
            Adjustment::Bh => "BH",
        }
    }

    /// How a report names it.
    pub fn describe(self) -> &'static str {
        match self {
            Adjustment::None => "not adjusted",
            Adjustment::Holm => "Holm-adjusted",
            Adjustment::Bh => "Benjamini–Hochberg-adjusted",
        }
    }
}

impl std::str::FromStr for Adjustment {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Adjustment::None),
            "holm" => Ok(Adjustment::Holm),
            "bh" => Ok(Adjustment::Bh),
            other => Err(format!("{other:?}: expected none, holm or bh")),
        }
    }
}
