//! The 2026-07-28 era, beside the sessions of the earlier ones (a "dual-era" server). A modern
//! request needs no `initialize` and no session: it carries the protocol version and the client's
//! capabilities in `params._meta` (`io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities`,
//! optionally `…/logLevel`), and is answered on a session of its own that lives as long as the
//! request. Here: telling the eras apart, checking a request's `_meta` (missing fields are
//! `-32602`, a version this server does not speak is `UnsupportedProtocolVersion`, `-32022`, with
//! the versions it does), `server/discover`, and the methods the era removed (`-32601`);
//! `subscriptions/listen` is checked here and streamed by the transport (`subscriptions`). Results of
//! the modern era carry `resultType` and the server's identity in `_meta` (`Session::encode_result`).

use super::jsonrpc::{
    ErrorObject, INVALID_PARAMS, METHOD_NOT_FOUND, Message, RequestId, encode_error,
};
use super::server::{SUPPORTED_VERSIONS, name_excerpt};
use super::session::{LogLevel, McpServer, Outbox, Session};
use super::subscriptions::Listen;
use serde_json::{Value, json};
use std::sync::Arc;

/// Protocol versions of the modern era this server speaks, newest first.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// The requested protocol version is not one this server speaks (`data`: `supported`, `requested`).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// An HTTP header disagrees with the body it travels with (`MCP-Protocol-Version`, `Mcp-Method`,
/// `Mcp-Name`).
pub const HEADER_MISMATCH: i64 = -32020;

/// Whether a message speaks the modern era: it asks `server/discover`, or its params carry the
/// protocol version in `_meta`. `initialize` and everything sent on a session is the legacy era.
pub fn speaks_modern(message: &Message) -> bool {
    match message {
        Message::Request { method, params, .. } | Message::Notification { method, params } => {
            method == "server/discover" || declared_version(params.as_ref()).is_some()
        }
        Message::Response { .. } => false,
    }
}

/// The protocol version a request's `_meta` declares.
pub fn declared_version(params: Option<&Value>) -> Option<&str> {
    params?.get("_meta")?.get(META_PROTOCOL_VERSION)?.as_str()
}

/// What a modern request's `_meta` says about its client.
#[derive(Debug, Clone)]
pub struct RequestMeta {
    pub version: String,
    pub client_capabilities: Value,
    /// Log messages below this level are not sent; `None`: none are (the client asked for none).
    pub log_level: Option<LogLevel>,
}

/// Reads and checks a modern request's `_meta`: both required fields present, the version one
/// this server speaks.
pub fn request_meta(params: Option<&Value>) -> Result<RequestMeta, ErrorObject> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            ErrorObject::new(
                INVALID_PARAMS,
                format!(
                    "Invalid params: _meta with {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES} is required"
                ),
            )
        })?;
    let version = meta
        .get(META_PROTOCOL_VERSION)
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ErrorObject::new(
                INVALID_PARAMS,
                format!("Invalid params: _meta.{META_PROTOCOL_VERSION} (a string) is required"),
            )
        })?;
    let client_capabilities = meta
        .get(META_CLIENT_CAPABILITIES)
        .filter(|c| c.is_object())
        .cloned()
        .ok_or_else(|| {
            ErrorObject::new(
                INVALID_PARAMS,
                format!("Invalid params: _meta.{META_CLIENT_CAPABILITIES} (an object) is required"),
            )
        })?;
    if !MODERN_VERSIONS.contains(&version) {
        return Err(unsupported_version(version));
    }
    let log_level = meta
        .get(META_LOG_LEVEL)
        .and_then(Value::as_str)
        .and_then(LogLevel::parse);
    Ok(RequestMeta {
        version: version.to_string(),
        client_capabilities,
        log_level,
    })
}

/// Every version this server speaks, newest first: the modern era's, then the sessions'.
fn supported_versions() -> Vec<&'static str> {
    MODERN_VERSIONS
        .iter()
        .chain(&SUPPORTED_VERSIONS)
        .copied()
        .collect()
}

/// `UnsupportedProtocolVersion`, listing every version this server speaks, legacy ones included.
pub fn unsupported_version(requested: &str) -> ErrorObject {
    let supported = supported_versions();
    ErrorObject {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: format!(
            "Unsupported protocol version {}: this server speaks {}",
            name_excerpt(requested),
            supported.join(", ")
        ),
        data: Some(json!({ "supported": supported, "requested": requested })),
    }
}

