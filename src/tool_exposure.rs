//! How a trial exposes its tools to the model — the `--exposure` axis, one series per strategy,
//! paired with the others on the same trials: `flat` (every tool listed, as servers do today),
//! `retrieve:RETRIEVER:K` (only the K tools a retriever ranks highest for the request; the gold tool
//! may be missing), `search-tool[:RETRIEVER[:K]]` (the model starts with mcpick's `search_tools`
//! tool, whose results become callable in the same trial) and `native-search` (every tool deferred
//! behind the provider's own tool search: Anthropic's tool search tool, OpenAI's `tool_search`).
//! This module owns the names, their parsing, the label a trial is keyed and reported by, and what
//! a trial records of its exposure: the retrieval (`Retrieval`) and the searches (`ObservedSearch`).

use serde::{Deserialize, Serialize};

/// What ranks tools for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Retriever {
    /// Okapi BM25 over name, description and parameters (`retrieval`).
    Bm25,
    /// all-MiniLM-L6-v2 cosine similarity of "name: description" and the request.
    Embed,
}

impl Retriever {
    pub fn as_str(self) -> &'static str {
        match self {
            Retriever::Bm25 => "bm25",
            Retriever::Embed => "embed",
        }
    }

    fn parse(text: &str) -> Option<Retriever> {
        match text {
            "bm25" => Some(Retriever::Bm25),
            "embed" => Some(Retriever::Embed),
            _ => None,
        }
    }
}

/// One exposure strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Exposure {
    Flat,
    Retrieve { retriever: Retriever, k: u32 },
    SearchTool { retriever: Retriever, k: u32 },
    NativeSearch,
}

/// The name mcpick's search tool is served under (`mcp::ToolSearch`).
pub const SEARCH_TOOL_NAME: &str = "search_tools";

/// Tools a `search_tools` call returns when the strategy names no K (Anthropic's tool search
/// returns 3 to 5 references a search).
pub const DEFAULT_SEARCH_RESULTS: u32 = 5;

impl Exposure {
    /// Parses `flat`, `retrieve:bm25:5`, `retrieve:embed:5`, `search-tool[:RETRIEVER[:K]]` or
    /// `native-search`.
    pub fn parse(text: &str) -> Result<Exposure, String> {
        let parts: Vec<&str> = text.trim().split(':').collect();
        let bad = |why: &str| {
            format!(
                "--exposure {text:?}: {why} (strategies: flat, retrieve:bm25:K, retrieve:embed:K, search-tool[:bm25|embed[:K]], native-search)"
            )
        };
        let retriever = |name: &str| {
            Retriever::parse(name)
                .ok_or_else(|| bad(&format!("unknown retriever {name:?}; bm25 or embed")))
        };
        let count = |k: &str| match k.parse::<u32>() {
            Ok(k) if (1..=1000).contains(&k) => Ok(k),
            _ => Err(bad("K must be a whole number from 1 to 1000")),
        };
        match parts.as_slice() {
            ["flat"] => Ok(Exposure::Flat),
            ["native-search"] => Ok(Exposure::NativeSearch),
            ["retrieve", name, k] => Ok(Exposure::Retrieve {
                retriever: retriever(name)?,
                k: count(k)?,
            }),
            ["retrieve", ..] => Err(bad(
                "retrieve needs a retriever and K, e.g. retrieve:embed:5",
            )),
            ["search-tool"] => Ok(Exposure::SearchTool {
                retriever: Retriever::Bm25,
                k: DEFAULT_SEARCH_RESULTS,
            }),
            ["search-tool", name] => Ok(Exposure::SearchTool {
                retriever: retriever(name)?,
                k: DEFAULT_SEARCH_RESULTS,
            }),
            ["search-tool", name, k] => Ok(Exposure::SearchTool {
                retriever: retriever(name)?,
                k: count(k)?,
            }),
            _ => Err(bad("unknown strategy")),
        }
    }

    /// The canonical label: what trials are keyed and series are named by.
    pub fn label(self) -> String {
        match self {
            Exposure::Flat => "flat".into(),
            Exposure::NativeSearch => "native-search".into(),
            Exposure::Retrieve { retriever, k } => format!("retrieve:{}:{k}", retriever.as_str()),
            Exposure::SearchTool { retriever, k } => {
                format!("search-tool:{}:{k}", retriever.as_str())
            }
        }
    }

    /// The retriever the strategy ranks with, if any.
    pub fn retriever(self) -> Option<Retriever> {
        match self {
            Exposure::Retrieve { retriever, .. } | Exposure::SearchTool { retriever, .. } => {
                Some(retriever)
            }
            Exposure::Flat | Exposure::NativeSearch => None,
        }
    }
}

/// Bytes of JSON a token, the one rough rule mcpick estimates tokens by where no tokeniser is at
/// hand (a lane's rate limits, a client profile's threshold on tool definitions).
pub const BYTES_PER_TOKEN: usize = 4;

/// The estimated tokens of `json_bytes` bytes of JSON.
pub fn estimated_tokens(json_bytes: usize) -> u64 {
    (json_bytes / BYTES_PER_TOKEN) as u64
}

/// What `retrieve:RETRIEVER:K` showed one trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Retrieval {
    pub retriever: String,
    pub k: u32,
    /// The tools shown, best first.
    pub retrieved: Vec<String>,
    /// 1-based rank, among every tool ranked, of the best-ranked tool a right first pick may choose
    /// (`None` for no-call tasks).
    pub gold_rank: Option<usize>,
}

/// One search a model made: through mcpick's `search_tools` tool, or the provider's own tool
/// search (`native`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservedSearch {
    /// What the model searched for (a query, or for a regex search its pattern).
    pub query: String,
    /// The tools the search returned, in its order.
    pub found: Vec<String>,
    /// Which of the model's replies made it (0 = the first).
    #[serde(default)]
    pub reply: u32,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub native: bool,
    /// The provider's id of the search, which later turns send back with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl TryFrom<String> for Exposure {
    type Error = String;
    fn try_from(text: String) -> Result<Exposure, String> {
        Exposure::parse(&text)
    }
}

impl From<Exposure> for String {
    fn from(exposure: Exposure) -> String {
        exposure.label()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_to_their_canonical_labels() {
        for (written, label) in [
            ("flat", "flat"),
            ("retrieve:embed:5", "retrieve:embed:5"),
            ("retrieve:bm25:10", "retrieve:bm25:10"),
            ("search-tool", "search-tool:bm25:5"),
            ("search-tool:embed", "search-tool:embed:5"),
            ("search-tool:bm25:3", "search-tool:bm25:3"),
            ("native-search", "native-search"),
        ] {
            let exposure = Exposure::parse(written).unwrap();
            assert_eq!(exposure.label(), label);
            assert_eq!(Exposure::parse(&exposure.label()).unwrap(), exposure);
        }
        for bad in [
            "",
            "retrieve",
            "retrieve:embed",
            "retrieve:tfidf:5",
            "retrieve:bm25:0",
            "search-tool:bm25:x",
            "flat:1",
        ] {
            let error = Exposure::parse(bad).unwrap_err();
            assert!(error.contains("--exposure"), "{error}");
        }
    }
}
