//! A 2026-07-28 request on Streamable HTTP: no session, its `MCP-Protocol-Version`, `Mcp-Method`
//! and `Mcp-Name` headers checked against its body in the order the revision gives (`_meta`
//! present, headers agreeing, version spoken), answered by `modern::dispatch_modern`, and its errors
//! given the revision's HTTP statuses (404 for a method not found, 400 for the request errors).

use super::http_response::{json_response, plain, sse_response};
use super::jsonrpc::{ErrorObject, INVALID_PARAMS, METHOD_NOT_FOUND, Message, encode_error};
use super::modern::{
    HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION, declared_version, dispatch_modern, request_meta,
};
use super::session::McpServer;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use tokio::sync::mpsc;

/// A 2026-07-28 request: its headers checked against its body (`HeaderMismatch`), then answered
/// on a session of its own; errors carry the HTTP status the revision gives them.
pub(super) async fn handle_modern_post(
    server: &Arc<McpServer>,
    headers: &HeaderMap,
    message: Message,
) -> Response {
    let Message::Request { id, method, params } = message else {
        return StatusCode::ACCEPTED.into_response();
    };
    // The order the revision checks in: `_meta` present (-32602), headers agree with it
    // (-32020), then the version spoken (-32022, in `dispatch_modern`).
    if let Err(error) = request_meta(params.as_ref())
        && error.code == INVALID_PARAMS
    {
        return json_response(
            StatusCode::BAD_REQUEST,
            encode_error(Some(&id), &error),
            None,
        );
    }
    if let Err(error) = modern_headers_match(headers, &method, params.as_ref()) {
        return json_response(
            StatusCode::BAD_REQUEST,
            encode_error(Some(&id), &error),
            None,
        );
    }
    let wants_stream = method == "tools/call";
    let (outbox, mut replies) = mpsc::unbounded_channel::<String>();
    dispatch_modern(server, Message::Request { id, method, params }, &outbox);
    drop(outbox);
    if wants_stream {
        // Progress and log notifications may come before the result: a stream of its own.
        return sse_response(Arc::new(AtomicU64::new(1)), replies);
    }
    match replies.recv().await {
        Some(reply) => json_response(modern_status(&reply), reply, None),
        None => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request produced no response",
        ),
    }
}

/// The HTTP status of a modern reply: 404 for a method not found, 400 for the request errors
/// (`_meta`, version, headers, capabilities), 200 otherwise.
fn modern_status(reply: &str) -> StatusCode {
    if !reply.contains("\"error\"") {
        return StatusCode::OK;
    }
    let code = serde_json::from_str::<serde_json::Value>(reply)
        .ok()
        .and_then(|r| r["error"]["code"].as_i64());
    match code {
        Some(METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(c)
            if [
                INVALID_PARAMS,
                UNSUPPORTED_PROTOCOL_VERSION,
                HEADER_MISMATCH,
                -32021,
            ]
            .contains(&c) =>
        {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

/// `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`) `Mcp-Name` must say what the body
/// says. A body without `_meta` is left to `dispatch_modern`, which refuses it with `-32602`.
fn modern_headers_match(
    headers: &HeaderMap,
    method: &str,
    params: Option<&serde_json::Value>,
) -> Result<(), ErrorObject> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let mismatch = |what: String| {
        Err(ErrorObject::new(
            HEADER_MISMATCH,
            format!("Header mismatch: {what}"),
        ))
    };
    if let Some(declared) = declared_version(params) {
        match header("mcp-protocol-version") {
            Some(version) if version == declared => {}
            Some(version) => {
                return mismatch(format!(
                    "MCP-Protocol-Version is {version} but _meta declares {declared}"
                ));
            }
            None => return mismatch("MCP-Protocol-Version is missing".into()),
        }
    }
    match header("mcp-method") {
        Some(named) if named == method => {}
        Some(named) => {
            return mismatch(format!(
                "Mcp-Method is {named} but the body's method is {method}"
            ));
        }
        None => return mismatch("Mcp-Method is missing".into()),
    }
    if method == "tools/call" {
        let name = params.and_then(|p| p.get("name")).and_then(|n| n.as_str());
        match (header("mcp-name"), name) {
            (Some(header_name), Some(name)) if header_name != name => {
                return mismatch(format!(
                    "Mcp-Name is {header_name} but the tool called is {name}"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
