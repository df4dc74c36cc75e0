//! `search_tools`: the tool a `search-tool` exposure starts the model with. The server holds the
//! trial's catalogue — every tool it would have listed flat — but lists only `search_tools`; a call
//! ranks the catalogue for the query (`ToolRanker`), and the tools found join the listing at once,
//! announced by `notifications/tools/list_changed` as any reload is, so they are callable in the same
//! trial (`methods::call` swaps the listing in). A search that matches nothing finds nothing and
//! says so. The result names what was found in `structuredContent.tools`, which the runner records.
//! The catalogue and what was found are the server's state, so the search lives here.

use super::served::ServedTools;
use crate::model::Tool;
use crate::ranking::{ToolRanker, top_k};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};

pub use crate::tool_exposure::SEARCH_TOOL_NAME;

/// A server's hidden catalogue and how it is searched.
pub struct ToolSearch {
    catalogue: Vec<Tool>,
    ranker: Arc<dyn ToolRanker>,
    results: usize,
    /// Catalogue indices found so far, in the order they were found.
    found: Mutex<Vec<usize>>,
}

impl ToolSearch {
    /// A search over `catalogue` returning at most `results` tools a call.
    pub fn new(catalogue: Vec<Tool>, ranker: Arc<dyn ToolRanker>, results: usize) -> ToolSearch {
        ToolSearch {
            catalogue,
            ranker,
            results,
            found: Mutex::new(Vec::new()),
        }
    }

    /// The `search_tools` definition as listed.
    pub fn tool(&self) -> Tool {
        let mut tool = Tool::in_code(
            SEARCH_TOOL_NAME,
            format!(
                "Search the tools this server can call by what you want to do. Returns up to {} matching tools and makes them callable; search first, then call a tool it found.",
                self.results
            ),
            json!({
                "type": "object",
                "properties": {"query": {"type": "string", "description": "What you want to do, in a few words"}},
                "required": ["query"],
            }),
        );
        tool.title = Some("Search tools".into());
        tool
    }

    /// The tools listed now: the search tool, then every tool found so far.
    pub fn listed(&self) -> Vec<Tool> {
        let found = self.lock();
        std::iter::once(self.tool())
            .chain(found.iter().map(|&i| self.catalogue[i].clone()))
            .collect()
    }

    /// Answers a `search_tools` call: the result, and the tools to serve from now on when the
    /// search found any not listed yet (the caller replaces the server's tools with them).
    pub fn answer(&self, arguments: &Map<String, Value>) -> (Value, Option<ServedTools>) {
        let query = arguments
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let scores = match self.ranker.scores(query, &self.catalogue) {
            Ok(scores) => scores,
            Err(e) => return (failure(&format!("The search failed: {e}")), None),
        };
        let hits = top_k(&scores, self.results, true);
        let added = {
            let mut found = self.lock();
            let before = found.len();
            for &hit in &hits {
                if !found.contains(&hit) {
                    found.push(hit);
                }
            }
            found.len() > before
        };
        let serve = if added {
            match ServedTools::new(self.listed()) {
                Ok(served) => Some(served),
                Err(e) => {
                    return (
                        failure(&format!("The tools found cannot be served: {e}")),
                        None,
                    );
                }
            }
        } else {
            None
        };
        let names: Vec<&str> = hits
            .iter()
            .map(|&i| self.catalogue[i].name.as_str())
            .collect();
        let text = if hits.is_empty() {
            format!("No tools match {query:?}. Try other words, or answer without a tool.")
        } else {
            let lines: Vec<String> = hits
                .iter()
                .map(|&i| {
                    let tool = &self.catalogue[i];
                    format!(
                        "- {}: {}",
                        tool.name,
                        tool.description.as_deref().unwrap_or("")
                    )
                })
                .collect();
            format!(
                "Found {} tools, now callable:\n{}",
                hits.len(),
                lines.join("\n")
            )
        };
        let result = json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"tools": names},
            "isError": false,
        });
        (result, serve)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<usize>> {
        self.found
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn failure(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}
