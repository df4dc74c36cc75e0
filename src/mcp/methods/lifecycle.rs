//! The methods around the tools: `initialize` (a session revision agreed, the client's capabilities
//! kept), `ping`, `logging/setLevel`, `tools/list` (the served snapshot's pre-serialised pages),
//! `server/discover` (a stateless client's first question), the notifications a client sends
//! (`initialized`, `cancelled`), and `-32601` for everything this server does not have.

use crate::mcp::protocol::jsonrpc::{
    ErrorObject, INVALID_PARAMS, METHOD_NOT_FOUND, RequestId, encode_error, params_object,
};
use crate::mcp::protocol::revision::{
    LATEST_SESSION_REVISION, LogLevel, SESSION_REVISIONS, all_revisions, name_excerpt,
};
use crate::mcp::state::session::Session;
use serde_json::{Map, Value, json};

/// `initialize`: the revision asked for if this server speaks it, else its newest.
pub(super) fn initialize(session: &Session, id: &RequestId, params: Option<Value>) -> String {
    let params = params_object(params);
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(LATEST_SESSION_REVISION);
    let version = if SESSION_REVISIONS.contains(&requested) {
        requested
    } else {
        LATEST_SESSION_REVISION
    };
    let mut state = session.lock_state();
    state.protocol_version = Some(version.to_string());
    state.client_capabilities = params.get("capabilities").cloned().unwrap_or(Value::Null);
    drop(state);
    let config = &session.server.config;
    let mut result = json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": true }, "logging": {} },
        "serverInfo": { "name": config.name, "version": config.version },
    });
    if let Some(instructions) = &config.instructions {
        result["instructions"] = json!(instructions);
    }
    session.encode_result(id, result)
}

pub(super) fn ping(session: &Session, id: &RequestId) -> String {
    session.encode_result(id, json!({}))
}

/// `tools/list`: one page of the served tools (all of them unless the server pages).
pub(super) fn list_tools(session: &Session, id: &RequestId, params: Option<Value>) -> String {
    let params = params_object(params);
    let tools = session.server.tools();
    match tools.list_page(params.get("cursor"), session.server.config.page_size) {
        Ok(raw_result) => session.encode_list_result(id, &raw_result),
        Err(message) => encode_error(Some(id), &ErrorObject::new(INVALID_PARAMS, message)),
    }
}

pub(super) fn set_level(session: &Session, id: &RequestId, params: Option<Value>) -> String {
    let params: Map<String, Value> = params_object(params);
    let Some(level) = params
        .get("level")
        .and_then(Value::as_str)
        .and_then(LogLevel::parse)
    else {
        return encode_error(
            Some(id),
            &ErrorObject::new(
                INVALID_PARAMS,
                "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency",
            ),
        );
    };
    session.lock_state().log_level = Some(level);
    session.encode_result(id, json!({}))
}

/// `server/discover`: the revisions spoken, the capabilities, who the server is (in `_meta`,
/// added by `encode_result`). Changes are announced on `subscriptions/listen`.
pub(super) fn discover(session: &Session, id: &RequestId) -> String {
    let mut result = json!({
        "supportedVersions": all_revisions(),
        "capabilities": { "tools": { "listChanged": true }, "logging": {} },
        "ttlMs": 0,
        "cacheScope": "public",
    });
    if let Some(instructions) = &session.server.config.instructions {
        result["instructions"] = json!(instructions);
    }
    session.encode_result(id, result)
}

/// `-32601`, naming the method (its first 100 characters).
pub(super) fn method_not_found(id: &RequestId, method: &str) -> String {
    encode_error(
        Some(id),
        &ErrorObject::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", name_excerpt(method)),
        ),
    )
}

/// A notification from the client: `initialized`, or `cancelled` for a request in flight or an open
/// stream (unknown or finished ids are ignored, as the specification asks); others are ignored.
pub(super) fn notification(session: &Session, method: &str, params: Option<Value>) {
    match method {
        "notifications/initialized" => session.lock_state().initialized = true,
        "notifications/cancelled" => {
            let params = params_object(params);
            if let Some(id) = params
                .get("requestId")
                .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok())
            {
                session.cancel(&id);
            }
        }
        _ => {}
    }
}
