//! Power analysis for a paired comparison: the number of tasks McNemar's test needs to detect a
//! difference, and the standard normal quantile it is computed from.

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

/// Quantile of the standard normal distribution (Wichura 1988, algorithm AS 241, "PPND16"),
/// accurate to about 1e-16 relative over the whole open interval.
///
/// Degenerate values: `p <= 0` gives negative infinity, `p >= 1` positive infinity, NaN gives NaN.
// The coefficients keep every digit Wichura published, so they can be checked against the paper
// digit by digit; the surplus digits round to the same `f64`.
#[allow(clippy::excessive_precision)]
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
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180_625 - q * q;
        return q * polynomial(
            r,
            &[
                3.387_132_872_796_366_608,
                133.141_667_891_784_377_45,
                1_971.590_950_306_551_442_7,
                13_731.693_765_509_461_125,
                45_921.953_931_549_871_457,
                67_265.770_927_008_700_853,
                33_430.575_583_588_128_105,
                2_509.080_928_730_122_672_7,
            ],
        ) / polynomial(
            r,
            &[
                1.0,
                42.313_330_701_600_911_252,
                687.187_007_492_057_908_3,
                5_394.196_021_424_751_107_7,
                21_213.794_301_586_595_867,
                39_307.895_800_092_710_61,
                28_729.085_735_721_942_674,
                5_226.495_278_852_854_561,
            ],
        );
    }
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let r = (-tail.ln()).sqrt();
    let magnitude = if r <= 5.0 {
        let r = r - 1.6;
        polynomial(
            r,
            &[
                1.423_437_110_749_683_577_34,
                4.630_337_846_156_545_295_9,
                5.769_497_221_460_691_405_5,
                3.647_848_324_763_204_605_04,
                1.270_458_252_452_368_382_58,
                0.241_780_725_177_450_611_77,
                0.022_723_844_989_269_184_583_3,
                7.745_450_142_783_414_076_4e-4,
            ],
        ) / polynomial(
            r,
            &[
                1.0,
                2.053_191_626_637_758_821_87,
                1.676_384_830_183_803_849_4,
                0.689_767_334_985_100_004_55,
                0.148_103_976_427_480_074_59,
                0.015_198_666_563_616_457_196_6,
                5.475_938_084_995_344_946e-4,
                1.050_750_071_644_416_843_24e-9,
            ],
        )
    } else {
        let r = r - 5.0;
        polynomial(
            r,
            &[
                6.657_904_643_501_103_777_2,
                5.463_784_911_164_114_369_9,
                1.784_826_539_917_291_335_8,
                0.296_560_571_828_504_891_23,
                0.026_532_189_526_576_123_093,
                0.001_242_660_947_388_078_438_6,
                2.711_555_568_743_487_578_15e-5,
                2.010_334_399_292_288_132_65e-7,
            ],
        ) / polynomial(
            r,
            &[
                1.0,
                0.599_832_206_555_887_937_69,
                0.136_929_880_922_735_805_31,
                0.014_875_361_290_850_614_852_5,
                7.868_691_311_456_132_591e-4,
                1.846_318_317_510_054_681_8e-5,
                1.421_511_758_316_445_888_7e-7,
                2.044_263_103_389_939_785_64e-15,
            ],
        )
    };
    if q < 0.0 { -magnitude } else { magnitude }
}

/// Horner evaluation; `coefficients[i]` multiplies `x^i`.
fn polynomial(x: f64, coefficients: &[f64]) -> f64 {
    coefficients
        .iter()
        .rev()
        .fold(0.0, |sum, &coefficient| sum * x + coefficient)
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
        // Central region, intermediate tail (r <= 5) and far tail (r > 5) of AS 241.
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
