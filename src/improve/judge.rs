//! Two wordings' trials on the same tasks, compared as `ab` compares arms: paired by task, the
//! graded measure where the backend gives one (mean `p_right` per task, a bootstrap interval, a
//! sign-flip test), else right picks (a bootstrap interval, McNemar's exact test) — and the pull
//! check, which flags a tool that the new wording makes take picks from its neighbours' tasks.
//! Used on the working part to choose a candidate, and on the held-out part for the verdict. Pure
//! but for polars.

use crate::analysis::experiments::{AbComparison, Measure, ab_comparisons, pull_tables};
use crate::analysis::statistics::{AbVerdict, Adjustment};
use crate::analysis::trials::frame;
use crate::record::StoredTrial;

/// Arm B against arm A.
#[derive(Debug, Clone)]
pub struct Judgement {
    /// The measure the numbers are on: `p(right pick)` or `right picks`.
    pub measure: String,
    pub pairs: usize,
    /// The measure's mean under each arm, and B − A with its 95% interval and p-value.
    pub a: f64,
    pub b: f64,
    pub difference: f64,
    pub low: f64,
    pub high: f64,
    pub p_value: f64,
    pub verdict: AbVerdict,
    /// Right picks under each arm.
    pub right_a: u64,
    pub right_b: u64,
    /// Tools arm B's wording makes take picks from others' tasks (the pull check).
    pub flagged: Vec<String>,
    /// The whole comparison, as `ab` reports it.
    pub comparison: AbComparison,
}

/// Compares `b`'s trials with `a`'s (each labelled with its arm in `variant`); an error when the
/// two share no scored task.
pub fn judge(
    a: &[StoredTrial],
    b: &[StoredTrial],
    arm_a: &str,
    arm_b: &str,
) -> Result<Judgement, String> {
    let trials: Vec<StoredTrial> = a.iter().chain(b).cloned().collect();
    let arms = [arm_a.to_string(), arm_b.to_string()];
    let table = frame(&trials).map_err(|e| format!("the trials do not tabulate: {e}"))?;
    // One comparison is a family of one: nothing to adjust for. (The working part's many
    // candidates are not evidence for the verdict: only the held-out comparison decides.)
    let comparison = ab_comparisons(&table, "variant", &arms, Adjustment::None)
        .map_err(|e| format!("the comparison failed: {e}"))?
        .into_iter()
        .next()
        .filter(|c| c.pairs > 0)
        .ok_or_else(|| format!("{arm_a} and {arm_b} have no scored task in common"))?;
    let flagged = pull_tables(&trials, &arms)
        .into_iter()
        .flat_map(|table| table.tools.into_iter().filter(|t| t.flagged))
        .map(|t| t.tool)
        .collect();
    let (measure, a_mean, b_mean, difference, low, high, p_value) =
        match (&comparison.graded, comparison.decided_by) {
            (Some(graded), Measure::Graded) => {
                let c = &graded.comparison;
                (
                    graded.source.describe(),
                    c.mean_a,
                    c.mean_b,
                    c.difference,
                    c.low,
                    c.high,
                    c.p_value,
                )
            }
            _ => {
                let (difference, low, high) = comparison.difference.as_ref().map_or(
                    (
                        comparison.b.estimate - comparison.a.estimate,
                        f64::NAN,
                        f64::NAN,
                    ),
                    |d| (d.difference, d.low, d.high),
                );
                (
                    "right picks".to_string(),
                    comparison.a.estimate,
                    comparison.b.estimate,
                    difference,
                    low,
                    high,
                    comparison.picks.p_value,
                )
            }
        };
    Ok(Judgement {
        measure,
        pairs: comparison.tasks,
        a: a_mean,
        b: b_mean,
        difference,
        low,
        high,
        p_value,
        verdict: comparison.verdict,
        right_a: comparison.a.successes,
        right_b: comparison.b.successes,
        flagged,
        comparison,
    })
}
