//! An MCP client of both eras: it settles the era (`era`: a `server/discover` probe, or
//! `initialize`), lists tools (following cursors), calls tools and receives notifications. It
//! speaks newline-delimited JSON to a child process or an in-memory pipe, or Streamable HTTP to a URL
//! (JSON or SSE responses; session ids and the GET stream in the earlier era, per-request `_meta`,
//! headers and `subscriptions/listen` in 2026-07-28), or the 2024-11-05 HTTP+SSE transport
//! (`legacy_sse`); an HTTP server is reached with the headers its config gives (`http_endpoint`). The runner reaches tools only through it, and
//! `mcpick import` snapshots servers with it. It accepts both answers servers give to an unknown
//! tool: a JSON-RPC error or an `isError` result.

mod child_stderr;
mod era;
mod http_endpoint;
mod http_link;
mod launch;
mod legacy_sse;
mod wire;

pub use child_stderr::StderrLog;
pub use era::{Era, Negotiation, PROBE_TIMEOUT};
pub use http_endpoint::{HttpEndpoint, HttpTransport};
pub use launch::StdioLaunch;

use super::protocol::jsonrpc::{RequestId, encode_notification, encode_request};
use super::protocol::revision::{LATEST_SESSION_REVISION, META_SERVER_INFO, STATELESS_REVISIONS};
use era::{
    ProbeVerdict, classify_discover, classify_probe_error, header_params_of, standard_headers,
    with_meta,
};
use http_link::HttpLink;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use wire::{Pending, read_lines, write_lines};

/// How long a request may wait for its response.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("I/O error talking to the server: {0}")]
    Io(#[from] std::io::Error),
    #[error("the server closed the connection")]
    Closed,
    #[error("the server answered with error {code}: {message}")]
    Rpc { code: i64, message: String },
    #[error("the server's reply is not valid MCP: {0}")]
    Protocol(String),
    #[error("no reply within {0:?}")]
    Timeout(Duration),
    #[error("HTTP {status}: {body}")]
    Http { status: u16, body: String },
    #[error("cannot start {command:?}: {reason}")]
    Spawn { command: String, reason: String },
}

/// How messages reach the server.
enum Link {
    Lines(mpsc::UnboundedSender<String>),
    Http(HttpLink),
    LegacySse(legacy_sse::LegacySseLink),
}

/// A connected client, its era settled.
pub struct McpClient {
    link: Link,
    pending: Pending,
    next_id: AtomicI64,
    notifications: tokio::sync::Mutex<mpsc::UnboundedReceiver<(String, Value)>>,
    notify_tx: mpsc::UnboundedSender<(String, Value)>,
    /// The server's `initialize` result, or its `server/discover` result (null when the era was
    /// pinned without a probe).
    pub server_info: Value,
    pub era: Era,
    /// The protocol version spoken: the one `initialize` agreed, or the stateless one.
    pub protocol_version: String,
    /// Per tool, the arguments its listing marks `x-mcp-header` and their header names.
    header_params: Mutex<HashMap<String, Vec<(String, String)>>>,
    /// Kept so the child process lives as long as the client (and is killed with it).
    _child: Option<tokio::process::Child>,
    /// What a child process wrote on standard error.
    stderr: StderrLog,
    /// How long a request waits for its response (`REQUEST_TIMEOUT` unless the launch says).
    request_timeout: Duration,
}

