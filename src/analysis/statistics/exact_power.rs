//! Power of the test the A/B comparison actually runs on right picks — the two-sided exact McNemar
//! test — summed over every outcome rather than read off Connor's normal approximation, which
//! overstates it (the exact test's size is below alpha). Of `n` tasks, the number discordant is
//! binomial with the discordant share ψ; given d discordant, the tasks B alone gets right are
//! binomial with (ψ + δ) / 2ψ; the test rejects when the smaller side is at most the largest k whose
//! exact p is below alpha. From that: the smallest difference detectable with 80% power on these
//! tasks, and the tasks an observed difference needs — both by the exact test.

use super::mcnemar::mcnemar_exact;
use super::sample_size::paired_sample_size;
use statrs::distribution::{Binomial, Discrete, DiscreteCDF};

/// The largest count k of the smaller side at which the exact test rejects on `d` discordant
/// tasks (`None`: no split of `d` reaches `alpha`).
fn critical_count(d: u64, alpha: f64) -> Option<u64> {
    if d == 0 || mcnemar_exact(0, d).p_value >= alpha {
        return None;
    }
    let (mut low, mut high) = (0, d / 2);
    while low < high {
        let middle = (low + high).div_ceil(2);
        if mcnemar_exact(middle, d - middle).p_value < alpha {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    Some(low)
}

/// Power of the two-sided exact McNemar test at `alpha` on `n` tasks whose share of discordant
/// tasks is `psi` and whose difference in right picks (B − A) is `delta` (`|delta| <= psi`).
/// `None` for arguments outside their ranges.
pub fn mcnemar_power(n: u64, psi: f64, delta: f64, alpha: f64) -> Option<f64> {
    let delta = delta.abs();
    if !(psi > 0.0 && psi <= 1.0 && delta <= psi && alpha > 0.0 && alpha < 1.0) || n == 0 {
        return None;
    }
    let discordant = Binomial::new(psi, n).ok()?;
    let q = ((psi + delta) / (2.0 * psi)).min(1.0);
    let mut power = 0.0;
    // Beyond 12 standard deviations of the discordant count its probability is below 1e-30.
    let (mean, spread) = (n as f64 * psi, (n as f64 * psi * (1.0 - psi)).sqrt());
    let first = ((mean - 12.0 * spread).floor().max(1.0)) as u64;
    let last = ((mean + 12.0 * spread).ceil() as u64).clamp(first, n);
    // The critical count grows by at most one from d to d + 1: found once by bisection, then
    // walked, so each d costs one or two tail sums.
    let mut critical = critical_count(first, alpha);
    for d in first..=last {
        if d > first {
            critical = match critical {
                None => (mcnemar_exact(0, d).p_value < alpha).then_some(0),
                Some(k) if mcnemar_exact(k + 1, d - k - 1).p_value < alpha => Some(k + 1),
                same => same,
            };
        }
        let weight = discordant.pmf(d);
        if weight < 1e-16 {
            continue;
        }
        let Some(k) = critical else {
            continue;
        };
        let only_b = Binomial::new(q, d).ok()?;
        let upper = if d > k {
            1.0 - only_b.cdf(d - k - 1)
        } else {
            1.0
        };
        power += weight * (only_b.cdf(k) + upper).min(1.0);
    }
    Some(power.min(1.0))
}

/// The smallest difference in right picks the exact McNemar test detects with `power` at `alpha`
/// on `n` tasks of which the share `psi` are discordant; `None` when even a difference of `psi`
/// (every discordant task going B's way) does not reach that power.
pub fn exact_detectable_difference(n: u64, psi: f64, alpha: f64, power: f64) -> Option<f64> {
    if mcnemar_power(n, psi, psi, alpha)? < power {
        return None;
    }
    Some(smallest_reaching(psi, 50, |delta| {
        mcnemar_power(n, psi, delta, alpha).is_some_and(|p| p >= power)
    }))
}

/// The smallest difference in (0, `high`] at which `reaches` holds, by `steps` bisections, for a
/// power that grows with the difference (`reaches(high)` is known to hold).
pub(super) fn smallest_reaching(high: f64, steps: u32, reaches: impl Fn(f64) -> bool) -> f64 {
    let (mut low, mut high) = (0.0, high);
    for _ in 0..steps {
        let middle = (low + high) / 2.0;
        if reaches(middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

/// The tasks a difference `delta` at discordant share `psi` needs for `power` by the exact test:
/// the first count, walking from Connor's estimate, at which the exact power reaches it. (The exact
/// test's power saw-tooths in n, so a count a little above may dip below again.) `None` when no
/// count up to 100,000 tasks reaches it (past that, a report has nothing useful to say).
pub fn exact_tasks_needed(delta: f64, psi: f64, alpha: f64, power: f64) -> Option<u64> {
    const MOST: u64 = 100_000;
    let start = paired_sample_size(delta, psi, alpha, power)?.max(1);
    if start > MOST {
        return None;
    }
    let reaches = |n: u64| mcnemar_power(n, psi, delta, alpha).is_some_and(|p| p >= power);
    let mut n = start;
    if reaches(n) {
        while n > 1 && reaches(n - 1) {
            n -= 1;
        }
        return Some(n);
    }
    // Connor's estimate is low by a few percent to a few tens of percent; grow in steps, then
    // come back down to the first count that reaches.
    let mut step = (n / 50).max(1);
    while !reaches(n) {
        n = n.checked_add(step)?;
        if n > MOST {
            return None;
        }
        step = (step * 2).min(n / 10 + 1);
    }
    let mut low = n.saturating_sub(step);
    while low + 1 < n {
        let middle = (low + n) / 2;
        if reaches(middle) {
            n = middle;
        } else {
            low = middle;
        }
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::assert_close;

    #[test]
    fn walking_the_critical_count_agrees_with_bisection() {
        let mut critical = critical_count(1, 0.05);
        for d in 2..400 {
            critical = match critical {
                None => (mcnemar_exact(0, d).p_value < 0.05).then_some(0),
                Some(k) if mcnemar_exact(k + 1, d - k - 1).p_value < 0.05 => Some(k + 1),
                same => same,
            };
            assert_eq!(critical, critical_count(d, 0.05), "{d}");
        }
    }

    #[test]
    fn the_critical_count_is_the_last_that_rejects() {
        // 0 of 6: p = 2/64 < 0.05; 1 of 6: 14/64 > 0.05.
        assert_eq!(critical_count(6, 0.05), Some(0));
        assert_eq!(critical_count(5, 0.05), None);
        assert_eq!(critical_count(12, 0.05), Some(2));
    }

    #[test]
    fn power_by_enumeration_matches_a_direct_sum() {
        // n = 12, psi = 0.5, delta = 0.3: summed over every (only_a, only_b, concordant) outcome
        // of the trinomial, counting those the exact test rejects.
        let (n, psi, delta): (u64, f64, f64) = (12, 0.5, 0.3);
        let (pa, pb, pc) = ((psi - delta) / 2.0, (psi + delta) / 2.0, 1.0 - psi);
        let factorial = |k: u64| (1..=k).map(|x| x as f64).product::<f64>();
        let mut direct = 0.0;
        for a in 0..=n {
            for b in 0..=(n - a) {
                let c = n - a - b;
                if mcnemar_exact(a, b).p_value < 0.05 {
                    direct += factorial(n) / (factorial(a) * factorial(b) * factorial(c))
                        * pa.powi(a as i32)
                        * pb.powi(b as i32)
                        * pc.powi(c as i32);
                }
            }
        }
        assert_close(mcnemar_power(n, psi, delta, 0.05).unwrap(), direct, 1e-12);
    }

    #[test]
    fn the_stated_detectable_difference_has_its_power() {
        for (n, psi) in [(53, 0.3), (155, 0.2), (20, 0.5)] {
            let delta = exact_detectable_difference(n, psi, 0.05, 0.8).unwrap();
            assert!(mcnemar_power(n, psi, delta, 0.05).unwrap() >= 0.8 - 1e-9);
            assert!(mcnemar_power(n, psi, delta * 0.98, 0.05).unwrap() < 0.8);
        }
        // Two discordant tasks in three can never reach p < 0.05.
        assert_eq!(exact_detectable_difference(3, 0.67, 0.05, 0.8), None);
    }

    #[test]
    fn the_tasks_needed_reach_the_power_connor_promises() {
        let (delta, psi) = (0.1, 0.2);
        let connor = paired_sample_size(delta, psi, 0.05, 0.8).unwrap();
        let exact = exact_tasks_needed(delta, psi, 0.05, 0.8).unwrap();
        assert!(exact >= connor, "{exact} < {connor}");
        assert!(mcnemar_power(exact, psi, delta, 0.05).unwrap() >= 0.8);
        assert!(mcnemar_power(exact - 1, psi, delta, 0.05).unwrap() < 0.8);
    }
}
