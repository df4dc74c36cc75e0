//! The statistics of experiments: exact McNemar test, paired bootstrap interval, logistic fit of
//! accuracy against log toolset size, pass@k and consistency, sample size for a paired comparison.
//! Pure functions; no I/O.
//!
//! Only `std` is used, so the numbers here do not move when a dependency is upgraded. Every function
//! accepts any input without panicking: where a statistic does not exist for the input (no pairs,
//! no trials, data that cannot identify a slope) the result is `None` or a documented degenerate
//! value, never NaN.

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

/// A difference in success rate between two arms run on the same tasks, with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedDifference {
    /// Observed `mean(b) - mean(a)`.
    pub difference: f64,
    /// Lower end of the 95% percentile bootstrap interval.
    pub low: f64,
    /// Upper end of the 95% percentile bootstrap interval.
    pub high: f64,
}

/// Paired bootstrap 95% percentile interval on mean(b) - mean(a), resampling pair indices with a seeded RNG.
///
/// Pairs are resampled whole, so the correlation between the arms on one task (both solve the easy
/// ones) narrows the interval as it should. The same seed gives the same interval on any platform.
///
/// `None` when the slices differ in length, are empty, or `resamples` is 0 (no interval exists).
pub fn paired_bootstrap(
    a: &[bool],
    b: &[bool],
    resamples: usize,
    seed: u64,
) -> Option<PairedDifference> {
    if a.len() != b.len() || a.is_empty() || resamples == 0 {
        return None;
    }
    let pair_differences: Vec<i64> = a
        .iter()
        .zip(b)
        .map(|(&a, &b)| i64::from(b) - i64::from(a))
        .collect();
    let pairs = pair_differences.len();
    let pairs_f = pairs as f64;
    let difference = pair_differences.iter().sum::<i64>() as f64 / pairs_f;

    let mut rng = SplitMix64::new(seed);
    let mut resampled: Vec<f64> = (0..resamples)
        .map(|_| {
            let total: i64 = (0..pairs)
                .map(|_| pair_differences[rng.below(pairs as u64) as usize])
                .sum();
            total as f64 / pairs_f
        })
        .collect();
    resampled.sort_by(f64::total_cmp);
    Some(PairedDifference {
        difference,
        low: sorted_quantile(&resampled, 0.025),
        high: sorted_quantile(&resampled, 0.975),
    })
}

/// Quantile of sorted, non-empty data by linear interpolation between order statistics (the
/// "type 7" rule of R and NumPy, so results can be checked against either).
fn sorted_quantile(sorted: &[f64], q: f64) -> f64 {
    let Some(&last) = sorted.last() else {
        return f64::NAN;
    };
    let position = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let below = position.floor() as usize;
    if below + 1 >= sorted.len() {
        return last;
    }
    let fraction = position - below as f64;
    sorted[below] + fraction * (sorted[below + 1] - sorted[below])
}

/// SplitMix64 (Steele, Lea and Flood 2014): tiny, fast, and its output is fixed by the seed
/// alone, which is what reproducible bootstrap intervals need.
struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        // The shared mixing step adds the golden gamma itself; the state advances by the same.
        let output = crate::hashing::splitmix64(self.state);
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        output
    }

    /// Uniform draw from `0..bound` (0 when `bound` is 0). Lemire's multiply-and-reject: a plain
    /// `% bound` would favour small indices whenever `bound` does not divide 2^64.
    fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        let mut product = u128::from(self.next_u64()) * u128::from(bound);
        if (product as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (product as u64) < threshold {
                product = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (product >> 64) as u64
    }

    /// Uniform draw from `[0, 1)` with 53 random bits.
    #[cfg(test)]
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1_u64 << 53) as f64)
    }
}

