//! Power analysis for a paired comparison: the number of tasks McNemar's test needs to detect a
//! difference, and the standard normal quantile it is computed from.

use statrs::distribution::{ContinuousCDF, Normal};

/// Tasks a paired comparison needs to detect `difference` (p_b - p_a) with the given share of discordant pairs, at two-sided alpha and power (Connor 1987 formula for McNemar).
///
/// `n = ceil((z(1 - alpha/2) * sqrt(psi) + z(power) * sqrt(psi - delta^2))^2 / delta^2)` with
/// `psi = discordant_share` and `delta = |difference|`.
///
/// `None` when `difference` is 0 or not finite, `|difference| > 1`, `discordant_share` is outside
/// `(0, 1]`, `alpha` or `power` is outside `(0, 1)`, `discordant_share < |difference|` (the share
/// of pairs where the arms disagree cannot be smaller than the difference they make), or
/// `discordant_share <= difference^2` (the formula has no solution), or when the answer does not
/// fit in a `u64`.
pub fn paired_sample_size(
    difference: f64,
    discordant_share: f64,
    alpha: f64,
    power: f64,
) -> Option<u64> {
    let delta = difference.abs();
    let psi = discordant_share;
    // Written as positive tests so that NaN, which fails every comparison, is rejected too.
    let in_open_unit = |x: f64| x > 0.0 && x < 1.0;
    let in_unit_excluding_zero = |x: f64| x > 0.0 && x <= 1.0;
    if !in_unit_excluding_zero(delta)
        || !in_unit_excluding_zero(psi)
        || !in_open_unit(alpha)
        || !in_open_unit(power)
        || psi < delta
        || psi <= delta * delta
    {
        return None;
    }
    let root = normal_quantile(1.0 - alpha / 2.0) * psi.sqrt()
        + normal_quantile(power) * (psi - delta * delta).sqrt();
    let tasks = (root * root / (delta * delta)).ceil();
    // u64::MAX as f64 rounds up to 2^64, so `<` keeps the cast below exact in range.
    (tasks.is_finite() && tasks >= 0.0 && tasks < u64::MAX as f64).then_some(tasks as u64)
}

/// The smallest difference in right picks (as a fraction) McNemar's test detects with `power` at
/// two-sided `alpha` on `pairs` pairs of which `discordant_share` disagree: Connor's formula
/// (`paired_sample_size`) solved for the difference by fixed-point iteration,
/// `delta = (z(1 - alpha/2) * sqrt(psi) + z(power) * sqrt(psi - delta^2)) / sqrt(n)`.
///
/// `None` without pairs or discordant pairs (the spread is unknown), or for `alpha` or `power`
/// outside `(0, 1)`; at most `discordant_share` (no larger difference can show in these pairs).
pub fn paired_detectable_difference(
    discordant_share: f64,
    pairs: u64,
    alpha: f64,
    power: f64,
) -> Option<f64> {
    let psi = discordant_share;
    let in_open_unit = |x: f64| x > 0.0 && x < 1.0;
    if pairs == 0
        || psi <= 0.0
        || psi > 1.0
        || psi.is_nan()
        || !in_open_unit(alpha)
        || !in_open_unit(power)
    {
        return None;
    }
    let n = pairs as f64;
    let (z_alpha, z_power) = (normal_quantile(1.0 - alpha / 2.0), normal_quantile(power));
    let mut delta = ((z_alpha + z_power) * (psi / n).sqrt()).min(psi);
    for _ in 0..100 {
        let next = ((z_alpha * psi.sqrt() + z_power * (psi - delta * delta).max(0.0).sqrt())
            / n.sqrt())
        .min(psi);
        if (next - delta).abs() < 1e-12 {
            delta = next;
            break;
        }
        delta = next;
    }
    delta.is_finite().then_some(delta)
}

