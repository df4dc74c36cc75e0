//! The plan's exposure strategies: checked before anything runs (no strategy named twice;
//! `native-search` only with backends whose API has a tool search; no toolset tool named like the
//! `search_tools` tool a `search-tool` trial starts with) and the rankers they need, loaded once —
//! BM25 always, the embedding model only when a strategy names `embed`.

use super::SuitePlan;
use crate::backend::EmbedBackend;
use crate::mcp::SEARCH_TOOL_NAME;
use crate::ranking::{Bm25Ranker, ToolRanker};
use crate::runner::lane::BackendLane;
use crate::settings::RunSettings;
use crate::tool_exposure::{Exposure, Retriever};
use std::collections::HashSet;
use std::sync::Arc;

/// The rankers a plan's strategies use.
pub struct Rankers {
    bm25: Arc<dyn ToolRanker>,
    embed: Option<Arc<dyn ToolRanker>>,
}

impl Rankers {
    /// BM25, and the embedding model if a strategy needs it (a load failure is a problem).
    pub(super) fn for_exposures(exposures: &[Exposure], problems: &mut Vec<String>) -> Rankers {
        let needs_embed = exposures
            .iter()
            .any(|e| e.retriever() == Some(Retriever::Embed));
        let embed = needs_embed
            .then(|| match EmbedBackend::load_default() {
                Ok(model) => Some(Arc::new(model) as Arc<dyn ToolRanker>),
                Err(e) => {
                    problems.push(format!("--exposure …embed…: the embedding model: {e}"));
                    None
                }
            })
            .flatten();
        Rankers {
            bm25: Arc::new(Bm25Ranker),
            embed,
        }
    }

    /// The ranker of `retriever` (BM25 when the embedding model is not loaded, which a plan that
    /// resolved never lets happen).
    pub fn get(&self, retriever: Retriever) -> Arc<dyn ToolRanker> {
        match (retriever, &self.embed) {
            (Retriever::Embed, Some(embed)) => Arc::clone(embed),
            _ => Arc::clone(&self.bm25),
        }
    }
}

/// Problems with the strategies the run names.
/// The lanes whose backend has no tool search of its own (`native-search` cannot run there).
pub(super) fn lanes_without_native_search(lanes: &[Arc<BackendLane>]) -> Vec<&str> {
    lanes
        .iter()
        .filter(|lane| !lane.backend.supports_native_search())
        .map(|lane| lane.id.as_str())
        .collect()
}

pub(super) fn check(
    options: &RunSettings,
    lanes: &[Arc<BackendLane>],
    suites: &[SuitePlan],
    problems: &mut Vec<String>,
) {
    let exposures = &options.exposures;
    if exposures.iter().collect::<HashSet<_>>().len() < exposures.len() {
        problems.push("an --exposure strategy is named twice".into());
    }
    if exposures.contains(&Exposure::NativeSearch) {
        let without = lanes_without_native_search(lanes);
        if !without.is_empty() {
            problems.push(format!(
                "--exposure native-search: {} has no tool search of its own (openai and anthropic do); run it in a separate run, or use search-tool",
                without.join(", ")
            ));
        }
    }
    if exposures
        .iter()
        .any(|e| matches!(e, Exposure::SearchTool { .. }))
    {
        for suite in suites {
            if suite.tools.iter().any(|t| t.name == SEARCH_TOOL_NAME) {
                problems.push(format!(
                    "--exposure search-tool: toolset {} has a tool named {SEARCH_TOOL_NAME}, the name the search tool is served under",
                    suite.toolset
                ));
            }
        }
    }
}
