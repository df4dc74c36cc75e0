//! Two runs compared trial by trial, for a regression gate (`mcpick compare BASE NEW`): trials pair
//! by suite, task, backend, repeat, sweep seed and size — not by the toolset's content or the
//! variant's name, which is what differs between yesterday's descriptions and today's — and runs
//! whose tasks differ are refused. Per backend: both rates of right picks, the paired difference
//! with its bootstrap interval, McNemar's test, the graded measure's paired comparison where the
//! runs carry one (`graded_measure`), and whether NEW fails the gate (significantly worse at
//! `alpha` — on the graded measure when there is one, else on the picks — or below a minimum
//! rate). Pure: the trials come in, the comparison goes out.

use super::graded_measure::{GradedSource, unit_means};
use super::statistics::{
    GradedComparison, McNemar, PairedDifference, graded_comparison, mcnemar_exact, paired_bootstrap,
};
use crate::record::StoredTrial;
use std::collections::{BTreeMap, BTreeSet};

/// What the gate holds NEW to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateSettings {
    pub alpha: f64,
    /// NEW's rate of right picks may not fall below this (a fraction), whatever BASE did.
    pub min_selection: Option<f64>,
    /// How many of BASE's pairs NEW may lack before the runs cannot be compared (0: none).
    pub allow_missing: usize,
}

/// Why NEW failed the gate for a backend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GateFailure {
    /// McNemar's test below alpha, with BASE winning more of the discordant pairs (for a backend
    /// without a graded measure).
    SignificantlyWorse,
    /// The graded measure's sign-flip test below alpha, with NEW's mean lower: for a backend with
    /// one, the graded measure decides, as in `ab`.
    GradedWorse,
    /// NEW's rate is below `--min-selection`.
    BelowMinimum,
}

/// One backend's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendComparison {
    pub backend: String,
    /// Pairs scored on both sides.
    pub pairs: usize,
    /// Pairs left out because one side ended in an error (no verdict to compare).
    pub errors: usize,
    /// BASE's trials NEW has no counterpart for (a NEW run that stopped early).
    pub missing_in_new: usize,
    /// NEW's trials BASE has no counterpart for.
    pub only_in_new: usize,
    pub base_rate: f64,
    pub new_rate: f64,
    /// NEW − BASE with its 95% paired bootstrap interval (`None` without pairs).
    pub difference: Option<PairedDifference>,
    /// `only_a`: pairs only BASE got right; `only_b`: only NEW.
    pub mcnemar: McNemar,
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
        let (mut a, mut b, mut errors, mut missing) = (Vec::new(), Vec::new(), 0, 0);
        let mut paired: Vec<(&Condition, &StoredTrial, &StoredTrial)> = Vec::new();
        for (condition, base_trial) in base.iter().filter(|(c, _)| &c.2 == backend) {
            let Some(new_trial) = new.get(condition) else {
                missing += 1;
                continue;
            };
            if base_trial.scored() && new_trial.scored() {
                a.push(base_trial.right_pick());
                b.push(new_trial.right_pick());
                paired.push((condition, base_trial, new_trial));
            } else {
                errors += 1;
            }
        }
        let mut judged = judge(backend, &a, &b, errors, settings);
        judged.missing_in_new = missing;
        judged.only_in_new = new
            .keys()
            .filter(|c| &c.2 == backend && !base.contains_key(*c))
            .count();
        if let Some(graded) = graded(&paired, settings.alpha) {
            judged
                .failures
                .retain(|f| *f != GateFailure::SignificantlyWorse);
            if graded.1.p_value < settings.alpha && graded.1.difference < 0.0 {
                judged.failures.insert(0, GateFailure::GradedWorse);
            }
            judged.graded = Some(graded);
        }
        comparison.backends.push(judged);
    }
    Ok(comparison)
}

