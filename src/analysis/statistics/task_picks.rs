//! Right picks of two arms compared with the task as the unit. A task met more than once — over
//! `--repeats`, over a sweep's sizes and seeds — is one observation: its rate of right picks under
//! each arm. When every task's rate is 0 or 1 under both arms (a deterministic backend, or one
//! whose repeats agree) the comparison is the exact McNemar test on the tasks, with Newcombe's
//! square-and-add interval for the paired difference (method 10 of Newcombe 1998, which stays inside
//! [−1, 1] and is never a point when there are few tasks); so three identical repeats give the same
//! p and interval as one. Otherwise it is the sign-flip permutation test on the per-task
//! differences (which on 0/1 rates is the same exact binomial test) with a bootstrap interval that
//! resamples tasks.

use super::bootstrap::{PairedDifference, bootstrap_mean_difference};
use super::graded::sign_flip_p_value;
use super::mcnemar::mcnemar_exact;
use crate::score::{Interval, wilson_interval};

/// How the picks were tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PicksTest {
    /// Exact McNemar on tasks (every task's rate 0 or 1).
    McNemarExact,
    /// Sign-flip permutation test on per-task rate differences; `exact` when every sign pattern
    /// was counted.
    SignFlip { exact: bool },
}

/// How the interval on B − A was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalMethod {
    /// Newcombe's square-and-add interval for a paired difference.
    Newcombe,
    /// A percentile bootstrap resampling tasks.
    TaskBootstrap,
}

/// Arm B against arm A on right picks, per task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskPicks {
    pub tasks: usize,
    /// Tasks whose rate is higher under A than under B, and the other way round (the discordant
    /// tasks, when rates are 0 or 1).
    pub only_a: u64,
    pub only_b: u64,
    /// Mean per-task rates.
    pub mean_a: f64,
    pub mean_b: f64,
    /// B − A with its 95% interval.
    pub difference: PairedDifference,
    pub interval: IntervalMethod,
    /// Two-sided p-value of `test`.
    pub p_value: f64,
    pub test: PicksTest,
}

impl TaskPicks {
    /// The test, as a report names it.
    pub fn test_name(&self) -> &'static str {
        match self.test {
            PicksTest::McNemarExact => "exact McNemar on tasks",
            PicksTest::SignFlip { exact: true } => "sign-flip on per-task rates, exact",
            PicksTest::SignFlip { exact: false } => "sign-flip on per-task rates, 20,000 patterns",
        }
    }

    /// The interval's method, as a report names it.
    pub fn interval_name(&self) -> &'static str {
        match self.interval {
            IntervalMethod::Newcombe => "Newcombe",
            IntervalMethod::TaskBootstrap => "bootstrap over tasks",
        }
    }

    /// Whether every task's rate was 0 or 1 under both arms.
    pub fn binary(&self) -> bool {
        self.test == PicksTest::McNemarExact
    }
}

fn is_binary(x: f64) -> bool {
    x == 0.0 || x == 1.0
}

/// Compares per-task rates `a` and `b` (same tasks, same order, each in [0, 1]); `None` when they
/// differ in length or are empty.
pub fn task_picks(a: &[f64], b: &[f64], resamples: usize, seed: u64) -> Option<TaskPicks> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let n = a.len();
    let only_a = a.iter().zip(b).filter(|(x, y)| x > y).count() as u64;
    let only_b = a.iter().zip(b).filter(|(x, y)| y > x).count() as u64;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n as f64;
    let (mean_a, mean_b) = (mean(a), mean(b));
    if a.iter().chain(b).all(|x| is_binary(*x)) {
        let both = a
            .iter()
            .zip(b)
            .filter(|(x, y)| **x == 1.0 && **y == 1.0)
            .count() as u64;
        return Some(TaskPicks {
            tasks: n,
            only_a,
            only_b,
            mean_a,
            mean_b,
            difference: newcombe_paired(both, only_a, only_b, n as u64),
            interval: IntervalMethod::Newcombe,
            p_value: mcnemar_exact(only_a, only_b).p_value,
            test: PicksTest::McNemarExact,
        });
    }
    let differences: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let difference = bootstrap_mean_difference(&differences, resamples.max(1), seed)?;
    let (p_value, exact) = sign_flip_p_value(&differences, seed ^ 0x7461_736b_7069_636b);
    Some(TaskPicks {
        tasks: n,
        only_a,
        only_b,
        mean_a,
        mean_b,
        difference,
        interval: IntervalMethod::TaskBootstrap,
        p_value,
        test: PicksTest::SignFlip { exact },
    })
}

