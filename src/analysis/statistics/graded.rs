//! A paired comparison on a graded measure: per task, a score in [0, 1] under arm A and under arm
//! B (the probability the model gave the right action, or the right-pick rate over its repeats;
//! a task's repeats are averaged before it gets here, so tasks are the unit). Reported: the mean
//! paired difference B − A with a paired bootstrap interval, a two-sided sign-flip permutation test
//! on the per-task differences — exact (every one of the 2^n sign patterns) for up to 20 tasks, or
//! for any number when the differences are rates over a few trials each (their sum's permutation
//! distribution built by convolution), otherwise 20,000 seeded random patterns — and the smallest
//! difference the sign-flip test detects with 80% power at this spread of differences, by
//! simulating the test on the tasks resampled.
//!
//! The sign-flip test, not Wilcoxon's signed-rank test, because the differences are bounded and
//! pile up at exactly 0 when most scores are near 0 or 1 (a model sure either way in both arms):
//! zeros carry no sign and simply drop out of the permutation distribution, where Wilcoxon needs
//! tie and zero corrections; and it tests the mean difference the report shows, not a median.
//! With most differences at 0 the test is conservative — its size falls below alpha — never the
//! other way; identical arms give p = 1 and a zero interval. Differences below `TIE_BELOW` are
//! ties (floating-point noise between two evaluations of one prompt).

use super::bootstrap::bootstrap_mean_difference;
use super::exact_power::smallest_reaching;
use super::splitmix::SplitMix64;

/// Per-task differences smaller than this are ties (0): the same prompt evaluated in another batch
/// layout gets probabilities that differ in the last digits llama.cpp computes, which is noise, not
/// an effect — and a noise-only "difference" on every task would give the sign-flip test something
/// to count where an A/A test must find nothing. 0.01 percentage points is below anything a
/// report prints.
pub const TIE_BELOW: f64 = 1e-4;

/// Task counts up to which the permutation test enumerates every sign pattern.
const EXACT_UP_TO: usize = 20;
/// Random sign patterns drawn above that.
const MONTE_CARLO_PATTERNS: usize = 20_000;

/// Arm B against arm A on a graded measure, task by task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradedComparison {
    pub tasks: usize,
    pub mean_a: f64,
    pub mean_b: f64,
    /// Mean of the per-task differences B − A.
    pub difference: f64,
    /// The paired bootstrap 95% interval on `difference`.
    pub low: f64,
    pub high: f64,
    /// Two-sided sign-flip permutation p-value.
    pub p_value: f64,
    /// Whether every sign pattern was counted (else a seeded sample of them).
    pub exact: bool,
    /// The smallest |B − A| the sign-flip test detects with 80% power at two-sided `alpha`,
    /// simulated on the observed spread of the differences; `None` with fewer than two tasks or no
    /// spread.
    pub minimum_detectable: Option<f64>,
}

/// Compares per-task scores `a` and `b` (same tasks, same order); `None` when they differ in
/// length or are empty.
pub fn graded_comparison(
    a: &[f64],
    b: &[f64],
    alpha: f64,
    resamples: usize,
    seed: u64,
) -> Option<GradedComparison> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let differences: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            if (y - x).abs() < TIE_BELOW {
                0.0
            } else {
                y - x
            }
        })
        .collect();
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let interval = bootstrap_mean_difference(&differences, resamples.max(1), seed)?;
    let (p_value, exact) = sign_flip_p_value(&differences, seed ^ 0x5157_4E46_4C49_5053);
    Some(GradedComparison {
        tasks: differences.len(),
        mean_a: mean(a),
        mean_b: mean(b),
        difference: interval.difference,
        low: interval.low,
        high: interval.high,
        p_value,
        exact,
        minimum_detectable: minimum_detectable_difference(&differences, alpha, 0.8),
    })
}

