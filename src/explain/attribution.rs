//! From trials to what each unit does: the wording as it is (`with` every unit) and each
//! leave-one-out wording (`without` one) run on the same tasks, paired by task — a task's value is
//! the mean of its trials' graded score (`p_right` where the backend gives its probabilities, else
//! the right-pick rate over its repeats) — and each unit's effect on each group of tasks (each
//! measured tool's, and no-call), with the unit's effect on its neighbours' tasks taken together
//! for the tables. Tasks a side has no scored trial of are left out of that pair. Pure.

use super::effects::{Effect, effect};
use super::scope::NO_CALL;
use super::units::Unit;
use crate::record::StoredTrial;
use serde::Serialize;
use std::collections::BTreeMap;

/// What one unit's leave-one-out run cost, as this process measured it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct UnitCost {
    pub seconds: f64,
    /// Prompt and candidate tokens the embedded model evaluated, and the prompt tokens it
    /// restored from the prefix cache instead.
    pub evaluated: u64,
    pub restored: u64,
}

/// One unit, measured (or not yet: `effects` empty).
#[derive(Debug, Clone, Serialize)]
pub struct MeasuredUnit {
    #[serde(flatten)]
    pub unit: Unit,
    /// The leave-one-out variant's name.
    pub variant: String,
    /// Its effect on the tasks of its own tool first, then of each other measured tool, then
    /// no-call's.
    pub effects: Vec<Effect>,
    /// Its effect on the tasks of the other measured tools taken together (none expecting its
    /// own tool), what a table shows in one column.
    #[serde(skip)]
    pub on_neighbours: Option<Effect>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<UnitCost>,
}

impl MeasuredUnit {
    /// Its effect on the tasks of `on`.
    pub fn on(&self, on: &str) -> Option<&Effect> {
        self.effects.iter().find(|e| e.on == on)
    }
}

/// Each task's mean graded score over its scored trials.
pub fn task_values(trials: &[StoredTrial]) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for trial in trials.iter().filter(|t| t.scored()) {
        let entry = sums.entry(trial.task.clone()).or_insert((0.0, 0));
        entry.0 += trial.graded_score();
        entry.1 += 1;
    }
    sums.into_iter()
        .map(|(task, (sum, n))| (task, sum / n as f64))
        .collect()
}

/// What the values measure: the model's probability when every scored trial carries it, else
/// the right-pick rate over the trials' repeats.
pub fn measure_name(trials: &[StoredTrial]) -> String {
    let scored: Vec<&StoredTrial> = trials.iter().filter(|t| t.scored()).collect();
    if !scored.is_empty() && scored.iter().all(|t| t.p_right().is_some()) {
        "p(right pick)".into()
    } else {
        let repeats = scored.iter().map(|t| t.repeat + 1).max().unwrap_or(1);
        format!("right picks over {repeats} repeat(s)")
    }
}

/// The paired effect on `tasks` of having the unit (`with`) over lacking it (`without`).
fn paired(
    on: &str,
    tasks: &[String],
    with: &BTreeMap<String, f64>,
    without: &BTreeMap<String, f64>,
) -> Option<Effect> {
    let (a, b): (Vec<f64>, Vec<f64>) = tasks
        .iter()
        .filter_map(|task| Some((*with.get(task)?, *without.get(task)?)))
        .unzip();
    effect(on, &a, &b)
}

/// `unit`'s effects, from the values of the wording with it and without it, over `groups` (each
/// measured tool's tasks, then no-call's, as `scope::task_groups` gives them).
pub fn unit_effects(
    unit: &Unit,
    groups: &[(String, Vec<String>)],
    with: &BTreeMap<String, f64>,
    without: &BTreeMap<String, f64>,
) -> (Vec<Effect>, Option<Effect>) {
    let own = groups.iter().find(|(on, _)| *on == unit.tool);
    let others = groups
        .iter()
        .filter(|(on, _)| *on != unit.tool && on != NO_CALL);
    let no_call = groups.iter().find(|(on, _)| on == NO_CALL);
    let effects = own
        .into_iter()
        .chain(others.clone())
        .chain(no_call)
        .filter_map(|(on, tasks)| paired(on, tasks, with, without))
        .collect();
    let own_tasks: &[String] = own.map_or(&[], |(_, tasks)| tasks.as_slice());
    let mut neighbour_tasks: Vec<String> = Vec::new();
    for (_, tasks) in others {
        for task in tasks {
            if !own_tasks.contains(task) && !neighbour_tasks.contains(task) {
                neighbour_tasks.push(task.clone());
            }
        }
    }
    let on_neighbours = paired("neighbours", &neighbour_tasks, with, without);
    (effects, on_neighbours)
}

