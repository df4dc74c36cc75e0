//! A 2026-07-28 request on Streamable HTTP: no session, its `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*` headers checked against its body in the order the revision gives
//! (`_meta` present, headers agreeing, version spoken, the tool's `x-mcp-header` parameters),
//! answered by `methods::answer_stateless` as JSON or, when notifications come first and for
//! `subscriptions/listen`, as an SSE stream, and its errors given the revision's HTTP statuses (404
//! for a method not found, 400 for the request errors).

use super::response::{json_response, plain, stream_response};
use crate::mcp::methods::answer_stateless;
use crate::mcp::protocol::jsonrpc::{
    ErrorObject, INVALID_PARAMS, METHOD_NOT_FOUND, Message, encode_error,
};
use crate::mcp::protocol::revision::{
    HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, NamedTarget, UNSUPPORTED_PROTOCOL_VERSION,
    declared_version, name_excerpt, named_target, request_meta,
};
use crate::mcp::state::server::McpServer;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc;

/// A 2026-07-28 request: its headers checked against its body (`HeaderMismatch`), then answered
/// on a session of its own; errors carry the HTTP status the revision gives them. A call whose first
/// message is its response is answered as JSON; one that sends notifications first, and every
/// `subscriptions/listen`, as an SSE stream.
pub(super) async fn handle_stateless_post(
    server: &Arc<McpServer>,
    headers: &HeaderMap,
    message: Message,
) -> Response {
    let Message::Request { id, method, params } = message else {
        return StatusCode::ACCEPTED.into_response();
    };
    // The order the revision checks in: `_meta` present (-32602), headers agree with it
    // (-32020), the version spoken (-32022), then a tool's own `x-mcp-header` parameters (-32020).
    let refuse = |error: ErrorObject| {
        json_response(
            StatusCode::BAD_REQUEST,
            encode_error(Some(&id), &error),
            None,
        )
    };
    let meta = match request_meta(params.as_ref()) {
        Err(error) if error.code == INVALID_PARAMS => return refuse(error),
        checked => checked,
    };
    if let Err(error) = stateless_headers_match(headers, &method, params.as_ref()) {
        return refuse(error);
    }
    let meta = match meta {
        Ok(meta) => meta,
        Err(error) => return refuse(error),
    };
    if named_target(&method) == Some(NamedTarget::Tool)
        && let Err(error) = param_headers_match(server, headers, params.as_ref())
    {
        return refuse(error);
    }
    let (outbox, mut replies) = mpsc::unbounded_channel::<String>();
    answer_stateless(server, id, method, params, meta, None, &outbox);
    // A listen keeps its own sender: the answer streams until the listen ends.
    drop(outbox);
    let Some(first) = replies.recv().await else {
        return plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request produced no response",
        );
    };
    let is_notification = serde_json::from_str::<serde_json::Value>(&first)
        .is_ok_and(|message| message.get("method").is_some());
    if is_notification {
        // Progress and log notifications come before the result: a stream of its own.
        return stream_response(Some(first), replies);
    }
    json_response(stateless_status(&first), first, None)
}

