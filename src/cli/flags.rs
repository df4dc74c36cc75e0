//! The flags several commands share, each defined once here and flattened into every command that
//! takes it, so a flag has one spelling, one type and one meaning wherever it appears (ripgrep's
//! habit). Where a command needs the flag required, single, or described in its own words, it says
//! so with `mut_arg` on its own options; the definition stays here. `commands::resolve` turns these
//! groups into the settings the library takes.

use super::values::{parse_dollars, parse_env_assignment, parse_input_source, parse_wait};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// `-o/--out`: where a command writes. `--output`, the old spelling of `merge` and the importers,
/// is the same flag.
#[derive(Debug, Clone, Default, Args)]
pub struct OutFlag {
    /// The folder to write into (created).
    #[arg(short = 'o', long = "out", alias = "output", value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `--no-progress`.
#[derive(Debug, Clone, Default, Args)]
pub struct ProgressFlag {
    /// No progress bar on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// The embedded model: the `local` backends of a run, and a local drafter or rewriter.
#[derive(Debug, Clone, Default, Args)]
pub struct ModelFlags {
    /// The embedded model: a catalogue name (`mcpick models`; fetched once into $MCPICK_MODEL_DIR
    /// or ~/.cache/mcpick/models), `hf:ORG/REPO/FILE.gguf` (from the Hugging Face Hub or its
    /// local cache; $HF_ENDPOINT, $HF_HUB_CACHE, $HF_HOME) or a GGUF file [default:
    /// qwen2.5-coder-1.5b].
    #[arg(long, value_name = "NAME|hf:PATH|PATH")]
    pub model: Option<String>,
    /// Threads the embedded model generates with [default: a run's local models share the cores
    /// (more slows a busy machine down); a drafter or rewriter, which runs alone, uses them all].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Do not save or restore the embedded model's prompt prefixes (the system turn with its tool
    /// list) in the persistent prefix cache ($MCPICK_KV_CACHE, else ~/.cache/mcpick/kv; at most
    /// $MCPICK_KV_CACHE_MAX bytes, default 4G). Results are the same either way.
    #[arg(long)]
    pub no_kv_cache: bool,
}

/// How a hosted model is reached and how long one of its replies may take.
#[derive(Debug, Clone, Default, Args)]
pub struct HostedFlags {
    /// Base URL for openai and anthropic backends, drafters and rewriters, e.g.
    /// http://127.0.0.1:8080/v1 for a local OpenAI-compatible server.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the API key [default: OPENAI_API_KEY / ANTHROPIC_API_KEY].
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Output token limit per model reply [default: the provider's; a hosted drafter's, enough for
    /// the requests asked].
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Seconds to wait for one model reply before it counts as a (transient) failure [default:
    /// 120; 300 for a drafter's or rewriter's reply, which is longer].
    #[arg(long, value_name = "SECS", value_parser = parse_wait)]
    pub timeout: Option<f64>,
}

/// `--config`: the backend profiles.
#[derive(Debug, Clone, Default, Args)]
pub struct ProfilesFlag {
    /// Backend profiles (TOML, `[backend.NAME]` tables) [default: mcpick.toml if it exists].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `--budget`.
#[derive(Debug, Clone, Default, Args)]
pub struct BudgetFlag {
    /// Stop starting trials once the runs have cost this many US dollars (prices per model from
    /// the built-in table, `--price` or the config file).
    #[arg(long, value_name = "USD", value_parser = parse_dollars)]
    pub budget: Option<f64>,
}

/// `--seed`: one seed for whatever the command draws at random.
#[derive(Debug, Clone, Default, Args)]
pub struct SeedFlag {
    /// Seeds what the command draws at random: a model's sampling (at a temperature above 0), and
    /// for `draft` and `improve` also what is asked and how the suite is split [default: 0].
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,
}

/// `--backend`: the models whose picks are measured. `run` takes several; a command that measures
/// one makes the flag single with `mut_arg`.
#[derive(Debug, Clone, Default, Args)]
pub struct BackendsFlag {
    /// A backend: local[:MODE[:MODEL]], embed, bm25, random[:SEED], oracle, openai:MODEL,
    /// anthropic:MODEL, replay:RUN_DIR[#BACKEND], or the name of a profile in the config file.
    #[arg(long = "backend", value_name = "SPEC")]
    pub backends: Vec<String>,
}

/// `--variant`: a description overlay. `run` takes several (an A/B test's arms); the commands that
/// take one make the flag single with `mut_arg`.
#[derive(Debug, Clone, Default, Args)]
pub struct VariantsFlag {
    /// A description variant: a file, or the name of one in toolsets/variants/ (`base`: the
    /// toolset as it is).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
}

impl VariantsFlag {
    /// The one variant of a command that takes at most one.
    pub fn single(&self) -> Option<&str> {
        self.variants.first().map(String::as_str)
    }
}

/// A live MCP server to read tools from: `import` and `draft`.
#[derive(Debug, Clone, Default, Args)]
pub struct LiveServerFlags {
    /// Start this MCP server command and speak MCP over its stdin/stdout, e.g. "node server.js
    /// --stdio" or "npx @modelcontextprotocol/server-filesystem /tmp".
    #[arg(long, value_name = "\"CMD ARGS\"", conflicts_with_all = ["url", "mcp_config"])]
    pub stdio: Option<String>,
    /// Connect to this Streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp.
    #[arg(long, conflicts_with = "mcp_config")]
    pub url: Option<String>,
    /// The server as a client's config file describes it: Claude Desktop's
    /// claude_desktop_config.json, Claude Code's .mcp.json, Cursor's .cursor/mcp.json, VS Code's
    /// .vscode/mcp.json, or a registry server.json; #NAME picks one of its servers.
    #[arg(long, value_name = "FILE[#NAME]")]
    pub mcp_config: Option<crate::import::client_config::ConfigChoice>,
    /// Where a config's prompted input comes from (repeatable): --input api-key=MY_KEY fills
    /// ${input:api-key} from $MY_KEY [default: $MCPICK_INPUT_<ID>, the id upper-cased].
    #[arg(long = "input", value_name = "ID=VAR", requires = "mcp_config", value_parser = parse_input_source)]
    pub inputs: Vec<(String, String)>,
    /// Set a variable for the --stdio server (repeatable), e.g. --env API_KEY=$API_KEY; its value
    /// reaches the server only, never a file. `NAME=value` words before the command work too.
    #[arg(long = "env", value_name = "NAME=VALUE", conflicts_with = "url", value_parser = parse_env_assignment)]
    pub env: Vec<(String, String)>,
    /// The folder the --stdio server starts in [default: this one].
    #[arg(long, value_name = "DIR", conflicts_with = "url")]
    pub cwd: Option<std::path::PathBuf>,
    /// How long each request to the server may wait for its reply. (`--timeout` is a model's
    /// wait, in the commands that ask one: one flag, one meaning.)
    #[arg(long, value_name = "SECS", default_value_t = 60.0, value_parser = parse_wait)]
    pub server_timeout: f64,
    /// Which revision of MCP to speak: probe the stateless 2026-07-28 with server/discover and fall
    /// back to the initialize handshake (auto), 2026-07-28 only (stateless), or the handshake only
    /// (sessions). `modern` and `legacy` are accepted for the last two.
    #[arg(long, value_enum, default_value = "auto")]
    pub era: EraChoice,
}

/// `--era`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum EraChoice {
    #[default]
    Auto,
    #[value(alias = "modern")]
    Stateless,
    #[value(alias = "legacy")]
    Sessions,
}

/// `--name`: what an importer calls the toolset (and suite) it writes.
#[derive(Debug, Clone, Default, Args)]
pub struct NameFlag {
    /// The toolset's (and suite's) name [default: from the file written or read].
    #[arg(long)]
    pub name: Option<String>,
}

/// `--format`: how a command prints. `markdown` is a pull-request comment on a comparison
/// (`compare`, `ab`); the commands that compare nothing (`validate`, `lint`, `run`, `sweep`)
/// refuse it with a message saying where it belongs.
#[derive(Debug, Clone, Default, Args)]
pub struct FormatFlag {
    /// Output format: `json` one JSON object on stdout; `markdown` (`compare` and `ab` only) a
    /// pull-request comment — verdict, table, the tasks that moved — the same bytes for the same
    /// runs.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
    Markdown,
}

impl OutputFormat {
    /// What a command that compares nothing says to `--format markdown`.
    pub fn markdown_refusal(command: &str) -> String {
        format!(
            "mcpick {command}: --format markdown is a pull-request comment on a comparison: use it with `mcpick ab` (two or more --variant arms) or `mcpick compare BASE NEW`; {command} prints text or json"
        )
    }
}

/// `--junit`: the verdict as a JUnit XML file, for CI systems' test reports.
#[derive(Debug, Clone, Default, Args)]
pub struct JunitFlag {
    /// Also write the verdict as JUnit XML to FILE: a test case per backend (`compare`) or per
    /// backend and arm pair (`ab`), failed where the verdict fails; written even when the gate
    /// fails or the comparison is refused.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// `--adjust`: how a report's comparisons are adjusted for each other.
#[derive(Debug, Clone, Args)]
pub struct AdjustFlag {
    /// How the p-values of the comparisons one report prints are adjusted for each other before a
    /// verdict is drawn: Holm's method, Benjamini–Hochberg's, or none.
    #[arg(long, value_name = "none|holm|bh", default_value = "holm")]
    pub adjust: crate::settings::Adjustment,
}

/// `--alpha`: a test's significance level.
#[derive(Debug, Clone, Args)]
pub struct AlphaFlag {
    /// Significance level: of the two-sided paired test in `power`; of the one-sided test that NEW
    /// is worse (or errs more) in `compare`.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
}
