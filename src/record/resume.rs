//! What a run folder already holds, for `--resume`: the keys of its finished trials (skipped) and
//! what they cost (the budget covers the whole run). A line that is not one of the folder's trials
//! (`trial_lines`) is not a finished trial, so that trial runs again.

use super::trial::TrialKey;
use super::trial_lines::StoredTrials;
use std::collections::HashSet;

#[derive(Debug, Default)]
pub struct Finished {
    pub keys: HashSet<TrialKey>,
    pub cost_usd: f64,
}

/// The finished trials among `stored`.
pub fn finished_trials(stored: &StoredTrials) -> Finished {
    let mut finished = Finished::default();
    for trial in &stored.trials {
        finished.cost_usd += trial.cost_usd;
        finished.keys.insert(trial.key());
    }
    finished
}
