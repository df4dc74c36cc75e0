//! `mcpick run` (and `ab`, `sweep`) as clap sees it: what the run's own flags are, beside the
//! shared groups of `flags` it flattens. `commands::resolve` turns it into `settings::RunSettings`.

use super::flags::{
    AdjustFlag, BackendsFlag, BudgetFlag, FormatFlag, HostedFlags, JunitFlag, ModelFlags, OutFlag,
    ProfilesFlag, ProgressFlag, SeedFlag, VariantsFlag,
};
use super::values::{parse_wait, parse_wait_or_none};
use clap::ValueEnum;

/// Everything `mcpick run` is told. Resolved once into `RunSettings`, which the run's manifest
/// records, so `--resume` repeats it exactly.
#[derive(Debug, Clone, clap::Args)]
#[command(
    mut_arg("backends", |a| a
        .required_unless_present("resume")
        .help("A backend: local[:MODE[:MODEL]], embed, bm25, random[:SEED], oracle, openai:MODEL, anthropic:MODEL, replay:RUN_DIR[#BACKEND], or the name of a profile in the config file. Repeat for several")),
    mut_arg("variants", |a| a.help(
        "Run each suite's toolset as overlaid by this variant (a name from toolsets/variants/, or `base` for the toolset as it is). Repeat for a paired A/B comparison: every arm sees the same tasks, seeds and tool order. Only suites whose toolset every variant applies to are run")),
    mut_arg("out", |a| a
        .conflicts_with("resume")
        .help("The run folder [default: reports/<UTC time>-<plan hash>]")),
)]
pub struct RunOptions {
    /// Suite files or directories [default: tasks/].
    pub paths: Vec<std::path::PathBuf>,
    #[command(flatten)]
    pub backends: BackendsFlag,
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
    #[command(flatten)]
    pub variants: VariantsFlag,
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
    /// Show the tools as a named MCP client does (`clients/NAME.toml`): its tool names, its cap on
    /// tools, and its rule deferring tools behind a search where the `flat` listing would pass it.
    /// `raw`, `claude-code`, `claude-desktop`, `vscode`, `cursor`, `openai-tool-search`
    /// [default: raw, the server's own list].
    #[arg(long, value_name = "NAME")]
    pub client: Option<String>,
    /// Distractor draws per size in a sweep (seeds 0 to S-1).
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub seeds: u32,
    /// Trials per task and condition; with more than one, reports give pass@k and consistency.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub repeats: u32,
    #[command(flatten)]
    pub adjust: AdjustFlag,
    /// Toolsets (a file or directory) a sweep draws distractors from [default: every toolset in
    /// toolsets/ but the suite's own].
    #[arg(long, value_name = "DIR")]
    pub pool: Option<std::path::PathBuf>,
    /// Show every tool of these bystander servers (names in toolsets/bystanders/, comma-separated,
    /// or `all`) beside the suite's own in every trial, and report how many of the suite's picks
    /// each server's tools take. A bystander tool named like a tool already shown is served as
    /// SERVER__TOOL.
    #[arg(long, value_name = "NAME,...|all", value_delimiter = ',')]
    pub bystanders: Vec<String>,
    #[command(flatten)]
    pub out: OutFlag,
    /// Finish an interrupted run: repeat the plan in DIR/manifest.json and run only the trials that
    /// DIR/trials.jsonl lacks (other run options are taken from the manifest).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub profiles: ProfilesFlag,
    #[command(flatten)]
    pub hosted: HostedFlags,
    #[command(flatten)]
    pub model: ModelFlags,
    /// Threads a `local` model evaluates prompts with [default: as --threads].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads_batch: Option<u32>,
    /// Context size of a `local` model, in tokens [default: the model's own, at most 16384].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(256..=1048576))]
    pub ctx_size: Option<u32>,
    /// Sampling temperature of a `local` model [default: 0, greedy decoding].
    #[arg(long, value_name = "T")]
    pub temperature: Option<f32>,
    #[command(flatten)]
    pub seed: SeedFlag,
    /// Record how sure the model was of each first pick, for graded A/B measures: `local` in score
    /// mode scores every action and keeps their probabilities [always on for `ab`].
    #[arg(long)]
    pub graded: bool,
    /// Put each toolset's server instructions (kept by `import` from the server's `instructions`)
    /// into the system prompt, as hosts such as Claude Desktop do.
    #[arg(long)]
    pub server_instructions: bool,
    /// Trials in flight at once, per backend.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// Request limit per backend, in requests per minute.
    #[arg(long, value_name = "N")]
    pub requests_per_minute: Option<u32>,
    /// Token limit per backend, in (estimated input + output) tokens per minute.
    #[arg(long, value_name = "N")]
    pub tokens_per_minute: Option<u32>,
    /// Retries of a rate-limited or transiently failed request (jittered exponential backoff,
    /// honouring Retry-After). After the last one the trial is scored `error`.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub max_retries: u32,
    /// The longest wait a server's Retry-After is honoured for, in seconds. A server asking for more
    /// (`Retry-After: 86400`, a date days ahead) gets no retry: the trial is recorded as an error
    /// saying so, and `--resume` runs it later.
    #[arg(long, value_name = "SECS", default_value_t = 60.0, value_parser = parse_wait_or_none)]
    pub max_retry_wait: f64,
    #[command(flatten)]
    pub budget: BudgetFlag,
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
    #[command(flatten)]
    pub progress: ProgressFlag,
    /// `json`: the summary (summary.json, with how the run ended) as one JSON object on stdout;
    /// what the run says as it starts goes to stderr. `markdown` (`ab` only): the A/B verdict as
    /// a pull-request comment.
    #[command(flatten)]
    pub format: FormatFlag,
    /// `ab` only.
    #[command(flatten)]
    pub junit: JunitFlag,
    /// Run one shard of the plan, I of N (0-based): a stable hash of each trial's key gives it to
    /// exactly one shard. The shard writes DIR/shard-I-of-N under the run folder [default: from
    /// JOB_COMPLETION_INDEX with --shards, or SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT].
    #[arg(long, value_name = "I/N", value_parser = crate::record::Shard::parse, conflicts_with_all = ["shards", "resume"])]
    pub shard: Option<crate::record::Shard>,
    /// The number of shards of a Kubernetes Indexed Job; each pod's index is its JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000), conflicts_with = "resume")]
    pub shards: Option<u32>,
}

/// `--distractors`: how a sweep draws distractors (`settings::Distractors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DistractorChoice {
    Random,
    Similar,
}