/// One arm's rate of right picks over tasks (each task's own rate in [0, 1]) with its 95% interval:
/// Wilson's on the tasks when every rate is 0 or 1 (so repeats that agree give the interval one
/// repeat gives), else a percentile bootstrap resampling tasks. `successes` and `trials` count
/// tasks (successes rounded when rates are fractions).
pub fn task_rate(rates: &[f64], resamples: usize, seed: u64) -> Interval {
    let n = rates.len() as u64;
    let sum: f64 = rates.iter().sum();
    if rates.iter().all(|x| is_binary(*x)) {
        return wilson_interval(sum as u64, n);
    }
    let bootstrap = bootstrap_mean_difference(rates, resamples.max(1), seed);
    let estimate = sum / n as f64;
    Interval {
        successes: sum.round() as u64,
        trials: n,
        estimate,
        low: bootstrap.map_or(0.0, |b| b.low.max(0.0)),
        high: bootstrap.map_or(1.0, |b| b.high.min(1.0)),
    }
}

/// Newcombe's square-and-add interval for paired proportions (1998, method 10) for the difference
/// B − A, from the counts of tasks right under both arms, under A only, under B only, of `n` tasks:
/// each arm's Wilson interval, combined through the (continuity-corrected) correlation of the
/// pairs.
pub fn newcombe_paired(both: u64, only_a: u64, only_b: u64, n: u64) -> PairedDifference {
    // Counts that do not fit in n tasks describe no table: the widest interval, not a panic.
    let fits = both
        .checked_add(only_a)
        .and_then(|x| x.checked_add(only_b))
        .is_some_and(|total| total <= n);
    if n == 0 || !fits {
        return PairedDifference {
            difference: 0.0,
            low: -1.0,
            high: 1.0,
        };
    }
    let neither = n.saturating_sub(both + only_a + only_b);
    let (right_a, right_b) = (both + only_a, both + only_b);
    let (wa, wb) = (wilson_interval(right_a, n), wilson_interval(right_b, n));
    let (pa, pb) = (wa.estimate, wb.estimate);
    let f = |x: u64| x as f64;
    let margins = f(right_a) * f(n - right_a) * f(right_b) * f(n - right_b);
    // The correlation of the two arms' results, continuity-corrected as Newcombe's method 10 has
    // it: a positive cross-product within n/2 of zero counts as no correlation.
    let cross = f(both) * f(neither) - f(only_a) * f(only_b);
    let phi = if margins == 0.0 {
        0.0
    } else if cross > f(n) / 2.0 {
        (cross - f(n) / 2.0) / margins.sqrt()
    } else if cross >= 0.0 {
        0.0
    } else {
        cross / margins.sqrt()
    };
    let difference = pb - pa;
    let root = |x: f64, y: f64| (x * x - 2.0 * phi * x * y + y * y).max(0.0).sqrt();
    PairedDifference {
        difference,
        low: (difference - root(pb - wb.low, wa.high - pa)).max(-1.0),
        high: (difference + root(wb.high - pb, pa - wa.low)).min(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::assert_close;

    #[test]
    fn newcombe_matches_the_published_method() {
        // The two examples of Fagerland, Lydersen and Laake's chapter on the paired 2x2 table
        // (Bentur et al. 2009; Cavo et al. 2012), with the reference values computed in Python by
        // the R package contingencytables' formula on statsmodels' Wilson intervals. B is the
        // table's first measurement: only_b its "yes, then no" cell.
        let bentur = newcombe_paired(1, 7, 1, 21);
        assert_close(bentur.difference, -0.285_714_285_714_285_7, 1e-12);
        assert_close(bentur.low, -0.506_920_226_686_141, 1e-9);
        assert_close(bentur.high, -0.025_559_124_164_859_84, 1e-9);
        let cavo = newcombe_paired(59, 16, 6, 161);
        assert_close(cavo.difference, -0.062_111_801_242_236_03, 1e-12);
        assert_close(cavo.low, -0.118_621_195_638_709_99, 1e-9);
        assert_close(cavo.high, -0.004_625_113_933_050_047, 1e-9);
    }

    #[test]
    fn one_task_is_never_a_point() {
        let d = newcombe_paired(0, 0, 1, 1);
        assert_eq!(d.difference, 1.0);
        assert!(d.low < 0.0 && d.high == 1.0, "{d:?}");
        let none = newcombe_paired(3, 0, 0, 5);
        assert!(none.low < 0.0 && none.high > 0.0, "{none:?}");
    }

    #[test]
    fn repeats_that_agree_are_one_task_each() {
        let a = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let b = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0];
        let picks = task_picks(&a, &b, 1000, 7).unwrap();
        assert!(picks.binary());
        assert_eq!((picks.only_a, picks.only_b, picks.tasks), (0, 5, 8));
        assert_close(picks.p_value, 2.0 / 32.0, 1e-12);
        // Rates between 0 and 1: the sign-flip test; on the same tasks with one rate at one half
        // the evidence is weaker.
        let mut c = b;
        c[1] = 0.5;
        let graded = task_picks(&a, &c, 1000, 7).unwrap();
        assert_eq!(graded.test, PicksTest::SignFlip { exact: true });
        assert_close(graded.p_value, 2.0 / 32.0, 1e-12);
        c[2] = 0.0;
        assert!(task_picks(&a, &c, 1000, 7).unwrap().p_value > 2.0 / 32.0);
    }
}
