//! Counting verdicts into the metrics of one cell (backend × suite × variant × size): counts per
//! outcome, accuracies with Wilson 95% intervals, abstention precision and recall, self-correction.
//! `error` trials are counted and shown but excluded from every accuracy.

use super::verdict::{Outcome, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

/// A proportion with its Wilson 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub successes: u64,
    pub trials: u64,
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

/// The two-sided 95% normal quantile.
const Z_95: f64 = 1.959_963_984_540_054;

/// Wilson score interval for `successes` out of `trials` at 95% (`[0, 1]` when there are no trials).
pub fn wilson_interval(successes: u64, trials: u64) -> Interval {
    if trials == 0 {
        return Interval {
            successes,
            trials,
            estimate: 0.0,
            low: 0.0,
            high: 1.0,
        };
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = Z_95 * Z_95;
    let centre = p + z2 / (2.0 * n);
    let spread = Z_95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denominator = 1.0 + z2 / n;
    Interval {
        successes,
        trials,
        estimate: p,
        low: ((centre - spread) / denominator).max(0.0),
        high: ((centre + spread) / denominator).min(1.0),
    }
}

/// Verdicts counted for one cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    pub counts: BTreeMap<Outcome, u64>,
    selection_right: u64,
    call_tasks: u64,
    saw_tool_error: u64,
    self_corrected: u64,
}

impl Tally {
    pub fn add(&mut self, verdict: &Verdict) {
        *self.counts.entry(verdict.outcome).or_default() += 1;
        if let Some(right) = verdict.selection_correct {
            self.call_tasks += 1;
            self.selection_right += u64::from(right);
        }
        self.saw_tool_error += u64::from(verdict.saw_tool_error);
        self.self_corrected += u64::from(verdict.self_corrected);
    }

    pub fn count(&self, outcome: Outcome) -> u64 {
        self.counts.get(&outcome).copied().unwrap_or(0)
    }

    /// All trials, errors included.
    pub fn trials(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Right answers (correct calls and correct abstentions) among trials that did not error.
    pub fn accuracy(&self) -> Interval {
        let judged = self.trials() - self.count(Outcome::Error);
        wilson_interval(
            self.count(Outcome::Correct) + self.count(Outcome::CorrectAbstain),
            judged,
        )
    }

    /// First call picked an acceptable tool, among tasks that expect a call.
    pub fn selection_accuracy(&self) -> Interval {
        wilson_interval(self.selection_right, self.call_tasks)
    }

    /// Right tool and right arguments, among tasks that expect a call.
    pub fn full_accuracy(&self) -> Interval {
        wilson_interval(self.count(Outcome::Correct), self.call_tasks)
    }

    /// Of the times the model called nothing, how often that was right.
    pub fn abstention_precision(&self) -> Interval {
        let abstained = self.count(Outcome::CorrectAbstain) + self.count(Outcome::NoCall);
        wilson_interval(self.count(Outcome::CorrectAbstain), abstained)
    }

    /// Of the tasks where calling nothing was right, how often the model did so.
    pub fn abstention_recall(&self) -> Interval {
        let should = self.count(Outcome::CorrectAbstain) + self.count(Outcome::FalseCall);
        wilson_interval(self.count(Outcome::CorrectAbstain), should)
    }

    /// Of the trials where a tool answered `isError`, how often a later call got it right.
    pub fn self_correction_rate(&self) -> Interval {
        wilson_interval(self.self_corrected, self.saw_tool_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    #[test]
    fn wilson_matches_known_values() {
        let i = wilson_interval(8, 10);
        assert!(close(i.low, 0.4902) && close(i.high, 0.9433), "{i:?}");
        let i = wilson_interval(0, 10);
        assert!(close(i.low, 0.0) && close(i.high, 0.2775), "{i:?}");
        let i = wilson_interval(10, 10);
        assert!(close(i.low, 0.7225) && close(i.high, 1.0), "{i:?}");
        let i = wilson_interval(0, 0);
        assert_eq!((i.low, i.high), (0.0, 1.0));
    }

    fn verdict(outcome: Outcome, selection: Option<bool>) -> Verdict {
        Verdict {
            outcome,
            selection_correct: selection,
            first_tool: None,
            saw_tool_error: false,
            self_corrected: false,
            later_turn_fixed: false,
            mismatches: vec![],
            detail: String::new(),
        }
    }

    #[test]
    fn errors_are_counted_but_excluded_from_accuracy() {
        let mut tally = Tally::default();
        for (outcome, selection) in [
            (Outcome::Correct, Some(true)),
            (Outcome::WrongArgs, Some(true)),
            (Outcome::WrongTool, Some(false)),
            (Outcome::NoCall, Some(false)),
            (Outcome::CorrectAbstain, None),
            (Outcome::FalseCall, None),
            (Outcome::Error, None),
        ] {
            tally.add(&verdict(outcome, selection));
        }
        assert_eq!(tally.trials(), 7);
        assert_eq!(tally.accuracy().trials, 6);
        assert_eq!(tally.accuracy().successes, 2);
        assert_eq!(
            (
                tally.selection_accuracy().successes,
                tally.selection_accuracy().trials
            ),
            (2, 4)
        );
        assert_eq!(
            (
                tally.full_accuracy().successes,
                tally.full_accuracy().trials
            ),
            (1, 4)
        );
        assert_eq!(
            (
                tally.abstention_precision().successes,
                tally.abstention_precision().trials
            ),
            (1, 2)
        );
        assert_eq!(
            (
                tally.abstention_recall().successes,
                tally.abstention_recall().trials
            ),
            (1, 2)
        );
    }
}
