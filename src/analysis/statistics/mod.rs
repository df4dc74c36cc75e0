//! The statistics of experiments: exact McNemar test, paired bootstrap interval, logistic fit of
//! accuracy against log toolset size, the joint fit on tool count and prompt tokens, pass@k and
//! consistency, sample size for a paired comparison, and the graded paired comparison (bootstrap,
//! sign-flip test, minimum detectable difference). Pure functions; no I/O.
//!
//! The distributions and their quantiles (normal, binomial, Student's t) come from `statrs`: a
//! pure-Rust crate, the most used of its kind, whose special functions follow Boost and Numerical
//! Recipes and are tested against reference values; it adds no native code to the build. What no
//! crate does for this use is written here, each with its test against known values: the paired
//! bootstrap and the sign-flip permutation test (seeded by `splitmix`, so a report's intervals do
//! not move from run to run), the logistic fits, and McNemar's two-sided p-value from the binomial
//! tail. Every function accepts any input without panicking: where a statistic does not exist for
//! the input (no pairs, no trials, data that cannot identify a slope) the result is `None` or a
//! documented degenerate value, never NaN.
//!
//! One file per method: `mcnemar`, `bootstrap` (drawing from the seeded generator in `splitmix`),
//! `task_picks` (right picks compared with the task as the unit: exact McNemar and Newcombe's
//! interval, or the sign-flip test), `exact_power` (the exact McNemar test's power, detectable
//! difference and tasks needed), `multiplicity` (Holm and Benjamini–Hochberg adjustment),
//! `logistic_fit`, `two_factor_fit`, `repeats`, `sample_size` (Connor's approximation and the
//! normal quantile), `graded` (a paired comparison of per-task probabilities) and `verdict`, which
//! words an A/B outcome.

mod bootstrap;
mod exact_power;
mod graded;
mod logistic_fit;
mod mcnemar;
mod multiplicity;
mod repeats;
mod sample_size;
mod splitmix;
mod task_picks;
mod two_factor_fit;
mod verdict;

pub use bootstrap::{PairedDifference, bootstrap_mean_difference, paired_bootstrap};
pub use exact_power::{exact_detectable_difference, exact_tasks_needed, mcnemar_power};
pub use graded::{
    GradedComparison, graded_comparison, minimum_detectable_difference, sign_flip_p_value,
};
pub use logistic_fit::{LogisticFit, fit_logistic_in_log_n};
pub use mcnemar::{McNemar, mcnemar_exact};
pub use multiplicity::{Adjustment, adjust};
pub use repeats::{RepeatAgreement, repeat_agreement};
pub use sample_size::{normal_quantile, paired_detectable_difference, paired_sample_size};
pub use splitmix::SplitMix64;
pub use task_picks::{
    IntervalMethod, PicksTest, TaskPicks, newcombe_paired, task_picks, task_rate,
};
pub use two_factor_fit::{TwoFactorFit, fit_count_and_tokens};
pub use verdict::{AbVerdict, graded_verdict, paired_verdict};

/// Reference checks shared by the method files' tests.
#[cfg(test)]
pub(crate) mod tests {
    pub fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not within {tolerance} of {expected}"
        );
    }

    /// Standard normal lower tail by Simpson's rule on the density, independent of every
    /// approximation in the module: `Phi(z) = 1/2 - integral_0^|z| phi` for z < 0, and the far
    /// tail as the integral from |z| out to |z| + 15, where the remaining mass is below 1e-50.
    pub fn normal_cdf_by_integration(z: f64) -> f64 {
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
}
