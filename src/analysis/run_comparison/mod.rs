//! Two runs compared trial by trial, for a regression gate (`mcpick compare BASE NEW`): trials pair
//! by suite, task, backend, repeat, sweep seed and size — not by the toolset's content or the
//! variant's name, which is what differs between yesterday's descriptions and today's — and runs
//! whose tasks differ are refused. The pairs are then grouped by task, the unit of every statistic
//! (`gate`): per backend, both rates of right picks over tasks, the paired difference with its
//! interval and test (`task_picks`), the error rates compared the same way, the graded measure's
//! paired comparison where the runs carry one (`graded_measure`), and whether NEW fails the gate.
//! Pure: the trials come in, the comparison goes out.

mod gate;

use super::graded_measure::{GradedSource, unit_means};
use super::statistics::{GradedComparison, TaskPicks, graded_comparison};
use crate::record::StoredTrial;
use crate::score::Interval;
use crate::settings::Adjustment;
use gate::{TaskPair, decide, judge};
use std::collections::{BTreeMap, BTreeSet};

/// What the gate holds NEW to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateSettings {
    /// The one-sided level NEW's "worse" and "errs more" tests are held to.
    pub alpha: f64,
    /// Non-inferiority: NEW fails unless the 95% interval on NEW − BASE lies above −margin (a
    /// fraction: 0.05 = 5 points).
    pub margin: Option<f64>,
    /// How the backends' p-values are adjusted for each other.
    pub adjustment: Adjustment,
    /// NEW's rate of right picks may not fall below this (a fraction), whatever BASE did.
    pub min_selection: Option<f64>,
    /// How many of BASE's pairs NEW may lack before the runs cannot be compared (0: none).
    pub allow_missing: usize,
}

/// Why NEW failed the gate for a backend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GateFailure {
    /// The picks' one-sided test below alpha (adjusted), NEW lower (for a backend without a
    /// graded measure).
    SignificantlyWorse,
    /// The graded measure's one-sided sign-flip test below alpha (adjusted), NEW's mean lower: for
    /// a backend with one, the graded measure decides, as in `ab`.
    GradedWorse,
    /// NEW's trials end in an error more often, by the same one-sided test on per-task error
    /// rates.
    MoreErrors,
    /// `--margin` was given and NEW was not shown to be within it of BASE.
    NotShownNonInferior,
    /// NEW's rate is below `--min-selection`.
    BelowMinimum,
}

/// One backend's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendComparison {
    pub backend: String,
    /// Trial pairs scored on both sides, and the tasks they fall in (the unit).
    pub pairs: usize,
    pub tasks: usize,
    /// Pairs left out because one side ended in an error (no verdict to compare).
    pub errors: usize,
    /// BASE's trials NEW has no counterpart for (a NEW run that stopped early).
    pub missing_in_new: usize,
    /// NEW's trials BASE has no counterpart for.
    pub only_in_new: usize,
    /// Mean per-task rates of right picks.
    pub base_rate: f64,
    pub new_rate: f64,
    /// The same rates with their 95% intervals over tasks (Wilson's when every task's rate is 0
    /// or 1, else a bootstrap over tasks), as `ab` gives each arm's.
    pub base_interval: Interval,
    pub new_interval: Interval,
    /// Right picks per task, NEW (as B) against BASE (as A): the difference with its 95%
    /// interval, the test (`only_a`: tasks BASE did better on; `only_b`: NEW). `None` without pairs.
    pub picks: Option<TaskPicks>,
    /// Error rates per task, NEW against BASE (`None` when neither side erred).
    pub errors_test: Option<TaskPicks>,
    /// The one-sided p-value that NEW is worse (on the measure that decides), raw and adjusted.
    pub p_worse: f64,
    pub p_worse_adjusted: f64,
    /// NEW against BASE on the graded measure, per task (`None` for a backend without one).
    pub graded: Option<(GradedSource, GradedComparison)>,
    pub failures: Vec<GateFailure>,
}

/// Two runs' comparison: per backend, and what only one run holds.
#[derive(Debug, Clone, PartialEq)]
pub struct RunComparison {
    pub backends: Vec<BackendComparison>,
    /// Backends only one run holds (not compared).
    pub unpaired_backends: Vec<String>,
}

impl RunComparison {
    pub fn passed(&self) -> bool {
        self.backends.iter().all(|b| b.failures.is_empty())
    }

    /// Why the comparison is no evidence either way (empty when it is): a backend without a single
    /// pair that has a verdict on both sides, or NEW lacking more of BASE's pairs than allowed. A
    /// gate must not pass on these.
    pub fn without_evidence(&self, allow_missing: usize) -> Vec<String> {
        let mut reasons: Vec<String> = self
            .backends
            .iter()
            .filter(|b| b.pairs == 0)
            .map(|b| {
                format!(
                    "backend {} has no pair with a verdict on both sides ({} pairs with an error, {} of BASE's trials missing in NEW)",
                    b.backend, b.errors, b.missing_in_new
                )
            })
            .collect();
        let missing: usize = self.backends.iter().map(|b| b.missing_in_new).sum();
        if missing > allow_missing {
            let per_backend: Vec<String> = self
                .backends
                .iter()
                .filter(|b| b.missing_in_new > 0)
                .map(|b| format!("{} on {}", b.missing_in_new, b.backend))
                .collect();
            reasons.push(format!(
                "NEW lacks {missing} of BASE's trials ({}), more than --allow-missing {allow_missing}: finish NEW (`mcpick run --resume NEW`) or say how many may be missing",
                per_backend.join(", ")
            ));
        }
        reasons
    }
}

/// What pairs a trial with its counterpart in the other run.
type Condition = (String, String, String, u32, u32, u32);

