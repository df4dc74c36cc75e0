//! Which revision of MCP a connection speaks, and how the client finds out. `Negotiation::Auto`
//! probes with `server/discover` first, as the official SDKs' `auto` modes do, and falls back to the
//! `initialize` handshake when the answer is not a usable `DiscoverResult` (an error, a 4xx, or on
//! stdio no answer within `PROBE_TIMEOUT`); `Stateless` pins 2026-07-28 without probing, `Sessions`
//! never probes. In the stateless revision every request carries the version and the client's
//! (empty) capabilities in `_meta`, and on HTTP its method, name and `x-mcp-header` arguments as
//! headers.

use super::ClientError;
use crate::mcp::protocol::revision::{
    META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, STATELESS_REVISIONS,
};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// How long a stdio server may take to answer the `server/discover` probe before it is taken for
/// a server of the session revisions (one that ignores a request it does not know before `initialize`).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// How the client picks the revision it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Negotiation {
    /// Probe `server/discover`; fall back to `initialize`.
    #[default]
    Auto,
    /// The stateless revision 2026-07-28 without a probe (a server known to speak it, like
    /// mcpick's own).
    Stateless,
    /// The `initialize` handshake and a session, as before 2026-07-28.
    Sessions,
}

/// The revision a connection settled on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    /// A session opened by `initialize`, at the version it agreed.
    Session,
    /// Stateless requests at this version.
    Stateless(String),
}

/// What the probe's answer means.
pub enum ProbeVerdict {
    Stateless(String),
    Session,
}

/// Reads a result to `server/discover`: stateless if it names a stateless revision this client speaks.
pub fn classify_discover(result: &Value) -> ProbeVerdict {
    let spoken = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|v| STATELESS_REVISIONS.contains(v));
    match spoken {
        Some(version) if result.get("capabilities").is_some_and(Value::is_object) => {
            ProbeVerdict::Stateless(version.to_string())
        }
        _ => ProbeVerdict::Session,
    }
}

/// Reads an error answer to `server/discover`. Errors that say the server is there but does not
/// speak the stateless revision mean a session one; authentication failures and server faults are reported, not
/// guessed.
pub fn classify_probe_error(
    error: ClientError,
    on_stdio: bool,
) -> Result<ProbeVerdict, ClientError> {
    match error {
        ClientError::Rpc { .. } => Ok(ProbeVerdict::Session),
        ClientError::Http { status, .. } if status == 401 || status == 403 => {
            Err(ClientError::Http {
                status,
                body: "the server refused the discover probe: authentication required".into(),
            })
        }
        ClientError::Http { status, .. } if (400..500).contains(&status) => {
            Ok(ProbeVerdict::Session)
        }
        ClientError::Timeout(_) if on_stdio => Ok(ProbeVerdict::Session),
        other => Err(other),
    }
}

/// The `_meta` a stateless request carries.
pub fn request_meta(version: &str) -> Value {
    json!({
        META_PROTOCOL_VERSION: version,
        META_CLIENT_CAPABILITIES: {},
        META_CLIENT_INFO: { "name": "mcpick", "version": env!("CARGO_PKG_VERSION") },
    })
}

/// `params` with the stateless `_meta` merged in (a `progressToken` already there is kept).
pub fn with_meta(params: Option<Value>, version: &str) -> Value {
    let mut params = match params {
        Some(Value::Object(params)) => params,
        _ => Map::new(),
    };
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if let (Some(meta), Value::Object(added)) = (meta.as_object_mut(), request_meta(version)) {
        meta.extend(added);
    }
    Value::Object(params)
}