/// Accuracy as a logistic function of ln(toolset size), fitted to measured points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogisticFit {
    /// Log-odds of success at N = 1.
    pub intercept: f64,
    /// Change in log-odds per unit of ln N; negative when accuracy falls as the toolset grows.
    pub slope: f64,
    /// Smallest toolset size among the points that had trials.
    pub small_n: f64,
    /// Fitted accuracy at `small_n`, the baseline the thresholds below are relative to.
    pub accuracy_at_small_n: f64,
    /// Toolset size where the fitted accuracy falls to 90% of `accuracy_at_small_n`.
    pub n_at_90_percent: Option<f64>,
    /// Toolset size where the fitted accuracy falls to 50% of `accuracy_at_small_n`.
    pub n_at_50_percent: Option<f64>,
}

/// Fits accuracy(N) = 1 / (1 + exp(-(intercept + slope * ln N))) to (N, successes, trials) points by binomial maximum likelihood (Newton/IRLS).
///
/// Points with zero trials are ignored. The thresholds in the result are `None` when the slope is
/// not negative (accuracy does not fall, so it never reaches them) or when they fall outside the
/// range of `f64`.
///
/// Returns `None` when:
/// * a point has a toolset size that is not a positive finite number, or more successes than trials;
/// * fewer than two distinct N have trials (a slope needs two sizes);
/// * every trial succeeded, or every trial failed: the likelihood is then maximised only at an
///   infinite intercept, so no finite fit exists; report the raw accuracy instead;
/// * the sizes separate successes from failures (for example all successes at small N and all
///   failures at large N), which likewise drives the slope to infinity; with only two sizes the
///   curve passes through both observed rates, so one size at 0% or 100% is enough for this;
/// * Newton's method does not converge within 100 iterations.
pub fn fit_logistic_in_log_n(points: &[(f64, u64, u64)]) -> Option<LogisticFit> {
    const MAX_ITERATIONS: usize = 100;
    // A fitted rate within 1e-13 of 0% or 100% at a measured size is more than any finite
    // experiment can support, so the search reaching it is the signature of separated data
    // whose likelihood keeps rising towards infinite parameters, not of a real fit.
    const MAX_FITTED_LOG_ODDS: f64 = 30.0;

    let mut observations: Vec<Observation> = Vec::with_capacity(points.len());
    let mut small_n = f64::INFINITY;
    for &(n, successes, trials) in points {
        if trials == 0 {
            continue;
        }
        if !(n.is_finite() && n > 0.0) || successes > trials {
            return None;
        }
        small_n = small_n.min(n);
        observations.push(Observation {
            log_n: n.ln(),
            successes: successes as f64,
            trials: trials as f64,
        });
    }

    let mut distinct_log_n: Vec<f64> = observations.iter().map(|o| o.log_n).collect();
    distinct_log_n.sort_by(f64::total_cmp);
    distinct_log_n.dedup();
    let (&lowest, &highest) = (distinct_log_n.first()?, distinct_log_n.last()?);
    if distinct_log_n.len() < 2 {
        return None;
    }
    let log_n_span = highest - lowest;

    let total_trials: f64 = observations.iter().map(|o| o.trials).sum();
    let total_successes: f64 = observations.iter().map(|o| o.successes).sum();
    if total_successes <= 0.0 || total_successes >= total_trials {
        return None;
    }

    // Fitting around the trial-weighted mean of ln N keeps the two parameters nearly uncorrelated,
    // so the 2x2 Newton system stays well conditioned even when every N is large.
    let centre = observations.iter().map(|o| o.trials * o.log_n).sum::<f64>() / total_trials;
    let pooled_rate = total_successes / total_trials;
    let mut parameters = [(pooled_rate / (1.0 - pooled_rate)).ln(), 0.0];

    let mut converged = false;
    for _ in 0..MAX_ITERATIONS {
        let step = newton_step(&observations, centre, parameters)?;
        if step[0].abs() < 1e-10 && (step[1] * log_n_span).abs() < 1e-10 {
            converged = true;
            break;
        }
        // Halving the step until the likelihood does not drop keeps Newton from overshooting
        // when the starting point is far from the optimum.
        let current = log_likelihood(&observations, centre, parameters);
        let tolerance = 1e-12 * (1.0 + current.abs());
        let mut scale = 1.0;
        let mut improved = false;
        for _ in 0..50 {
            let candidate = [
                parameters[0] + scale * step[0],
                parameters[1] + scale * step[1],
            ];
            if log_likelihood(&observations, centre, candidate) >= current - tolerance {
                parameters = candidate;
                improved = true;
                break;
            }
            scale *= 0.5;
        }
        if !improved {
            // The Hessian is negative definite, so the step points uphill; if no fraction of it
            // helps, rounding has the last word and this is the maximum.
            converged = true;
            break;
        }
        // The log-odds are linear in ln N, so the extremes sit at the smallest and largest size.
        let log_odds_at = |log_n: f64| parameters[0] + parameters[1] * (log_n - centre);
        if !(log_odds_at(lowest).abs() <= MAX_FITTED_LOG_ODDS
            && log_odds_at(highest).abs() <= MAX_FITTED_LOG_ODDS)
        {
            return None;
        }
    }
    if !converged {
        return None;
    }

    let slope = parameters[1];
    let intercept = parameters[0] - slope * centre;
    let accuracy_at_small_n = logistic(intercept + slope * small_n.ln());
    let size_at_share = |share: f64| -> Option<f64> {
        let target = share * accuracy_at_small_n;
        if slope >= 0.0 || !(target > 0.0 && target < 1.0) {
            return None;
        }
        let n = (((target / (1.0 - target)).ln() - intercept) / slope).exp();
        (n.is_finite() && n > 0.0).then_some(n)
    };
    let fit = LogisticFit {
        intercept,
        slope,
        small_n,
        accuracy_at_small_n,
        n_at_90_percent: size_at_share(0.9),
        n_at_50_percent: size_at_share(0.5),
    };
    (fit.intercept.is_finite() && fit.slope.is_finite() && fit.accuracy_at_small_n.is_finite())
        .then_some(fit)
}

