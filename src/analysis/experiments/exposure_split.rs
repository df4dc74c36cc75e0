//! Where an exposure strategy's misses come from. For `retrieve:*`: retrieval recall at K (a tool
//! a right first pick may choose among the K shown), the pick rate given the gold tool was retrieved, and their
//! product, which is the strategy's pick rate on tool tasks when a tool that was not shown cannot
//! be picked. For searching strategies (`search-tool`, `native-search`): how often a search
//! surfaced the gold tool, the pick rate given it did, searches per trial, and the prompt tokens
//! spent against `flat` in the same condition. Computed per backend, arm, strategy and size, on
//! trials that expect a call (a request that needs no tool has no gold tool to retrieve), errors
//! left out. Pure: rows in, figures out.

use crate::record::StoredTrial;
use crate::score::{Interval, wilson_interval};
use std::collections::BTreeMap;

/// What the split needs of one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitRow {
    pub backend: String,
    pub variant: String,
    pub exposure: String,
    pub size: u32,
    pub right_pick: bool,
    /// A tool a right first pick may choose was retrieved (`retrieve:*` only).
    pub gold_retrieved: Option<bool>,
    /// A search surfaced an expected tool (searching strategies only).
    pub search_found_gold: Option<bool>,
    pub searches: u32,
    pub input_tokens: u64,
}

impl SplitRow {
    /// The row of a scored trial that expects a call (`None` otherwise).
    pub fn of(trial: &StoredTrial) -> Option<SplitRow> {
        (trial.scored() && !trial.expected_tools.is_empty()).then(|| SplitRow {
            backend: trial.backend.clone(),
            variant: trial.variant.clone().unwrap_or_default(),
            exposure: trial.exposure.clone().unwrap_or_default(),
            size: trial.size.unwrap_or(0),
            right_pick: trial.right_pick(),
            gold_retrieved: trial.gold_retrieved(),
            search_found_gold: trial.search_found_gold(),
            searches: trial.searches.len() as u32,
            input_tokens: trial.input_tokens,
        })
    }
}

/// One strategy's split in one condition.
#[derive(Debug, Clone, PartialEq)]
pub struct ExposureSplit {
    pub backend: String,
    pub variant: String,
    pub exposure: String,
    pub size: u32,
    /// Right picks among the trials that expect a call.
    pub pick: Interval,
    /// `retrieve:*`: the gold tool among the K shown (recall at K).
    pub recall: Option<Interval>,
    /// Searching strategies: a search surfaced the gold tool.
    pub found: Option<Interval>,
    /// Right picks among the trials whose gold tool was retrieved (or found).
    pub pick_given_found: Option<Interval>,
    /// recall (or found) × pick given found.
    pub product: Option<f64>,
    pub searches_per_trial: f64,
    pub mean_input_tokens: f64,
    /// Mean prompt tokens of `flat` for the same backend, arm and size, when the run has it.
    pub flat_input_tokens: Option<f64>,
}

