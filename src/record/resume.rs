//! What a run folder already holds, for `--resume`: the keys of its finished trials (skipped) and
//! what they cost (the budget covers the whole run). A line that does not read is not a finished
//! trial, so that trial runs again.

use super::folder::read_trials;
use super::trial::TrialKey;
use std::collections::HashSet;
use std::path::Path;

#[derive(Debug, Default)]
pub struct Finished {
    pub keys: HashSet<TrialKey>,
    pub cost_usd: f64,
}

/// The finished trials of the folder (none when it has no `trials.jsonl` yet).
pub fn finished_trials(folder: &Path) -> std::io::Result<Finished> {
    let stored = match read_trials(folder) {
        Ok(stored) => stored,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Finished::default()),
        Err(e) => return Err(e),
    };
    let mut finished = Finished::default();
    for trial in &stored.trials {
        finished.cost_usd += trial.cost_usd;
        finished.keys.insert(trial.key());
    }
    Ok(finished)
}
