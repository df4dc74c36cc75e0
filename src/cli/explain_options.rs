//! `explain` as clap sees it: which sentence of a description earns a tool its picks, and which
//! steals them — its own flags beside the shared groups of `flags`.

use super::flags::{
    BackendsFlag, BudgetFlag, HostedFlags, ModelFlags, OutFlag, ProfilesFlag, ProgressFlag,
    VariantsFlag,
};
use clap::ArgAction;
use std::path::PathBuf;

#[derive(Debug, Clone, clap::Args)]
#[command(
    mut_arg("backends", |a| a
        .required(true)
        .action(ArgAction::Set)
        .help("The model whose picks are explained: local[:…] (its probabilities), or a hosted model (its picks over --repeats); bm25, embed, random, oracle and replay are refused")),
    mut_arg("variants", |a| a
        .action(ArgAction::Set)
        .help("Explain this variant's wording (a file, or a name in toolsets/variants/) [default: the toolset as it is]")),
    mut_arg("out", |a| a
        .required(true)
        .help("The folder to write EXPLAIN.md, explain.json, explain.html and every run into (created; the same folder resumes)")),
)]
pub struct ExplainOptions {
    /// The suite file whose tasks measure the descriptions.
    pub suite: PathBuf,
    #[command(flatten)]
    pub variants: VariantsFlag,
    #[command(flatten)]
    pub backends: BackendsFlag,
    /// A tool to explain (repeat for several) [default: the one a run of the whole suite shows
    /// most confused].
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Neighbours measured beside each tool: the tools that trade picks with it, then those whose
    /// descriptions read most like its own.
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=20))]
    pub neighbours: u32,
    /// Keep the toolset's order (slower: every unit's run evaluates the list from its tool on)
    /// [default: the measured tools listed after the others].
    #[arg(long)]
    pub keep_order: bool,
    /// Trials per task for a model without probabilities (a hosted one) [default: 5; 1 for local].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub repeats: Option<u32>,
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