/// The share of sign patterns whose mean difference is at least as far from 0 as the observed one
/// (counting the observed pattern), and whether every pattern was counted.
pub fn sign_flip_p_value(differences: &[f64], seed: u64) -> (f64, bool) {
    // Zeros are the same under either sign: they cannot move the statistic.
    let moving: Vec<f64> = differences.iter().copied().filter(|d| *d != 0.0).collect();
    if moving.is_empty() {
        return (1.0, true);
    }
    let observed = moving.iter().sum::<f64>().abs();
    // A pattern "as extreme" within rounding of the observed sum counts as extreme.
    let tolerance = 1e-9 * moving.iter().map(|d| d.abs()).sum::<f64>().max(1.0);
    let extreme = |sum: f64| sum.abs() >= observed - tolerance;
    if moving.len() <= EXACT_UP_TO {
        let patterns = 1u64 << moving.len();
        let count = (0..patterns)
            .filter(|pattern| {
                let sum: f64 = moving
                    .iter()
                    .enumerate()
                    .map(|(i, d)| if pattern >> i & 1 == 1 { -d } else { *d })
                    .sum();
                extreme(sum)
            })
            .count();
        return (count as f64 / patterns as f64, true);
    }
    if let Some(p) = lattice_p_value(&moving) {
        return (p, true);
    }
    let mut rng = SplitMix64::new(seed);
    let count = (0..MONTE_CARLO_PATTERNS)
        .filter(|_| {
            let sum: f64 = moving
                .iter()
                .map(|d| if rng.below(2) == 1 { -d } else { *d })
                .sum();
            extreme(sum)
        })
        .count();
    // The observed pattern is one of the possible ones: (count + 1) / (draws + 1) keeps p above 0.
    (
        (count + 1) as f64 / (MONTE_CARLO_PATTERNS + 1) as f64,
        false,
    )
}

/// Denominators a rate of right picks over a task's trials can have and still be placed exactly
/// on a lattice (any count of trials up to 12, and their common multiples).
const LATTICE: f64 = 27_720.0;
/// The widest lattice the exact distribution is summed over (sum of |differences| in lattice
/// steps, after dividing out their common factor).
const LATTICE_SPAN: i64 = 400_000;
/// The most tasks × span the convolution may cost (about a second at worst).
const LATTICE_WORK: i64 = 200_000_000;

/// The exact sign-flip p-value when every difference is a multiple of one step (rates over a few
/// trials, as a task's repeats, sizes and seeds give): the permutation distribution of the sum,
/// built by convolution over the tasks, every one of the 2^n patterns counted without listing
/// them. `None` off the lattice or when it is too wide.
fn lattice_p_value(moving: &[f64]) -> Option<f64> {
    let mut steps = Vec::with_capacity(moving.len());
    for d in moving {
        let scaled = d * LATTICE;
        // Written so that a NaN or infinite difference is off the lattice too.
        if !scaled.is_finite() || (scaled - scaled.round()).abs() > 1e-6 {
            return None;
        }
        steps.push((scaled.round() as i64).abs());
    }
    let gcd = |mut a: i64, mut b: i64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let common = steps.iter().fold(0, |g, s| gcd(g, *s)).max(1);
    let steps: Vec<i64> = steps.iter().map(|s| s / common).collect();
    let span: i64 = steps.iter().sum();
    // The convolution touches up to 2·span + 1 sums per task: bound the whole of it.
    if span > LATTICE_SPAN || (steps.len() as i64).saturating_mul(span) > LATTICE_WORK {
        return None;
    }
    let observed: i64 = moving
        .iter()
        .map(|d| ((d * LATTICE).round() as i64) / common)
        .sum::<i64>()
        .abs();
    // Probabilities of each sum from −span to +span, as the tasks are added one by one.
    let width = (2 * span + 1) as usize;
    let mut probability = vec![0.0f64; width];
    probability[span as usize] = 1.0;
    let mut reach: i64 = 0;
    for step in &steps {
        let mut next = vec![0.0f64; width];
        for sum in -reach..=reach {
            let p = probability[(sum + span) as usize];
            if p == 0.0 {
                continue;
            }
            next[(sum + step + span) as usize] += p / 2.0;
            next[(sum - step + span) as usize] += p / 2.0;
        }
        probability = next;
        reach += step;
    }
    let p: f64 = (-span..=span)
        .filter(|sum| sum.abs() >= observed)
        .map(|sum| probability[(sum + span) as usize])
        .sum();
    Some(p.min(1.0))
}

