//! How sure the model was of its first pick: the probability it gave each action it could take —
//! answering in text (no call), or calling one of the tools it was shown — normalised over those
//! actions. A backend that can score every action (`local` in `score` mode) returns the whole
//! distribution with its reply; a trial keeps a bounded part of it (`PickDistribution::bounded`):
//! every acceptable action, the pick, and the likeliest others, with the rest summed into one
//! remainder, so a line stays small whatever the number of tools. From it come the graded measures
//! an A/B test compares: `p_right`, the probability mass on the acceptable actions (the expected
//! right-pick rate of the same model sampling at temperature 1), the margin of the best acceptable
//! action over the best other, and the strongest competitor.
//!
//! Below the backends that produce it and the record that stores it; it knows no task, only the
//! names of the actions a trial may count as right.

use serde::{Deserialize, Serialize};

/// The action of answering in text, without a call.
pub const TEXT_ACTION: &str = "(text)";

/// Competitors (neither acceptable nor the pick) a trial keeps beyond those, at most.
pub const COMPETITORS_KEPT: usize = 8;

/// Competitors below this probability go into the remainder even when there is room.
pub const KEEP_ABOVE: f64 = 1e-4;

/// One action and the probability the model gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionProbability {
    /// A tool's name, or `TEXT_ACTION`.
    pub action: String,
    pub p: f64,
}

/// The part of a first pick's distribution a trial keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PickDistribution {
    /// The acceptable actions, the pick and up to `COMPETITORS_KEPT` likeliest others above
    /// `KEEP_ABOVE`, most probable first.
    pub kept: Vec<ActionProbability>,
    /// The probability of every other action, summed: `kept` and `rest` add up to 1.
    pub rest: f64,
    /// How many actions `rest` covers.
    pub rest_actions: usize,
}

impl PickDistribution {
    /// Keeps of `full` (every action, summing to 1) what a trial stores: every action in
    /// `acceptable`, the most probable action (the pick), and the likeliest others.
    pub fn bounded(full: &[ActionProbability], acceptable: &[String]) -> PickDistribution {
        let mut sorted: Vec<&ActionProbability> = full.iter().collect();
        sorted.sort_by(|a, b| b.p.total_cmp(&a.p).then_with(|| a.action.cmp(&b.action)));
        let mut kept: Vec<ActionProbability> = Vec::new();
        let mut rest = 0.0;
        let mut rest_actions = 0;
        let mut competitors = 0;
        for (rank, action) in sorted.into_iter().enumerate() {
            let wanted = acceptable.contains(&action.action);
            let room = competitors < COMPETITORS_KEPT && action.p > KEEP_ABOVE;
            if rank == 0 || wanted || room {
                if !wanted && rank > 0 {
                    competitors += 1;
                }
                kept.push(action.clone());
            } else {
                rest += action.p;
                rest_actions += 1;
            }
        }
        PickDistribution {
            kept,
            rest,
            rest_actions,
        }
    }

    /// The probability kept for `action` (`None` when it went into the remainder or was not an
    /// action of the trial).
    pub fn probability(&self, action: &str) -> Option<f64> {
        self.kept.iter().find(|a| a.action == action).map(|a| a.p)
    }

    /// The most probable action: the greedy pick.
    pub fn pick(&self) -> Option<&ActionProbability> {
        self.kept.iter().max_by(|a, b| a.p.total_cmp(&b.p))
    }

    /// The probability mass on the acceptable actions.
    pub fn p_right(&self, acceptable: &[String]) -> f64 {
        self.kept
            .iter()
            .filter(|a| acceptable.contains(&a.action))
            .map(|a| a.p)
            .sum()
    }

    /// The likeliest action that is not acceptable.
    pub fn strongest_competitor(&self, acceptable: &[String]) -> Option<&ActionProbability> {
        self.kept
            .iter()
            .filter(|a| !acceptable.contains(&a.action))
            .max_by(|a, b| a.p.total_cmp(&b.p))
    }