/// Quantile of the standard normal distribution, from `statrs` (its inverse complementary error
/// function, accurate to about 1e-15 relative over the open interval).
///
/// Degenerate values: `p <= 0` gives negative infinity, `p >= 1` positive infinity, NaN gives NaN
/// (where `statrs` would panic outside `[0, 1]`).
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    Normal::standard().inverse_cdf(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::{assert_close, normal_cdf_by_integration};

    #[test]
    fn normal_quantile_known_values() {
        assert_close(normal_quantile(0.975), 1.959_963_984_540_054, 1e-12);
        assert_close(normal_quantile(0.8), 0.841_621_233_572_914_2, 1e-12);
        assert_eq!(normal_quantile(0.5), 0.0);
        assert_close(normal_quantile(0.025), -1.959_963_984_540_054, 1e-12);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert_eq!(normal_quantile(-3.0), f64::NEG_INFINITY);
        assert!(normal_quantile(f64::NAN).is_nan());
    }

    #[test]
    fn normal_quantile_inverts_the_integrated_cdf_in_every_branch() {
        // The centre, the intermediate tail and the far tail.
        for p in [
            0.1, 0.3, 0.6, 0.9, 0.05, 1e-3, 1e-6, 0.999, 1e-12, 1e-20, 1e-100,
        ] {
            let z = normal_quantile(p);
            let back = normal_cdf_by_integration(z);
            assert!(
                (back / p - 1.0).abs() < 1e-9,
                "p = {p}: z = {z}, Phi(z) = {back}"
            );
        }
    }

    #[test]
    fn sample_size_matches_hand_computation() {
        // z(0.975) * sqrt(0.2) + z(0.8) * sqrt(0.19) = 0.876524 + 0.366853 = 1.243377;
        // 1.243377^2 / 0.01 = 154.60, so 155 tasks.
        assert_eq!(paired_sample_size(0.1, 0.2, 0.05, 0.8), Some(155));
        assert_eq!(paired_sample_size(-0.1, 0.2, 0.05, 0.8), Some(155));
        // A rarer disagreement needs fewer tasks to show the same difference.
        assert!(paired_sample_size(0.1, 0.15, 0.05, 0.8).unwrap() < 155);
    }

    #[test]
    fn the_detectable_difference_inverts_the_sample_size() {
        // 0.1 at a discordance of 0.2 needs 154.60 tasks (above): the detectable difference at
        // 155 pairs is just under 0.1, at 154 just over it.
        let at_155 = paired_detectable_difference(0.2, 155, 0.05, 0.8).unwrap();
        let at_154 = paired_detectable_difference(0.2, 154, 0.05, 0.8).unwrap();
        assert!(at_155 < 0.1 && at_154 > 0.1, "{at_155} {at_154}");
        assert!(matches!(
            paired_sample_size(at_155, 0.2, 0.05, 0.8),
            Some(155 | 156)
        ));
        assert_eq!(paired_detectable_difference(0.0, 155, 0.05, 0.8), None);
        assert_eq!(paired_detectable_difference(0.2, 0, 0.05, 0.8), None);
        // Two pairs of four discordant: nothing under the discordance itself can be promised.
        assert!(paired_detectable_difference(0.5, 4, 0.05, 0.8).unwrap() <= 0.5);
    }

    #[test]
    fn sample_size_rejects_impossible_inputs() {
        for (difference, share, alpha, power) in [
            (0.0, 0.2, 0.05, 0.8),
            (0.1, 0.01, 0.05, 0.8),
            (0.1, 0.05, 0.05, 0.8),
            (0.1, 0.2, 0.0, 0.8),
            (0.1, 0.2, 0.05, 1.0),
            (0.1, 1.5, 0.05, 0.8),
            (f64::NAN, 0.2, 0.05, 0.8),
            (0.1, f64::NAN, 0.05, 0.8),
            (1e-12, 0.5, 0.05, 0.8),
        ] {
            assert_eq!(paired_sample_size(difference, share, alpha, power), None);
        }
    }
}
