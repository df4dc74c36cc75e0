//! The split that keeps `improve` honest: a suite's tasks divided once into a working part (where
//! weak tools are found, the rewriter is shown what was lost, and candidates are chosen) and a
//! held-out part (which only judges the final wording). Stratified by what a task expects — its
//! first-pick tools, or no call — so each part holds its share of every tool's tasks; within a
//! stratum the order is a seeded hash of the task id, so the split depends on the seed and the
//! ids alone, not on the order tasks are written in. Pure.

use crate::hashing::{fnv1a, splitmix64};
use crate::model::Task;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Task ids of each part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    pub working: Vec<String>,
    pub held_out: Vec<String>,
}

/// What a task is stratified by: its first-pick tools (sorted), or `no call`.
pub fn stratum(task: &Task) -> String {
    let mut tools = task.expectation.first_pick_tools();
    if tools.is_empty() {
        return "no call".to_string();
    }
    tools.sort_unstable();
    tools.dedup();
    tools.join(" | ")
}

/// Splits `tasks`: a `held_out` fraction of each stratum (rounded so the parts' totals stay as
/// near the fraction as whole tasks allow: the remainders carry from one stratum to the next) goes
/// to the held-out part, the rest to the working part. Both parts are in the suite's order.
pub fn split_tasks(tasks: &[Task], held_out: f64, seed: u64) -> Split {
    let mut strata: BTreeMap<String, Vec<&Task>> = BTreeMap::new();
    for task in tasks {
        strata.entry(stratum(task)).or_default().push(task);
    }
    let mut chosen = std::collections::BTreeSet::new();
    let mut seen = 0usize;
    for members in strata.values_mut() {
        members.sort_by_key(|t| (splitmix64(seed ^ fnv1a(&t.id)), t.id.clone()));
        let before = (seen as f64 * held_out).round() as usize;
        seen += members.len();
        let after = (seen as f64 * held_out).round() as usize;
        for task in members.iter().take(after - before) {
            chosen.insert(task.id.clone());
        }
    }
    let (held_out, working): (Vec<&Task>, Vec<&Task>) =
        tasks.iter().partition(|t| chosen.contains(&t.id));
    Split {
        working: working.into_iter().map(|t| t.id.clone()).collect(),
        held_out: held_out.into_iter().map(|t| t.id.clone()).collect(),
    }
}