/// Answers one modern message on a session that lives as long as the request. A valid
/// `subscriptions/listen` is not answered here but handed back: its stream belongs to the transport.
#[must_use]
pub fn dispatch_modern(
    server: &Arc<McpServer>,
    message: Message,
    outbox: &Outbox,
) -> Option<Listen> {
    let Message::Request { id, method, params } = message else {
        // Notifications and responses belong to no request here: nothing to answer.
        return None;
    };
    match request_meta(params.as_ref()) {
        Ok(meta) => answer_modern(server, id, method, params, meta, outbox),
        Err(error) => {
            let _ = outbox.send(encode_error(Some(&id), &error));
            None
        }
    }
}

/// Answers a modern request whose `_meta` has been read and checked (`request_meta`).
#[must_use]
pub fn answer_modern(
    server: &Arc<McpServer>,
    id: RequestId,
    method: String,
    params: Option<Value>,
    meta: RequestMeta,
    outbox: &Outbox,
) -> Option<Listen> {
    if method == "subscriptions/listen" {
        match Listen::from_params(id.clone(), params.as_ref()) {
            Ok(listen) => return Some(listen),
            Err(error) => {
                let _ = outbox.send(encode_error(Some(&id), &error));
                return None;
            }
        }
    }
    let session = Session::for_request(
        Arc::clone(server),
        meta.version,
        meta.client_capabilities,
        meta.log_level,
    );
    match method.as_str() {
        "server/discover" => {
            let _ = outbox.send(session.encode_result(&id, discover_result(server)));
        }
        "tools/list" | "tools/call" => {
            session.dispatch(Message::Request { id, method, params }, outbox)
        }
        _ => {
            let _ = outbox.send(method_not_found(&id, &method));
        }
    }
    None
}

/// What `server/discover` says: the versions spoken, the capabilities, who the server is.
fn discover_result(server: &McpServer) -> Value {
    // Changes are announced on `subscriptions/listen`. Who the server is goes in `_meta`
    // (`encode_result`).
    let mut result = json!({
        "supportedVersions": supported_versions(),
        "capabilities": { "tools": { "listChanged": true }, "logging": {} },
        "ttlMs": 0,
        "cacheScope": "public",
    });
    if let Some(instructions) = &server.config.instructions {
        result["instructions"] = json!(instructions);
    }
    result
}

/// `-32601` for a method the modern era does not have here (`initialize`, `ping`,
/// `logging/setLevel`, resources, prompts, …).
fn method_not_found(id: &RequestId, method: &str) -> String {
    encode_error(
        Some(id),
        &ErrorObject::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", name_excerpt(method)),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(version: &str) -> Value {
        json!({"_meta": {META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: {}}})
    }

    #[test]
    fn the_eras_are_told_apart_by_meta_or_discover() {
        let request = |method: &str, params: Option<Value>| Message::Request {
            id: RequestId::Number(1),
            method: method.into(),
            params,
        };
        assert!(speaks_modern(&request(
            "tools/list",
            Some(meta("2026-07-28"))
        )));
        assert!(speaks_modern(&request("server/discover", None)));
        assert!(!speaks_modern(&request("initialize", Some(json!({})))));
        assert!(!speaks_modern(&request("tools/list", None)));
    }

    #[test]
    fn meta_is_checked_field_by_field() {
        assert_eq!(request_meta(None).unwrap_err().code, INVALID_PARAMS);
        let no_capabilities = json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}});
        assert_eq!(
            request_meta(Some(&no_capabilities)).unwrap_err().code,
            INVALID_PARAMS
        );
        let unknown = request_meta(Some(&meta("v999.0.0"))).unwrap_err();
        assert_eq!(unknown.code, UNSUPPORTED_PROTOCOL_VERSION);
        let data = unknown.data.unwrap();
        assert_eq!(data["requested"], "v999.0.0");
        assert_eq!(data["supported"][0], "2026-07-28");
        let ok = request_meta(Some(&meta("2026-07-28"))).unwrap();
        assert_eq!((ok.version.as_str(), ok.log_level), ("2026-07-28", None));
    }
}