/// The measured units ordered by how much they move the picks on `on`'s tasks, most first (the
/// size of the effect; then its interval's nearer end, so a sure effect goes before an unsure one
/// of the same size). Units with no effect there are left out.
pub fn ranked<'a>(units: &'a [MeasuredUnit], on: &str) -> Vec<(&'a MeasuredUnit, &'a Effect)> {
    let mut ranked: Vec<(&MeasuredUnit, &Effect)> = units
        .iter()
        .filter_map(|unit| Some((unit, unit.on(on)?)))
        .collect();
    let sure = |e: &Effect| if e.delta >= 0.0 { e.low } else { -e.high };
    ranked.sort_by(|a, b| {
        b.1.delta
            .abs()
            .total_cmp(&a.1.delta.abs())
            .then(sure(b.1).total_cmp(&sure(a.1)))
    });
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::effects::EffectVerdict;
    use crate::explain::units::UnitKind;

    fn unit(tool: &str, text: &str) -> Unit {
        Unit {
            tool: tool.into(),
            kind: UnitKind::Sentence,
            param: None,
            index: 0,
            text: text.into(),
        }
    }

    fn values(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(t, v)| (t.to_string(), *v)).collect()
    }

    #[test]
    fn effects_come_own_first_then_neighbours_then_no_call_and_rank_by_size() {
        let groups = vec![
            ("a".to_string(), vec!["a1".into(), "a2".into(), "ab".into()]),
            (
                "b".to_string(),
                vec!["b1".into(), "b2".into(), "b3".into(), "ab".into()],
            ),
            (NO_CALL.to_string(), vec!["n1".into(), "n2".into()]),
        ];
        let with = values(&[
            ("a1", 0.9),
            ("a2", 0.8),
            ("ab", 0.7),
            ("b1", 0.3),
            ("b2", 0.2),
            ("b3", 0.25),
            ("n1", 0.9),
            ("n2", 0.9),
        ]);
        // Without the unit, a's tasks fall and b's rise: it earns a's picks and steals b's.
        let without = values(&[
            ("a1", 0.5),
            ("a2", 0.4),
            ("ab", 0.4),
            ("b1", 0.6),
            ("b2", 0.5),
            ("b3", 0.55),
            ("n1", 0.9),
            ("n2", 0.9),
        ]);
        let strong = unit("a", "the deciding words");
        let (effects, neighbours) = unit_effects(&strong, &groups, &with, &without);
        let on: Vec<&str> = effects.iter().map(|e| e.on.as_str()).collect();
        assert_eq!(on, ["a", "b", NO_CALL]);
        assert_eq!(effects[0].verdict, EffectVerdict::Earns);
        assert_eq!(effects[1].tasks, 4);
        assert_eq!(effects[2].verdict, EffectVerdict::Neutral);
        // The neighbours' column leaves out the task a's own group shares with b.
        let neighbours = neighbours.unwrap();
        assert_eq!(neighbours.tasks, 3);
        assert!((neighbours.delta - (-0.3)).abs() < 1e-9, "{neighbours:?}");
        assert_eq!(neighbours.verdict, EffectVerdict::Steals);

        let weak_without = values(&[("a1", 0.85), ("a2", 0.8), ("ab", 0.7)]);
        let weak = unit("a", "filler");
        let measured: Vec<MeasuredUnit> = [(&weak, &weak_without), (&strong, &without)]
            .into_iter()
            .map(|(u, w)| {
                let (effects, on_neighbours) = unit_effects(u, &groups, &with, w);
                MeasuredUnit {
                    unit: u.clone(),
                    variant: String::new(),
                    effects,
                    on_neighbours,
                    cost: None,
                }
            })
            .collect();
        let order: Vec<&str> = ranked(&measured, "a")
            .iter()
            .map(|(u, _)| u.unit.text.as_str())
            .collect();
        assert_eq!(order, ["the deciding words", "filler"]);
        // A task one side lacks is left out of the pair, not counted as zero.
        assert_eq!(measured[0].on("a").unwrap().tasks, 3);
        assert_eq!(measured[0].on("b").unwrap().tasks, 1);
        assert!(measured[0].on(NO_CALL).is_none());
    }
}
