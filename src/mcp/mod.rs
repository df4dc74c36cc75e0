//! The MCP protocol, written here rather than taken from an SDK, in layers that point one way:
//! `protocol` (JSON-RPC frames, error codes, the revisions spoken and their vocabulary, encoders) →
//! `state` (the server every connection shares, one connection's session, the served tools; no
//! method names) → `methods` (what each method does, through one dispatcher for both revisions;
//! the conformance suite's tools that `tools/call` runs, `methods::fixtures`) → `transport` (stdio,
//! Streamable HTTP, the in-memory pipe; they move bytes and know no method). `client` stands beside
//! them, on `protocol` alone: the client of both revisions the runner and `import` use. Two
//! revisions are served: 2025-11-25 and earlier on sessions opened by `initialize`, and
//! 2026-07-28's stateless requests.

pub mod client;
pub mod methods;
pub mod protocol;
pub mod state;
pub mod transport;

pub use crate::tool_exposure::SEARCH_TOOL_NAME;
pub use methods::fixtures;
pub use protocol::revision::{LATEST_SESSION_REVISION, SESSION_REVISIONS, STATELESS_REVISIONS};
pub use state::served::ServedTools;
pub use state::server::{McpServer, ServerConfig};
pub use state::session::{Outbox, Session};
pub use state::tool_search::ToolSearch;
