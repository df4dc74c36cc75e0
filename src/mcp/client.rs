//! An MCP client: initialize, list tools (following cursors), call tools, receive notifications. It
//! speaks newline-delimited JSON to a child process or an in-memory pipe, or Streamable HTTP to a URL
//! (JSON or SSE responses, session ids, the GET stream for server notifications). The runner reaches
//! tools only through it, and `mcpick import` snapshots servers with it. It accepts both answers
//! servers give to an unknown tool: a JSON-RPC error or an `isError` result.

use super::jsonrpc::{ErrorObject, Message, RequestId, encode_notification, encode_request};
use super::server::LATEST_VERSION;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

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

type Pending = Arc<Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>>;

/// How messages reach the server.
enum Link {
    Lines(mpsc::UnboundedSender<String>),
    Http(HttpLink),
}

struct HttpLink {
    http: reqwest::Client,
    url: String,
    session_id: Mutex<Option<String>>,
    protocol_version: Mutex<Option<String>>,
}

/// A connected, initialized client.
pub struct McpClient {
    link: Link,
    pending: Pending,
    next_id: AtomicI64,
    notifications: tokio::sync::Mutex<mpsc::UnboundedReceiver<(String, Value)>>,
    notify_tx: mpsc::UnboundedSender<(String, Value)>,
    /// The server's `initialize` result.
    pub server_info: Value,
    /// Kept so the child process lives as long as the client (and is killed with it).
    _child: Option<tokio::process::Child>,
}

impl McpClient {
    /// Connects over a pair of byte streams speaking newline-delimited JSON.
    pub async fn connect_lines<R, W>(reader: R, writer: W) -> Result<McpClient, ClientError>
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
        client.initialize().await
    }

    /// Starts `command` with `args` and connects to its stdin/stdout.
    pub async fn spawn_stdio(command: &str, args: &[String]) -> Result<McpClient, ClientError> {
        let mut child = tokio::process::Command::new(command)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Spawn {
                command: command.to_string(),
                reason: e.to_string(),
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Spawn {
                command: command.to_string(),
                reason: "no pipes".into(),
            });
        };
        let (outgoing_tx, outgoing_rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(write_lines(stdin, outgoing_rx));
        let client = McpClient::unconnected(Link::Lines(outgoing_tx), Some(child));
        tokio::spawn(read_lines(
            stdout,
            Arc::clone(&client.pending),
            client.notify_tx.clone(),
        ));
        client.initialize().await
    }

    /// Connects to a Streamable HTTP endpoint such as `http://127.0.0.1:8080/mcp`.
    pub async fn connect_http(url: &str) -> Result<McpClient, ClientError> {
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .build()
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        let link = HttpLink {
            http,
            url: url.to_string(),
            session_id: Mutex::new(None),
            protocol_version: Mutex::new(None),
        };
        let client = McpClient::unconnected(Link::Http(link), None)
            .initialize()
            .await?;
        if let Link::Http(link) = &client.link {
            *lock(&link.protocol_version) = client
                .server_info
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
            client.open_http_notification_stream(link);
        }
        Ok(client)
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
            _child: child,
        }
    }

    async fn initialize(mut self) -> Result<McpClient, ClientError> {
        let params = json!({
            "protocolVersion": LATEST_VERSION,
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
        Ok(self)
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
                None => return Ok(tools),
            }
        }
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

    /// Sends a request and waits for its response.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, ClientError> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (reply_tx, reply_rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), reply_tx);
        let text = encode_request(&id, method, params.as_ref());
        let sent = match &self.link {
            Link::Lines(outgoing) => outgoing.send(text).map_err(|_| ClientError::Closed),
            Link::Http(link) => self.post(link, text, method == "initialize").await,
        };
        if let Err(e) = sent {
            lock(&self.pending).remove(&id);
            return Err(e);
        }
        let reply = tokio::time::timeout(REQUEST_TIMEOUT, reply_rx).await;
        lock(&self.pending).remove(&id);
        match reply {
            Err(_) => Err(ClientError::Timeout(REQUEST_TIMEOUT)),
            Ok(Err(_)) => Err(ClientError::Closed),
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
            Link::Http(link) => self.post(link, text, false).await,
        }
    }

    /// POSTs one message and routes whatever comes back (JSON, or an SSE stream read to its end).
    async fn post(
        &self,
        link: &HttpLink,
        body: String,
        initializing: bool,
    ) -> Result<(), ClientError> {
        let mut request = link
            .http
            .post(&link.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(session) = lock(&link.session_id).clone() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = lock(&link.protocol_version).clone() {
            request = request.header("mcp-protocol-version", version);
        }
        let response = request.send().await.map_err(http_error)?;
        let status = response.status();
        if initializing
            && let Some(session) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            *lock(&link.session_id) = Some(session.to_string());
        }
        if status.as_u16() == 202 {
            return Ok(());
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(ClientError::Http {
                status: status.as_u16(),
                body,
            });
        }
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if is_sse {
            // Read the stream in the background: a tool's progress arrives before its response.
            let pending = Arc::clone(&self.pending);
            let notify = self.notify_tx.clone();
            tokio::spawn(read_sse(response, pending, notify));
        } else {
            let bytes = response.bytes().await.map_err(http_error)?;
            route(&bytes, &self.pending, &self.notify_tx);
        }
        Ok(())
    }

    fn open_http_notification_stream(&self, link: &HttpLink) {
        let mut request = link
            .http
            .get(&link.url)
            .header("accept", "text/event-stream");
        if let Some(session) = lock(&link.session_id).clone() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = lock(&link.protocol_version).clone() {
            request = request.header("mcp-protocol-version", version);
        }
        let pending = Arc::clone(&self.pending);
        let notify = self.notify_tx.clone();
        tokio::spawn(async move {
            // A server without a GET stream answers 405: it simply sends no unsolicited notifications.
            if let Ok(response) = request.send().await
                && response.status().is_success()
            {
                read_sse(response, pending, notify).await;
            }
        });
    }
}

