//! Paired comparisons of arms (description variants, or exposure strategies), per backend, on two
//! measures side by side. **Picks**: each trial right or wrong, McNemar's exact test on the
//! discordant pairs, a paired bootstrap interval on the difference. **Graded**: how sure the model
//! was — a trial's `p_right` where the backend gives its distribution over actions, else its picks
//! averaged over `--repeats` — averaged per task first (tasks, not trials, are the unit), then a
//! paired bootstrap interval and a sign-flip permutation test on the per-task differences. Each
//! measure comes with the smallest difference it could detect with 80% power at the spread
//! observed. The verdict is the graded measure's when the backend gives one (it uses what a binary
//! pick throws away: how close the right tool came), else the picks'; the comparison says which.

use super::{BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONDITION_KEYS, scored};
use super::{bools, floats, numbers, strings};
use crate::analysis::graded_measure::{GradedSource, unit_means};
use crate::analysis::statistics::{
    AbVerdict, GradedComparison, McNemar, PairedDifference, RepeatAgreement, ab_verdict,
    graded_comparison, graded_verdict, mcnemar_exact, paired_bootstrap,
    paired_detectable_difference, paired_sample_size, repeat_agreement,
};
use crate::score::{Interval, wilson_interval};
use polars::prelude::*;
use std::collections::BTreeMap;

pub const ALPHA: f64 = 0.05;

/// The graded comparison of one backend's arms.
#[derive(Debug, Clone)]
pub struct GradedAb {
    pub source: GradedSource,
    pub comparison: GradedComparison,
    pub verdict: AbVerdict,
}

/// Which measure an A/B verdict comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Picks,
    Graded,
}

/// One backend's comparison of arm B against arm A.
#[derive(Debug, Clone)]
pub struct AbComparison {
    pub backend: String,
    pub arm_a: String,
    pub arm_b: String,
    pub a: Interval,
    pub b: Interval,
    pub pairs: usize,
    pub mcnemar: McNemar,
    pub difference: Option<PairedDifference>,
    /// The verdict of the measure that decides (`decided_by`).
    pub verdict: AbVerdict,
    pub decided_by: Measure,
    /// The picks' own verdict (McNemar), whichever measure decides.
    pub picks_verdict: AbVerdict,
    /// Tasks (with their condition) only arm A got right, and only arm B.
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    /// With repeats: pass@k and consistency per arm.
    pub repeats_a: Option<RepeatAgreement>,
    pub repeats_b: Option<RepeatAgreement>,
    /// Tasks an effect of the observed size would need for 80% power at this discordance.
    pub tasks_needed: Option<u64>,
    /// The smallest difference in right picks McNemar's test detects with 80% power at this
    /// number of pairs and share of discordant ones (`None` without discordant pairs).
    pub picks_detectable: Option<f64>,
    /// The graded comparison (`None` for a backend that gives one pick per task and no
    /// probabilities: it has no graded measure).
    pub graded: Option<GradedAb>,
}

