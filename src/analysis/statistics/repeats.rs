//! Agreement between repeated runs of each task: pass@k, pass^k and consistency.

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