impl McpClient {
    /// Connects over a pair of byte streams speaking newline-delimited JSON, probing the era.
    pub async fn connect_lines<R, W>(reader: R, writer: W) -> Result<McpClient, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        McpClient::connect_lines_with(reader, writer, Negotiation::Auto).await
    }

    /// Connects over a pair of byte streams speaking newline-delimited JSON.
    pub async fn connect_lines_with<R, W>(
        reader: R,
        writer: W,
        negotiation: Negotiation,
    ) -> Result<McpClient, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outgoing_tx, outgoing_rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(write_lines(writer, outgoing_rx));
        let client = McpClient::unconnected(Link::Lines(outgoing_tx), None);
        tokio::spawn(read_lines(
            reader,
            Arc::clone(&client.pending),
            client.notify_tx.clone(),
        ));
        client.negotiate(negotiation).await
    }

    /// Starts `command` with `args` and connects to its stdin/stdout, probing the era.
    pub async fn spawn_stdio(command: &str, args: &[String]) -> Result<McpClient, ClientError> {
        McpClient::spawn_stdio_with(command, args, Negotiation::Auto).await
    }

    /// Starts `command` with `args` and connects to its stdin/stdout.
    pub async fn spawn_stdio_with(
        command: &str,
        args: &[String],
        negotiation: Negotiation,
    ) -> Result<McpClient, ClientError> {
        let launch = StdioLaunch::new(command, args);
        McpClient::spawn(&launch, negotiation, StderrLog::default()).await
    }

    /// Connects to a Streamable HTTP endpoint such as `http://127.0.0.1:8080/mcp`, probing the era.
    pub async fn connect_http(url: &str) -> Result<McpClient, ClientError> {
        McpClient::connect_http_with(url, Negotiation::Auto).await
    }

    /// Connects to a Streamable HTTP endpoint.
    pub async fn connect_http_with(
        url: &str,
        negotiation: Negotiation,
    ) -> Result<McpClient, ClientError> {
        McpClient::connect_http_within(url, negotiation, REQUEST_TIMEOUT).await
    }

    /// Connects to a Streamable HTTP endpoint, each request waiting up to `request_timeout`.
    pub async fn connect_http_within(
        url: &str,
        negotiation: Negotiation,
        request_timeout: Duration,
    ) -> Result<McpClient, ClientError> {
        McpClient::connect_endpoint(&HttpEndpoint::streamable(url), negotiation, request_timeout)
            .await
    }

    fn unconnected(link: Link, child: Option<tokio::process::Child>) -> McpClient {
        let (notify_tx, notify_rx) = mpsc::unbounded_channel();
        McpClient {
            link,
            pending: Arc::default(),
            next_id: AtomicI64::new(1),
            notifications: tokio::sync::Mutex::new(notify_rx),
            notify_tx,
            server_info: Value::Null,
            era: Era::Session,
            protocol_version: String::new(),
            header_params: Mutex::default(),
            _child: child,
            stderr: StderrLog::default(),
            request_timeout: REQUEST_TIMEOUT,
        }
    }

    /// Settles the era: a probe, a pin, or the handshake.
    async fn negotiate(mut self, negotiation: Negotiation) -> Result<McpClient, ClientError> {
        let stateless = STATELESS_REVISIONS[0];
        match negotiation {
            Negotiation::Sessions => return self.initialize().await,
            Negotiation::Stateless => {}
            Negotiation::Auto => {
                let on_stdio = matches!(self.link, Link::Lines(_));
                let wait = if on_stdio {
                    PROBE_TIMEOUT.min(self.request_timeout)
                } else {
                    self.request_timeout
                };
                let answer = self
                    .send_request("server/discover", None, Some(stateless), wait)
                    .await;
                let verdict = match answer {
                    Ok(result) => {
                        let verdict = classify_discover(&result);
                        self.server_info = result;
                        verdict
                    }
                    Err(error) => classify_probe_error(error, on_stdio)?,
                };
                match verdict {
                    ProbeVerdict::Session => return self.initialize().await,
                    ProbeVerdict::Stateless(version) => {
                        self.protocol_version = version.clone();
                        self.era = Era::Stateless(version);
                        return Ok(self);
                    }
                }
            }
        }
        self.protocol_version = stateless.to_string();
        self.era = Era::Stateless(stateless.to_string());
        Ok(self)
    }

    /// Whether the connection speaks the 2026-07-28 era.
    pub fn is_stateless(&self) -> bool {
        matches!(self.era, Era::Stateless(_))
    }

    /// The server's name, from `initialize`'s `serverInfo` or a stateless result's `_meta`.
    pub fn server_name(&self) -> Option<&str> {
        self.server_identity("name")
    }

    /// The version the server reports of itself, if it does.
    pub fn server_version(&self) -> Option<&str> {
        self.server_identity("version")
    }

    /// What the server asks hosts to tell the model (`instructions` of `initialize`'s result, or
    /// of `server/discover`'s), if it says anything.
    pub fn server_instructions(&self) -> Option<&str> {
        self.server_info
            .get("instructions")
            .and_then(Value::as_str)
            .filter(|text| !text.trim().is_empty())
    }

    fn server_identity(&self, field: &str) -> Option<&str> {
        self.server_info
            .get("serverInfo")
            .or_else(|| self.server_info.get("_meta")?.get(META_SERVER_INFO))
            .and_then(|info| info.get(field))
            .and_then(Value::as_str)
    }

    /// What a server started on stdio has written on standard error so far (lossy UTF-8).
    pub fn server_stderr(&self) -> String {
        self.stderr.text()
    }

    async fn initialize(mut self) -> Result<McpClient, ClientError> {
        let params = json!({
            "protocolVersion": LATEST_SESSION_REVISION,
            "capabilities": {},
            "clientInfo": { "name": "mcpick", "version": env!("CARGO_PKG_VERSION") },
        });
        self.server_info = self.request("initialize", Some(params)).await?;
        if self
            .server_info
            .get("protocolVersion")
            .and_then(Value::as_str)
            .is_none()
        {
            return Err(ClientError::Protocol(
                "initialize result has no protocolVersion".into(),
            ));
        }
        self.notify("notifications/initialized", None).await?;
        self.era = Era::Session;
        self.protocol_version = self.server_info["protocolVersion"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        Ok(self)
    }

    /// Asks a stateless server to announce tool-list changes (`subscriptions/listen`); they arrive
    /// through `next_notification`, as the earlier era's do. The listen is never answered while it
    /// is open, so nothing waits for it.
    pub fn listen_for_changes(&self) {
        let Era::Stateless(version) = &self.era else {
            return;
        };
        let method = "subscriptions/listen";
        let params = with_meta(
            Some(json!({ "notifications": { "toolsListChanged": true } })),
            version,
        );
        let text = encode_request(
            &RequestId::String("mcpick-listen".into()),
            method,
            Some(&params),
        );
        match &self.link {
            Link::Lines(outgoing) => {
                let _ = outgoing.send(text);
            }
            Link::Http(link) => {
                let mut request = link
                    .http
                    .post(&link.url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", version.as_str())
                    .body(text);
                for (name, value) in standard_headers(method, &params, None) {
                    request = request.header(name, value);
                }
                self.stream_in_background(request);
            }
            // The 2024-11-05 transport has no stateless era to listen in.
            Link::LegacySse(_) => {}
        }
    }

    /// Every tool the server lists, following `nextCursor` to the end.
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let mut page = self.request("tools/list", params).await?;
            let Some(Value::Array(batch)) = page.get_mut("tools").map(Value::take) else {
                return Err(ClientError::Protocol(
                    "tools/list result has no \"tools\" array".into(),
                ));
            };
            tools.extend(batch);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !seen.insert(next.to_string()) => {
                    return Err(ClientError::Protocol(format!(
                        "tools/list repeated cursor {next:?}"
                    )));
                }
                Some(next) => cursor = Some(next.to_string()),
                None => break,
            }
        }
        // A stateless call repeats its `x-mcp-header` arguments as headers: remember which they are.
        *lock(&self.header_params) = header_params_of(&tools).into_iter().collect();
        Ok(tools)
    }

    /// Calls a tool; the result is the server's `CallToolResult` (check its `isError`).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        self.request(
            "tools/call",
            Some(json!({ "name": name, "arguments": arguments })),
        )
        .await
    }

    /// Waits up to `wait` for the next server notification: `(method, params)`.
    pub async fn next_notification(&self, wait: Duration) -> Option<(String, Value)> {
        let mut notifications = self.notifications.lock().await;
        tokio::time::timeout(wait, notifications.recv())
            .await
            .ok()
            .flatten()
    }

    /// The stateless version requests carry in `_meta`, if the connection speaks that revision.
    fn stateless_version(&self) -> Option<&str> {
        match &self.era {
            Era::Stateless(version) => Some(version),
            Era::Session => None,
        }
    }

    /// Sends a request and waits for its response.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, ClientError> {
        self.send_request(
            method,
            params,
            self.stateless_version(),
            self.request_timeout,
        )
        .await
    }

    /// Sends a request — with the stateless `_meta` and headers when `stateless` names a version — and
    /// waits up to `wait` for its response.
    async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        stateless: Option<&str>,
        wait: Duration,
    ) -> Result<Value, ClientError> {
        let params = match stateless {
            Some(version) => Some(with_meta(params, version)),
            None => params,
        };
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (reply_tx, reply_rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), reply_tx);
        let text = encode_request(&id, method, params.as_ref());
        let sent = match &self.link {
            Link::Lines(outgoing) => outgoing.send(text).map_err(|_| ClientError::Closed),
            Link::Http(link) => {
                let headers = stateless.map(|version| {
                    let tool = params
                        .as_ref()
                        .and_then(|p| p.get("name"))
                        .and_then(Value::as_str);
                    let header_params =
                        tool.and_then(|t| lock(&self.header_params).get(t).cloned());
                    let mut headers = standard_headers(
                        method,
                        params.as_ref().unwrap_or(&Value::Null),
                        header_params.as_ref(),
                    );
                    headers.push(("mcp-protocol-version".into(), version.to_string()));
                    headers
                });
                self.post(link, text, method == "initialize", headers).await
            }
            Link::LegacySse(link) => link.post(text).await,
        };
        if let Err(e) = sent {
            lock(&self.pending).remove(&id);
            return Err(e);
        }
        let reply = tokio::time::timeout(wait, reply_rx).await;
        lock(&self.pending).remove(&id);
        match reply {
            Err(_) => Err(ClientError::Timeout(wait)),
            Ok(Err(_)) => Err(ClientError::Closed),
            Ok(Ok(Ok(result))) if result["resultType"] == "input_required" => {
                Err(ClientError::Protocol(format!(
                    "the server asked for input to {method} (input_required), which this client, declaring no capabilities, cannot give"
                )))
            }
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(error))) => Err(ClientError::Rpc {
                code: error.code,
                message: error.message,
            }),
        }
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let text = encode_notification(method, params.as_ref());
        match &self.link {
            Link::Lines(outgoing) => outgoing.send(text).map_err(|_| ClientError::Closed),
            Link::Http(link) => {
                let headers = self.stateless_version().map(|version| {
                    let mut headers = standard_headers(method, &Value::Null, None);
                    headers.push(("mcp-protocol-version".into(), version.to_string()));
                    headers
                });
                self.post(link, text, false, headers).await
            }
            Link::LegacySse(link) => link.post(text).await,
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