/// Each arm after the first against the first, per backend, on trials paired by task and condition.
/// `axis` is the column the arms are values of: `variant` (description A/B) or `exposure`.
pub fn ab_comparisons(
    frame: &DataFrame,
    axis: &str,
    arms: &[String],
) -> PolarsResult<Vec<AbComparison>> {
    let mut comparisons = Vec::new();
    let Some((arm_a, others)) = arms.split_first() else {
        return Ok(comparisons);
    };
    let pair_keys: Vec<&str> = CONDITION_KEYS
        .iter()
        .copied()
        .filter(|k| *k != axis)
        .collect();
    let keys: Vec<Expr> = pair_keys.iter().map(|k| col(*k)).collect();
    let arm = |name: &str, side: &str| {
        let mut columns: Vec<Expr> = pair_keys.iter().map(|k| col(*k)).collect();
        columns.push(col("right_pick").alias(side));
        columns.push(col("p_right").alias(format!("p_{side}")));
        scored(frame)
            .filter(col(axis).eq(lit(name.to_string())))
            .select(columns)
    };
    // The other arm axis, which stays fixed within a pair (a strategy in a variant A/B).
    let fixed = if axis == "variant" {
        "exposure"
    } else {
        "variant"
    };
    for arm_b in others {
        let pairs = arm(arm_a, "a")
            .join(
                arm(arm_b, "b"),
                keys.clone(),
                keys.clone(),
                JoinArgs::new(JoinType::Inner),
            )
            .sort(pair_keys.clone(), SortMultipleOptions::default())
            .collect()?;
        let backends = strings(&pairs, "backend")?;
        let suites = strings(&pairs, "suite")?;
        let tasks = strings(&pairs, "task")?;
        let fixed_values = strings(&pairs, fixed)?;
        let sizes = numbers(&pairs, "size")?;
        let seeds = numbers(&pairs, "sweep_seed")?;
        let repeats = numbers(&pairs, "repeat")?;
        let (a, b) = (bools(&pairs, "a")?, bools(&pairs, "b")?);
        let (p_a, p_b) = (floats(&pairs, "p_a")?, floats(&pairs, "p_b")?);
        let mut by_backend: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, backend) in backends.iter().enumerate() {
            by_backend.entry(backend).or_default().push(i);
        }
        for (backend, rows) in by_backend {
            let a_right: Vec<bool> = rows.iter().map(|&i| a[i]).collect();
            let b_right: Vec<bool> = rows.iter().map(|&i| b[i]).collect();
            let label = |i: usize| {
                let mut label = tasks[i].clone();
                if sizes[i] > 0 {
                    label.push_str(&format!(" N={} seed {}", sizes[i], seeds[i]));
                }
                if repeats[i] > 0 {
                    label.push_str(&format!(" #{}", repeats[i]));
                }
                label
            };
            let only = |first: &[bool], second: &[bool]| -> Vec<String> {
                rows.iter()
                    .enumerate()
                    .filter(|&(k, _)| first[k] && !second[k])
                    .map(|(_, &i)| label(i))
                    .collect()
            };
            let only_a = only(&a_right, &b_right);
            let only_b = only(&b_right, &a_right);
            let mcnemar = mcnemar_exact(only_a.len() as u64, only_b.len() as u64);
            let difference =
                paired_bootstrap(&a_right, &b_right, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED);
            let picks_verdict = ab_verdict(&mcnemar, &difference, ALPHA);
            let count = |v: &[bool]| v.iter().filter(|x| **x).count() as u64;
            let n = rows.len() as u64;
            let observed = (count(&b_right) as f64 - count(&a_right) as f64) / n.max(1) as f64;
            let discordant = (only_a.len() + only_b.len()) as f64 / n.max(1) as f64;
            // The unit of the graded measure and of pass@k: a task in its condition, its
            // repeats together.
            let unit = |i: usize| {
                (
                    suites[i].clone(),
                    tasks[i].clone(),
                    fixed_values[i].clone(),
                    sizes[i],
                    seeds[i],
                )
            };
            let max_repeat = rows.iter().map(|&i| repeats[i]).max().unwrap_or(0);
            let with_probabilities = rows.iter().all(|&i| !p_a[i].is_nan() && !p_b[i].is_nan());
            let probability = |p: f64| (!p.is_nan()).then_some(p);
            let graded =
                GradedSource::of(with_probabilities, max_repeat as u32).and_then(|source| {
                    let (per_task_a, per_task_b) =
                        unit_means(rows.iter().enumerate().map(|(k, &i)| {
                            (
                                unit(i),
                                source.value(probability(p_a[i]), a_right[k]),
                                source.value(probability(p_b[i]), b_right[k]),
                            )
                        }));
                    let comparison = graded_comparison(
                        &per_task_a,
                        &per_task_b,
                        ALPHA,
                        BOOTSTRAP_RESAMPLES,
                        BOOTSTRAP_SEED,
                    )?;
                    Some(GradedAb {
                        source,
                        verdict: graded_verdict(&comparison, ALPHA),
                        comparison,
                    })
                });
            let agreement = |right: &[bool]| {
                let mut per_task: BTreeMap<_, Vec<bool>> = BTreeMap::new();
                for (k, &i) in rows.iter().enumerate() {
                    per_task.entry(unit(i)).or_default().push(right[k]);
                }
                repeat_agreement(&per_task.into_values().collect::<Vec<_>>())
            };
            let (verdict, decided_by) = match &graded {
                Some(graded) => (graded.verdict, Measure::Graded),
                None => (picks_verdict, Measure::Picks),
            };
            comparisons.push(AbComparison {
                backend: backend.to_string(),
                arm_a: arm_a.clone(),
                arm_b: arm_b.clone(),
                a: wilson_interval(count(&a_right), n),
                b: wilson_interval(count(&b_right), n),
                pairs: rows.len(),
                mcnemar,
                difference,
                verdict,
                decided_by,
                picks_verdict,
                only_a,
                only_b,
                repeats_a: (max_repeat > 0).then(|| agreement(&a_right)),
                repeats_b: (max_repeat > 0).then(|| agreement(&b_right)),
                tasks_needed: paired_sample_size(observed, discordant, ALPHA, 0.8),
                picks_detectable: paired_detectable_difference(discordant, n, ALPHA, 0.8),
                graded,
            });
        }
    }
    Ok(comparisons)
}
