//! What one trial is served, by its size and exposure strategy: the server it talks to — its suite's
//! (or its task's own list's), a sweep trial's own, one serving only the K tools a retriever ranked
//! highest (with the `Retrieval` recorded), or one listing only `search_tools` over the trial's
//! catalogue — whether the suite's kept listing may be shared, and whether the tools go to the
//! provider deferred (`native-search`).

use super::plan::{PlannedTrial, RunPlan};
use super::trial::ToolListing;
use crate::mcp::{McpServer, ServedTools, ServerConfig, ToolSearch};
use crate::model::Tool;
use crate::ranking::{request_text, top_k};
use crate::tool_exposure::{Exposure, Retrieval};
use std::sync::Arc;

/// One trial's serving.
pub struct TrialServing<'p> {
    pub server: Arc<McpServer>,
    /// The listing kept for the server when it is shared by trials (`None`: the trial lists its own).
    pub shared_listing: Option<&'p ToolListing>,
    pub retrieval: Option<Retrieval>,
    pub deferred_tools: bool,
}

/// Builds `trial`'s serving, or says why it cannot be (recorded as the trial's error).
pub fn serve_trial(plan: &RunPlan, trial: PlannedTrial) -> Result<TrialServing<'_>, String> {
    let suite = &plan.suites[trial.suite];
    let task = &suite.tasks[trial.task];
    let own = suite.own_tools[trial.task].as_ref();
    let exposure = plan.exposure(trial);
    let own_server = |tools: Vec<Tool>, what: &str| {
        ServedTools::new(tools)
            .map(|served| McpServer::new(ServerConfig::default(), served))
            .map_err(|e| format!("cannot serve {what}: {e}"))
    };
    match exposure {
        Exposure::Flat | Exposure::NativeSearch => {
            let deferred_tools = exposure == Exposure::NativeSearch;
            if trial.size == 0 {
                return Ok(TrialServing {
                    server: Arc::clone(own.map_or(&suite.server, |own| &own.server)),
                    shared_listing: Some(own.map_or(&suite.listing, |own| &own.listing)),
                    retrieval: None,
                    deferred_tools,
                });
            }
            // A registry of N tools compiles in about a millisecond at N = 100.
            Ok(TrialServing {
                server: own_server(plan.shown_tools(trial).into_owned(), "the sweep's tools")?,
                shared_listing: None,
                retrieval: None,
                deferred_tools,
            })
        }
        Exposure::Retrieve { retriever, k } => {
            let shown = plan.shown_tools(trial);
            let ranker = plan.rankers.get(retriever);
            let scores = off_the_runtime(|| {
                ranker.scores(request_text(task.input.user_messages().into_iter()), &shown)
            })
            .map_err(|e| format!("retrieval ({}): {e}", retriever.as_str()))?;
            let ranking = top_k(&scores, shown.len(), false);
            let chosen = &ranking[..ranking.len().min(k as usize)];
            let gold = task.expectation.first_pick_tools();
            let gold_rank = ranking
                .iter()
                .position(|&i| gold.contains(&shown[i].name.as_str()));
            let retrieval = Retrieval {
                retriever: retriever.as_str().into(),
                k,
                retrieved: chosen.iter().map(|&i| shown[i].name.clone()).collect(),
                gold_rank: gold_rank.map(|rank| rank + 1),
            };
            // Listed in the order the flat list has them, so rank is not confounded with position.
            let listed: Vec<Tool> = (0..shown.len())
                .filter(|i| chosen.contains(i))
                .map(|i| shown[i].clone())
                .collect();
            Ok(TrialServing {
                server: own_server(listed, "the retrieved tools")?,
                shared_listing: None,
                retrieval: Some(retrieval),
                deferred_tools: false,
            })
        }
        Exposure::SearchTool { retriever, k } => {
            let search = ToolSearch::new(
                plan.shown_tools(trial).into_owned(),
                plan.rankers.get(retriever),
                k as usize,
            );
            let server = McpServer::with_tool_search(ServerConfig::default(), search)
                .map_err(|e| format!("cannot serve the search tool: {e}"))?;
            Ok(TrialServing {
                server,
                shared_listing: None,
                retrieval: None,
                deferred_tools: false,
            })
        }
    }
}

/// Runs CPU-bound ranking (an embedding model) where it does not stall the runtime's other tasks.
fn off_the_runtime<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}
