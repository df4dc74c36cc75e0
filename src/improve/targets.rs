//! What to fix, found on the working part under the current wording: each expected tool's standing
//! (its tasks, right picks, mean graded score — `p_right` where the backend gives a distribution,
//! else the pick), who took its picks and whose it took; the weakest tools become a round's targets,
//! each with its confusable neighbours (the tools that traded picks with it, then those the lint
//! finds described alike) and the working tasks it lost or wrongly took. Only trials of the working
//! part ever come here, so nothing the rewriter is shown can come from a held-out task. Pure.

use crate::explain::{EffectVerdict, UnitKind};
use crate::lint::similar_description_pairs;
use crate::model::Toolset;
use crate::pick_distribution::TEXT_ACTION;
use crate::record::StoredTrial;
use std::collections::BTreeMap;

/// One expected tool on the working part.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub tool: String,
    pub tasks: usize,
    pub right: usize,
    /// Mean graded score over its tasks.
    pub graded: f64,
    /// Actions picked instead of it (a tool, or text), with how often.
    pub lost_to: BTreeMap<String, usize>,
    /// Tools whose tasks it was picked for, with how often.
    pub took_from: BTreeMap<String, usize>,
}

impl Standing {
    fn new(tool: &str) -> Standing {
        Standing {
            tool: tool.to_string(),
            tasks: 0,
            right: 0,
            graded: 0.0,
            lost_to: BTreeMap::new(),
            took_from: BTreeMap::new(),
        }
    }
}

/// A task a target lost (`picked` is what was chosen instead) or took (`picked` is the target,
/// `expected` the rightful tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    pub task: String,
    pub expected: String,
    pub picked: String,
}

/// One unit's measured effect on a target's working tasks.
#[derive(Debug, Clone, PartialEq)]
pub struct Attributed {
    pub tool: String,
    pub kind: UnitKind,
    pub param: Option<String>,
    /// The sentence's position in its description (for a sentence).
    pub index: usize,
    pub text: String,
    pub delta: f64,
    pub low: f64,
    pub high: f64,
    pub verdict: EffectVerdict,
}

/// A tool a round rewrites.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub standing: Standing,
    /// Tools it is confused with, the most confused first.
    pub neighbours: Vec<String>,
    pub lost: Vec<Miss>,
    pub took: Vec<Miss>,
    /// What moves its picks, most first, when `--explain` measured it.
    pub attribution: Vec<Attributed>,
}

/// The action a trial picked first: a tool, or text.
fn picked(trial: &StoredTrial) -> String {
    trial
        .verdict
        .first_tool
        .clone()
        .unwrap_or_else(|| TEXT_ACTION.to_string())
}

/// Every expected tool's standing over the scored `trials`, in name order.
pub fn standings(trials: &[StoredTrial]) -> Vec<Standing> {
    let mut by_tool: BTreeMap<String, (Standing, f64)> = BTreeMap::new();
    for trial in trials.iter().filter(|t| t.scored()) {
        let choice = picked(trial);
        let right = trial.right_pick();
        let acceptable = trial.acceptable_actions();
        for tool in &acceptable {
            let (standing, sum) = by_tool
                .entry(tool.clone())
                .or_insert_with(|| (Standing::new(tool), 0.0));
            standing.tasks += 1;
            *sum += trial.graded_score();
            if right {
                standing.right += 1;
            } else {
                *standing.lost_to.entry(choice.clone()).or_default() += 1;
            }
        }
        if !right && choice != TEXT_ACTION {
            let expected = acceptable[0].clone();
            let thief = by_tool
                .entry(choice.clone())
                .or_insert_with(|| (Standing::new(&choice), 0.0));
            *thief.0.took_from.entry(expected).or_default() += 1;
        }
    }
    by_tool
        .into_values()
        .map(|(mut standing, sum)| {
            standing.graded = if standing.tasks > 0 {
                sum / standing.tasks as f64
            } else {
                1.0
            };
            standing
        })
        .collect()
}

/// The `count` weakest tools that can be rewritten (`describable`) and have something to fix —
/// tasks not all won with certainty, or tasks of others taken — lowest graded score first, then
/// fewest right, then the most picks taken from others.
pub fn find_targets(
    trials: &[StoredTrial],
    toolset: &Toolset,
    count: usize,
    describable: &dyn Fn(&str) -> bool,
) -> Vec<Target> {
    let mut weak: Vec<Standing> = standings(trials)
        .into_iter()
        .filter(|s| describable(&s.tool) && toolset.tool(&s.tool).is_some())
        .filter(|s| s.graded < 1.0 - 1e-9 || !s.took_from.is_empty())
        .collect();
    let rate = |s: &Standing| s.right as f64 / s.tasks.max(1) as f64;
    let taken = |s: &Standing| s.took_from.values().sum::<usize>();
    weak.sort_by(|a, b| {
        a.graded
            .total_cmp(&b.graded)
            .then(rate(a).total_cmp(&rate(b)))
            .then(taken(b).cmp(&taken(a)))
            .then(a.tool.cmp(&b.tool))
    });
    let similar = similar_description_pairs(toolset);
    weak.into_iter()
        .take(count)
        .map(|standing| target(standing, trials, toolset, &similar))
        .collect()
}

fn target(
    standing: Standing,
    trials: &[StoredTrial],
    toolset: &Toolset,
    similar: &[(usize, usize, f64)],
) -> Target {
    let mut traded: BTreeMap<&str, usize> = BTreeMap::new();
    for (tool, n) in standing.lost_to.iter().chain(&standing.took_from) {
        if tool != TEXT_ACTION && *tool != standing.tool {
            *traded.entry(tool).or_default() += n;
        }
    }
    let mut neighbours: Vec<(&str, usize)> = traded.into_iter().collect();
    neighbours.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut neighbours: Vec<String> = neighbours.into_iter().map(|(t, _)| t.to_string()).collect();
    for &(i, j, _) in similar {
        let (a, b) = (&toolset.tools[i].name, &toolset.tools[j].name);
        let other = if *a == standing.tool {
            b
        } else if *b == standing.tool {
            a
        } else {
            continue;
        };
        if !neighbours.contains(other) {
            neighbours.push(other.clone());
        }
    }
    let mut lost = Vec::new();
    let mut took = Vec::new();
    for trial in trials.iter().filter(|t| t.scored() && !t.right_pick()) {
        let choice = picked(trial);
        let acceptable = trial.acceptable_actions();
        let miss = Miss {
            task: trial.task.clone(),
            expected: acceptable[0].clone(),
            picked: choice.clone(),
        };
        if acceptable.contains(&standing.tool) {
            lost.push(miss);
        } else if choice == standing.tool {
            took.push(miss);
        }
    }
    Target {
        standing,
        neighbours,
        lost,
        took,
        attribution: Vec::new(),
    }
}