struct Observation {
    log_n: f64,
    successes: f64,
    trials: f64,
}

/// The Newton step for the centred parameters `[log-odds at centre, slope]`, or `None` when the
/// information matrix is singular (all weight on one N, or probabilities saturated at 0 or 1).
fn newton_step(
    observations: &[Observation],
    centre: f64,
    parameters: [f64; 2],
) -> Option<[f64; 2]> {
    let (mut gradient, mut information) = ([0.0_f64; 2], [0.0_f64; 3]);
    for o in observations {
        let x = o.log_n - centre;
        let linear = parameters[0] + parameters[1] * x;
        let (p, q) = (logistic(linear), logistic(-linear));
        // `successes - trials * p` rearranged so that neither it nor `p * (1 - p)` rounds to
        // exactly 0 when p is within an ulp of 1: a zero gradient there would pass a
        // separated, diverging fit off as converged.
        let residual = o.successes * q - (o.trials - o.successes) * p;
        let weight = o.trials * p * q;
        gradient[0] += residual;
        gradient[1] += residual * x;
        information[0] += weight;
        information[1] += weight * x;
        information[2] += weight * x * x;
    }
    let determinant = information[0] * information[2] - information[1] * information[1];
    if !(determinant.is_finite() && determinant > 0.0 && information[0] > 0.0) {
        return None;
    }
    let step = [
        (information[2] * gradient[0] - information[1] * gradient[1]) / determinant,
        (information[0] * gradient[1] - information[1] * gradient[0]) / determinant,
    ];
    (step[0].is_finite() && step[1].is_finite()).then_some(step)
}

fn log_likelihood(observations: &[Observation], centre: f64, parameters: [f64; 2]) -> f64 {
    observations
        .iter()
        .map(|o| {
            let linear = parameters[0] + parameters[1] * (o.log_n - centre);
            // ln p = -softplus(-linear) and ln(1 - p) = -softplus(linear), exact in both tails.
            -o.successes * softplus(-linear) - (o.trials - o.successes) * softplus(linear)
        })
        .sum()
}

fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln(1 + e^x)` without overflow for large `x` or loss of precision for very negative `x`.
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// pass@k over tasks: the share of tasks where at least one of the repeats succeeded; consistency: the share where all repeats agree.
///
/// k is each task's own number of repeats. This is the observed any-of-k rate, not the unbiased
/// estimator from n > k samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RepeatAgreement {
    /// Tasks with at least one repeat; the denominator of the shares.
    pub tasks: u64,
    /// Share of tasks where at least one repeat succeeded.
    pub pass_at_k: f64,
    /// Share of tasks where every repeat succeeded (pass^k).
    pub all_pass: f64,
    /// Share of tasks whose repeats all agree, all successes or all failures.
    pub consistency: f64,
}

/// Summarises repeated runs of each task. Tasks with zero repeats are skipped; with no tasks left,
/// every field is 0.
pub fn repeat_agreement(per_task: &[Vec<bool>]) -> RepeatAgreement {
    let (mut tasks, mut any_pass, mut all_pass, mut agree) = (0_u64, 0_u64, 0_u64, 0_u64);
    for repeats in per_task.iter().filter(|repeats| !repeats.is_empty()) {
        let passes = repeats.iter().filter(|&&passed| passed).count();
        tasks += 1;
        any_pass += u64::from(passes > 0);
        all_pass += u64::from(passes == repeats.len());
        agree += u64::from(passes == 0 || passes == repeats.len());
    }
    let share = |count: u64| {
        if tasks == 0 {
            0.0
        } else {
            count as f64 / tasks as f64
        }
    };
    RepeatAgreement {
        tasks,
        pass_at_k: share(any_pass),
        all_pass: share(all_pass),
        consistency: share(agree),
    }
}

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

/// The outcome of an A/B comparison, in words a report can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbVerdict {
    /// B won significantly more of the discordant pairs.
    BBetter,
    /// A won significantly more of the discordant pairs.
    ABetter,
    /// The test did not reach `alpha`; with more tasks a difference may still show.
    NoDetectableDifference,
    /// There were no paired trials to compare.
    NoPairs,
}

/// Decides an A/B comparison: a winner only when the McNemar p-value is below `alpha`, the winner
/// being the arm with more discordant wins. `difference` is the result of [`paired_bootstrap`];
/// `None` there means there were no pairs to compare.
pub fn ab_verdict(
    mcnemar: &McNemar,
    difference: &Option<PairedDifference>,
    alpha: f64,
) -> AbVerdict {
    if difference.is_none() {
        return AbVerdict::NoPairs;
    }
    if mcnemar.p_value < alpha {
        if mcnemar.only_b > mcnemar.only_a {
            return AbVerdict::BBetter;
        }
        if mcnemar.only_a > mcnemar.only_b {
            return AbVerdict::ABetter;
        }
    }
    AbVerdict::NoDetectableDifference
}

impl AbVerdict {
    /// The verdict as a phrase with the arm names in place of A and B, e.g. "rich better"; the
    /// caller adds the p-value.
    pub fn sentence(&self, a: &str, b: &str) -> String {
        match self {
            AbVerdict::BBetter => format!("{b} better"),
            AbVerdict::ABetter => format!("{a} better"),
            AbVerdict::NoDetectableDifference => {
                "no detectable difference at this sample size".to_string()
            }
            AbVerdict::NoPairs => "no paired trials".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not within {tolerance} of {expected}"
        );
    }

    /// Standard normal lower tail by Simpson's rule on the density, independent of every
    /// approximation in the module: `Phi(z) = 1/2 - integral_0^|z| phi` for z < 0, and the far
    /// tail as the integral from |z| out to |z| + 15, where the remaining mass is below 1e-50.
    fn normal_cdf_by_integration(z: f64) -> f64 {
        let density = |x: f64| (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let simpson = |from: f64, to: f64| {
            let intervals = 20_000;
            let h = (to - from) / intervals as f64;
            let mut sum = density(from) + density(to);
            for i in 1..intervals {
                let weight = if i % 2 == 1 { 4.0 } else { 2.0 };
                sum += weight * density(from + i as f64 * h);
            }
            sum * h / 3.0
        };
        let upper_tail = simpson(z.abs(), z.abs() + 15.0);
        if z < 0.0 {
            upper_tail
        } else {
            1.0 - upper_tail
        }
    }

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

    #[test]
    fn splitmix_matches_reference_output() {
        // First output of the reference C implementation seeded with 0.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn bounded_draw_is_uniform_and_in_range() {
        let mut rng = SplitMix64::new(7);
        let mut counts = [0_u32; 3];
        for _ in 0..30_000 {
            counts[rng.below(3) as usize] += 1;
        }
        // Each count has sd ~82; 400 is about five of them.
        assert!(
            counts.iter().all(|&c| c.abs_diff(10_000) < 400),
            "{counts:?}"
        );
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.below(1), 0);
    }

    #[test]
    fn bootstrap_rejects_unpaired_input() {
        assert_eq!(paired_bootstrap(&[], &[], 100, 1), None);
        assert_eq!(paired_bootstrap(&[true], &[true, false], 100, 1), None);
        assert_eq!(paired_bootstrap(&[true], &[false], 0, 1), None);
    }

    #[test]
    fn bootstrap_is_deterministic_per_seed() {
        let a = [
            true, false, true, true, false, false, true, false, true, true,
        ];
        let b = [true, true, true, false, true, false, true, true, true, true];
        let first = paired_bootstrap(&a, &b, 2_000, 42).unwrap();
        assert_eq!(first, paired_bootstrap(&a, &b, 2_000, 42).unwrap());
        assert_close(first.difference, 0.2, 1e-15);
        assert!(first.low <= first.difference && first.difference <= first.high);
        // Ten pairs allow few distinct resample means, so single seeds can tie; across twenty
        // seeds the draws must differ somewhere.
        let intervals: Vec<_> = (0..20)
            .map(|seed| paired_bootstrap(&a, &b, 200, seed).unwrap())
            .collect();
        assert!(intervals.iter().any(|interval| *interval != intervals[0]));
    }

    #[test]
    fn bootstrap_of_identical_arms_is_a_point() {
        let a = [true, false, true];
        let interval = paired_bootstrap(&a, &a, 50, 9).unwrap();
        assert_eq!(
            (interval.difference, interval.low, interval.high),
            (0.0, 0.0, 0.0)
        );
        let single = paired_bootstrap(&[false], &[true], 1, 9).unwrap();
        assert_eq!(
            (single.difference, single.low, single.high),
            (1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn bootstrap_interval_covers_true_difference_about_95_percent() {
        // 400 simulated experiments of 100 tasks with P(a) = 0.6 and P(b) = 0.7. Half the pairs
        // share one uniform draw (the arms agree on easy and hard tasks), half draw independently,
        // so both kinds of discordant pair occur. Measured with these seeds: the interval covered
        // the true 0.1 in 378 of 400 experiments (0.945), where a perfect 95% interval would land
        // within about 0.93..0.97. It costs about 1.2 s of CPU in the debug profile.
        const EXPERIMENTS: usize = 400;
        const PAIRS: usize = 100;
        let mut data_rng = SplitMix64::new(2_024);
        let mut covered = 0;
        for experiment in 0..EXPERIMENTS {
            let (mut a, mut b) = (Vec::with_capacity(PAIRS), Vec::with_capacity(PAIRS));
            for _ in 0..PAIRS {
                let u_a = data_rng.unit();
                let u_b = if data_rng.unit() < 0.5 {
                    u_a
                } else {
                    data_rng.unit()
                };
                a.push(u_a < 0.6);
                b.push(u_b < 0.7);
            }
            let interval = paired_bootstrap(&a, &b, 1_000, experiment as u64).unwrap();
            if interval.low <= 0.1 && 0.1 <= interval.high {
                covered += 1;
            }
        }
        let coverage = covered as f64 / EXPERIMENTS as f64;
        assert!((0.90..=0.98).contains(&coverage), "coverage {coverage}");
    }

    #[test]
    fn sorted_quantile_interpolates_like_type_7() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(sorted_quantile(&data, 0.0), 1.0);
        assert_eq!(sorted_quantile(&data, 1.0), 5.0);
        assert_eq!(sorted_quantile(&data, 0.5), 3.0);
        assert_close(sorted_quantile(&data, 0.025), 1.1, 1e-12);
        assert_close(sorted_quantile(&data, 0.975), 4.9, 1e-12);
        assert!(sorted_quantile(&[], 0.5).is_nan());
    }

    fn expected_counts(intercept: f64, slope: f64, trials: u64) -> Vec<(f64, u64, u64)> {
        [5.0, 15.0, 30.0, 50.0, 100.0, 200.0_f64]
            .iter()
            .map(|&n| {
                let p = logistic(intercept + slope * n.ln());
                (n, (p * trials as f64).round() as u64, trials)
            })
            .collect()
    }

    #[test]
    fn logistic_fit_recovers_known_curve() {
        let fit = fit_logistic_in_log_n(&expected_counts(4.0, -1.0, 10_000)).unwrap();
        assert_close(fit.intercept, 4.0, 0.02);
        assert_close(fit.slope, -1.0, 0.02);
        assert_eq!(fit.small_n, 5.0);
        let accuracy_at_5 = logistic(4.0 - 5_f64.ln());
        assert_close(fit.accuracy_at_small_n, accuracy_at_5, 1e-3);
        // logit(target) = 4 - ln N, so N = exp(4 - logit(target)).
        let analytic = |share: f64| {
            let target: f64 = share * accuracy_at_5;
            (4.0 - (target / (1.0 - target)).ln()).exp()
        };
        let n_at_50 = fit.n_at_50_percent.unwrap();
        assert!((n_at_50 / analytic(0.5) - 1.0).abs() < 0.01, "{n_at_50}");
        let n_at_90 = fit.n_at_90_percent.unwrap();
        assert!((n_at_90 / analytic(0.9) - 1.0).abs() < 0.01, "{n_at_90}");
        assert!(fit.small_n < n_at_90 && n_at_90 < n_at_50);
    }

    #[test]
    fn logistic_fit_ignores_order_and_empty_points() {
        let mut points = expected_counts(2.0, -0.5, 1_000);
        let forward = fit_logistic_in_log_n(&points).unwrap();
        points.reverse();
        points.push((1.0, 0, 0));
        let backward = fit_logistic_in_log_n(&points).unwrap();
        assert_close(backward.intercept, forward.intercept, 1e-9);
        assert_close(backward.slope, forward.slope, 1e-9);
        assert_eq!(backward.small_n, 5.0);
    }

    #[test]
    fn logistic_fit_rising_accuracy_has_no_thresholds() {
        let fit = fit_logistic_in_log_n(&[(5.0, 40, 100), (50.0, 60, 100)]).unwrap();
        assert!(fit.slope > 0.0);
        assert_eq!((fit.n_at_90_percent, fit.n_at_50_percent), (None, None));
        let flat = fit_logistic_in_log_n(&[(5.0, 50, 100), (50.0, 50, 100)]).unwrap();
        assert_close(flat.slope, 0.0, 1e-12);
        assert_close(flat.accuracy_at_small_n, 0.5, 1e-12);
        assert_eq!((flat.n_at_90_percent, flat.n_at_50_percent), (None, None));
    }

    #[test]
    fn logistic_fit_declines_degenerate_input() {
        let cases: [&[(f64, u64, u64)]; 11] = [
            &[],
            &[(10.0, 5, 10)],
            &[(10.0, 5, 10), (10.0, 7, 10)],
            &[(10.0, 5, 10), (20.0, 0, 0)],
            &[(5.0, 0, 10), (50.0, 0, 10)],
            &[(5.0, 10, 10), (50.0, 10, 10), (500.0, 10, 10)],
            // Complete separation: success at small N, failure at large N.
            &[(5.0, 100, 100), (50.0, 0, 100)],
            // Two sizes, one of them perfect: the curve would have to reach 100%.
            &[(5.0, 10, 10), (50.0, 5, 10)],
            &[(5.0, 11, 10), (50.0, 3, 10)],
            &[(0.0, 5, 10), (50.0, 3, 10)],
            &[(f64::NAN, 5, 10), (50.0, 3, 10)],
        ];
        for points in cases {
            assert_eq!(fit_logistic_in_log_n(points), None, "{points:?}");
        }
    }

    #[test]
    fn logistic_fit_never_returns_nan() {
        // Small random experiments, many of them nearly separated: every fit returned must be
        // finite throughout, and the search must finish.
        let mut rng = SplitMix64::new(11);
        let mut fitted = 0;
        for _ in 0..2_000 {
            let count = 1 + rng.below(4) as usize;
            let points: Vec<(f64, u64, u64)> = (0..count)
                .map(|_| {
                    let trials = rng.below(8);
                    (1.0 + rng.below(300) as f64, rng.below(trials + 1), trials)
                })
                .collect();
            if let Some(fit) = fit_logistic_in_log_n(&points) {
                fitted += 1;
                let values = [
                    fit.intercept,
                    fit.slope,
                    fit.small_n,
                    fit.accuracy_at_small_n,
                ];
                assert!(
                    values.iter().all(|v| v.is_finite()),
                    "{points:?} -> {fit:?}"
                );
                for n in [fit.n_at_90_percent, fit.n_at_50_percent]
                    .into_iter()
                    .flatten()
                {
                    assert!(n.is_finite() && n > fit.small_n, "{points:?} -> {fit:?}");
                }
            }
        }
        assert!(fitted > 100, "only {fitted} fits");
    }

    #[test]
    fn repeat_agreement_counts_shares() {
        let per_task = vec![
            vec![true, true, true],
            vec![true, false, true],
            vec![false, false, false],
            vec![],
            vec![false, true],
        ];
        let agreement = repeat_agreement(&per_task);
        assert_eq!(agreement.tasks, 4);
        assert_eq!(agreement.pass_at_k, 0.75);
        assert_eq!(agreement.all_pass, 0.25);
        assert_eq!(agreement.consistency, 0.5);
    }

    #[test]
    fn repeat_agreement_of_nothing_is_zero() {
        let zero = RepeatAgreement {
            tasks: 0,
            pass_at_k: 0.0,
            all_pass: 0.0,
            consistency: 0.0,
        };
        assert_eq!(repeat_agreement(&[]), zero);
        assert_eq!(repeat_agreement(&[vec![], vec![]]), zero);
    }

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

    #[test]
    fn verdict_needs_significance_and_direction() {
        let some_pairs = Some(PairedDifference {
            difference: 0.1,
            low: 0.02,
            high: 0.18,
        });
        assert_eq!(
            ab_verdict(&mcnemar_exact(2, 10), &some_pairs, 0.05),
            AbVerdict::BBetter
        );
        assert_eq!(
            ab_verdict(&mcnemar_exact(10, 2), &some_pairs, 0.05),
            AbVerdict::ABetter
        );
        assert_eq!(
            ab_verdict(&mcnemar_exact(2, 10), &some_pairs, 0.01),
            AbVerdict::NoDetectableDifference
        );
        assert_eq!(
            ab_verdict(&mcnemar_exact(0, 0), &some_pairs, 0.05),
            AbVerdict::NoDetectableDifference
        );
        assert_eq!(
            ab_verdict(&mcnemar_exact(0, 0), &None, 0.05),
            AbVerdict::NoPairs
        );
    }

    #[test]
    fn verdict_sentences_name_the_arms() {
        assert_eq!(AbVerdict::BBetter.sentence("lean", "rich"), "rich better");
        assert_eq!(AbVerdict::ABetter.sentence("lean", "rich"), "lean better");
        assert_eq!(
            AbVerdict::NoDetectableDifference.sentence("lean", "rich"),
            "no detectable difference at this sample size"
        );
        assert_eq!(
            AbVerdict::NoPairs.sentence("lean", "rich"),
            "no paired trials"
        );
    }
}