/// NEW against BASE on the graded measure, averaged per task over repeats.
fn graded(
    paired: &[(&Condition, &StoredTrial, &StoredTrial)],
    alpha: f64,
) -> Option<(GradedSource, GradedComparison)> {
    let probabilities = paired
        .iter()
        .all(|(_, a, b)| a.actions.is_some() && b.actions.is_some());
    let max_repeat = paired.iter().map(|(c, _, _)| c.3).max().unwrap_or(0);
    let source = GradedSource::of(probabilities, max_repeat)?;
    let (base, new) = unit_means(
        paired
            .iter()
            .map(|((suite, task, _, _, seed, size), a, b)| {
                (
                    (suite, task, seed, size),
                    source.value(a.p_right(), a.right_pick()),
                    source.value(b.p_right(), b.right_pick()),
                )
            }),
    );
    let comparison = graded_comparison(&base, &new, alpha, 10_000, 0x6d63_7069_636b)?;
    Some((source, comparison))
}

fn judge(
    backend: &str,
    base: &[bool],
    new: &[bool],
    errors: usize,
    settings: GateSettings,
) -> BackendComparison {
    let rate = |side: &[bool]| {
        if side.is_empty() {
            0.0
        } else {
            side.iter().filter(|&&r| r).count() as f64 / side.len() as f64
        }
    };
    let only = |x: &[bool], y: &[bool]| x.iter().zip(y).filter(|(x, y)| **x && !**y).count() as u64;
    let mcnemar = mcnemar_exact(only(base, new), only(new, base));
    // The interval's seed is fixed, so a gate gives the same answer on the same runs.
    let difference = paired_bootstrap(base, new, 10_000, 0x6d63_7069_636b);
    let mut failures = Vec::new();
    if mcnemar.p_value < settings.alpha && mcnemar.only_a > mcnemar.only_b {
        failures.push(GateFailure::SignificantlyWorse);
    }
    if settings
        .min_selection
        .is_some_and(|minimum| rate(new) < minimum)
    {
        failures.push(GateFailure::BelowMinimum);
    }
    BackendComparison {
        backend: backend.to_string(),
        pairs: base.len(),
        errors,
        missing_in_new: 0,
        only_in_new: 0,
        base_rate: rate(base),
        new_rate: rate(new),
        difference,
        mcnemar,
        graded: None,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not {expected}"
        );
    }

    const GATE: GateSettings = GateSettings {
        alpha: 0.05,
        min_selection: None,
        allow_missing: 0,
    };

    #[test]
    fn significantly_worse_fails_and_a_small_drop_does_not() {
        // 12 pairs only BASE got right, 1 only NEW: McNemar p = 2·P(X≤1 | 13, ½) = 28/8192.
        let base: Vec<bool> = (0..40).map(|i| i < 30).collect();
        let new: Vec<bool> = (0..40).map(|i| i < 18 || i == 35).collect();
        let judged = judge("bm25", &base, &new, 0, GATE);
        assert_eq!((judged.mcnemar.only_a, judged.mcnemar.only_b), (12, 1));
        assert_close(judged.mcnemar.p_value, 28.0 / 8192.0, 1e-12);
        assert_eq!(judged.failures, vec![GateFailure::SignificantlyWorse]);
        assert_close(judged.difference.unwrap().difference, -11.0 / 40.0, 1e-12);

        // 3 against 1 is no evidence: the gate passes.
        let new: Vec<bool> = (0..40).map(|i| i < 27 || i == 35).collect();
        assert!(judge("bm25", &base, &new, 0, GATE).failures.is_empty());
        // Better is never a failure, however significant.
        assert!(judge("bm25", &new, &base, 0, GATE).failures.is_empty());
    }

    #[test]
    fn a_floor_fails_a_run_that_is_not_worse_than_base() {
        let same = vec![true, false, false, false];
        let gate = GateSettings {
            min_selection: Some(0.5),
            ..GATE
        };
        assert_eq!(
            judge("bm25", &same, &same, 0, gate).failures,
            vec![GateFailure::BelowMinimum]
        );
    }
}
