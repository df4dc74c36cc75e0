//! A unit's effect on one group of tasks, as `explain` reports it: `delta` is the mean, over the
//! group's tasks, of p_right with the unit minus p_right without it (what the unit earns there;
//! negative: it steals), with a paired bootstrap 95% interval over the tasks, and a verdict word.
//! The word never claims more than the interval shows: "neutral" when the interval lies within
//! ±`NEUTRAL_WITHIN` (a change too small to act on, however consistent), else "earns" or "steals"
//! when it excludes zero, and "cannot say" otherwise (and for fewer than `FEWEST_TASKS` tasks that
//! moved more than that) — a model that barely reacts to a sentence gets "neutral" or
//! "cannot say", never an invented effect.

use crate::analysis::statistics::bootstrap_mean_difference;

/// Effects within this much of zero either way (in p_right) are too small to act on.
pub const NEUTRAL_WITHIN: f64 = 0.02;
/// Fewer tasks than this give no interval worth the name (one task's bootstrap is that task):
/// the verdict is "neutral" when every task moved less than `NEUTRAL_WITHIN`, else "cannot say".
pub const FEWEST_TASKS: usize = 3;
const RESAMPLES: usize = 10_000;
const SEED: u64 = 0x0065_7870_6c61_696e;

/// What a unit does on a group of tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum EffectVerdict {
    #[serde(rename = "earns")]
    Earns,
    #[serde(rename = "steals")]
    Steals,
    #[serde(rename = "neutral")]
    Neutral,
    #[serde(rename = "cannot say")]
    CannotSay,
}

impl EffectVerdict {
    /// The word tables and `explain.json` give.
    pub fn as_str(self) -> &'static str {
        match self {
            EffectVerdict::Earns => "earns",
            EffectVerdict::Steals => "steals",
            EffectVerdict::Neutral => "neutral",
            EffectVerdict::CannotSay => "cannot say",
        }
    }
}

/// A unit's effect on the tasks of `on` (a tool's name, or "no-call").
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Effect {
    pub on: String,
    pub tasks: usize,
    pub delta: f64,
    pub low: f64,
    pub high: f64,
    pub verdict: EffectVerdict,
}

/// `value` to three decimals, as printed.
fn printed(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// The effect from each task's p_right `with` the unit and `without` it (same tasks, same order);
/// `None` for no tasks or lengths that differ.
pub fn effect(on: &str, with: &[f64], without: &[f64]) -> Option<Effect> {
    if with.len() != without.len() || with.is_empty() {
        return None;
    }
    let differences: Vec<f64> = with.iter().zip(without).map(|(w, o)| w - o).collect();
    let interval = bootstrap_mean_difference(&differences, RESAMPLES, SEED)?;
    let too_few = differences.len() < FEWEST_TASKS;
    // The verdict reads the interval as the tables print it, to three decimals, so a reader never
    // sees "[+0.005, +0.020] earns" beside the rule "neutral within ±0.02".
    let (low, high) = (printed(interval.low), printed(interval.high));
    // Too small to act on comes first: a consistent 0.005 is real, and still nothing to rewrite for.
    let verdict = if too_few {
        if differences.iter().all(|d| d.abs() <= NEUTRAL_WITHIN) {
            EffectVerdict::Neutral
        } else {
            EffectVerdict::CannotSay
        }
    } else if low >= -NEUTRAL_WITHIN && high <= NEUTRAL_WITHIN {
        EffectVerdict::Neutral
    } else if low > 0.0 {
        EffectVerdict::Earns
    } else if high < 0.0 {
        EffectVerdict::Steals
    } else {
        EffectVerdict::CannotSay
    };
    Some(Effect {
        on: on.to_string(),
        tasks: with.len(),
        delta: interval.difference,
        low: interval.low,
        high: interval.high,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_says_no_more_than_the_interval() {
        let with = [0.9, 0.8, 0.95, 0.85, 0.9, 0.88];
        let without = [0.5, 0.4, 0.6, 0.45, 0.5, 0.52];
        let earns = effect("get_weather", &with, &without).unwrap();
        assert_eq!(earns.verdict, EffectVerdict::Earns);
        assert!((earns.delta - 0.385).abs() < 1e-9, "{earns:?}");
        assert_eq!(
            effect("x", &without, &with).unwrap().verdict,
            EffectVerdict::Steals
        );
        // A model that barely reacts: within 0.02 either way.
        let barely: Vec<f64> = with.iter().map(|p| p - 0.005).collect();
        assert_eq!(
            effect("x", &with, &barely).unwrap().verdict,
            EffectVerdict::Neutral
        );
        // At the edge as printed: [+0.005, +0.020] is within ±0.02.
        let edge_with = [0.5, 0.5, 0.5, 0.5];
        let edge_without = [0.48, 0.4996, 0.49, 0.48];
        let edge = effect("x", &edge_with, &edge_without).unwrap();
        assert!(
            edge.high > NEUTRAL_WITHIN && edge.high < NEUTRAL_WITHIN + 5e-4,
            "{edge:?}"
        );
        assert_eq!(edge.verdict, EffectVerdict::Neutral);
        // Large but inconsistent: cannot say.
        let mixed_with = [0.9, 0.1, 0.9, 0.1];
        let mixed_without = [0.1, 0.9, 0.1, 0.85];
        assert_eq!(
            effect("x", &mixed_with, &mixed_without).unwrap().verdict,
            EffectVerdict::CannotSay
        );
        assert_eq!(effect("x", &[], &[]), None);
        // One or two tasks give no interval to speak of, however large the change.
        assert_eq!(
            effect("x", &[0.9, 0.8], &[0.1, 0.2]).unwrap().verdict,
            EffectVerdict::CannotSay
        );
        assert_eq!(
            effect("x", &[0.9], &[0.89]).unwrap().verdict,
            EffectVerdict::Neutral
        );
    }
}
