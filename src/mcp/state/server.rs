//! What every connection of one server shares: who the server is and how it lists
//! (`ServerConfig`), the tools being served (swapped atomically on reload, announced on the
//! `list_changed` broadcast), the key that signs request states, the hidden catalogue of a
//! `search-tool` server, and the members every stateless result carries, serialised once. State
//! only: which method uses what is the method layer's.

use super::request_state::StateKey;
use super::served::ServedTools;
use super::tool_search::ToolSearch;
use crate::mcp::protocol::revision::META_SERVER_INFO;
use serde_json::{Value, json};
use std::sync::{Arc, RwLock};
use tokio::sync::broadcast;

/// What the server is and how it lists.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub name: String,
    pub version: String,
    /// Tools per `tools/list` page; `None` lists everything at once (what most clients expect).
    pub page_size: Option<usize>,
    pub instructions: Option<String>,
}

impl ServerConfig {
    /// Who the server is, as a stateless result's `_meta` names it.
    pub fn server_info(&self) -> Value {
        json!({ "name": self.name, "version": self.version })
    }
}

/// The members every stateless result carries, serialised once per server (a result is then the
/// marks and its own members, joined as text): `list` adds the caching hints of `tools/list` —
/// `ttlMs` 0 (a reload can change the list at any moment) and `cacheScope` public (every client is
/// served the same list).
pub(in crate::mcp) struct ResultMarks {
    pub(in crate::mcp) result: String,
    pub(in crate::mcp) list: String,
}

impl ResultMarks {
    fn new(config: &ServerConfig) -> ResultMarks {
        let meta = json!({ META_SERVER_INFO: config.server_info() });
        let members = |value: Value| {
            let text = value.to_string();
            text[1..text.len() - 1].to_string()
        };
        ResultMarks {
            result: members(json!({ "resultType": "complete", "_meta": meta })),
            list: members(json!({
                "resultType": "complete", "ttlMs": 0, "cacheScope": "public", "_meta": meta
            })),
        }
    }
}

/// `{marks, …raw object's members}`.
pub(in crate::mcp) fn with_marks(marks: &str, raw_object: &str) -> String {
    let members = raw_object.trim_start().strip_prefix('{').unwrap_or("}");
    if members.trim_start().starts_with('}') {
        format!("{{{marks}}}")
    } else {
        format!("{{{marks},{members}")
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            name: "mcpick".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            page_size: None,
            instructions: None,
        }
    }
}

/// State shared by every session of one server.
pub struct McpServer {
    pub config: ServerConfig,
    tools: RwLock<Arc<ServedTools>>,
    list_changed: broadcast::Sender<()>,
    /// Signs the `requestState` of 2026-07-28 multi-round calls.
    pub(in crate::mcp) state_key: StateKey,
    pub(in crate::mcp) marks: ResultMarks,
    /// The hidden catalogue `search_tools` searches (a `search-tool` trial's server), if any.
    pub(in crate::mcp) search: Option<ToolSearch>,
}

impl McpServer {
    pub fn new(config: ServerConfig, tools: ServedTools) -> Arc<McpServer> {
        let (list_changed, _) = broadcast::channel(16);
        Arc::new(McpServer {
            marks: ResultMarks::new(&config),
            config,
            tools: RwLock::new(Arc::new(tools)),
            list_changed,
            state_key: StateKey::generate(),
            search: None,
        })
    }

    /// A server that lists only `search_tools`, whose calls make tools of `search`'s catalogue
    /// callable (`tool_search`).
    pub fn with_tool_search(
        config: ServerConfig,
        search: ToolSearch,
    ) -> Result<Arc<McpServer>, crate::registry::RegistryError> {
        let tools = ServedTools::new(search.listed())?;
        let (list_changed, _) = broadcast::channel(16);
        Ok(Arc::new(McpServer {
            marks: ResultMarks::new(&config),
            config,
            tools: RwLock::new(Arc::new(tools)),
            list_changed,
            state_key: StateKey::generate(),
            search: Some(search),
        }))
    }

    /// The tools being served now.
    pub fn tools(&self) -> Arc<ServedTools> {
        self.tools
            .read()
            .map(|t| Arc::clone(&t))
            .unwrap_or_else(|poisoned| Arc::clone(&poisoned.into_inner()))
    }

    /// Serves a new tool set and tells every session, once.
    pub fn replace_tools(&self, tools: ServedTools) {
        let mut slot = self
            .tools
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let generation = slot.generation + 1;
        *slot = Arc::new(tools.with_generation(generation));
        drop(slot);
        let _ = self.list_changed.send(());
    }

    /// Tells every listener the tool list changed without changing it (the conformance suite's
    /// `test_trigger_tool_change`).
    pub fn announce_tools_changed(&self) {
        let _ = self.list_changed.send(());
    }

    /// Whether the server lists `search_tools` over a hidden catalogue (`with_tool_search`).
    pub fn has_tool_search(&self) -> bool {
        self.search.is_some()
    }

    /// Sessions open now (each holds one `list_changed` receiver until it ends).
    pub fn open_sessions(&self) -> usize {
        self.list_changed.receiver_count()
    }

    /// A receiver that fires after each `replace_tools`.
    pub fn subscribe_list_changed(&self) -> broadcast::Receiver<()> {
        self.list_changed.subscribe()
    }
}
