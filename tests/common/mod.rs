//! Helpers shared by integration tests.

#![allow(dead_code)]

pub mod batch_provider;
pub mod bfcl_mutations;
pub mod drafter_provider;
pub mod hosted_run;
pub mod mock_provider;
pub mod native_search_provider;
pub mod rewriter_provider;
pub mod suggestible_provider;

/// The records of a run folder's `trials.jsonl`, each line parsed (a line that does not parse
/// fails the test).
pub fn read_trials(folder: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(folder.join("trials.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
