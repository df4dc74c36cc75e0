//! Paired comparisons of arms (description variants, or exposure strategies), per backend, on two
//! measures side by side, with the task as the unit: a task met more than once — its repeats, a
//! sweep's sizes and seeds — is one observation, its trials averaged. **Picks**: each task's rate
//! of right picks under each arm; the exact McNemar test on the tasks with Newcombe's interval when
//! every rate is 0 or 1, else the sign-flip test with a bootstrap over tasks (`task_picks`), and
//! the smallest difference the exact test detects with 80% power (`exact_power`). **Graded**: how
//! sure the model was — a trial's `p_right` where the backend gives its distribution over actions,
//! else its picks averaged over `--repeats` — averaged per task, then a paired bootstrap interval
//! and a sign-flip permutation test on the per-task differences. The comparisons one call returns
//! are a family: each measure's p-values are adjusted together (Holm by default,
//! `multiplicity`) and the verdicts drawn from the adjusted ones. The verdict is the graded
//! measure's when the backend gives one (it uses what a binary pick throws away: how close the
//! right tool came), else the picks'; the comparison says which.

use super::{BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONDITION_KEYS, scored};
use super::{bools, floats, numbers, strings};
use crate::analysis::graded_measure::{GradedSource, unit_means};
use crate::analysis::statistics::{
    AbVerdict, Adjustment, GradedComparison, PairedDifference, RepeatAgreement, TaskPicks, adjust,
    exact_detectable_difference, exact_tasks_needed, graded_comparison,
    minimum_detectable_difference, paired_verdict, repeat_agreement, task_picks, task_rate,
};
use crate::score::Interval;
use polars::prelude::*;
use std::collections::BTreeMap;

pub const ALPHA: f64 = 0.05;

/// The graded comparison of one backend's arms.
#[derive(Debug, Clone)]
pub struct GradedAb {
    pub source: GradedSource,
    pub comparison: GradedComparison,
    /// The sign-flip p-value adjusted within the family of comparisons.
    pub p_adjusted: f64,
    /// Drawn from the adjusted p-value.
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
    /// Each arm's rate of right picks over the tasks, with its 95% interval (Wilson's on tasks
    /// when every task's rate is 0 or 1, else a bootstrap over tasks).
    pub a: Interval,
    pub b: Interval,
    /// Trial pairs, and the tasks they are grouped into (the unit of every statistic here).
    pub pairs: usize,
    pub tasks: usize,
    /// Right picks compared per task: the test, its p-value, the discordant tasks.
    pub picks: TaskPicks,
    /// The picks' p-value adjusted within the family of comparisons (`adjustment`).
    pub picks_p_adjusted: f64,
    pub adjustment: Adjustment,
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
    /// Tasks an effect of the observed size would need for 80% power by the exact McNemar test
    /// at this share of discordant tasks (tasks whose rates are 0 or 1 only).
    pub tasks_needed: Option<u64>,
    /// The smallest difference in right picks the picks' test detects with 80% power on these
    /// tasks: by the exact McNemar test's power at this share of discordant tasks, or (rates
    /// between 0 and 1) from the spread of the per-task differences; `None` without discordant
    /// tasks, or when no difference reaches 80% on so few.
    pub picks_detectable: Option<f64>,
    /// The graded comparison (`None` for a backend that gives one pick per task and no
    /// probabilities: it has no graded measure).
    pub graded: Option<GradedAb>,
}

/// Each arm after the first against the first, per backend, on trials paired by task and condition
/// and compared per task; the picks' and the graded measure's p-values adjusted by `adjustment`
/// over every comparison returned. `axis` is the column the arms are values of: `variant`
/// (description A/B) or `exposure`.
pub fn ab_comparisons(
    frame: &DataFrame,
    axis: &str,
    arms: &[String],
    adjustment: Adjustment,
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
        let columns = PairColumns {
            backends: strings(&pairs, "backend")?,
            suites: strings(&pairs, "suite")?,
            tasks: strings(&pairs, "task")?,
            fixed: strings(&pairs, fixed)?,
            repeats: numbers(&pairs, "repeat")?,
            a: bools(&pairs, "a")?,
            b: bools(&pairs, "b")?,
            p_a: floats(&pairs, "p_a")?,
            p_b: floats(&pairs, "p_b")?,
        };
        let mut by_backend: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, backend) in columns.backends.iter().enumerate() {
            by_backend.entry(backend).or_default().push(i);
        }
        for (backend, rows) in by_backend {
            if let Some(comparison) = compare(&columns, &rows, backend, arm_a, arm_b) {
                comparisons.push(comparison);
            }
        }
    }
    adjust_family(&mut comparisons, adjustment);
    Ok(comparisons)
}

/// The paired trials' columns, row by row.
struct PairColumns {
    backends: Vec<String>,
    suites: Vec<String>,
    tasks: Vec<String>,
    fixed: Vec<String>,
    repeats: Vec<u64>,
    a: Vec<bool>,
    b: Vec<bool>,
    p_a: Vec<f64>,
    p_b: Vec<f64>,
}

/// The unit of every statistic: a task (within its suite, under the fixed arm), whatever its
/// repeats, sizes and seeds.
type Unit = (String, String, String);

