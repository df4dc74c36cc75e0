//! The two commands where a model writes — `draft` (requests and their calls) and `improve`
//! (tool descriptions) — as clap sees them: their own flags beside the shared groups of `flags`.

use super::flags::{
    BackendsFlag, BudgetFlag, HostedFlags, LiveServerFlags, ModelFlags, OutFlag, ProfilesFlag,
    ProgressFlag, SeedFlag, VariantsFlag,
};
use super::values::{parse_fraction, parse_minutes};
use clap::ArgAction;
use std::path::PathBuf;

#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("out", |a| a
    .required(true)
    .help("The folder to write the suite into (created; the same folder resumes a killed draft)")))]
pub struct DraftOptions {
    /// Toolset file, or the name of a toolset in toolsets/ (or draft for a live server's tools,
    /// saved to DIR/NAME.json: --stdio, --url, --mcp-config).
    #[arg(required_unless_present_any = ["stdio", "url", "mcp_config"], conflicts_with_all = ["stdio", "url", "mcp_config"])]
    pub toolset: Option<String>,
    #[command(flatten)]
    pub server: LiveServerFlags,
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
    #[command(flatten)]
    pub seed: SeedFlag,
    #[command(flatten)]
    pub out: OutFlag,
    #[command(flatten)]
    pub model: ModelFlags,
    #[command(flatten)]
    pub hosted: HostedFlags,
    #[command(flatten)]
    pub progress: ProgressFlag,
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    mut_arg("backends", |a| a
        .required(true)
        .action(ArgAction::Set)
        .help("The backend whose picks are measured (a spec as `run` takes)")),
    mut_arg("variants", |a| a
        .action(ArgAction::Set)
        .help("Start from this variant's descriptions (a file, or a name in toolsets/variants/) [default: the toolset as it is]")),
    mut_arg("out", |a| a
        .required(true)
        .help("The folder to write into (created; the same folder resumes)")),
)]
pub struct ImproveOptions {
    /// The suite file whose tasks measure the descriptions.
    pub suite: PathBuf,
    #[command(flatten)]
    pub variants: VariantsFlag,
    #[command(flatten)]
    pub backends: BackendsFlag,
    /// The model that rewrites: a backend spec as `run` takes (local[:MODE[:MODEL]], openai:MODEL,
    /// anthropic:MODEL, with --base-url any OpenAI-compatible server).
    #[arg(long, value_name = "SPEC", default_value = "local")]
    pub rewriter: String,
    /// Rounds of rewriting, each on the last round's choice (a round rewords every weak tool at
    /// once, and a second costs as much again).
    #[arg(long, value_name = "R", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub rounds: u32,
    /// Rewriter candidates per target tool (the lint's rules add one more).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub candidates: u32,
    /// Tools rewritten per round, the weakest on the working part first [default: every tool that
    /// lost a pick, was not sure of one, or took another's].
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub targets: Option<u32>,
    /// Before proposing, measure what in the descriptions moves each target's picks (`explain`'s
    /// leave-one-out runs on the working part): the rewriter is told which sentences earn and
    /// which steal, and the strongest stealing sentence of the target and of a neighbour each
    /// become a candidate without it. Costs a run per sentence of the target and two neighbours.
    #[arg(long)]
    pub explain: bool,
    /// The share of tasks held out for the final verdict.
    #[arg(long, value_name = "F", default_value_t = 0.5, value_parser = parse_fraction)]
    pub holdout: f64,
    /// Minutes this run may take: it says its plan after the baseline, and a step (a rewriter ask,
    /// a run on the working part, a round) that would not leave time for the held-out run is not
    /// started; past it, it stops, to go on when run again.
    #[arg(long, value_name = "M", value_parser = parse_minutes)]
    pub minutes: Option<f64>,
    #[command(flatten)]
    pub seed: SeedFlag,
    #[command(flatten)]
    pub budget: BudgetFlag,
    #[command(flatten)]
    pub out: OutFlag,
    #[command(flatten)]
    pub model: ModelFlags,
    #[command(flatten)]
    pub hosted: HostedFlags,
    #[command(flatten)]
    pub profiles: ProfilesFlag,
    #[command(flatten)]
    pub progress: ProgressFlag,
}