/// Resamples behind the simulated power of the sign-flip test, and sign patterns per resample.
const POWER_RESAMPLES: usize = 250;
const POWER_PATTERNS: usize = 250;

/// The smallest mean difference the sign-flip test detects with `power` at two-sided `alpha`, by
/// simulation: the observed per-task differences, centred on zero and shifted by a candidate
/// difference, are resampled over the tasks (250 times, the same draws for every candidate), and
/// each resample is put to the sign-flip test itself (250 random sign patterns each, the same for
/// every candidate); the candidate is found by bisection. With every difference alike (as in an A/A
/// test of a deterministic model) the spread says nothing of what another comparison would show:
/// `None`, as with fewer than two tasks, or when no difference up to 1 reaches the power.
pub fn minimum_detectable_difference(differences: &[f64], alpha: f64, power: f64) -> Option<f64> {
    let n = differences.len();
    // Past 5,000 tasks the simulation costs seconds per comparison: not computed.
    let in_open_unit = |x: f64| x > 0.0 && x < 1.0;
    if !(2..=5_000).contains(&n) || !in_open_unit(alpha) || !in_open_unit(power) {
        return None;
    }
    let mean = differences.iter().sum::<f64>() / n as f64;
    let centred: Vec<f64> = differences.iter().map(|d| d - mean).collect();
    if centred.iter().all(|c| c.abs() < TIE_BELOW) {
        return None;
    }
    let mut rng = SplitMix64::new(0x0070_6f77_6572);
    let draws: Vec<Vec<usize>> = (0..POWER_RESAMPLES)
        .map(|_| (0..n).map(|_| rng.below(n as u64) as usize).collect())
        .collect();
    // Sign patterns as bits, one u64 word per 64 tasks.
    let words = n.div_ceil(64);
    let patterns: Vec<Vec<u64>> = (0..POWER_PATTERNS)
        .map(|_| (0..words).map(|_| rng.next_u64()).collect())
        .collect();
    let power_at = |shift: f64| {
        let rejected = draws
            .iter()
            .filter(|draw| {
                let sample: Vec<f64> = draw.iter().map(|&i| centred[i] + shift).collect();
                let observed = sample.iter().sum::<f64>().abs();
                let tolerance = 1e-9 * sample.iter().map(|x| x.abs()).sum::<f64>().max(1.0);
                let extreme = patterns
                    .iter()
                    .filter(|pattern| {
                        let sum: f64 = sample
                            .iter()
                            .enumerate()
                            .map(|(i, x)| {
                                if pattern[i / 64] >> (i % 64) & 1 == 1 {
                                    -x
                                } else {
                                    *x
                                }
                            })
                            .sum();
                        sum.abs() >= observed - tolerance
                    })
                    .count();
                ((extreme + 1) as f64 / (POWER_PATTERNS + 1) as f64) < alpha
            })
            .count();
        rejected as f64 / POWER_RESAMPLES as f64
    };
    if power_at(1.0) < power {
        return None;
    }
    Some(smallest_reaching(1.0, 14, |shift| power_at(shift) >= power))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::assert_close;

    #[test]
    fn identical_arms_give_p_one_and_a_zero_interval() {
        let scores = [0.9, 0.2, 0.55, 1.0, 0.0, 0.31];
        let same = graded_comparison(&scores, &scores, 0.05, 2000, 7).unwrap();
        assert_eq!((same.difference, same.low, same.high), (0.0, 0.0, 0.0));
        assert_eq!((same.p_value, same.exact), (1.0, true));
        assert_eq!(same.minimum_detectable, None);
    }

    #[test]
    fn differences_below_the_resolution_are_ties() {
        let a = [0.5, 0.25, 0.9];
        let b = [0.500_000_3, 0.249_999_8, 0.9];
        let noise = graded_comparison(&a, &b, 0.05, 500, 7).unwrap();
        assert_eq!((noise.difference, noise.low, noise.high), (0.0, 0.0, 0.0));
        assert_eq!(noise.p_value, 1.0);
    }

    #[test]
    fn the_exact_test_counts_sign_patterns() {
        // Differences 0.1, 0.2, 0.3: of the 8 sign patterns only +++ and --- reach |0.6|.
        let (p, exact) = sign_flip_p_value(&[0.1, 0.2, 0.3], 1);
        assert!(exact);
        assert_close(p, 2.0 / 8.0, 1e-12);
        // A zero difference drops out: the same three move, p unchanged.
        assert_close(sign_flip_p_value(&[0.1, 0.0, 0.2, 0.3], 1).0, 0.25, 1e-12);
        // Ten tasks all better by 0.2: only the two all-same patterns are as extreme, p = 2/1024.
        assert_close(sign_flip_p_value(&[0.2; 10], 1).0, 2.0 / 1024.0, 1e-12);
    }

    #[test]
    fn the_sampled_test_agrees_with_the_exact_one() {
        // 21 differences off any lattice of rates: sampled (above the exact limit), and small
        // enough to count by brute force.
        let differences: Vec<f64> = (0..21)
            .map(|i| ((i * 37 % 11) as f64 - 4.5) / 20.0 + 0.001 * 2f64.sqrt())
            .collect();
        let (sampled, exact) = sign_flip_p_value(&differences, 3);
        assert!(!exact);
        let observed = differences.iter().sum::<f64>().abs();
        let patterns = 1u64 << differences.len();
        let extreme = (0..patterns)
            .filter(|pattern| {
                let sum: f64 = differences
                    .iter()
                    .enumerate()
                    .map(|(i, d)| if pattern >> i & 1 == 1 { -d } else { *d })
                    .sum();
                sum.abs() >= observed - 1e-9
            })
            .count();
        let truth = extreme as f64 / patterns as f64;
        let error = 4.0 * (truth * (1.0 - truth) / MONTE_CARLO_PATTERNS as f64).sqrt() + 1e-4;
        assert!(
            (sampled - truth).abs() <= error,
            "sampled {sampled}, exact {truth}"
        );
    }

    #[test]
    fn the_detectable_difference_has_its_power_by_the_test_run() {
        // 16 spread differences (no two patterns tie): at the difference the simulation gives, the
        // full sign-flip test on tasks drawn afresh rejects about 80% of the time.
        let differences: Vec<f64> = (0..16)
            .map(|i| ((i * 37 % 11) as f64 - 5.0) / 25.0 + 0.001 * 2f64.sqrt())
            .collect();
        let detectable = minimum_detectable_difference(&differences, 0.05, 0.8).unwrap();
        assert!((0.05..0.40).contains(&detectable), "{detectable}");
        let mut rng = SplitMix64::new(11);
        let trials = 400;
        let rejected = (0..trials)
            .filter(|k| {
                let mean = differences.iter().sum::<f64>() / 16.0;
                let sample: Vec<f64> = (0..16)
                    .map(|_| differences[rng.below(16) as usize] - mean + detectable)
                    .collect();
                sign_flip_p_value(&sample, *k as u64).0 < 0.05
            })
            .count();
        let share = rejected as f64 / trials as f64;
        assert!((0.72..0.88).contains(&share), "{detectable}: {share}");
        assert_eq!(minimum_detectable_difference(&[0.1], 0.05, 0.8), None);
        assert_eq!(minimum_detectable_difference(&[0.3; 8], 0.05, 0.8), None);
    }

    /// The placebo check: recorded per-task differences given random signs are A/A comparisons by
    /// construction (no arm is better), so the share the test rejects at alpha = 0.05 must stay
    /// within the binomial interval of 0.05 — or below it, since zeros and ties make it
    /// conservative. Run on the binary picks of a recorded A/B test and on graded scores.
    #[test]
    fn placebo_arms_are_rejected_at_most_at_alpha() {
        let recorded = recorded_pick_differences();
        assert!(recorded.len() >= 40, "{}", recorded.len());
        let graded = recorded_p_right_differences();
        assert_eq!(graded.len(), 53);
        for (name, differences) in [
            ("recorded picks", recorded),
            ("recorded p(right pick)", graded),
        ] {
            let mut rng = SplitMix64::new(2026);
            let experiments = 400;
            let rejected = (0..experiments)
                .filter(|k| {
                    let placebo: Vec<f64> = differences
                        .iter()
                        .map(|d| if rng.below(2) == 1 { -d } else { *d })
                        .collect();
                    sign_flip_p_value(&placebo, *k as u64).0 < 0.05
                })
                .count();
            let rate = rejected as f64 / experiments as f64;
            // Wilson 99% upper bound of a 5% rate over 400 experiments is about 0.084.
            println!(
                "placebo ({name}): {rejected} of {experiments} rejected at 0.05 ({:.1}%)",
                rate * 100.0
            );
            assert!(rate <= 0.084, "{name}: {rate}");
        }
    }

    /// Per-task p(right pick) differences (rich − terse) of the default embedded model on the
    /// travel suite, from the A/B run of `docs/experiments.md` (`tests/data/graded/travel_local_p_right.json`).
    fn recorded_p_right_differences() -> Vec<f64> {
        let text = std::fs::read_to_string("tests/data/graded/travel_local_p_right.json").unwrap();
        let recorded: serde_json::Value = serde_json::from_str(&text).unwrap();
        recorded["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["travel-rich"].as_f64().unwrap() - t["travel-terse"].as_f64().unwrap())
            .collect()
    }

    /// Per-task pick differences (rich − terse) of bm25 in the recorded A/B run.
    fn recorded_pick_differences() -> Vec<f64> {
        use std::collections::HashMap;
        use std::io::Read;
        let mut text = String::new();
        flate2::read::GzDecoder::new(
            std::fs::File::open("tests/data/golden/ab_travel/trials.jsonl.gz").unwrap(),
        )
        .read_to_string(&mut text)
        .unwrap();
        let mut picks: HashMap<(String, String), [Option<bool>; 2]> = HashMap::new();
        for line in text.lines() {
            let trial: serde_json::Value = serde_json::from_str(line).unwrap();
            let arm = match trial["variant"].as_str() {
                Some("travel-terse") => 0,
                Some("travel-rich") => 1,
                _ => continue,
            };
            let right = trial["selection_correct"]
                .as_bool()
                .unwrap_or(trial["outcome"] == "correct_abstain");
            let key = (trial["backend"].to_string(), trial["task"].to_string());
            picks.entry(key).or_default()[arm] = Some(right);
        }
        picks
            .values()
            .filter_map(|[a, b]| Some(f64::from(u8::from((*b)?)) - f64::from(u8::from((*a)?))))
            .collect()
    }

    #[test]
    fn rates_on_a_lattice_get_the_exact_p_value() {
        // 30 tasks all one way by a whole pick, and one back: P(|S| >= 29) over 2^31 patterns
        // = 2 * (1 + 31) / 2^31 by counting the patterns with at most one minus sign.
        let mut differences = vec![1.0; 30];
        differences.push(-1.0);
        let (p, exact) = sign_flip_p_value(&differences, 1);
        assert!(exact);
        assert_close(p, 2.0 * 32.0 / 2f64.powi(31), 1e-15);
        // Quarters (four trials per task) sit on the lattice too; the tail is exact, not drawn.
        let quarters: Vec<f64> = (0..25).map(|i| [0.25, 0.5, 0.75, -0.25][i % 4]).collect();
        let (p, exact) = sign_flip_p_value(&quarters, 1);
        assert!(exact && p > 0.0 && p < 0.05, "{p}");
        // Probabilities are not on the lattice: sampled, as before.
        let real: Vec<f64> = (0..25).map(|i| 0.1 + f64::from(i) * 0.013_7).collect();
        assert!(!sign_flip_p_value(&real, 1).1);
    }
}