    /// ln(p(best acceptable) / p(best other)): above 0 when the greedy pick is right, the larger
    /// the surer. Probabilities are floored at the smallest normal `f64`, so the margin stays
    /// finite; `None` when either side has no action.
    pub fn margin(&self, acceptable: &[String]) -> Option<f64> {
        let best_right = self
            .kept
            .iter()
            .filter(|a| acceptable.contains(&a.action))
            .map(|a| a.p)
            .fold(None, |best: Option<f64>, p| {
                Some(best.map_or(p, |b| b.max(p)))
            })?;
        let best_other = self.strongest_competitor(acceptable)?.p;
        let floor = |p: f64| p.max(f64::MIN_POSITIVE);
        Some(floor(best_right).ln() - floor(best_other).ln())
    }

    /// The sum of everything kept and the remainder (1 up to rounding).
    pub fn total(&self) -> f64 {
        self.kept.iter().map(|a| a.p).sum::<f64>() + self.rest
    }
}

/// Normalises raw probabilities (each action's, possibly summing to less than 1: a model can name
/// a tool that was not listed) over the actions a trial had. `None` when they carry no mass.
pub fn normalised(raw: Vec<(String, f64)>) -> Option<Vec<ActionProbability>> {
    let total: f64 = raw
        .iter()
        .map(|(_, p)| if p.is_finite() { p.max(0.0) } else { 0.0 })
        .sum();
    (total > 0.0 && total.is_finite()).then(|| {
        raw.into_iter()
            .map(|(action, p)| ActionProbability {
                action,
                p: if p.is_finite() {
                    p.max(0.0) / total
                } else {
                    0.0
                },
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(pairs: &[(&str, f64)]) -> Vec<ActionProbability> {
        normalised(pairs.iter().map(|(a, p)| (a.to_string(), *p)).collect()).unwrap()
    }

    #[test]
    fn the_kept_part_and_the_remainder_sum_to_one() {
        let mut pairs: Vec<(String, f64)> = (0..40)
            .map(|i| (format!("tool_{i}"), 1.0 / f64::from(i + 2)))
            .collect();
        pairs.push((TEXT_ACTION.into(), 0.3));
        let full = normalised(pairs).unwrap();
        let acceptable = vec!["tool_39".to_string()];
        let kept = PickDistribution::bounded(&full, &acceptable);
        assert!((kept.total() - 1.0).abs() < 1e-12, "{}", kept.total());
        // The pick, the acceptable action and eight competitors.
        assert_eq!(kept.kept.len(), 1 + 1 + COMPETITORS_KEPT);
        assert_eq!(kept.rest_actions, full.len() - kept.kept.len());
        assert_eq!(kept.pick().unwrap().action, "tool_0");
        assert!(kept.probability("tool_39").is_some());
        assert!(kept.kept.windows(2).all(|w| w[0].p >= w[1].p));
    }

    #[test]
    fn p_right_margin_and_competitor() {
        let full = full(&[("a", 0.6), ("b", 0.3), (TEXT_ACTION, 0.1)]);
        let kept = PickDistribution::bounded(&full, &["b".to_string()]);
        assert!((kept.p_right(&["b".to_string()]) - 0.3).abs() < 1e-12);
        assert_eq!(
            kept.strongest_competitor(&["b".into()]).unwrap().action,
            "a"
        );
        let margin = kept.margin(&["b".to_string()]).unwrap();
        assert!((margin - (0.3f64 / 0.6).ln()).abs() < 1e-12);
        // Text is the acceptable action of a task that wants no call.
        assert!((kept.p_right(&[TEXT_ACTION.to_string()]) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn a_certain_model_has_a_finite_margin() {
        let full = full(&[("a", 1.0), ("b", 0.0)]);
        let kept = PickDistribution::bounded(&full, &["a".to_string()]);
        assert_eq!(kept.p_right(&["a".to_string()]), 1.0);
        // "b" carries no mass: below KEEP_ABOVE, it is in the remainder and there is no competitor.
        assert_eq!(kept.margin(&["a".to_string()]), None);
        let kept = PickDistribution::bounded(&full, &["b".to_string()]);
        assert!(kept.margin(&["b".to_string()]).unwrap().is_finite());
    }

    #[test]
    fn nothing_to_normalise_is_none() {
        assert_eq!(normalised(vec![("a".into(), 0.0)]), None);
        assert_eq!(normalised(vec![]), None);
        assert_eq!(normalised(vec![("a".into(), f64::NAN)]), None);
    }
}