/// The HTTP status of a stateless reply: 404 for a method not found, 400 for the request errors
/// (`_meta`, version, headers, capabilities), 200 otherwise.
fn stateless_status(reply: &str) -> StatusCode {
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
                MISSING_REQUIRED_CLIENT_CAPABILITY,
            ]
            .contains(&c) =>
        {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

/// `MCP-Protocol-Version`, `Mcp-Method` and (for a request that names a tool) `Mcp-Name` must say
/// what the body
/// says. A body without `_meta` was already refused with `-32602`.
fn stateless_headers_match(
    headers: &HeaderMap,
    method: &str,
    params: Option<&serde_json::Value>,
) -> Result<(), ErrorObject> {
    let header = |name: &str| headers.get(name).map(|v| v.to_str().map(trim_ows));
    let mismatch = |what: String| {
        Err(ErrorObject::new(
            HEADER_MISMATCH,
            format!("Header mismatch: {what}"),
        ))
    };
    if let Some(declared) = declared_version(params) {
        match header("mcp-protocol-version") {
            Some(Ok(version)) if version == declared => {}
            Some(Err(_)) => return mismatch("MCP-Protocol-Version is not visible ASCII".into()),
            Some(Ok(version)) => {
                return mismatch(format!(
                    "MCP-Protocol-Version is {version} but _meta declares {declared}"
                ));
            }
            None => return mismatch("MCP-Protocol-Version is missing".into()),
        }
    }
    match header("mcp-method") {
        Some(Ok(named)) if named == method => {}
        Some(Err(_)) => return mismatch("Mcp-Method is not visible ASCII".into()),
        Some(Ok(named)) => {
            return mismatch(format!(
                "Mcp-Method is {named} but the body's method is {method}"
            ));
        }
        None => return mismatch("Mcp-Method is missing".into()),
    }
    if named_target(method) == Some(NamedTarget::Tool) {
        let name = params.and_then(|p| p.get("name")).and_then(|n| n.as_str());
        let named = match headers.get("mcp-name").map(decoded_header) {
            None => return mismatch("Mcp-Name is missing".into()),
            Some(Err(why)) => return mismatch(format!("Mcp-Name {why}")),
            Some(Ok(named)) => named,
        };
        if let Some(name) = name
            && named != name
        {
            return mismatch(format!(
                "Mcp-Name is {} but the tool called is {}",
                name_excerpt(&named),
                name_excerpt(name)
            ));
        }
    }
    Ok(())
}

/// A header value without the optional whitespace around it (RFC 9110).
fn trim_ows(value: &str) -> &str {
    value.trim_matches([' ', '\t'])
}

/// A header value as the client meant it: trimmed, and decoded if it is a `=?base64?…?=` sentinel
/// (how values that are not header-safe travel). Invalid Base64 inside the sentinel is refused.
fn decoded_header(value: &HeaderValue) -> Result<String, String> {
    let text = value
        .to_str()
        .map_err(|_| "has characters a header value may not carry".to_string())?;
    let text = trim_ows(text);
    match text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| "is not valid base64-encoded UTF-8".to_string()),
        None => Ok(text.to_string()),
    }
}

/// Each argument the called tool marks with `x-mcp-header` must also travel as its
/// `Mcp-Param-{name}` header, with the same value (SEP-2243); a null or absent argument needs none.
fn param_headers_match(
    server: &McpServer,
    headers: &HeaderMap,
    params: Option<&Value>,
) -> Result<(), ErrorObject> {
    let mismatch = |what: String| {
        Err(ErrorObject::new(
            HEADER_MISMATCH,
            format!("Header mismatch: {what}"),
        ))
    };
    let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
        return Ok(());
    };
    let tools = server.tools();
    let Some(tool) = tools.registry.get(name) else {
        return Ok(());
    };
    let Some(properties) = tool
        .tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
    else {
        return Ok(());
    };
    let arguments = params.and_then(|p| p.get("arguments"));
    for (property, schema) in properties {
        let Some(header) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let value = match arguments.and_then(|a| a.get(property)) {
            None | Some(Value::Null) => continue,
            Some(value) => value,
        };
        let header_name = format!("Mcp-Param-{header}");
        let sent = match headers.get(header_name.as_str()).map(decoded_header) {
            None => {
                return mismatch(format!(
                    "{header_name} is missing but the arguments carry {property}"
                ));
            }
            Some(Err(why)) => return mismatch(format!("{header_name} {why}")),
            Some(Ok(sent)) => sent,
        };
        let agrees = match value {
            Value::String(text) => &sent == text,
            Value::Bool(flag) => sent == flag.to_string(),
            // Integers compare as numbers: "42.0" is 42.
            Value::Number(number) => sent
                .parse::<f64>()
                .is_ok_and(|n| Some(n) == number.as_f64()),
            _ => false,
        };
        if !agrees {
            return mismatch(format!(
                "{header_name} does not match the argument {property}"
            ));
        }
    }
    Ok(())
}
