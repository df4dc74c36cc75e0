//! The exact McNemar test on the discordant pairs of a paired comparison, with the binomial tail
//! and ln-gamma it is summed from, accurate for hundreds of thousands of pairs.

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

/// `P(X <= k)` for `X ~ Binomial(n, 1/2)`, with `k <= n`.
///
/// The largest term, `pmf(k)`, comes from ln-gamma so it cannot overflow; the smaller terms are
/// reached by the ratio `pmf(i-1) / pmf(i) = i / (n - i + 1)`, which loses no precision however
/// large `n` is, and the sum stops once the terms no longer change it.
fn binomial_half_lower_tail(n: u64, k: u64) -> f64 {
    let k = k.min(n);
    let n_f = n as f64;
    let ln_pmf_k = ln_gamma(n_f + 1.0)
        - ln_gamma(k as f64 + 1.0)
        - ln_gamma((n - k) as f64 + 1.0)
        - n_f * std::f64::consts::LN_2;
    let mut term = 1.0_f64;
    let mut sum = 1.0_f64;
    let mut i = k;
    while i > 0 {
        term *= i as f64 / (n - i + 1) as f64;
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
        i -= 1;
    }
    (ln_pmf_k.exp() * sum).min(1.0)
}

/// Natural log of the gamma function for `x >= 0.5` (Lanczos, g = 7, nine coefficients), with a
/// relative error near 1e-15, which leaves binomial coefficients of 100,000 trials accurate to
/// about 1e-9 after the three-way cancellation.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut series = COEFFICIENTS[0];
    for (offset, coefficient) in COEFFICIENTS.iter().enumerate().skip(1) {
        series += coefficient / (x + offset as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + series.ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::{assert_close, normal_cdf_by_integration};

    #[test]
    fn ln_gamma_matches_factorials_and_half() {
        assert_close(ln_gamma(1.0), 0.0, 1e-14);
        assert_close(ln_gamma(2.0), 0.0, 1e-14);
        assert_close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-14);
        let ln_factorial_100: f64 = (1..=100).map(|k| (k as f64).ln()).sum();
        assert_close(ln_gamma(101.0), ln_factorial_100, 1e-11);
        assert_close(ln_gamma(101.0), 363.739_375_555_563_47, 1e-10);
    }

    #[test]
    fn mcnemar_two_against_ten_is_exact() {
        // 2 * (C(12,0) + C(12,1) + C(12,2)) / 2^12 = 2 * 79 / 4096.
        let test = mcnemar_exact(2, 10);
        assert_close(test.p_value, 0.038_574_218_75, 1e-12);
        assert_eq!((test.only_a, test.only_b), (2, 10));
        assert_eq!(mcnemar_exact(10, 2).p_value, test.p_value);
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
