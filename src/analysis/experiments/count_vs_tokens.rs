//! "Too many tools" or "too many tokens"? For a sweep run with two or more description arms (the
//! same N with terse and with verbose descriptions), the joint logistic fit of right picks on
//! ln(tools shown) and ln(prompt tokens per request), per backend and exposure strategy, pooled
//! over arms and sizes. Only backends that report prompt tokens take part (the offline baselines
//! report none). Pure: records in, fits out.

use super::super::statistics::{TwoFactorFit, fit_count_and_tokens};
use crate::record::StoredTrial;
use std::collections::{BTreeMap, BTreeSet};

/// One backend's (and strategy's) split of the size effect.
#[derive(Debug, Clone, PartialEq)]
pub struct CountTokenEffect {
    pub backend: String,
    pub exposure: String,
    pub arms: usize,
    /// `None` when the two cannot be told apart (see `fit_count_and_tokens`).
    pub fit: Option<TwoFactorFit>,
}

/// The effects of every backend and strategy whose sweep trials span two or more arms.
pub fn count_vs_tokens(trials: &[StoredTrial]) -> Vec<CountTokenEffect> {
    type Group<'a> = (Vec<(f64, f64, bool)>, BTreeSet<&'a str>);
    let mut groups: BTreeMap<(&str, &str), Group<'_>> = BTreeMap::new();
    for trial in trials
        .iter()
        .filter(|t| t.scored() && t.size.is_some() && t.input_tokens > 0)
    {
        let group = groups
            .entry((
                trial.backend.as_str(),
                trial.exposure.as_deref().unwrap_or_default(),
            ))
            .or_default();
        let per_request = trial.input_tokens as f64 / trial.turns.max(1) as f64;
        group
            .0
            .push((trial.shown_count as f64, per_request, trial.right_pick()));
        group.1.insert(trial.variant.as_deref().unwrap_or_default());
    }
    groups
        .into_iter()
        .filter(|(_, (_, arms))| arms.len() >= 2)
        .map(
            |((backend, exposure), (observations, arms))| CountTokenEffect {
                backend: backend.to_string(),
                exposure: exposure.to_string(),
                arms: arms.len(),
                fit: fit_count_and_tokens(&observations),
            },
        )
        .collect()
}
