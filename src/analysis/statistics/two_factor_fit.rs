//! Telling "too many tools" from "too many tokens": a logistic regression of right picks on ln(tools
//! shown) and ln(prompt tokens) together, by binomial maximum likelihood (Newton steps on centred
//! predictors), with Wald standard errors from the inverse information and two-sided p-values. The
//! two effects can be told apart only when prompt size varies at a fixed tool count — the same N
//! with terse and with verbose descriptions; when the predictors move together (|r| > 0.98), or
//! the data admit no finite fit, there is no answer and the result is `None`.

use statrs::distribution::{ContinuousCDF, Normal};

/// The joint fit: logit p = intercept + count_slope·ln N + token_slope·ln T.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoFactorFit {
    pub intercept: f64,
    pub count_slope: f64,
    pub count_se: f64,
    pub count_p: f64,
    pub token_slope: f64,
    pub token_se: f64,
    pub token_p: f64,
    /// Pearson correlation of ln N and ln T over the trials.
    pub correlation: f64,
    pub trials: usize,
}

/// Above this |correlation| of ln N and ln T the two slopes are not identified.
const MAX_CORRELATION: f64 = 0.98;

/// Fits (tools shown, prompt tokens, right) observations; both counts must be positive.
pub fn fit_count_and_tokens(observations: &[(f64, f64, bool)]) -> Option<TwoFactorFit> {
    let rows: Vec<(f64, f64, f64)> = observations
        .iter()
        .filter(|(n, t, _)| n.is_finite() && *n > 0.0 && t.is_finite() && *t > 0.0)
        .map(|&(n, t, right)| (n.ln(), t.ln(), f64::from(u8::from(right))))
        .collect();
    let count = rows.len() as f64;
    let successes: f64 = rows.iter().map(|r| r.2).sum();
    if rows.len() < 4 || successes == 0.0 || successes == count {
        return None;
    }
    let mean = |f: fn(&(f64, f64, f64)) -> f64| rows.iter().map(f).sum::<f64>() / count;
    let (mean_n, mean_t) = (mean(|r| r.0), mean(|r| r.1));
    let centred: Vec<[f64; 3]> = rows
        .iter()
        .map(|r| [1.0, r.0 - mean_n, r.1 - mean_t])
        .collect();
    let sum = |f: &dyn Fn(&[f64; 3]) -> f64| centred.iter().map(f).sum::<f64>();
    let (var_n, var_t, cov) = (
        sum(&|x| x[1] * x[1]),
        sum(&|x| x[2] * x[2]),
        sum(&|x| x[1] * x[2]),
    );
    if var_n <= 1e-12 || var_t <= 1e-12 {
        return None;
    }
    let correlation = cov / (var_n * var_t).sqrt();
    if correlation.abs() > MAX_CORRELATION {
        return None;
    }
    let mut beta = [0.0f64; 3];
    let mut information = [[0.0f64; 3]; 3];
    let mut converged = false;
    for _ in 0..100 {
        let mut gradient = [0.0f64; 3];
        information = [[0.0f64; 3]; 3];
        for (x, row) in centred.iter().zip(&rows) {
            let eta: f64 = (0..3).map(|j| beta[j] * x[j]).sum();
            let p = 1.0 / (1.0 + (-eta).exp());
            let w = p * (1.0 - p);
            for j in 0..3 {
                gradient[j] += (row.2 - p) * x[j];
                for k in 0..3 {
                    information[j][k] += w * x[j] * x[k];
                }
            }
        }
        let step = solve(information, gradient)?;
        // Damped: a step is at most 5 in log-odds, so separated data show up as divergence.
        let largest = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        let scale = if largest > 5.0 { 5.0 / largest } else { 1.0 };
        for j in 0..3 {
            beta[j] += scale * step[j];
        }
        if beta.iter().any(|b| !b.is_finite() || b.abs() > 50.0) {
            return None;
        }
        if largest < 1e-10 {
            converged = true;
            break;
        }
    }
    if !converged {
        return None;
    }
    let covariance = invert(information)?;
    let (count_se, token_se) = (covariance[1][1].sqrt(), covariance[2][2].sqrt());
    if !(count_se.is_finite() && token_se.is_finite()) {
        return None;
    }
    let p_value = |slope: f64, se: f64| 2.0 * upper_normal_tail((slope / se).abs());
    Some(TwoFactorFit {
        intercept: beta[0] - beta[1] * mean_n - beta[2] * mean_t,
        count_slope: beta[1],
        count_se,
        count_p: p_value(beta[1], count_se),
        token_slope: beta[2],
        token_se,
        token_p: p_value(beta[2], token_se),
        correlation,
        trials: rows.len(),
    })
}

