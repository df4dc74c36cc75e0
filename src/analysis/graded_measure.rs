//! The graded measure of a paired comparison (an A/B test's arms, or `compare`'s two runs): where
//! it comes from — the model's probability of a right first pick where every trial kept its
//! distribution, else a sampled backend's picks over its repeats, else nothing (one deterministic
//! pick per task carries no more than the pick) — and the per-task means both sides are compared
//! on: tasks, not trials, are the unit, so a task's repeats are averaged first.

use std::collections::BTreeMap;

/// Where a backend's graded measure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GradedSource {
    /// Every trial carries the model's probabilities for its first pick: the measure is
    /// `p_right`, the expected right-pick rate of the model sampling at temperature 1.
    ModelProbability,
    /// The trials' picks averaged over this many repeats per task (a sampled backend's
    /// right-pick rate).
    RepeatRate { repeats: u32 },
}

impl GradedSource {
    /// The source of paired trials' graded measure: probabilities when every trial has them,
    /// else repeats when there are any (`max_repeat` is the highest 0-based repeat), else none.
    pub fn of(every_trial_has_probabilities: bool, max_repeat: u32) -> Option<GradedSource> {
        if every_trial_has_probabilities {
            Some(GradedSource::ModelProbability)
        } else if max_repeat > 0 {
            Some(GradedSource::RepeatRate {
                repeats: max_repeat + 1,
            })
        } else {
            None
        }
    }

    /// A trial's value under this measure: its `p_right`, or its pick as 0 or 1.
    pub fn value(self, p_right: Option<f64>, right_pick: bool) -> f64 {
        match (self, p_right) {
            (GradedSource::ModelProbability, Some(p)) => p,
            _ => f64::from(u8::from(right_pick)),
        }
    }

    pub fn describe(self) -> String {
        match self {
            GradedSource::ModelProbability => "p(right pick)".into(),
            GradedSource::RepeatRate { repeats } => format!("right picks over {repeats} repeats"),
        }
    }
}

/// Paired values `(unit, a, b)` averaged per unit (a task in its condition): the per-task means of
/// each side, in unit order.
pub fn unit_means<K: Ord>(pairs: impl IntoIterator<Item = (K, f64, f64)>) -> (Vec<f64>, Vec<f64>) {
    let mut grouped: BTreeMap<K, (f64, f64, usize)> = BTreeMap::new();
    for (unit, a, b) in pairs {
        let entry = grouped.entry(unit).or_insert((0.0, 0.0, 0));
        entry.0 += a;
        entry.1 += b;
        entry.2 += 1;
    }
    grouped
        .into_values()
        .map(|(a, b, n)| (a / n as f64, b / n as f64))
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_averaged_per_task() {
        let (a, b) = unit_means([("t1", 1.0, 0.0), ("t2", 0.5, 0.5), ("t1", 0.0, 0.0)]);
        assert_eq!(a, vec![0.5, 0.5]);
        assert_eq!(b, vec![0.0, 0.5]);
    }

    #[test]
    fn the_source_prefers_probabilities_then_repeats() {
        assert_eq!(
            GradedSource::of(true, 4),
            Some(GradedSource::ModelProbability)
        );
        assert_eq!(
            GradedSource::of(false, 4),
            Some(GradedSource::RepeatRate { repeats: 5 })
        );
        assert_eq!(GradedSource::of(false, 0), None);
        assert_eq!(GradedSource::ModelProbability.value(Some(0.3), true), 0.3);
        assert_eq!(
            GradedSource::RepeatRate { repeats: 3 }.value(Some(0.3), true),
            1.0
        );
    }
}
