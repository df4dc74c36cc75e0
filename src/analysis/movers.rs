//! The tasks whose picks moved between the two sides of a comparison — BASE and NEW of `compare`,
//! arm A and arm B of `ab` — most changed first. Per backend and task, each side's rate of right
//! picks over its scored trials (its repeats, sizes and seeds together: the task is the unit, as
//! in every statistic) and what it picked first. A task moved when its rate changed or, at the same
//! rate, its most frequent first pick did (a wrong tool traded for another wrong tool). This is
//! what a pull-request comment lists under its table, so a reviewer sees which requests a wording
//! change won and lost. Pure: trials in, movers out, in an order that depends on nothing else.

use super::per_tool::picked_label;
use crate::record::StoredTrial;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One first pick of a task on one side: the tool (or `(none)`), its trials, whether it was right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickCount {
    pub label: String,
    pub trials: u64,
    /// A task's acceptable tools do not change between its trials, so a label is right or wrong
    /// for all of them.
    pub right: bool,
}

/// A task's scored trials on one side.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SidePicks {
    pub trials: u64,
    pub right: u64,
    /// Each distinct first pick, most trials first, then by name.
    pub picked: Vec<PickCount>,
}

impl SidePicks {
    /// The share of this side's trials that picked right.
    pub fn rate(&self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            self.right as f64 / self.trials as f64
        }
    }

    /// The first pick most trials made (`None` without trials).
    pub fn usual_pick(&self) -> Option<&str> {
        self.picked.first().map(|p| p.label.as_str())
    }
}

/// One task that moved.
#[derive(Debug, Clone, PartialEq)]
pub struct Mover {
    pub backend: String,
    pub suite: String,
    pub task: String,
    /// BASE, or arm A.
    pub before: SidePicks,
    /// NEW, or arm B.
    pub after: SidePicks,
}

impl Mover {
    /// After − before, in right picks per trial: −1 is a task always right before and never after.
    pub fn change(&self) -> f64 {
        self.after.rate() - self.before.rate()
    }
}

type TaskKey = (String, String, String);

/// Each side's scored trials per (backend, suite, task).
fn by_task<'a>(trials: impl IntoIterator<Item = &'a StoredTrial>) -> BTreeMap<TaskKey, SidePicks> {
    let mut counts: BTreeMap<TaskKey, BTreeMap<String, (u64, bool)>> = BTreeMap::new();
    for trial in trials.into_iter().filter(|t| t.scored()) {
        let key = (
            trial.backend.clone(),
            trial.suite.clone(),
            trial.task.clone(),
        );
        let right = trial.right_pick();
        let count = counts
            .entry(key)
            .or_default()
            .entry(picked_label(trial))
            .or_insert((0, right));
        count.0 += 1;
    }
    counts
        .into_iter()
        .map(|(key, labels)| {
            let mut picked: Vec<PickCount> = labels
                .into_iter()
                .map(|(label, (trials, right))| PickCount {
                    label,
                    trials,
                    right,
                })
                .collect();
            // Most trials first; the BTreeMap gave name order, which the stable sort keeps on ties.
            picked.sort_by_key(|p| std::cmp::Reverse(p.trials));
            let side = SidePicks {
                trials: picked.iter().map(|p| p.trials).sum(),
                right: picked.iter().filter(|p| p.right).map(|p| p.trials).sum(),
                picked,
            };
            (key, side)
        })
        .collect()
}

/// The tasks scored on both sides whose picks moved, the largest change in right picks first
/// (losses before gains of the same size, then backend, suite and task), then those whose usual
/// pick changed at the same rate.
pub fn movers<'a>(
    before: impl IntoIterator<Item = &'a StoredTrial>,
    after: impl IntoIterator<Item = &'a StoredTrial>,
) -> Vec<Mover> {
    let mut after = by_task(after);
    let mut moved: Vec<Mover> = by_task(before)
        .into_iter()
        .filter_map(|(key, before)| {
            let after = after.remove(&key)?;
            let (backend, suite, task) = key;
            Some(Mover {
                backend,
                suite,
                task,
                before,
                after,
            })
        })
        .filter(|m| m.change() != 0.0 || m.before.usual_pick() != m.after.usual_pick())
        .collect();
    // Stable: the map's (backend, suite, task) order decides among equal changes.
    moved.sort_by(|a, b| {
        let (a, b) = (a.change(), b.change());
        b.abs()
            .partial_cmp(&a.abs())
            .unwrap_or(Ordering::Equal)
            .then(a.partial_cmp(&b).unwrap_or(Ordering::Equal))
    });
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{Outcome, Verdict};

    fn trial(task: &str, repeat: u32, picked: Option<&str>, expected: &str) -> StoredTrial {
        let outcome = match picked {
            Some(tool) if tool == expected => Outcome::Correct,
            Some(_) => Outcome::WrongTool,
            None => Outcome::NoCall,
        };
        StoredTrial {
            suite: "travel".into(),
            task: task.into(),
            backend: "bm25".into(),
            repeat,
            expected_tools: vec![expected.into()],
            verdict: Verdict {
                outcome,
                selection_correct: Some(picked == Some(expected)),
                first_tool: picked.map(str::to_string),
                ..Verdict::default()
            },
            ..StoredTrial::default()
        }
    }

    #[test]
    fn the_largest_change_comes_first_and_losses_before_gains() {
        let before = [
            trial("lost", 0, Some("a"), "a"),
            trial("gained", 0, None, "b"),
            trial("half", 0, Some("c"), "c"),
            trial("half", 1, Some("c"), "c"),
            trial("same", 0, Some("d"), "d"),
            trial("traded", 0, Some("x"), "e"),
        ];
        let after = [
            trial("lost", 0, Some("z"), "a"),
            trial("gained", 0, Some("b"), "b"),
            trial("half", 0, Some("c"), "c"),
            trial("half", 1, None, "c"),
            trial("same", 0, Some("d"), "d"),
            trial("traded", 0, Some("y"), "e"),
        ];
        let moved = movers(&before, &after);
        let order: Vec<(&str, f64)> = moved
            .iter()
            .map(|m| (m.task.as_str(), m.change()))
            .collect();
        assert_eq!(
            order,
            vec![
                ("lost", -1.0),
                ("gained", 1.0),
                ("half", -0.5),
                ("traded", 0.0)
            ]
        );
        let half = &moved[2].after;
        assert_eq!((half.trials, half.right), (2, 1));
        // One trial each: the name order (`(none)` before `c`) decides.
        assert_eq!(half.picked[0].label, "(none)");
        assert!(!half.picked[0].right && half.picked[1].right);
    }

    #[test]
    fn a_task_on_one_side_only_or_in_error_is_not_a_mover() {
        let mut errored = trial("errored", 0, Some("a"), "b");
        errored.verdict.outcome = Outcome::Error;
        let before = [trial("only-before", 0, Some("a"), "a"), errored.clone()];
        let after = [trial("errored", 0, Some("b"), "b")];
        assert!(movers(&before, &after).is_empty());
    }
}