/// Solves a 3×3 system by Gaussian elimination with partial pivoting (`None` when singular).
fn solve(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for column in 0..3 {
        let pivot =
            (column..3).max_by(|&i, &j| a[i][column].abs().total_cmp(&a[j][column].abs()))?;
        if a[pivot][column].abs() < 1e-12 {
            return None;
        }
        a.swap(column, pivot);
        b.swap(column, pivot);
        let pivot_row = a[column];
        for row in column + 1..3 {
            let factor = a[row][column] / pivot_row[column];
            for (value, above) in a[row].iter_mut().zip(pivot_row).skip(column) {
                *value -= factor * above;
            }
            b[row] -= factor * b[column];
        }
    }
    let mut x = [0.0f64; 3];
    for row in (0..3).rev() {
        let rest: f64 = (row + 1..3).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

fn invert(a: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let mut inverse = [[0.0f64; 3]; 3];
    for column in 0..3 {
        let mut unit = [0.0f64; 3];
        unit[column] = 1.0;
        let x = solve(a, unit)?;
        for row in 0..3 {
            inverse[row][column] = x[row];
        }
    }
    Some(inverse)
}

/// P(Z > z) for a standard normal Z, from `statrs`.
fn upper_normal_tail(z: f64) -> f64 {
    Normal::standard().sf(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::{assert_close, normal_cdf_by_integration};

    #[test]
    fn the_normal_tail_matches_integration() {
        for z in [0.0, 0.5, 1.0, 1.96, 3.0] {
            assert_close(
                upper_normal_tail(z),
                1.0 - normal_cdf_by_integration(z),
                1e-9,
            );
        }
    }

    /// Accuracy that depends on tokens alone: at each N, the verbose arm (4× the tokens) is
    /// worse by the same amount, and N has no effect once tokens are held. The fit finds the
    /// token effect and none for the count; and it declines when tokens follow N exactly.
    #[test]
    fn the_token_effect_is_told_from_the_count_effect() {
        let mut observations = Vec::new();
        for &n in &[5.0, 20.0, 80.0] {
            for tokens_per_tool in [50.0, 200.0] {
                let tokens: f64 = n * tokens_per_tool;
                // logit p = 4 - 0.5·ln T: 400 trials per cell, successes at that rate.
                let p = 1.0 / (1.0 + (-(4.0 - 0.5 * tokens.ln())).exp());
                let trials = 400;
                let right = (p * trials as f64).round() as usize;
                for i in 0..trials {
                    observations.push((n, tokens, i < right));
                }
            }
        }
        let fit = fit_count_and_tokens(&observations).unwrap();
        assert_close(fit.token_slope, -0.5, 0.02);
        assert_close(fit.count_slope, 0.0, 0.03);
        assert!(fit.token_p < 1e-6, "{fit:?}");
        assert!(fit.count_p > 0.05, "{fit:?}");
        // Tokens proportional to N: the two cannot be told apart.
        let collinear: Vec<(f64, f64, bool)> = observations
            .iter()
            .map(|&(n, _, right)| (n, n * 100.0, right))
            .collect();
        assert!(fit_count_and_tokens(&collinear).is_none());
        // All right: no finite fit.
        let all: Vec<(f64, f64, bool)> =
            observations.iter().map(|&(n, t, _)| (n, t, true)).collect();
        assert!(fit_count_and_tokens(&all).is_none());
    }
}
