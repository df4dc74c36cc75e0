//! The exact McNemar test on the discordant pairs of a paired comparison: a two-sided binomial
//! test whose tail is summed in exact integer arithmetic up to 120 pairs (so a p-value that is
//! exactly alpha is exactly alpha, and `p < alpha` is decided right) and comes from `statrs` above
//! that, accurate for hundreds of thousands of pairs.

use statrs::distribution::{Binomial, DiscreteCDF};

/// Pairs up to which the tail is summed exactly.
const EXACT_UP_TO: u64 = 120;

/// Two-sided exact McNemar test on the discordant pairs: b = pairs where only A succeeded, c = only B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McNemar {
    /// Pairs where arm A succeeded and arm B failed.
    pub only_a: u64,
    /// Pairs where arm B succeeded and arm A failed.
    pub only_b: u64,
    /// Two-sided exact p-value; 1 when there are no discordant pairs.
    pub p_value: f64,
}

/// Runs the exact McNemar test: a two-sided binomial test with p = 0.5 on the
/// `only_a + only_b` discordant pairs, `p = min(1, 2 * P(X <= min(only_a, only_b)))`.
///
/// Concordant pairs carry no information about which arm is better, which is why they are not
/// arguments. With no discordant pairs the p-value is 1. The tail is summed in a way that stays
/// accurate for hundreds of thousands of pairs; a p-value below the smallest `f64` is reported as 0.
pub fn mcnemar_exact(only_a: u64, only_b: u64) -> McNemar {
    let p_value = match only_a.checked_add(only_b) {
        Some(0) => 1.0,
        // A lower tail reaching the median holds at least half the mass, so the p-value is
        // exactly 1; saying so directly keeps rounding from printing 0.99999999999.
        Some(pairs) if 2 * u128::from(only_a.min(only_b)) + 1 >= u128::from(pairs) => 1.0,
        Some(pairs) => (2.0 * binomial_half_lower_tail(pairs, only_a.min(only_b))).min(1.0),
        // Beyond u64 the counts cannot have come from real trials; say "no evidence".
        None => 1.0,
    };
    McNemar {
        only_a,
        only_b,
        p_value,
    }
}

/// `P(X <= k)` for `X ~ Binomial(n, 1/2)`, with `k <= n`: summed over exact binomial coefficients up
/// to 120 pairs, from `statrs` above (the regularised incomplete beta function, which stays accurate
/// for hundreds of thousands of pairs).
fn binomial_half_lower_tail(n: u64, k: u64) -> f64 {
    if n <= EXACT_UP_TO {
        // Every C(n, i) for i <= n / 2 and its product with n - i fit in a u128 at n <= 120; the
        // one division by a power of two below rounds once, so the result is correctly rounded.
        let (mut coefficient, mut sum) = (1u128, 1u128);
        for i in 0..k.min(n) {
            coefficient = coefficient * u128::from(n - i) / u128::from(i + 1);
            sum += coefficient;
        }
        return sum as f64 / 2f64.powi(n as i32);
    }
    match Binomial::new(0.5, n) {
        Ok(binomial) => binomial.cdf(k.min(n)).min(1.0),
        Err(_) => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::{assert_close, normal_cdf_by_integration};

    #[test]
    fn mcnemar_two_against_ten_is_exact() {
        // 2 * (C(12,0) + C(12,1) + C(12,2)) / 2^12 = 2 * 79 / 4096.
        let test = mcnemar_exact(2, 10);
        assert_close(test.p_value, 0.038_574_218_75, 1e-12);
        assert_eq!((test.only_a, test.only_b), (2, 10));
        assert_eq!(mcnemar_exact(10, 2).p_value, test.p_value);
    }

    #[test]
    fn a_p_value_at_alpha_is_exactly_alpha() {
        // 2 * (1 + 16 + 120 + 560) / 2^16 = 697 / 32768.
        assert_eq!(mcnemar_exact(3, 13).p_value, 697.0 / 32768.0);
        let at = mcnemar_exact(13, 3).p_value;
        assert_eq!(
            at.partial_cmp(&(697.0 / 32768.0)),
            Some(std::cmp::Ordering::Equal)
        );
        // The exact sums agree with statrs' incomplete beta function.
        for (a, b) in [(30, 90), (45, 75), (50, 70), (3, 13)] {
            let exact = mcnemar_exact(a, b).p_value;
            let n = a + b;
            let from_statrs = 2.0 * Binomial::new(0.5, n).unwrap().cdf(a.min(b));
            assert_close(exact, from_statrs.min(1.0), 1e-10 * exact);
        }
    }

    #[test]
    fn mcnemar_without_evidence_is_one() {
        assert_eq!(mcnemar_exact(0, 0).p_value, 1.0);
        assert_eq!(mcnemar_exact(5, 5).p_value, 1.0);
        assert_eq!(mcnemar_exact(5, 6).p_value, 1.0);
        assert_eq!(mcnemar_exact(u64::MAX, 1).p_value, 1.0);
    }

    #[test]
    fn mcnemar_small_counts_match_enumeration() {
        // 0 vs 6: 2 / 64. 1 vs 7: 2 * 9 / 256.
        assert_close(mcnemar_exact(0, 6).p_value, 2.0 / 64.0, 1e-14);
        assert_close(mcnemar_exact(7, 1).p_value, 18.0 / 256.0, 1e-14);
    }

    #[test]
    fn mcnemar_large_n_agrees_with_normal_approximation() {
        let exact = mcnemar_exact(4_900, 5_100).p_value;
        // n = 10,000: mean 5,000, sd 50; continuity-corrected z = (4,900.5 - 5,000) / 50 = -1.99.
        let approximate = 2.0 * normal_cdf_by_integration(-1.99);
        assert_close(exact, approximate, 0.005);
        // 2 * sum_{i<=4900} C(10000, i) / 2^10000 in exact integer arithmetic (Python `math.comb`,
        // `fractions.Fraction`) is 0.04658552770494739.
        assert_close(exact, 0.046_585_527_704_947_39, 1e-10);
    }

    #[test]
    fn mcnemar_stays_finite_at_extremes() {
        let lopsided = mcnemar_exact(49_000, 51_000).p_value;
        // z = (49,000.5 - 50,000) / sqrt(25,000) = -6.3214; 2 * Phi(z) is about 2.6e-10.
        let approximate = 2.0 * normal_cdf_by_integration(-999.5 / 25_000_f64.sqrt());
        assert!(
            (lopsided / approximate - 1.0).abs() < 0.05,
            "{lopsided} vs {approximate}"
        );
        // The same tail summed over exact binomial coefficients with Python integers.
        assert!((lopsided / 2.588_716_038_346_898e-10 - 1.0).abs() < 1e-9);
        assert_eq!(mcnemar_exact(0, 100_000).p_value, 0.0);
        assert_eq!(mcnemar_exact(50_000, 50_000).p_value, 1.0);
        for (a, b) in [(0, 1), (1, 0), (3, 100_000), (100_000, 99_000)] {
            let p = mcnemar_exact(a, b).p_value;
            assert!((0.0..=1.0).contains(&p), "{a} vs {b}: {p}");
        }
    }
}
