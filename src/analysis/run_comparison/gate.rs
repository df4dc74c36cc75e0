//! The gate's decision for one backend, with the task as the unit: per task, BASE's and NEW's rate
//! of right picks over the trials scored on both sides, and each side's rate of errors over every
//! paired trial. NEW fails when it is worse by a one-sided test at alpha (the picks' exact McNemar
//! or sign-flip test, halved: the null distributions are symmetric) — on the graded measure when
//! the runs carry one — when it errs more often by the same test, when `--margin` is set and the
//! 95% interval on NEW − BASE does not lie above −margin (non-inferiority not shown), or when its
//! rate is below `--min-selection`. The one-sided p-values of the backends compared are adjusted
//! together (Holm by default) before any is read.

use super::{BackendComparison, GateFailure, GateSettings};
use crate::analysis::statistics::{TaskPicks, adjust, task_picks, task_rate};

/// The interval's seed is fixed, so a gate gives the same answer on the same runs.
const SEED: u64 = 0x6d63_7069_636b;
const RESAMPLES: usize = 10_000;

/// One task's paired trials for one backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskPair {
    /// Trials scored on both sides, and how many of them each side picked right.
    pub scored: u64,
    pub base_right: u64,
    pub new_right: u64,
    /// Every paired trial, and how many ended in an error on each side.
    pub paired: u64,
    pub base_errors: u64,
    pub new_errors: u64,
}

/// The one-sided p-value for a difference in the direction feared: half the two-sided one when
/// the difference goes that way (the null distributions are symmetric), else one.
fn one_sided(two_sided: f64, feared: bool) -> f64 {
    if feared {
        (two_sided / 2.0).min(1.0)
    } else {
        1.0
    }
}

/// NEW's one-sided p-value for "worse" on the picks.
pub fn one_sided_worse(test: &TaskPicks) -> f64 {
    one_sided(test.p_value, test.difference.difference < 0.0)
}

/// The picks and errors compared per task; the failures are decided later, over every backend
/// together (`decide`).
pub fn judge(backend: &str, tasks: &[TaskPair], errors: usize) -> BackendComparison {
    let scored: Vec<&TaskPair> = tasks.iter().filter(|t| t.scored > 0).collect();
    let rate = |right: u64, of: u64| right as f64 / of as f64;
    let base: Vec<f64> = scored
        .iter()
        .map(|t| rate(t.base_right, t.scored))
        .collect();
    let new: Vec<f64> = scored.iter().map(|t| rate(t.new_right, t.scored)).collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let with_trials: Vec<&TaskPair> = tasks.iter().filter(|t| t.paired > 0).collect();
    let base_errors: Vec<f64> = with_trials
        .iter()
        .map(|t| rate(t.base_errors, t.paired))
        .collect();
    let new_errors: Vec<f64> = with_trials
        .iter()
        .map(|t| rate(t.new_errors, t.paired))
        .collect();
    let errors_test = (base_errors.iter().chain(&new_errors).any(|e| *e > 0.0))
        .then(|| task_picks(&base_errors, &new_errors, RESAMPLES, SEED))
        .flatten();
    BackendComparison {
        backend: backend.to_string(),
        pairs: scored.iter().map(|t| t.scored as usize).sum(),
        tasks: scored.len(),
        errors,
        missing_in_new: 0,
        only_in_new: 0,
        base_rate: mean(&base),
        new_rate: mean(&new),
        base_interval: task_rate(&base, RESAMPLES, SEED),
        new_interval: task_rate(&new, RESAMPLES, SEED),
        picks: task_picks(&base, &new, RESAMPLES, SEED),
        errors_test,
        p_worse: 1.0,
        p_worse_adjusted: 1.0,
        graded: None,
        failures: Vec::new(),
    }
}

