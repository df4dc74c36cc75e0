//! The MCP protocol, written here rather than taken from an SDK: the frame layer (`jsonrpc`), the
//! session state every connection shares or owns (`session`: `McpServer`, `Session`, `ToolCall`), the
//! command layer (`server`: what each method does; `call`: tools/call; `served`: the tool snapshot
//! and its listing; `input_required` and `request_state`: asking the client for input in either
//! era; `subscriptions`: `subscriptions/listen`; `tool_search`: the `search_tools` tool of a `search-tool`
//! trial), the conformance fixtures (`fixtures`,
//! `fixtures_input`), the transports (`stdio`; `http`, with its header rules in `http_guard`, its
//! accept loop in `http_listener`, its responses in `http_response` and its 2026-07-28 requests in
//! `http_modern`; `duplex`), and the client of both eras the runner and `import` use (`client`).
//! Two eras are served: 2025-11-25 and earlier on sessions, and 2026-07-28's self-contained requests
//! (`modern`). Transports know nothing of methods; methods know nothing of transports.

mod call;
pub mod client;
pub mod duplex;
pub mod fixtures;
mod fixtures_input;
pub mod http;
mod http_guard;
mod http_listener;
mod http_modern;
mod http_response;
mod input_required;
pub mod jsonrpc;
pub mod modern;
mod request_state;
mod served;
pub mod server;
mod session;
pub mod stdio;
mod subscriptions;
pub mod tool_search;

pub use served::ServedTools;
pub use server::{LATEST_VERSION, McpServer, SUPPORTED_VERSIONS, ServerConfig, Session};
pub use tool_search::{SEARCH_TOOL_NAME, ToolSearch};

use jsonrpc::RequestId;

/// A success response whose `result` is already JSON text (tools/list is pre-serialised).
fn jsonrpc_raw_result(id: &RequestId, raw_result: &str) -> String {
    let id = serde_json::to_string(id).unwrap_or_default();
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{raw_result}}}")
}
