//! The protocol's revisions and the vocabulary every layer shares about them: the revisions this
//! server speaks — 2025-11-25 and earlier on sessions opened by `initialize`, and 2026-07-28's
//! stateless requests, each carrying its version and the client's capabilities in `params._meta` —
//! how a message tells which it speaks, a stateless request's `_meta` read and checked (missing
//! fields are `-32602`, a version not spoken is `UnsupportedProtocolVersion`, `-32022`, with the
//! versions that are), the `_meta` keys and error codes the revisions define, MCP's logging levels,
//! and how a client's text is excerpted in an error. Pure: nothing here holds state or answers.

use super::jsonrpc::{ErrorObject, INVALID_PARAMS, Message};
use serde_json::{Value, json};

/// Revisions spoken on sessions opened by `initialize`, newest first.
pub const SESSION_REVISIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The newest session revision: what `initialize` agrees to when asked for one it does not speak.
pub const LATEST_SESSION_REVISION: &str = SESSION_REVISIONS[0];
/// Stateless revisions (every request self-contained, no `initialize`), newest first.
pub const STATELESS_REVISIONS: [&str; 1] = ["2026-07-28"];

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Where a stateless result names the server that answered it.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Where a listen's notifications carry the id of the listen request.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The requested protocol version is not one this server speaks (`data`: `supported`, `requested`).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// An HTTP header disagrees with the body it travels with (`MCP-Protocol-Version`, `Mcp-Method`,
/// `Mcp-Name`).
pub const HEADER_MISMATCH: i64 = -32020;
/// `MissingRequiredClientCapability`: the request cannot proceed without a capability the client
/// did not declare (`data.requiredCapabilities`).
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

/// Whether a message speaks a stateless revision: it asks `server/discover`, or its params carry
/// the protocol version in `_meta`. `initialize` and everything sent on a session speak a session
/// revision.
pub fn speaks_stateless(message: &Message) -> bool {
    match message {
        Message::Request { method, params, .. } | Message::Notification { method, params } => {
            method == "server/discover" || declared_version(params.as_ref()).is_some()
        }
        Message::Response { .. } => false,
    }
}

/// What a stateless request names in its `Mcp-Name` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedTarget {
    /// The tool a `tools/call` calls (its `name`); its `x-mcp-header` arguments travel as headers.
    Tool,
}

/// What a request of `method` names in `Mcp-Name`, if anything. This server serves no prompts or
/// resources, whose requests would name theirs too.
pub fn named_target(method: &str) -> Option<NamedTarget> {
    (method == "tools/call").then_some(NamedTarget::Tool)
}

/// The protocol version a request's `_meta` declares.
pub fn declared_version(params: Option<&Value>) -> Option<&str> {
    params?.get("_meta")?.get(META_PROTOCOL_VERSION)?.as_str()
}

/// What a stateless request's `_meta` says about its client.
#[derive(Debug, Clone)]
pub struct RequestMeta {
    pub version: String,
    pub client_capabilities: Value,
    /// Log messages below this level are not sent; `None`: none are (the client asked for none).
    pub log_level: Option<LogLevel>,
}

/// Reads and checks a stateless request's `_meta`: both required fields present, the version one
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
    if !STATELESS_REVISIONS.contains(&version) {
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

/// Every version this server speaks, newest first: the stateless revisions', then the sessions'.
pub fn all_revisions() -> Vec<&'static str> {
    STATELESS_REVISIONS
        .iter()
        .chain(&SESSION_REVISIONS)
        .copied()
        .collect()
}

/// `UnsupportedProtocolVersion`, listing every version this server speaks, session revisions included.
pub fn unsupported_version(requested: &str) -> ErrorObject {
    let supported = all_revisions();
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

/// A client's text as an error repeats it: the first 100 characters, so a 50 MB method name is
/// not echoed back whole.
pub fn name_excerpt(name: &str) -> String {
    match name.char_indices().nth(100) {
        Some((cut, _)) => format!("{}… ({} bytes)", &name[..cut], name.len()),
        None => name.to_string(),
    }
}

/// MCP logging levels, least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub fn parse(text: &str) -> Option<LogLevel> {
        Some(match text {
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "notice" => LogLevel::Notice,
            "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            "critical" => LogLevel::Critical,
            "alert" => LogLevel::Alert,
            "emergency" => LogLevel::Emergency,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::protocol::jsonrpc::RequestId;

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
        assert!(speaks_stateless(&request(
            "tools/list",
            Some(meta("2026-07-28"))
        )));
        assert!(speaks_stateless(&request("server/discover", None)));
        assert!(!speaks_stateless(&request("initialize", Some(json!({})))));
        assert!(!speaks_stateless(&request("tools/list", None)));
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
