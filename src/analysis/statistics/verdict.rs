//! The A/B verdict: which arm, if either, won — by a paired test's (adjusted) p-value and the
//! direction of the difference, on the picks or on a graded measure — and the verdict as words a
//! report prints.

use super::GradedComparison;

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

/// Decides a paired comparison: a winner only when `p_value` (adjusted where the comparison is one
/// of a family) is below `alpha`, the winner being the arm the difference B − A favours.
pub fn paired_verdict(p_value: f64, difference: f64, alpha: f64) -> AbVerdict {
    if p_value < alpha {
        if difference > 0.0 {
            return AbVerdict::BBetter;
        }
        if difference < 0.0 {
            return AbVerdict::ABetter;
        }
    }
    AbVerdict::NoDetectableDifference
}

/// Decides an A/B comparison on a graded measure: a winner only when the sign-flip p-value is
/// below `alpha`, the winner being the arm with the higher mean.
pub fn graded_verdict(comparison: &GradedComparison, alpha: f64) -> AbVerdict {
    if comparison.tasks == 0 {
        return AbVerdict::NoPairs;
    }
    if comparison.p_value < alpha {
        if comparison.difference > 0.0 {
            return AbVerdict::BBetter;
        }
        if comparison.difference < 0.0 {
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
        let p = mcnemar_exact(2, 10).p_value;
        assert_eq!(paired_verdict(p, 8.0 / 15.0, 0.05), AbVerdict::BBetter);
        assert_eq!(paired_verdict(p, -8.0 / 15.0, 0.05), AbVerdict::ABetter);
        assert_eq!(
            paired_verdict(p, 8.0 / 15.0, 0.01),
            AbVerdict::NoDetectableDifference
        );
        assert_eq!(
            paired_verdict(mcnemar_exact(0, 0).p_value, 0.0, 0.05),
            AbVerdict::NoDetectableDifference
        );
        // A p-value exactly at alpha is not below it.
        assert_eq!(
            paired_verdict(697.0 / 32768.0, 0.5, 697.0 / 32768.0),
            AbVerdict::NoDetectableDifference
        );
    }

    #[test]
    fn graded_verdicts_need_significance_and_direction() {
        let better =
            crate::analysis::statistics::graded_comparison(&[0.2; 12], &[0.5; 12], 0.05, 1000, 1)
                .unwrap();
        assert_eq!(graded_verdict(&better, 0.05), AbVerdict::BBetter);
        let worse =
            crate::analysis::statistics::graded_comparison(&[0.5; 12], &[0.2; 12], 0.05, 1000, 1)
                .unwrap();
        assert_eq!(graded_verdict(&worse, 0.05), AbVerdict::ABetter);
        let same =
            crate::analysis::statistics::graded_comparison(&[0.5; 12], &[0.5; 12], 0.05, 1000, 1)
                .unwrap();
        assert_eq!(
            graded_verdict(&same, 0.05),
            AbVerdict::NoDetectableDifference
        );
        // Three tasks cannot reach 0.05 whatever they show (the smallest p is 2/8).
        let few =
            crate::analysis::statistics::graded_comparison(&[0.0; 3], &[1.0; 3], 0.05, 1000, 1)
                .unwrap();
        assert_eq!(
            graded_verdict(&few, 0.05),
            AbVerdict::NoDetectableDifference
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