/// The split of every strategy in every condition, in (backend, variant, exposure, size) order.
pub fn exposure_splits(rows: &[SplitRow]) -> Vec<ExposureSplit> {
    let mut groups: BTreeMap<(&str, &str, &str, u32), Vec<&SplitRow>> = BTreeMap::new();
    for row in rows.iter().filter(|r| !r.exposure.is_empty()) {
        groups
            .entry((&row.backend, &row.variant, &row.exposure, row.size))
            .or_default()
            .push(row);
    }
    let mean_tokens = |rows: &[&SplitRow]| {
        rows.iter().map(|r| r.input_tokens as f64).sum::<f64>() / rows.len().max(1) as f64
    };
    let flat_tokens: BTreeMap<(&str, &str, u32), f64> = groups
        .iter()
        .filter(|((_, _, exposure, _), _)| *exposure == "flat")
        .map(|(&(backend, variant, _, size), rows)| ((backend, variant, size), mean_tokens(rows)))
        .collect();
    let count = |rows: &[&SplitRow], f: &dyn Fn(&SplitRow) -> bool| {
        rows.iter().filter(|r| f(r)).count() as u64
    };
    groups
        .iter()
        .map(|(&(backend, variant, exposure, size), rows)| {
            let n = rows.len() as u64;
            let retrieved: Vec<Option<bool>> = rows.iter().map(|r| r.gold_retrieved).collect();
            let searched: Vec<Option<bool>> = rows.iter().map(|r| r.search_found_gold).collect();
            // The gate a trial passes: retrieval, else a search; a strategy without one has none.
            let gate = |r: &SplitRow| r.gold_retrieved.or(r.search_found_gold);
            let gated = rows.iter().any(|r| gate(r).is_some());
            let passed: Vec<&SplitRow> = rows
                .iter()
                .copied()
                .filter(|r| gate(r) == Some(true))
                .collect();
            let rate = |hits: u64| wilson_interval(hits, n);
            let recall = retrieved
                .iter()
                .any(Option::is_some)
                .then(|| rate(count(rows, &|r| r.gold_retrieved == Some(true))));
            let found = searched
                .iter()
                .any(Option::is_some)
                .then(|| rate(count(rows, &|r| r.search_found_gold == Some(true))));
            // Nothing passed the gate: there is no rate given it, and the product is zero.
            let pick_given_found = (gated && !passed.is_empty())
                .then(|| wilson_interval(count(&passed, &|r| r.right_pick), passed.len() as u64));
            let product = recall.as_ref().or(found.as_ref()).map(|gate| {
                gate.estimate * pick_given_found.as_ref().map_or(0.0, |pick| pick.estimate)
            });
            ExposureSplit {
                backend: backend.to_string(),
                variant: variant.to_string(),
                exposure: exposure.to_string(),
                size,
                pick: rate(count(rows, &|r| r.right_pick)),
                recall,
                found,
                pick_given_found,
                product,
                searches_per_trial: rows.iter().map(|r| f64::from(r.searches)).sum::<f64>()
                    / n.max(1) as f64,
                mean_input_tokens: mean_tokens(rows),
                flat_input_tokens: flat_tokens.get(&(backend, variant, size)).copied(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(exposure: &str, right: bool, retrieved: Option<bool>, found: Option<bool>) -> SplitRow {
        SplitRow {
            backend: "m".into(),
            variant: String::new(),
            exposure: exposure.into(),
            size: 20,
            right_pick: right,
            gold_retrieved: retrieved,
            search_found_gold: found,
            searches: u32::from(found.is_some()),
            input_tokens: if exposure == "flat" { 1000 } else { 250 },
        }
    }

    /// 10 tool tasks under retrieve:embed:5: the gold tool is retrieved in 8 (recall 0.8), and
    /// of those 6 are picked right (0.75); the 2 misses cannot be picked. Product 0.6 = the pick rate.
    #[test]
    fn retrieval_splits_into_recall_and_selection_given_retrieved() {
        let mut rows = Vec::new();
        for i in 0..10 {
            let retrieved = i < 8;
            let right = i < 6;
            rows.push(row("retrieve:embed:5", right, Some(retrieved), None));
            rows.push(row("flat", i < 7, None, None));
        }
        let splits = exposure_splits(&rows);
        assert_eq!(splits.len(), 2);
        let flat = &splits[0];
        assert_eq!(flat.exposure, "flat");
        assert_eq!((flat.pick.successes, flat.pick.trials), (7, 10));
        assert!(flat.recall.is_none() && flat.found.is_none() && flat.product.is_none());
        let retrieve = &splits[1];
        let recall = retrieve.recall.as_ref().unwrap();
        assert_eq!((recall.successes, recall.trials), (8, 10));
        let given = retrieve.pick_given_found.as_ref().unwrap();
        assert_eq!((given.successes, given.trials), (6, 8));
        assert!((retrieve.product.unwrap() - 0.6).abs() < 1e-12);
        assert!((retrieve.pick.estimate - 0.6).abs() < 1e-12);
        assert_eq!(retrieve.mean_input_tokens, 250.0);
        assert_eq!(retrieve.flat_input_tokens, Some(1000.0));
    }

    /// 4 tool tasks under search-tool: the search finds the gold tool in 3, 2 of them picked
    /// right; one trial searches twice.
    #[test]
    fn search_splits_into_found_and_selection_given_found() {
        let mut rows = vec![
            row("search-tool:bm25:5", true, None, Some(true)),
            row("search-tool:bm25:5", true, None, Some(true)),
            row("search-tool:bm25:5", false, None, Some(true)),
            row("search-tool:bm25:5", false, None, Some(false)),
        ];
        rows[0].searches = 2;
        let split = &exposure_splits(&rows)[0];
        let found = split.found.as_ref().unwrap();
        assert_eq!((found.successes, found.trials), (3, 4));
        let given = split.pick_given_found.as_ref().unwrap();
        assert_eq!((given.successes, given.trials), (2, 3));
        assert!((split.product.unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(split.searches_per_trial, 5.0 / 4.0);
        assert!(split.recall.is_none());
        assert_eq!(split.flat_input_tokens, None);
        // Searches that never found the gold tool: no rate given found, a product of zero.
        let missed = vec![row("search-tool:bm25:5", false, None, Some(false)); 3];
        let split = &exposure_splits(&missed)[0];
        assert_eq!(split.found.as_ref().unwrap().successes, 0);
        assert!(split.pick_given_found.is_none());
        assert_eq!(split.product, Some(0.0));
    }
}
