//! Who gains at whose expense: in an A/B test, the probability mass each tool attracts on the
//! tasks it is acceptable for ("own") and on the tasks that belong to other actions ("taken"), in
//! each arm. A description can win picks by pulling them from its neighbours — an assertive "always
//! use this tool" multiplies a tool's usage without making it right more often — and a pick
//! accuracy that barely moves hides that. A tool is flagged when arm B's description makes it take
//! at least one expected pick more from others' tasks (and 2 points more of their mass) than arm A,
//! and more than it gains on its own tasks.
//!
//! The mass is the model's probability for the action where the trial kept its distribution
//! (an action that went into the remainder counts as 0, a lower bound), else the pick itself (1 for
//! the action picked, 0 for the others). Answering in text is an action like any tool. Repeats
//! are averaged per task first.

use crate::pick_distribution::TEXT_ACTION;
use crate::record::StoredTrial;
use std::collections::{BTreeMap, BTreeSet};

/// Expected picks taken from others' tasks before a tool is flagged.
pub const FLAG_PICKS: f64 = 1.0;
/// The rise in mean mass on others' tasks (a fraction) before a tool is flagged.
pub const FLAG_RISE: f64 = 0.02;

/// One tool (or text) under arm A and arm B.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolPull {
    pub tool: String,
    /// Tasks the tool is acceptable for, and tasks it is not.
    pub own_tasks: usize,
    pub other_tasks: usize,
    /// Mean mass on its own tasks, under A and under B.
    pub own_a: f64,
    pub own_b: f64,
    /// Mean mass on the other tasks, under A and under B.
    pub taken_a: f64,
    pub taken_b: f64,
    /// B − A in expected picks: on its own tasks, and taken from the others.
    pub own_gain: f64,
    pub taken_gain: f64,
    /// Whether B's description makes it take picks from others more than it wins its own.
    pub flagged: bool,
}

/// One backend's tools under two arms.
#[derive(Debug, Clone, PartialEq)]
pub struct PullTable {
    pub backend: String,
    pub arm_a: String,
    pub arm_b: String,
    /// Whether the masses are the model's probabilities (else picks, 0 or 1).
    pub probabilities: bool,
    /// Every action that was acceptable somewhere or drew mass, the most taken (in B) first.
    pub tools: Vec<ToolPull>,
}

/// A task in its condition: what repeats are averaged over.
type Unit = (String, String, String, u32, u32);

fn unit(trial: &StoredTrial) -> Unit {
    (
        trial.suite.clone(),
        trial.task.clone(),
        trial.exposure.clone().unwrap_or_default(),
        trial.size.unwrap_or(0),
        trial.sweep_seed,
    )
}

/// The mass a trial puts on each action it gave any to.
fn masses(trial: &StoredTrial) -> Vec<(String, f64)> {
    match &trial.actions {
        Some(distribution) => distribution
            .kept
            .iter()
            .map(|a| (a.action.clone(), a.p))
            .collect(),
        None => vec![(
            trial
                .verdict
                .first_tool
                .clone()
                .unwrap_or_else(|| TEXT_ACTION.to_string()),
            1.0,
        )],
    }
}

/// One unit's acceptable actions, and the mean mass on each action over its trials.
type UnitMass = (BTreeSet<String>, BTreeMap<String, f64>);
type Units = BTreeMap<Unit, UnitMass>;

/// Per unit of one arm: the acceptable actions and the mean mass on each action.
fn arm_units(trials: &[&StoredTrial]) -> Units {
    let mut sums: BTreeMap<Unit, (UnitMass, usize)> = BTreeMap::new();
    for trial in trials {
        let ((acceptable, mass), n) = sums.entry(unit(trial)).or_default();
        acceptable.extend(trial.acceptable_actions());
        for (action, p) in masses(trial) {
            *mass.entry(action).or_default() += p;
        }
        *n += 1;
    }
    sums.into_iter()
        .map(|(unit, ((acceptable, mut mass), n))| {
            for p in mass.values_mut() {
                *p /= n as f64;
            }
            (unit, (acceptable, mass))
        })
        .collect()
}

/// Each arm after the first against the first, per backend, on the tasks both arms ran.
pub fn pull_tables(trials: &[StoredTrial], arms: &[String]) -> Vec<PullTable> {
    let Some((arm_a, others)) = arms.split_first() else {
        return Vec::new();
    };
    let backends: BTreeSet<&str> = trials.iter().map(|t| t.backend.as_str()).collect();
    let mut tables = Vec::new();
    for arm_b in others {
        for backend in &backends {
            let of_arm = |arm: &str| -> Vec<&StoredTrial> {
                trials
                    .iter()
                    .filter(|t| {
                        t.scored() && t.backend == *backend && t.variant.as_deref() == Some(arm)
                    })
                    .collect()
            };
            let (trials_a, trials_b) = (of_arm(arm_a), of_arm(arm_b));
            if trials_a.is_empty() || trials_b.is_empty() {
                continue;
            }
            let probabilities = trials_a
                .iter()
                .chain(&trials_b)
                .all(|t| t.actions.is_some());
            let (mut units_a, mut units_b) = (arm_units(&trials_a), arm_units(&trials_b));
            units_a.retain(|u, _| units_b.contains_key(u));
            units_b.retain(|u, _| units_a.contains_key(u));
            tables.push(PullTable {
                backend: backend.to_string(),
                arm_a: arm_a.clone(),
                arm_b: arm_b.clone(),
                probabilities,
                tools: tool_pulls(&units_a, &units_b),
            });
        }
    }
    tables
}