fn condition(trial: &StoredTrial) -> Condition {
    (
        trial.suite.clone(),
        trial.task.clone(),
        trial.backend.clone(),
        trial.repeat,
        trial.sweep_seed,
        trial.size.unwrap_or(0),
    )
}

/// One run's trials by condition; `Err` when a condition holds two trials (a run of two arms or
/// strategies: compare runs of one each).
fn by_condition<'a>(
    trials: &'a [StoredTrial],
    which: &str,
) -> Result<BTreeMap<Condition, &'a StoredTrial>, String> {
    let mut map = BTreeMap::new();
    for trial in trials {
        if let Some(earlier) = map.insert(condition(trial), trial) {
            let arm = |t: &StoredTrial| {
                format!(
                    "{}{}",
                    t.variant.as_deref().unwrap_or("base"),
                    t.exposure
                        .as_deref()
                        .map(|e| format!(" · {e}"))
                        .unwrap_or_default()
                )
            };
            return Err(format!(
                "{which} holds two trials of {}/{} on {} (arms {} and {}); compare runs of one arm and one exposure strategy each",
                trial.suite,
                trial.task,
                trial.backend,
                arm(earlier),
                arm(trial)
            ));
        }
    }
    Ok(map)
}

/// Compares NEW with BASE. `Err` names why they cannot be compared.
pub fn compare_runs(
    base: &[StoredTrial],
    new: &[StoredTrial],
    settings: GateSettings,
) -> Result<RunComparison, String> {
    let (base, new) = (by_condition(base, "BASE")?, by_condition(new, "NEW")?);
    let tasks = |map: &BTreeMap<Condition, &StoredTrial>| -> BTreeSet<(String, String)> {
        map.keys().map(|c| (c.0.clone(), c.1.clone())).collect()
    };
    let (base_tasks, new_tasks) = (tasks(&base), tasks(&new));
    if base_tasks != new_tasks {
        let name = |set: Vec<&(String, String)>| {
            let shown: Vec<String> = set
                .iter()
                .take(5)
                .map(|(s, t)| format!("{s}/{t}"))
                .collect();
            format!(
                "{}{}",
                shown.join(", "),
                if set.len() > 5 { ", …" } else { "" }
            )
        };
        let only_base: Vec<_> = base_tasks.difference(&new_tasks).collect();
        let only_new: Vec<_> = new_tasks.difference(&base_tasks).collect();
        let mut parts = Vec::new();
        if !only_base.is_empty() {
            parts.push(format!(
                "{} only in BASE ({})",
                only_base.len(),
                name(only_base)
            ));
        }
        if !only_new.is_empty() {
            parts.push(format!(
                "{} only in NEW ({})",
                only_new.len(),
                name(only_new)
            ));
        }
        return Err(format!(
            "the runs' tasks differ: {}; compare runs of the same suites and tags",
            parts.join("; ")
        ));
    }
    let backends = |map: &BTreeMap<Condition, &StoredTrial>| -> BTreeSet<String> {
        map.keys().map(|c| c.2.clone()).collect()
    };
    let (base_backends, new_backends) = (backends(&base), backends(&new));
    let mut comparison = RunComparison {
        backends: Vec::new(),
        unpaired_backends: base_backends
            .symmetric_difference(&new_backends)
            .cloned()
            .collect(),
    };
    for backend in base_backends.intersection(&new_backends) {
        let (mut errors, mut missing) = (0, 0);
        let mut tasks: BTreeMap<(String, String), TaskPair> = BTreeMap::new();
        let mut paired: Vec<(&Condition, &StoredTrial, &StoredTrial)> = Vec::new();
        for (condition, base_trial) in base.iter().filter(|(c, _)| &c.2 == backend) {
            let Some(new_trial) = new.get(condition) else {
                missing += 1;
                continue;
            };
            let task = tasks
                .entry((condition.0.clone(), condition.1.clone()))
                .or_default();
            task.paired += 1;
            task.base_errors += u64::from(!base_trial.scored());
            task.new_errors += u64::from(!new_trial.scored());
            if base_trial.scored() && new_trial.scored() {
                task.scored += 1;
                task.base_right += u64::from(base_trial.right_pick());
                task.new_right += u64::from(new_trial.right_pick());
                paired.push((condition, base_trial, new_trial));
            } else {
                errors += 1;
            }
        }
        let tasks: Vec<TaskPair> = tasks.into_values().collect();
        let mut judged = judge(backend, &tasks, errors);
        judged.missing_in_new = missing;
        judged.only_in_new = new
            .keys()
            .filter(|c| &c.2 == backend && !base.contains_key(*c))
            .count();
        judged.graded = graded(&paired, settings.alpha);
        comparison.backends.push(judged);
    }
    decide(&mut comparison.backends, settings);
    Ok(comparison)
}

/// NEW against BASE on the graded measure, averaged per task over its repeats, sizes and seeds.
fn graded(
    paired: &[(&Condition, &StoredTrial, &StoredTrial)],
    alpha: f64,
) -> Option<(GradedSource, GradedComparison)> {
    let probabilities = paired
        .iter()
        .all(|(_, a, b)| a.actions.is_some() && b.actions.is_some());
    let max_repeat = paired.iter().map(|(c, _, _)| c.3).max().unwrap_or(0);
    let source = GradedSource::of(probabilities, max_repeat)?;
    let (base, new) = unit_means(paired.iter().map(|((suite, task, _, _, _, _), a, b)| {
        (
            (suite, task),
            source.value(a.p_right(), a.right_pick()),
            source.value(b.p_right(), b.right_pick()),
        )
    }));
    let comparison = graded_comparison(&base, &new, alpha, 10_000, 0x6d63_7069_636b)?;
    Some((source, comparison))
}
