//! Ranking tools for a request — what `retrieve:RETRIEVER:K` exposure and the `search_tools` tool
//! do before a model sees anything. One interface, `ToolRanker` (a score per tool, higher is
//! better), with the lexical ranker here (BM25 over the tool's name as words, title, description
//! and parameters) and the embedding ranker beside the model it needs (`backend::EmbedBackend`).
//! `top_k` turns scores into the K tools shown, in rank order with ties kept in listing order, so
//! a ranking is reproducible.

use crate::model::Tool;
use crate::retrieval::{Bm25Index, terms};

/// Scores tools for a request.
pub trait ToolRanker: Send + Sync {
    /// One score per tool, in `tools` order; higher ranks first.
    fn scores(&self, request: &str, tools: &[Tool]) -> Result<Vec<f64>, String>;
}

/// Okapi BM25 over each tool's `document`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Bm25Ranker;

impl ToolRanker for Bm25Ranker {
    fn scores(&self, request: &str, tools: &[Tool]) -> Result<Vec<f64>, String> {
        let documents: Vec<Vec<String>> = tools.iter().map(|t| terms(&document(t))).collect();
        Ok(Bm25Index::new(&documents).scores(&terms(request)))
    }
}

/// The text a tool is found by: its name as words, title, description, and each parameter's name
/// and description.
pub fn document(tool: &Tool) -> String {
    let mut text = tool.name.replace(['_', '-', '.'], " ");
    for part in [tool.title.as_deref(), tool.description.as_deref()]
        .into_iter()
        .flatten()
    {
        text.push(' ');
        text.push_str(part);
    }
    for (name, property) in tool.parameters() {
        text.push(' ');
        text.push_str(&name.replace('_', " "));
        if let Some(description) = property.get("description").and_then(|d| d.as_str()) {
            text.push(' ');
            text.push_str(description);
        }
    }
    text
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
    use serde_json::json;

    fn tool(name: &str, description: &str) -> Tool {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}),
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            behavior: Default::default(),
            line: None,
        }
    }

    #[test]
    fn top_k_is_best_first_with_ties_in_listing_order() {
        assert_eq!(top_k(&[0.5, 2.0, 0.5, 0.0, 3.0], 3, false), vec![4, 1, 0]);
        assert_eq!(top_k(&[0.5, 2.0, 0.5, 0.0], 10, false), vec![1, 0, 2, 3]);
        assert_eq!(top_k(&[0.0, 1.0, 0.0], 3, true), vec![1]);
        assert!(top_k(&[0.0, 0.0], 5, true).is_empty());
        assert!(top_k(&[], 5, false).is_empty());
    }

    #[test]
    fn bm25_ranks_the_tool_that_shares_the_request_words() {
        let tools = [
            tool("send_email", "Send an email to a recipient"),
            tool("get_weather_forecast", "Forecast for the next days"),
            tool("get_current_weather", "Current conditions now"),
        ];
        let scores = Bm25Ranker
            .scores("What is the forecast for the next days in Lyon?", &tools)
            .unwrap();
        assert_eq!(top_k(&scores, 1, true), vec![1], "{scores:?}");
        let none = Bm25Ranker.scores("zzz qqq", &tools).unwrap();
        assert!(top_k(&none, 3, true).is_empty());
    }
}
