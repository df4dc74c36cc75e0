//! The command line as clap sees it: syntax and help text only. Nothing here opens a file or builds
//! anything; `commands` turns these values into work (a run's into `settings::RunSettings`), and no
//! other module sees them.

use crate::lint::LintSeverity;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// mcpick — measure which MCP tools language models pick, and why.
#[derive(Debug, Parser)]
#[command(name = "mcpick", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load and cross-check toolsets, variants and suites; exit 0 only if all are valid (2 otherwise).
    Validate {
        /// Files or directories to check [default: toolsets/ and tasks/].
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
    },
    /// Review a toolset's names, descriptions, parameters and hints against the design principles.
    Lint {
        /// Toolset file, or the name of a toolset in toolsets/.
        toolset: String,
        /// Lint the toolset as overlaid by this variant (a file, or a variant name in toolsets/variants/).
        #[arg(long)]
        variant: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
        /// Exit 1 when a finding at or above this severity is reported.
        #[arg(long, value_enum)]
        fail_on: Option<LintSeverity>,
        /// Show, under each finding, the source chapter's own words for its rule (in Chinese).
        #[arg(long)]
        sources: bool,
    },
    /// Run every task of the suites against every backend and score the tool calls.
    Run(Box<RunOptions>),
    /// A paired description A/B test: `run` with two or more `--variant`s (`--graded` on), reported
    /// per backend on right picks (McNemar) and on how sure the model was (a sign-flip test on
    /// per-task p(right pick), or right picks over `--repeats`), with intervals, the smallest
    /// detectable difference and a verdict; and who gains at whose expense. A variant named twice
    /// is an A/A test.
    Ab(Box<RunOptions>),
    /// A toolset-size sweep: `run` with `--sizes`, reported as accuracy against the number of tools
    /// shown, by gold-tool position, with a logistic fit of where accuracy falls.
    Sweep(Box<RunOptions>),
    /// How many tasks a paired A/B test needs to detect a difference (McNemar, Connor 1987).
    Power {
        /// The difference in right picks to detect, as a fraction (0.1 = ten percentage points).
        #[arg(long)]
        difference: f64,
        /// The share of tasks where the two arms disagree (at least the difference; from a pilot
        /// run's A/B table, or a guess).
        #[arg(long)]
        discordant: f64,
        /// Two-sided significance level.
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        /// The chance of detecting the difference when it is real.
        #[arg(long, default_value_t = 0.8)]
        power: f64,
    },
    /// Union the run folders of a split run's shards into one folder and rebuild its outputs;
    /// refuses shards of different plans, names shards and trials missing.
    Merge {
        /// The shards' run folders (each holds manifest.json and trials.jsonl).
        #[arg(required = true)]
        run_dirs: Vec<std::path::PathBuf>,
        /// The merged run folder (created; `--resume` finishes it if trials are missing).
        #[arg(short, long, value_name = "DIR")]
        output: std::path::PathBuf,
    },
    /// A regression gate: pair NEW's trials with BASE's (by suite, task, backend, repeat, seed and
    /// size, whatever the descriptions or variant names) and exit 1 when NEW picks right
    /// significantly less often (McNemar) or less often than --min-selection.
    Compare {
        /// The run to compare against (yesterday's descriptions, the main branch).
        base: std::path::PathBuf,
        /// The run being judged.
        new: std::path::PathBuf,
        /// Significance level of the paired test.
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        /// The lowest rate of right picks NEW may have, as a fraction (0.8 = 80%), per backend.
        #[arg(long, value_name = "FRACTION")]
        min_selection: Option<f64>,
        /// How many of BASE's trials NEW may lack (a NEW run cut short) before the runs cannot be
        /// compared [default: 0: every trial BASE has must be in NEW].
        #[arg(long, value_name = "N", default_value_t = 0)]
        allow_missing: usize,
    },
    /// Rebuild a run's summaries, trials.csv, trials.parquet and report.html from its trials.jsonl alone.
    Report {
        /// The run folder (it holds trials.jsonl).
        run_dir: std::path::PathBuf,
    },
    /// Serve a toolset over MCP, 2025-11-25 sessions and 2026-07-28 requests alike (stdio by default, or
    /// Streamable HTTP), reloading it when its file changes.
    Serve(ServeOptions),
    /// Snapshot a live MCP server's tools into a toolset file (JSON) that `validate` accepts.
    Import(ImportOptions),
    /// Translate a BFCL single-turn file (JSON Lines) and its possible answers into a toolset and a
    /// suite whose tasks keep their own function lists.
    ImportBfcl(ImportBfclOptions),
    /// Translate MetaTool's tool-selection CSV (Query,Tool) and tool descriptions into one toolset
    /// of all tools and one suite of one task per row.
    ImportMetatool(ImportMetatoolOptions),
    /// The models mcpick knows by name: size, licence, where they live and whether they are
    /// present; `--fetch NAME` brings one (verified by SHA-256). Also the prefix cache's size;
    /// `--clear-kv-cache` empties it.
    Models {
        /// Fetch these models now (repeatable; `all` for every one).
        #[arg(long, value_name = "NAME")]
        fetch: Vec<String>,
        /// Empty the prefix cache (the saved tool-list prompts of `local`; $MCPICK_KV_CACHE).
        #[arg(long)]
        clear_kv_cache: bool,
    },
    /// Draft a task suite for a toolset or a live server: a model writes requests and the calls that
    /// serve them, code checks each (leakage of the tool's name, the call against the schema and the
    /// request's words, near-duplicates, what the offline pickers choose), and DIR gets suite.toml,
    /// tasks.jsonl and DRAFT.md (every candidate kept or dropped, with why). Review with
    /// `mcpick review DIR`. A killed draft resumes when run again with the same settings.
    Draft(Box<DraftOptions>),
    /// Rewrite the tool descriptions a backend confuses, and keep only what wins on tasks it never
    /// saw: the suite is split once (seeded, stratified) into a working and a held-out part;
    /// candidates from a rewriter model and from the lint's rules are chosen on the working part,
    /// round by round, and the final wording is adopted only if it is significantly better on the
    /// held-out part. DIR gets variant.toml, IMPROVE.md, report.html and every trial; a killed
    /// improve resumes when run again. Exit 0 adopted, 1 not adopted.
    Improve(Box<ImproveOptions>),
    /// Walk a drafted suite's pending tasks in the terminal, one at a time: accept, reject, edit in
    /// $EDITOR, skip or quit; each decision is written at once. Without a terminal, lists what is
    /// pending and exits 2.
    Review {
        /// The folder `mcpick draft` wrote (or its suite file).
        dir: PathBuf,
    },
    /// Show the toolsets, variants and suites found.
    List {
        /// Directories to look in [default: toolsets/ and tasks/].
        paths: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct ImproveOptions {
    /// The suite file whose tasks measure the descriptions.
    pub suite: PathBuf,
    /// Start from this variant's descriptions (default: the toolset as it is).
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,
    /// The backend whose picks are measured (a spec as `run` takes).
    #[arg(long, value_name = "SPEC")]
    pub backend: String,
    /// The model that rewrites: a backend spec as `run` takes (local[:MODE[:MODEL]], openai:MODEL,
    /// anthropic:MODEL, with --base-url any OpenAI-compatible server).
    #[arg(long, value_name = "SPEC", default_value = "local")]
    pub rewriter: String,
    /// Rounds of rewriting, each on the last round's choice.
    #[arg(long, value_name = "R", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub rounds: u32,
    /// Rewriter candidates per target tool (the lint's rules add one more).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub candidates: u32,
    /// Tools rewritten per round (the weakest on the working part).
    #[arg(long, value_name = "T", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub targets: u32,
    /// The share of tasks held out for the final verdict.
    #[arg(long, value_name = "F", default_value_t = 0.5, value_parser = parse_fraction)]
    pub holdout: f64,
    /// Seeds the split and the rewriter's sampling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop once the runs have cost this many US dollars (hosted backends).
    #[arg(long, value_name = "USD", value_parser = parse_dollars)]
    pub budget: Option<f64>,
    /// The folder to write into (created; the same folder resumes).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// The embedded model, as `run --model` [default: qwen2.5-coder-1.5b].
    #[arg(long, value_name = "NAME|hf:PATH|PATH")]
    pub model: Option<String>,
    /// Threads the embedded model uses [default: every core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Base URL for an openai or anthropic backend or rewriter, e.g. http://127.0.0.1:8080/v1.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Backend profiles (TOML) [default: mcpick.toml if it exists].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Seconds a hosted rewriter may take over one ask.
    #[arg(long, value_name = "SECS", default_value_t = 300.0, value_parser = parse_wait)]
    pub timeout: f64,
    /// Do not save or restore `local` prompt prefixes in the prefix cache.
    #[arg(long)]
    pub no_kv_cache: bool,
    /// No progress bar on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// The longest wait a flag may ask for: a week. Anything longer is a typo, and `inf` or `1e300`
/// would not fit in a `Duration` at all.
pub const LONGEST_WAIT_SECONDS: f64 = 7.0 * 86_400.0;

/// A wait in seconds: a finite number above 0, at most a week.
fn parse_wait(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= LONGEST_WAIT_SECONDS => Ok(s),
        _ => Err(format!(
            "{text:?} is not a number of seconds above 0 and at most {LONGEST_WAIT_SECONDS} (a week), e.g. 120 or 0.5"
        )),
    }
}

/// A wait in seconds that may be 0: a finite number from 0 to a week.
fn parse_wait_or_none(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(0.0) => Ok(0.0),
        _ => parse_wait(text),
    }
}