/// Decides every backend's failures: each one-sided "worse" p (the graded measure's where there
/// is one, else the picks') and "errs more" p adjusted over the backends, then the margin and the
/// floor.
pub fn decide(backends: &mut [BackendComparison], settings: GateSettings) {
    let worse: Vec<f64> = backends
        .iter()
        .map(|b| match &b.graded {
            Some((_, g)) => one_sided(g.p_value, g.difference < 0.0),
            None => b.picks.as_ref().map_or(1.0, one_sided_worse),
        })
        .collect();
    let errs_more: Vec<f64> = backends
        .iter()
        .map(|b| {
            // More errors is B − A > 0 on the error rates.
            b.errors_test
                .as_ref()
                .map_or(1.0, |t| one_sided(t.p_value, t.difference.difference > 0.0))
        })
        .collect();
    let worse_adjusted = adjust(&worse, settings.adjustment);
    let errs_adjusted = adjust(&errs_more, settings.adjustment);
    for (k, backend) in backends.iter_mut().enumerate() {
        backend.p_worse = worse[k];
        backend.p_worse_adjusted = worse_adjusted[k];
        let mut failures = Vec::new();
        if worse_adjusted[k] < settings.alpha {
            failures.push(if backend.graded.is_some() {
                GateFailure::GradedWorse
            } else {
                GateFailure::SignificantlyWorse
            });
        }
        if errs_adjusted[k] < settings.alpha {
            failures.push(GateFailure::MoreErrors);
        }
        if let Some(margin) = settings.margin {
            let shown = match (&backend.graded, &backend.picks) {
                (Some((_, g)), _) => g.low > -margin,
                (None, Some(p)) => p.difference.low > -margin,
                (None, None) => false,
            };
            if !shown {
                failures.push(GateFailure::NotShownNonInferior);
            }
        }
        if settings
            .min_selection
            .is_some_and(|minimum| backend.new_rate < minimum)
        {
            failures.push(GateFailure::BelowMinimum);
        }
        backend.failures = failures;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::assert_close;
    use crate::settings::Adjustment;

    const GATE: GateSettings = GateSettings {
        alpha: 0.05,
        margin: None,
        adjustment: Adjustment::Holm,
        min_selection: None,
        allow_missing: 0,
    };

    /// One trial per task: `base[i]`, `new[i]` right or wrong; `new_error[i]`: NEW's trial erred.
    fn tasks(base: &[bool], new: &[bool], new_error: &[bool]) -> Vec<TaskPair> {
        (0..base.len())
            .map(|i| TaskPair {
                scored: u64::from(!new_error[i]),
                base_right: u64::from(base[i] && !new_error[i]),
                new_right: u64::from(new[i] && !new_error[i]),
                paired: 1,
                base_errors: 0,
                new_errors: u64::from(new_error[i]),
            })
            .collect()
    }

    fn gate(
        base: &[bool],
        new: &[bool],
        new_error: &[bool],
        settings: GateSettings,
    ) -> BackendComparison {
        let errors = new_error.iter().filter(|e| **e).count();
        let mut judged = vec![judge("bm25", &tasks(base, new, new_error), errors)];
        decide(&mut judged, settings);
        judged.remove(0)
    }

    #[test]
    fn worse_is_a_one_sided_test() {
        // 12 tasks only BASE got right, 1 only NEW: two-sided exact p = 28/8192, one-sided 14/8192.
        let base: Vec<bool> = (0..40).map(|i| i < 30).collect();
        let new: Vec<bool> = (0..40).map(|i| i < 18 || i == 35).collect();
        let none = [false; 40];
        let judged = gate(&base, &new, &none, GATE);
        let picks = judged.picks.unwrap();
        assert_eq!((picks.only_a, picks.only_b), (12, 1));
        assert_close(judged.p_worse, 14.0 / 8192.0, 1e-12);
        assert_eq!(judged.failures, vec![GateFailure::SignificantlyWorse]);
        // 3 against 1 is no evidence; better is never a failure.
        let new: Vec<bool> = (0..40).map(|i| i < 27 || i == 35).collect();
        assert!(gate(&base, &new, &none, GATE).failures.is_empty());
        assert!(gate(&new, &base, &none, GATE).failures.is_empty());
        // One-sided at 0.05 is two-sided at 0.10: 6 against 1 (two-sided p = 0.125, one-sided
        // 0.0625) passes, 7 against 1 (0.0703, 0.0352) fails.
        let new: Vec<bool> = (0..40).map(|i| i < 24 || i == 35).collect();
        assert!(gate(&base, &new, &none, GATE).failures.is_empty());
        let new: Vec<bool> = (0..40).map(|i| i < 23 || i == 35).collect();
        assert_eq!(
            gate(&base, &new, &none, GATE).failures,
            vec![GateFailure::SignificantlyWorse]
        );
    }

    #[test]
    fn a_margin_fails_what_the_test_cannot_see() {
        // −7.5 pp on 40 tasks (4 against 1): no significant difference, but not shown within 5 pp.
        let base: Vec<bool> = (0..40).map(|i| i < 30).collect();
        let new: Vec<bool> = (0..40).map(|i| i < 26 || i == 35).collect();
        let none = [false; 40];
        assert!(gate(&base, &new, &none, GATE).failures.is_empty());
        let margin = GateSettings {
            margin: Some(0.05),
            ..GATE
        };
        assert_eq!(
            gate(&base, &new, &none, margin).failures,
            vec![GateFailure::NotShownNonInferior]
        );
        // The same runs, identical: shown within a 30-point margin.
        let wide = GateSettings {
            margin: Some(0.30),
            ..GATE
        };
        assert!(gate(&base, &base, &none, wide).failures.is_empty());
    }

    #[test]
    fn errors_cannot_hide_a_regression() {
        // NEW errs on 10 of 40 tasks where BASE was right: those pairs leave the picks, and the
        // picks alone see nothing.
        let base = [true; 40];
        let new = [true; 40];
        let erred: Vec<bool> = (0..40).map(|i| i < 10).collect();
        let judged = gate(&base, &new, &erred, GATE);
        assert_eq!(judged.failures, vec![GateFailure::MoreErrors]);
    }

    #[test]
    fn a_floor_fails_a_run_that_is_not_worse_than_base() {
        let same = [true, false, false, false];
        let gate_with_floor = GateSettings {
            min_selection: Some(0.5),
            ..GATE
        };
        assert_eq!(
            gate(&same, &same, &[false; 4], gate_with_floor).failures,
            vec![GateFailure::BelowMinimum]
        );
    }
}