fn http_error(e: reqwest::Error) -> ClientError {
    ClientError::Io(std::io::Error::other(e.to_string()))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Delivers one incoming message: a response to its waiting request, a notification to the queue.
fn route(bytes: &[u8], pending: &Pending, notify: &mpsc::UnboundedSender<(String, Value)>) {
    match Message::parse(bytes) {
        Ok(Message::Response { id, outcome }) => {
            if let Some(waiter) = lock(pending).remove(&id) {
                let _ = waiter.send(outcome);
            }
        }
        Ok(Message::Notification { method, params }) => {
            let _ = notify.send((method, params.unwrap_or(Value::Null)));
        }
        // This client offers no capabilities, so a server request gets nothing to act on.
        Ok(Message::Request { .. }) => {}
        Err(rejection) => tracing::debug!(
            "ignoring unparseable server message: {}",
            rejection.error.message
        ),
    }
}

async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    pending: Pending,
    notify: mpsc::UnboundedSender<(String, Value)>,
) {
    let mut lines = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let text = line.trim_ascii();
                if !text.is_empty() {
                    route(text, &pending, &notify);
                }
            }
        }
    }
    // The server is gone: fail every waiting request rather than let it time out.
    lock(&pending).clear();
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut outgoing: mpsc::UnboundedReceiver<String>,
) {
    while let Some(message) = outgoing.recv().await {
        let mut bytes = message.into_bytes();
        bytes.push(b'\n');
        if writer.write_all(&bytes).await.is_err() || writer.flush().await.is_err() {
            break;
        }
    }
    // The client is gone: end the server's input. Dropping this half alone would not (the reading
    // half keeps a split stream open), so an in-memory session would wait for input forever and
    // every trial's session would stay in memory until the run ended.
    let _ = writer.shutdown().await;
}

/// Reads a `text/event-stream` body, routing the `data` of each event.
async fn read_sse(
    response: reqwest::Response,
    pending: Pending,
    notify: mpsc::UnboundedSender<(String, Value)>,
) {
    use futures_util::StreamExt;
    let mut stream = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    while let Some(Ok(chunk)) = stream.next().await {
        buffer.extend_from_slice(&chunk);
        while let Some(end) = find_event_end(&buffer) {
            let event: Vec<u8> = buffer.drain(..end).collect();
            let data = sse_data(&event);
            if !data.trim_ascii().is_empty() {
                route(&data, &pending, &notify);
            }
        }
    }
}

/// The end (exclusive, separator included) of the first complete event in `buffer`.
fn find_event_end(buffer: &[u8]) -> Option<usize> {
    let lf = buffer.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    let crlf = buffer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The joined `data:` lines of one event.
fn sse_data(event: &[u8]) -> Vec<u8> {
    let mut data = Vec::new();
    for line in event.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(rest) = line.strip_prefix(b"data:") {
            if !data.is_empty() {
                data.push(b'\n');
            }
            data.extend_from_slice(rest.strip_prefix(b" ").unwrap_or(rest));
        }
    }
    data
}
