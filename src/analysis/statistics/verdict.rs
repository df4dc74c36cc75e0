//! The A/B verdict: which arm, if either, won by McNemar's test, and the verdict as words a report
//! prints.

use super::{McNemar, PairedDifference};

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
///
/// [`paired_bootstrap`]: super::paired_bootstrap
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
    use crate::analysis::statistics::mcnemar_exact;

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