fn tool_pulls(units_a: &Units, units_b: &Units) -> Vec<ToolPull> {
    let mut tools: BTreeSet<&str> = BTreeSet::new();
    for (acceptable, mass) in units_a.values().chain(units_b.values()) {
        tools.extend(acceptable.iter().map(String::as_str));
        tools.extend(
            mass.iter()
                .filter(|(_, p)| **p > 0.0)
                .map(|(a, _)| a.as_str()),
        );
    }
    let mut pulls: Vec<ToolPull> = tools
        .into_iter()
        .map(|tool| {
            // (own mass, own tasks, taken mass, other tasks) summed over the units.
            let sums = |units: &Units| {
                units.values().fold(
                    (0.0, 0, 0.0, 0),
                    |(own, n_own, taken, n_other), (ok, mass)| {
                        let p = mass.get(tool).copied().unwrap_or(0.0);
                        if ok.contains(tool) {
                            (own + p, n_own + 1, taken, n_other)
                        } else {
                            (own, n_own, taken + p, n_other + 1)
                        }
                    },
                )
            };
            let (own_a, own_tasks, taken_a, other_tasks) = sums(units_a);
            let (own_b, _, taken_b, _) = sums(units_b);
            let mean = |sum: f64, n: usize| if n == 0 { 0.0 } else { sum / n as f64 };
            let own_gain = own_b - own_a;
            let taken_gain = taken_b - taken_a;
            let taken_rise = mean(taken_b, other_tasks) - mean(taken_a, other_tasks);
            ToolPull {
                tool: tool.to_string(),
                own_tasks,
                other_tasks,
                own_a: mean(own_a, own_tasks),
                own_b: mean(own_b, own_tasks),
                taken_a: mean(taken_a, other_tasks),
                taken_b: mean(taken_b, other_tasks),
                own_gain,
                taken_gain,
                flagged: taken_gain >= FLAG_PICKS
                    && taken_rise >= FLAG_RISE
                    && taken_gain > own_gain,
            }
        })
        .collect();
    pulls.sort_by(|x, y| {
        y.flagged
            .cmp(&x.flagged)
            .then(y.taken_gain.abs().total_cmp(&x.taken_gain.abs()))
            .then(x.tool.cmp(&y.tool))
    });
    pulls
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pick_distribution::{ActionProbability, PickDistribution};

    /// A trial of `task` (whose right tool is `right`) in `arm`, with these probabilities.
    fn trial(arm: &str, task: &str, right: &str, actions: &[(&str, f64)]) -> StoredTrial {
        let mut trial: StoredTrial = serde_json::from_value(serde_json::json!({
            "suite": "s", "toolset": "t", "task": task, "backend": "m", "variant": arm,
            "expected_tools": [right], "lang": "en", "outcome": "correct",
            "selection_correct": true, "first_tool": right, "saw_tool_error": false,
            "self_corrected": false, "mismatches": [], "detail": "", "calls": [], "turns": 1,
            "latency_ms": 1.0, "input_tokens": 0, "output_tokens": 0, "backend_error": null,
        }))
        .unwrap();
        let full: Vec<ActionProbability> = actions
            .iter()
            .map(|(a, p)| ActionProbability {
                action: a.to_string(),
                p: *p,
            })
            .collect();
        trial.actions = Some(PickDistribution::bounded(&full, &[right.to_string()]));
        trial
    }

    #[test]
    fn a_tool_that_takes_others_tasks_is_flagged() {
        let mut trials = Vec::new();
        for i in 0..10 {
            let task = format!("t{i}");
            let right = if i < 2 { "search" } else { "book" };
            // A: each task's right tool is sure. B: "search" pulls 40% of every other task.
            trials.push(trial("a", &task, right, &[(right, 0.9), ("other", 0.1)]));
            let b = if right == "search" {
                vec![("search", 0.95), ("other", 0.05)]
            } else {
                vec![("book", 0.5), ("search", 0.4), ("other", 0.1)]
            };
            trials.push(trial("b", &task, right, &b));
        }
        let tables = pull_tables(&trials, &["a".into(), "b".into()]);
        assert_eq!(tables.len(), 1);
        assert!(tables[0].probabilities);
        let search = &tables[0].tools[0];
        assert_eq!(search.tool, "search");
        assert!(search.flagged, "{search:?}");
        assert_eq!((search.own_tasks, search.other_tasks), (2, 8));
        assert!((search.taken_gain - 8.0 * 0.4).abs() < 1e-9);
        assert!((search.own_gain - 2.0 * 0.05).abs() < 1e-9);
        // "book" lost mass on its own tasks and took none: not flagged.
        let book = tables[0].tools.iter().find(|t| t.tool == "book").unwrap();
        assert!(!book.flagged && book.own_gain < 0.0);
    }

    #[test]
    fn a_tool_that_wins_its_own_tasks_is_not_flagged() {
        let mut trials = Vec::new();
        for i in 0..10 {
            let task = format!("t{i}");
            let right = if i < 5 { "search" } else { "book" };
            trials.push(trial("a", &task, right, &[(right, 0.5), ("other", 0.5)]));
            trials.push(trial("b", &task, right, &[(right, 0.9), ("other", 0.1)]));
        }
        let tables = pull_tables(&trials, &["a".into(), "b".into()]);
        assert!(tables[0].tools.iter().all(|t| !t.flagged));
    }
}