/// An amount of US dollars: a finite number, 0 or more.
fn parse_dollars(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(format!(
            "{text:?} is not an amount of US dollars, e.g. 2.50"
        )),
    }
}

fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if f > 0.0 && f < 1.0 => Ok(f),
        _ => Err(format!(
            "{text:?} is not a fraction between 0 and 1, e.g. 0.5"
        )),
    }
}

/// Where a sweep's distractor tools come from.
/// `--distractors`: how a sweep draws distractors (`settings::Distractors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DistractorChoice {
    Random,
    Similar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ServeOptions {
    /// Toolset file, or the name of a toolset in toolsets/.
    pub toolset: String,
    /// Serve the toolset as overlaid by this variant (a file, or a variant name in toolsets/variants/).
    #[arg(long)]
    pub variant: Option<String>,
    /// Speak newline-delimited JSON-RPC on stdin/stdout (the default).
    #[arg(long, conflicts_with = "http")]
    pub stdio: bool,
    /// Serve Streamable HTTP at http://ADDR/mcp; port 0 picks a free port (the URL is printed on stderr).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8808")]
    pub http: Option<std::net::SocketAddr>,
    /// List tools in pages of N with opaque cursors (default: all in one page, as most clients expect).
    #[arg(long, value_name = "N")]
    pub page_size: Option<usize>,
    /// Also serve the tools the official MCP conformance suite calls by name.
    #[arg(long)]
    pub conformance_fixtures: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct DraftOptions {
    /// Toolset file, or the name of a toolset in toolsets/ (or draft for a live server: --stdio,
    /// --url).
    #[arg(required_unless_present_any = ["stdio", "url"], conflicts_with_all = ["stdio", "url"])]
    pub toolset: Option<String>,
    /// Start this MCP server command and draft for its tools (saved to DIR/NAME.json), e.g.
    /// "npx @modelcontextprotocol/server-filesystem /tmp".
    #[arg(long, value_name = "\"CMD ARGS\"", conflicts_with = "url")]
    pub stdio: Option<String>,
    /// Draft for the tools of this Streamable HTTP MCP endpoint.
    #[arg(long)]
    pub url: Option<String>,
    /// Which revision of MCP to speak to a live server (as `import --era`).
    #[arg(long, value_enum, default_value = "auto")]
    pub era: EraChoice,
    /// The model that writes: a backend spec as `run` takes (local[:MODE[:MODEL]], openai:MODEL,
    /// anthropic:MODEL, with --base-url any OpenAI-compatible server).
    #[arg(long, value_name = "SPEC", default_value = "local")]
    pub drafter: String,
    /// Requests per tool.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=50))]
    pub per_tool: u32,
    /// Also, for each confusable pair (similar descriptions, name neighbours), a request that needs
    /// one and not the other, both ways round.
    #[arg(long)]
    pub pairs: bool,
    /// Requests no tool serves (near the toolset's subject, and plain conversation).
    #[arg(long, value_name = "M", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=500))]
    pub no_call: u32,
    /// The drafter's seed (its sampling, and the suite's record of it).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The folder to write the suite into (created).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// The embedded model, as `run --model` [default: qwen2.5-coder-1.5b].
    #[arg(long, value_name = "NAME|hf:PATH|PATH")]
    pub model: Option<String>,
    /// Threads the embedded model uses [default: every core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Base URL for an openai or anthropic drafter, e.g. http://127.0.0.1:8080/v1.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the drafter's API key.
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Output token limit per hosted drafter reply [default: enough for the requests asked].
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Seconds a hosted drafter may take over one ask.
    #[arg(long, value_name = "SECS", default_value_t = 300.0, value_parser = parse_wait)]
    pub timeout: f64,
    /// Do not save or restore `local` prompt prefixes in the prefix cache.
    #[arg(long)]
    pub no_kv_cache: bool,
    /// No progress bar on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ImportOptions {
    /// Start this command and speak MCP over its stdin/stdout, e.g. "node server.js --stdio".
    #[arg(
        long,
        value_name = "\"CMD ARGS\"",
        conflicts_with = "url",
        required_unless_present = "url"
    )]
    pub stdio: Option<String>,
    /// Connect to this Streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp.
    #[arg(long)]
    pub url: Option<String>,
    /// Where to write the toolset, e.g. toolsets/github.json.
    #[arg(short, long, value_name = "FILE")]
    pub output: std::path::PathBuf,
    /// The toolset's name [default: the output file's name].
    #[arg(long)]
    pub name: Option<String>,
    /// Which revision of MCP to speak: probe the stateless 2026-07-28 with server/discover and fall
    /// back to the initialize handshake (auto), 2026-07-28 only (stateless), or the handshake only
    /// (sessions). `modern` and `legacy` are accepted for the last two.
    #[arg(long, value_enum, default_value = "auto")]
    pub era: EraChoice,
}

