//! Ranking tools for a request, in one place: the terms texts are compared by (`terms`), BM25 over
//! the one document a tool is found by (`bm25`), the TF-IDF similarity of two descriptions the linter
//! flags (`similarity`), and the rule for which text of a conversation is "the request" — its last
//! user message — that every ranker and baseline applies (`request_text`). `ToolRanker` is the one
//! interface (a score per tool, higher is better): BM25 here, embeddings beside the model they need
//! (`backend::EmbedBackend`); `top_k` turns scores into the K tools shown, in rank order with ties in
//! listing order, so a ranking is reproducible. Used by the `bm25` backend, `retrieve:*` and
//! `search-tool` exposure, and `--distractors similar`.

mod bm25;
mod similarity;
mod terms;

pub use bm25::{Bm25Index, Bm25Ranker, listed_tool_document, tool_document};
pub use similarity::similar_pairs;
pub use terms::{is_cjk, terms};

use crate::model::Tool;

/// Scores tools for a request.
pub trait ToolRanker: Send + Sync {
    /// One score per tool, in `tools` order; higher ranks first.
    fn scores(&self, request: &str, tools: &[Tool]) -> Result<Vec<f64>, String>;
}

/// The request a conversation makes, given its user messages in order: the last one. A retrieval
/// step in front of a model sees this, and so does every baseline.
pub fn request_text<'a>(user_messages: impl DoubleEndedIterator<Item = &'a str>) -> &'a str {
    user_messages.last().unwrap_or("")
}

/// Indices of the `k` best scores, best first; equal scores keep their listing order. With
/// `only_matches`, tools scoring zero or less are left out (a search that matches nothing finds
/// nothing).
pub fn top_k(scores: &[f64], k: usize, only_matches: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len())
        .filter(|&i| !only_matches || scores[i] > 0.0)
        .collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order.truncate(k);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_is_best_first_with_ties_in_listing_order() {
        assert_eq!(top_k(&[0.5, 2.0, 0.5, 0.0, 3.0], 3, false), vec![4, 1, 0]);
        assert_eq!(top_k(&[0.5, 2.0, 0.5, 0.0], 10, false), vec![1, 0, 2, 3]);
        assert_eq!(top_k(&[0.0, 1.0, 0.0], 3, true), vec![1]);
        assert!(top_k(&[0.0, 0.0], 5, true).is_empty());
        assert!(top_k(&[], 5, false).is_empty());
    }

    #[test]
    fn the_request_is_the_last_user_message() {
        assert_eq!(request_text(["book it", "for two"].into_iter()), "for two");
        assert_eq!(request_text(std::iter::empty()), "");
    }
}