/// The headers a stateless HTTP request repeats from its body: `Mcp-Method`, `Mcp-Name` for a call,
/// and `Mcp-Param-{name}` for each argument the tool marks with `x-mcp-header`
/// (`header_params`: argument → header name, from the tool's listing).
pub fn standard_headers(
    method: &str,
    params: &Value,
    header_params: Option<&Vec<(String, String)>>,
) -> Vec<(String, String)> {
    let mut headers = vec![("mcp-method".to_string(), method.to_string())];
    if method == "tools/call"
        && let Some(name) = params.get("name").and_then(Value::as_str)
    {
        headers.push(("mcp-name".into(), header_value(name)));
        for (argument, header) in header_params.into_iter().flatten() {
            let value = match params.get("arguments").and_then(|a| a.get(argument)) {
                Some(Value::String(text)) => header_value(text),
                Some(Value::Bool(flag)) => flag.to_string(),
                Some(Value::Number(number)) => number.to_string(),
                _ => continue,
            };
            headers.push((format!("mcp-param-{header}"), value));
        }
    }
    headers
}

/// A value as a header carries it: verbatim when it is visible ASCII without surrounding spaces,
/// otherwise the `=?base64?…?=` sentinel the revision defines.
fn header_value(text: &str) -> String {
    // A literal that looks like the sentinel would be decoded by the server: encode it too.
    let looks_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    let safe = !text.is_empty()
        && text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !looks_encoded;
    if safe {
        text.to_string()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(text))
    }
}

/// For each listed tool with `x-mcp-header` properties: its name and (argument, header) pairs.
pub fn header_params_of(tools: &[Value]) -> Vec<(String, Vec<(String, String)>)> {
    tools
        .iter()
        .filter_map(|tool| {
            let name = tool.get("name")?.as_str()?;
            let properties = tool.get("inputSchema")?.get("properties")?.as_object()?;
            let pairs: Vec<(String, String)> = properties
                .iter()
                .filter_map(|(argument, schema)| {
                    let header = schema.get("x-mcp-header")?.as_str()?;
                    Some((argument.clone(), header.to_string()))
                })
                .collect();
            (!pairs.is_empty()).then(|| (name.to_string(), pairs))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_answer_decides_the_era() {
        let discovered =
            json!({"supportedVersions": ["2026-07-28", "2025-11-25"], "capabilities": {}});
        assert!(matches!(
            classify_discover(&discovered),
            ProbeVerdict::Stateless(v) if v == "2026-07-28"
        ));
        let only_old = json!({"supportedVersions": ["2025-11-25"], "capabilities": {}});
        assert!(matches!(
            classify_discover(&only_old),
            ProbeVerdict::Session
        ));
        let refused = ClientError::Rpc {
            code: -32601,
            message: "no".into(),
        };
        assert!(matches!(
            classify_probe_error(refused, true),
            Ok(ProbeVerdict::Session)
        ));
        let not_found = ClientError::Http {
            status: 404,
            body: String::new(),
        };
        assert!(matches!(
            classify_probe_error(not_found, false),
            Ok(ProbeVerdict::Session)
        ));
        let auth = ClientError::Http {
            status: 401,
            body: String::new(),
        };
        assert!(classify_probe_error(auth, false).is_err());
        let slow = || ClientError::Timeout(PROBE_TIMEOUT);
        assert!(matches!(
            classify_probe_error(slow(), true),
            Ok(ProbeVerdict::Session)
        ));
        assert!(classify_probe_error(slow(), false).is_err());
    }

    #[test]
    fn stateless_requests_carry_meta_and_matching_headers() {
        let params = with_meta(
            Some(
                json!({"name": "t", "arguments": {"region": "Zürich", "n": 3}, "_meta": {"progressToken": 1}}),
            ),
            "2026-07-28",
        );
        assert_eq!(params["_meta"]["progressToken"], 1);
        assert_eq!(params["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
        let pairs = vec![
            ("region".to_string(), "Region".to_string()),
            ("n".into(), "N".into()),
        ];
        let headers = standard_headers("tools/call", &params, Some(&pairs));
        assert!(headers.contains(&("mcp-name".into(), "t".into())));
        assert!(headers.contains(&(
            "mcp-param-Region".into(),
            format!("=?base64?{}?=", STANDARD.encode("Zürich"))
        )));
        assert!(headers.contains(&("mcp-param-N".into(), "3".into())));
    }
}
