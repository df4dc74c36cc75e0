//! `mcpick explain`: which sentence of a description earns a tool its picks, and which steals them.
//! The description of each measured tool — the ones named, or the one a run of the suite shows most
//! confused, and their neighbours (`scope`) — is cut into units (`units`: its sentences, by a rule a
//! person can predict, and each parameter's description); for each unit a wording without it is
//! written as a variant file (`variants`) and run on the tasks it can move (each measured tool's,
//! and the suite's no-call tasks) beside the wording as it is (`measure`, one run folder each, so a
//! killed explain resumes); each unit's effect on each group of tasks — paired by task, on the
//! model's probability of a right pick where it gives one, else on right picks over repeats — comes
//! with an interval and a verdict that never claims more than the interval shows (`attribution`,
//! `effects`). The measured tools are listed after the others (unless the order is to be kept), so
//! taking a unit out changes the prompt only from its tool on and the embedded model restores the
//! rest from its prefix cache. `write_up` tells it all: `EXPLAIN.md`, `explain.json` (a contract
//! scripts read) and `explain.html`, the descriptions coloured by effect.

pub mod attribution;
pub mod effects;
mod entry;
mod measure;
pub mod scope;
pub mod units;
pub mod variants;
mod write_up;

pub use attribution::{MeasuredUnit, UnitCost, measure_name, ranked, task_values, unit_effects};
pub use effects::{Effect, EffectVerdict, NEUTRAL_WITHIN, effect};
pub use scope::{NO_CALL, most_confused, similar_tools, task_groups, trading_partners};
pub use units::{Unit, UnitKind, description_without, sentences, units};
pub use variants::{LeaveOneOut, leave_one_out};
pub use write_up::{Explanation, unit_label};

use crate::settings::RunSettings;
use std::path::PathBuf;

/// What `explain` is asked to do.
#[derive(Debug, Clone)]
pub struct ExplainSettings {
    pub suite: PathBuf,
    /// The wording to explain (`None`: the toolset as it is).
    pub variant: Option<String>,
    /// The tools to explain (empty: the one a run of the whole suite shows most confused).
    pub tools: Vec<String>,
    /// Neighbours measured beside each tool.
    pub neighbours: usize,
    /// Keep the toolset's order instead of listing the measured tools last.
    pub keep_order: bool,
    pub out: PathBuf,
    /// The runs' settings: the one backend, its options, repeats, limits, the budget.
    pub run: RunSettings,
    pub progress: bool,
}

/// How `explain` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every unit measured.
    Done,
    /// Stopped by Ctrl-C: the same command resumes.
    Interrupted,
    /// The budget is spent, or the backend was stopped.
    Incomplete,
}

impl From<crate::runner::Stop> for Ending {
    fn from(stop: crate::runner::Stop) -> Ending {
        match stop {
            crate::runner::Stop::Interrupted => Ending::Interrupted,
            crate::runner::Stop::Incomplete => Ending::Incomplete,
        }
    }
}

/// Backends that give neither probabilities nor picks that vary between repeats: leaving a
/// sentence out can only be measured as it flips a fixed pick, which says nothing of its weight.
const REFUSED: [&str; 5] = ["bm25", "random", "embed", "oracle", "replay"];

/// Why `backend` cannot be explained with, if it cannot.
pub fn refusal(backend: &str) -> Option<String> {
    let kind = backend.split(':').next().unwrap_or(backend);
    REFUSED.contains(&kind).then(|| {
        format!(
            "--backend {backend}: explain measures how a unit moves a model's picks, from the model's probabilities (local) or from its picks over repeats (a hosted model); {kind} gives neither — its pick for a request is fixed, so leaving a sentence out could only flip it"
        )
    })
}

pub use entry::explain;
pub use measure::{Measured, Measurement, measure_units};
