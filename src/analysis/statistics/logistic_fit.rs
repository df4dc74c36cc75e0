//! The logistic fit of accuracy against ln(toolset size): binomial maximum likelihood by damped
//! Newton steps around centred parameters, declining (rather than diverging on) data that admits
//! no finite fit, and the toolset sizes where the fitted accuracy falls to 90% and 50%.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::splitmix::SplitMix64;
    use crate::analysis::statistics::tests::assert_close;

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
}
