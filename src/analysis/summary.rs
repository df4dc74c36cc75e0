//! The summary's cells: each backend on each suite (and on all suites together, per arm and per
//! exposure strategy when the run has them), with the tally of outcomes behind its accuracies, latency percentiles, tokens,
//! cost, retries, calls, the scoring profiles its trials were judged under and how many of them a
//! later turn would have fixed. Its accuracies count tasks, not trials: a task run several times
//! (`--repeats`, a sweep's sizes and seeds) is one observation, its rate over those trials, and
//! the interval is Wilson's over the tasks when every task's rate is 0 or 1 (as with one trial per
//! task), else a bootstrap over tasks. Pure: records in, numbers out; `report` renders them.

use super::statistics::task_rate;
use crate::record::StoredTrial;
use crate::score::{Interval, Outcome, Tally};
use std::collections::{BTreeMap, BTreeSet};

/// One cell of the summary: a backend on a suite (or on all suites).
#[derive(Debug, Default)]
pub struct SummaryCell {
    pub tally: Tally,
    /// Nearest-rank percentiles of the trials' latencies.
    pub latency_p50_ms: f64,
    pub latency_p95_ms: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub retries: u64,
    pub cost_usd: f64,
    pub calls: u64,
    /// The scoring profiles of its trials (one, unless `(all)` spans suites scored differently).
    pub scoring: BTreeSet<&'static str>,
    /// Trials whose first reply failed under a one-response profile but whose later turns would
    /// have passed under `mcp`.
    pub later_turn_fixed: u64,
    /// Each task's own counts, by (suite, task): the unit of the accuracies.
    pub by_task: BTreeMap<(String, String), TaskCounts>,
}

/// One task's trials in a cell: how many were judged and right, and of those that expected a call,
/// how many picked the right tool and got the arguments right too.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskCounts {
    pub judged: u64,
    pub right: u64,
    pub expected_call: u64,
    pub right_tool: u64,
    pub right_call: u64,
}

/// The interval over tasks of a rate each task has out of some of its trials (tasks with none of
/// those trials left out).
fn over_tasks(cell: &SummaryCell, rate: impl Fn(&TaskCounts) -> Option<f64>) -> Interval {
    let rates: Vec<f64> = cell.by_task.values().filter_map(rate).collect();
    task_rate(&rates, 2_000, 0x7461_736b)
}

fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

impl SummaryCell {
    /// Right answers among judged trials (errors aside), over tasks.
    pub fn accuracy(&self) -> Interval {
        over_tasks(self, |t| share(t.right, t.judged))
    }

    /// First call picked an acceptable tool, among tasks that expect a call.
    pub fn selection(&self) -> Interval {
        over_tasks(self, |t| share(t.right_tool, t.expected_call))
    }

    /// Right tool and right arguments, among tasks that expect a call.
    pub fn full(&self) -> Interval {
        over_tasks(self, |t| share(t.right_call, t.expected_call))
    }

    pub fn calls_per_task(&self) -> f64 {
        if self.tally.trials() == 0 {
            0.0
        } else {
            self.calls as f64 / self.tally.trials() as f64
        }
    }
}

/// The cells keyed by (backend, suite label), in that order.
pub fn summary_cells(trials: &[StoredTrial]) -> BTreeMap<(String, String), SummaryCell> {
    let mut cells: BTreeMap<(String, String), SummaryCell> = BTreeMap::new();
    let mut latencies: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for trial in trials {
        // Each arm and strategy is its own cell: pooling them would average conditions.
        let condition: String = [trial.variant.as_deref(), trial.exposure.as_deref()]
            .into_iter()
            .flatten()
            .map(|part| format!(" · {part}"))
            .collect();
        let (suite, all) = (
            format!("{}{condition}", trial.suite),
            format!("(all){condition}"),
        );
        for suite in [suite, all] {
            let key = (trial.backend.clone(), suite);
            latencies
                .entry(key.clone())
                .or_default()
                .push(trial.latency_ms);
            let cell = cells.entry(key).or_default();
            cell.tally.add(&trial.verdict);
            cell.input_tokens += trial.input_tokens;
            cell.output_tokens += trial.output_tokens;
            cell.retries += u64::from(trial.retries);
            cell.calls += trial.calls.len() as u64;
            cell.cost_usd += trial.cost_usd;
            cell.scoring.insert(trial.scoring.as_str());
            cell.later_turn_fixed += u64::from(trial.verdict.later_turn_fixed);
            let task = cell
                .by_task
                .entry((trial.suite.clone(), trial.task.clone()))
                .or_default();
            let outcome = trial.verdict.outcome;
            if outcome != Outcome::Error {
                task.judged += 1;
                task.right += u64::from(matches!(
                    outcome,
                    Outcome::Correct | Outcome::CorrectAbstain
                ));
            }
            if let Some(right) = trial.verdict.selection_correct {
                task.expected_call += 1;
                task.right_tool += u64::from(right);
                task.right_call += u64::from(outcome == Outcome::Correct);
            }
        }
    }
    for (key, mut values) in latencies {
        values.sort_by(f64::total_cmp);
        if let Some(cell) = cells.get_mut(&key) {
            cell.latency_p50_ms = percentile(&values, 0.50);
            cell.latency_p95_ms = percentile(&values, 0.95);
        }
    }
    cells
}

/// Nearest-rank percentile of sorted values (0 when there are none).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&values, 0.50), 10.0);
        assert_eq!(percentile(&values, 0.95), 19.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