/// One backend's comparison of arm B against arm A, before adjustment; `None` without pairs.
fn compare(
    columns: &PairColumns,
    rows: &[usize],
    backend: &str,
    arm_a: &str,
    arm_b: &str,
) -> Option<AbComparison> {
    let unit = |i: usize| -> Unit {
        (
            columns.suites[i].clone(),
            columns.tasks[i].clone(),
            columns.fixed[i].clone(),
        )
    };
    let as_rate = |right: bool| if right { 1.0 } else { 0.0 };
    let mut labels: BTreeMap<Unit, String> = BTreeMap::new();
    for &i in rows {
        labels
            .entry(unit(i))
            .or_insert_with(|| columns.tasks[i].clone());
    }
    let (rates_a, rates_b) = unit_means(
        rows.iter()
            .map(|&i| (unit(i), as_rate(columns.a[i]), as_rate(columns.b[i]))),
    );
    let picks = task_picks(&rates_a, &rates_b, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED)?;
    let task_labels: Vec<&String> = labels.values().collect();
    let only = |first: &[f64], second: &[f64]| -> Vec<String> {
        (0..first.len())
            .filter(|&k| first[k] > second[k])
            .map(|k| task_labels[k].clone())
            .collect()
    };
    let tasks = rates_a.len();
    let discordant = (picks.only_a + picks.only_b) as f64 / tasks as f64;
    let (tasks_needed, picks_detectable) = if picks.binary() {
        (
            exact_tasks_needed(picks.difference.difference, discordant, ALPHA, 0.8),
            exact_detectable_difference(tasks as u64, discordant, ALPHA, 0.8),
        )
    } else {
        let differences: Vec<f64> = rates_a.iter().zip(&rates_b).map(|(a, b)| b - a).collect();
        (
            None,
            minimum_detectable_difference(&differences, ALPHA, 0.8),
        )
    };
    let max_repeat = rows.iter().map(|&i| columns.repeats[i]).max().unwrap_or(0);
    let with_probabilities = rows
        .iter()
        .all(|&i| !columns.p_a[i].is_nan() && !columns.p_b[i].is_nan());
    let probability = |p: f64| (!p.is_nan()).then_some(p);
    let graded = GradedSource::of(with_probabilities, max_repeat as u32).and_then(|source| {
        let (per_task_a, per_task_b) = unit_means(rows.iter().map(|&i| {
            (
                unit(i),
                source.value(probability(columns.p_a[i]), columns.a[i]),
                source.value(probability(columns.p_b[i]), columns.b[i]),
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
            p_adjusted: comparison.p_value,
            verdict: paired_verdict(comparison.p_value, comparison.difference, ALPHA),
            comparison,
        })
    });
    let agreement = |right: &[bool]| {
        let mut per_task: BTreeMap<Unit, Vec<bool>> = BTreeMap::new();
        for &i in rows {
            per_task.entry(unit(i)).or_default().push(right[i]);
        }
        repeat_agreement(&per_task.into_values().collect::<Vec<_>>())
    };
    let picks_verdict = paired_verdict(picks.p_value, picks.difference.difference, ALPHA);
    let (verdict, decided_by) = match &graded {
        Some(graded) => (graded.verdict, Measure::Graded),
        None => (picks_verdict, Measure::Picks),
    };
    Some(AbComparison {
        backend: backend.to_string(),
        arm_a: arm_a.to_string(),
        arm_b: arm_b.to_string(),
        a: task_rate(&rates_a, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED),
        b: task_rate(&rates_b, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED),
        pairs: rows.len(),
        tasks,
        picks_p_adjusted: picks.p_value,
        adjustment: Adjustment::None,
        difference: Some(picks.difference),
        picks,
        verdict,
        decided_by,
        picks_verdict,
        only_a: only(&rates_a, &rates_b),
        only_b: only(&rates_b, &rates_a),
        repeats_a: (max_repeat > 0).then(|| agreement(&columns.a)),
        repeats_b: (max_repeat > 0).then(|| agreement(&columns.b)),
        tasks_needed,
        picks_detectable,
        graded,
    })
}

/// Adjusts the picks' p-values together, and the graded measure's together, and draws every
/// verdict again from the adjusted ones.
fn adjust_family(comparisons: &mut [AbComparison], adjustment: Adjustment) {
    let picks = adjust(
        &comparisons
            .iter()
            .map(|c| c.picks.p_value)
            .collect::<Vec<_>>(),
        adjustment,
    );
    let graded_at: Vec<usize> = (0..comparisons.len())
        .filter(|&k| comparisons[k].graded.is_some())
        .collect();
    let graded = adjust(
        &graded_at
            .iter()
            .filter_map(|&k| comparisons[k].graded.as_ref().map(|g| g.comparison.p_value))
            .collect::<Vec<_>>(),
        adjustment,
    );
    for (c, p) in comparisons.iter_mut().zip(picks) {
        c.adjustment = adjustment;
        c.picks_p_adjusted = p;
        c.picks_verdict = paired_verdict(p, c.picks.difference.difference, ALPHA);
    }
    for (&k, p) in graded_at.iter().zip(graded) {
        if let Some(g) = comparisons[k].graded.as_mut() {
            g.p_adjusted = p;
            g.verdict = paired_verdict(p, g.comparison.difference, ALPHA);
        }
    }
    for c in comparisons.iter_mut() {
        c.verdict = match &c.graded {
            Some(graded) => graded.verdict,
            None => c.picks_verdict,
        };
    }
}