/// `import --era`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EraChoice {
    Auto,
    #[value(alias = "modern")]
    Stateless,
    #[value(alias = "legacy")]
    Sessions,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ImportBfclOptions {
    /// A BFCL questions file, e.g. BFCL_v4_simple_python.json (JSON Lines).
    pub questions: PathBuf,
    /// Its possible answers, e.g. possible_answer/BFCL_v4_simple_python.json (not needed for the
    /// irrelevance and live_relevance files).
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// The folder to write toolset.json, suite.toml, tasks.jsonl and IMPORT.md into.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// The suite's and toolset's name [default: from the questions file's name].
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ImportMetatoolOptions {
    /// MetaTool's queries: a CSV with `Query` and `Tool` columns, e.g. dataset/data/all_clean_data.csv.
    pub queries: PathBuf,
    /// The tool descriptions: a JSON object of name → description, e.g. dataset/plugin_des.json.
    #[arg(long, value_name = "FILE")]
    pub descriptions: PathBuf,
    /// The folder to write toolset.json, suite.toml, tasks.jsonl and IMPORT.md into.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// The suite's and toolset's name.
    #[arg(long, default_value = "metatool")]
    pub name: String,
}

/// Everything `mcpick run` is told. Stored in the run's manifest, so `--resume` repeats it exactly.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// Suite files or directories [default: tasks/].
    pub paths: Vec<std::path::PathBuf>,
    /// A backend: local[:MODE[:MODEL]], embed, bm25, random[:SEED], oracle, openai:MODEL,
    /// anthropic:MODEL, replay:RUN_DIR[#BACKEND], or the name of a profile in the config file.
    /// Repeat for several.
    #[arg(
        long = "backend",
        value_name = "SPEC",
        required_unless_present = "resume"
    )]
    pub backends: Vec<String>,
    /// Model turns per trial (each turn may call tools; results go back to the model).
    #[arg(long, default_value_t = 4)]
    pub max_turns: usize,
    /// The scoring profile for every suite: `mcp` (mcpick's rules) or `bfcl` (BFCL's checker on
    /// the first reply) [default: each suite's own `scoring`; `bfcl` for imported BFCL suites].
    #[arg(long, value_name = "PROFILE")]
    pub scoring: Option<String>,
    /// Run only the tasks carrying this tag (repeat for any of several).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Run each suite's toolset as overlaid by this variant (a name from toolsets/variants/, or
    /// `base` for the toolset as it is). Repeat for a paired A/B comparison: every arm sees the same
    /// tasks, seeds and tool order. Only suites whose toolset every variant applies to are run.
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Toolset sizes to sweep, e.g. 5,15,30: each trial shows the task's gold tools plus
    /// distractors from other toolsets, nested (for one seed the 15-tool set holds the 5-tool set)
    /// and shuffled by the seed.
    #[arg(long, value_name = "N,N,...", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub sizes: Vec<u32>,
    /// How a sweep draws distractors: at random, or the tools nearest to the gold tool (BM25 over
    /// name and description: the hard case).
    #[arg(long, value_enum, default_value_t = DistractorChoice::Random)]
    pub distractors: DistractorChoice,
    /// How each trial exposes its tools, one series per strategy, paired on the same trials:
    /// `flat` (every tool listed), `retrieve:bm25:K` / `retrieve:embed:K` (only the K tools the
    /// retriever ranks highest for the request), `search-tool[:bm25|embed[:K]]` (the model starts
    /// with a `search_tools` tool whose results become callable), `native-search` (the provider's
    /// own tool search over deferred tools: openai, anthropic). Comma-separated or repeated; the
    /// first is the reference the others are compared with [default: flat, unlabelled].
    #[arg(long = "exposure", value_name = "S,S,...", value_delimiter = ',', value_parser = crate::tool_exposure::Exposure::parse)]
    pub exposures: Vec<crate::tool_exposure::Exposure>,
    /// Distractor draws per size in a sweep (seeds 0 to S-1).
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub seeds: u32,
    /// Trials per task and condition; with more than one, reports give pass@k and consistency.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub repeats: u32,
    /// Toolsets (a file or directory) a sweep draws distractors from [default: every toolset in
    /// toolsets/ but the suite's own].
    #[arg(long, value_name = "DIR")]
    pub pool: Option<std::path::PathBuf>,
    /// The run folder [default: reports/<UTC time>-<plan hash>].
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub out: Option<std::path::PathBuf>,
    /// Finish an interrupted run: repeat the plan in DIR/manifest.json and run only the trials that
    /// DIR/trials.jsonl lacks (other run options are taken from the manifest).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<std::path::PathBuf>,
    /// Backend profiles (TOML, `[backend.NAME]` tables) [default: mcpick.toml if it exists].
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// Base URL for openai and anthropic backends, e.g. http://127.0.0.1:8080/v1 for a local server.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the API key [default: OPENAI_API_KEY / ANTHROPIC_API_KEY].
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Output token limit per model reply.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// The model of `local` backends: a catalogue name (`mcpick models`; fetched once into
    /// $MCPICK_MODEL_DIR or ~/.cache/mcpick/models), `hf:ORG/REPO/FILE.gguf` (from the Hugging
    /// Face Hub or its local cache; $HF_ENDPOINT, $HF_HUB_CACHE, $HF_HOME) or a GGUF file
    /// [default: qwen2.5-coder-1.5b].
    #[arg(long, value_name = "NAME|hf:PATH|PATH")]
    pub model: Option<String>,
    /// Threads a `local` model generates with [default: the cores divided among the run's local
    /// models; more slows a busy machine down].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Threads a `local` model evaluates prompts with [default: as --threads].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads_batch: Option<u32>,
    /// Context size of a `local` model, in tokens [default: the model's own, at most 16384].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(256..=1048576))]
    pub ctx_size: Option<u32>,
    /// Sampling temperature of a `local` model [default: 0, greedy decoding].
    #[arg(long, value_name = "T")]
    pub temperature: Option<f32>,
    /// Seed of a `local` model's sampling (with --temperature above 0) [default: 0].
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,
    /// Record how sure the model was of each first pick, for graded A/B measures: `local` in score
    /// mode scores every action and keeps their probabilities [always on for `ab`].
    #[arg(long)]
    pub graded: bool,
    /// Do not save or restore `local` prompt prefixes (the system turn with its tool list) in the
    /// persistent prefix cache ($MCPICK_KV_CACHE, else ~/.cache/mcpick/kv; at most
    /// $MCPICK_KV_CACHE_MAX bytes, default 4G). Results are the same either way.
    #[arg(long)]
    pub no_kv_cache: bool,
    /// Trials in flight at once, per backend.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// Request limit per backend, in requests per minute.
    #[arg(long, value_name = "N")]
    pub requests_per_minute: Option<u32>,
    /// Token limit per backend, in (estimated input + output) tokens per minute.
    #[arg(long, value_name = "N")]
    pub tokens_per_minute: Option<u32>,
    /// Seconds to wait for one model reply before it counts as a transient failure.
    #[arg(long, value_name = "SECS", default_value_t = 120.0, value_parser = parse_wait)]
    pub timeout: f64,
    /// Retries of a rate-limited or transiently failed request (jittered exponential backoff,
    /// honouring Retry-After). After the last one the trial is scored `error`.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub max_retries: u32,
    /// The longest wait a server's Retry-After is honoured for, in seconds. A server asking for more
    /// (`Retry-After: 86400`, a date days ahead) gets no retry: the trial is recorded as an error
    /// saying so, and `--resume` runs it later.
    #[arg(long, value_name = "SECS", default_value_t = 60.0, value_parser = parse_wait_or_none)]
    pub max_retry_wait: f64,
    /// Stop starting trials once the run has cost this many US dollars (prices per model from the
    /// built-in table, `--price` or the config file).
    #[arg(long, value_name = "USD", value_parser = parse_dollars)]
    pub budget: Option<f64>,
    /// A price in US dollars per million tokens, input and output: SPEC=IN,OUT. Repeatable.
    #[arg(long, value_name = "SPEC=IN,OUT")]
    pub price: Vec<String>,
    /// Do not read or write the response cache.
    #[arg(long)]
    pub no_cache: bool,
    /// The response cache [default: $MCPICK_CACHE_DIR or ~/.cache/mcpick, file responses.sqlite].
    #[arg(long, value_name = "FILE")]
    pub cache: Option<std::path::PathBuf>,
    /// Send the hosted backends' turns (openai, anthropic) through the provider's batch API: half
    /// the price, answers within 24 hours. A multi-turn trial's later turns go in later batches;
    /// the batch ids are kept in the run folder (batches.jsonl), so `--resume` polls them instead
    /// of submitting again.
    #[arg(long)]
    pub batch: bool,
    /// Trials a batch lane keeps in flight; one batch holds at most this many requests.
    #[arg(long, value_name = "N", default_value_t = 1000, requires = "batch", value_parser = clap::value_parser!(u32).range(1..=50_000))]
    pub batch_size: u32,
    /// Seconds before a submitted batch is first polled; each later poll waits half as long again,
    /// up to 5 minutes.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, requires = "batch", value_parser = parse_wait)]
    pub batch_poll: f64,
    /// No progress bar on stderr.
    #[arg(long)]
    pub no_progress: bool,
    /// Run one shard of the plan, I of N (0-based): a stable hash of each trial's key gives it to
    /// exactly one shard. The shard writes DIR/shard-I-of-N under the run folder [default: from
    /// JOB_COMPLETION_INDEX with --shards, or SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT].
    #[arg(long, value_name = "I/N", value_parser = crate::record::Shard::parse, conflicts_with_all = ["shards", "resume"])]
    pub shard: Option<crate::record::Shard>,
    /// The number of shards of a Kubernetes Indexed Job; each pod's index is its JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000), conflicts_with = "resume")]
    pub shards: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The commands that take a wait in seconds, each with the flag and the other arguments
    /// it needs to parse.
    fn with_wait(flag: &str, value: &str) -> Vec<Vec<String>> {
        let commands: [&[&str]; 4] = [
            &["mcpick", "run", "s.toml", "--backend", "bm25"],
            &["mcpick", "draft", "t.toml", "-o", "d"],
            &[
                "mcpick",
                "improve",
                "s.toml",
                "--backend",
                "bm25",
                "-o",
                "d",
            ],
            &["mcpick", "run", "s.toml", "--backend", "bm25", "--batch"],
        ];
        commands
            .iter()
            .filter(|c| flag != "--batch-poll" || c.contains(&"--batch"))
            .filter(|c| flag == "--timeout" || c[1] == "run")
            .map(|c| {
                let mut args: Vec<String> = c.iter().map(|a| a.to_string()).collect();
                args.extend([flag.to_string(), value.to_string()]);
                args
            })
            .collect()
    }

    #[test]
    fn waits_beyond_a_week_or_not_finite_are_refused_by_name() {
        for value in ["inf", "1e300", "NaN", "-1", "0", "604801", "soon", ""] {
            for args in with_wait("--timeout", value) {
                let error = Cli::try_parse_from(&args).unwrap_err().to_string();
                // "-1" reads as a flag to clap; every other value reaches the parser.
                assert!(
                    error.contains("--timeout") || value == "-1",
                    "{args:?}: {error}"
                );
            }
        }
        for args in with_wait("--timeout", "0.5") {
            assert!(Cli::try_parse_from(&args).is_ok(), "{args:?}");
        }
        assert!(Cli::try_parse_from(&with_wait("--max-retry-wait", "0")[0]).is_ok());
        assert!(Cli::try_parse_from(&with_wait("--max-retry-wait", "inf")[0]).is_err());
        assert!(Cli::try_parse_from(&with_wait("--batch-poll", "1e300")[0]).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever number is given, a wait that parses fits in a `Duration`.
        #[test]
        fn any_wait_that_parses_is_a_duration(value in prop_oneof![
            any::<f64>().prop_map(|x| x.to_string()),
            (-10i64..700_000).prop_map(|x| x.to_string()),
            any::<f64>().prop_map(|x| format!("{x:e}")),
        ]) {
            for args in with_wait("--timeout", &value) {
                if let Ok(cli) = Cli::try_parse_from(&args) {
                    let seconds = match cli.command {
                        Command::Run(o) => o.timeout,
                        Command::Draft(o) => o.timeout,
                        Command::Improve(o) => o.timeout,
                        _ => unreachable!(),
                    };
                    prop_assert!(std::time::Duration::try_from_secs_f64(seconds).is_ok());
                    prop_assert!(seconds > 0.0 && seconds <= LONGEST_WAIT_SECONDS);
                }
            }
        }
    }
}
