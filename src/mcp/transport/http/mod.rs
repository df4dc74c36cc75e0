//! Streamable HTTP on one `/mcp` endpoint. For the session revisions (2025-11-25 and earlier): POST
//! carries client messages (a request is answered with JSON, or — when the method layer says
//! notifications may come first, `methods::may_notify_first` — with an SSE stream that ends after the
//! response); GET opens the session's stream for server notifications such as `tools/list_changed`;
//! DELETE ends a session. Stateless requests (2026-07-28) go to `stateless`. Every request passes the
//! header rules of `guard` (DNS rebinding, `Accept`, `Content-Type`, `MCP-Protocol-Version`) before
//! any JSON is read, within the size and time bounds of `bounded_request`; sessions are capped at
//! `MAX_SESSIONS`; connections are accepted by `listener`, responses framed by `response`. The server
//! takes an already-bound listener, so tests bind port 0.

mod guard;
mod listener;
mod response;
mod stateless;

use crate::mcp::methods::{answer_on_session, may_notify_first};
use crate::mcp::protocol::jsonrpc::{Message, encode_error};
use crate::mcp::protocol::notifications::tools_list_changed;
use crate::mcp::protocol::revision::speaks_stateless;
use crate::mcp::state::server::McpServer;
use crate::mcp::state::session::Session;
// The same bound as a stdio line, so one message size works on both transports.
use super::stdio::MAX_LINE_BYTES;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use guard::{accepts, guard, guard_host, is_json_body};
use listener::serve_connections;
use response::{json_response, plain, sse_response};
use stateless::handle_stateless_post;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc};

/// Serves `/mcp` on `listener` until `shutdown` completes.
pub async fn serve_http(
    server: Arc<McpServer>,
    listener: TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_http_with(server, listener, shutdown, SESSION_IDLE_TIMEOUT).await
}

/// A session nobody has used for this long, and that has no GET stream open, is forgotten: clients
/// that vanish without a DELETE would otherwise hold memory for as long as the server runs.
pub const SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// How long a request may take to arrive whole (its body included) and be answered, where the
/// answer is not a stream: a client that declares a body and never sends it is cut off.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A body declared larger than a message may be is refused before any of it is read, and a request
/// that does not arrive within `REQUEST_TIMEOUT` gets 408.
async fn bounded_request(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_LINE_BYTES as u64) {
        return plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Payload Too Large: a message may be at most 64 MiB",
        );
    }
    match tokio::time::timeout(REQUEST_TIMEOUT, next.run(request)).await {
        Ok(response) => response,
        Err(_) => plain(
            StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the request did not arrive within 30 s",
        ),
    }
}

/// Sessions kept at once; past it, opening one forgets the least recently used idle one.
pub const MAX_SESSIONS: usize = 1024;

/// `serve_http` with a chosen idle timeout for sessions.
pub async fn serve_http_with(
    server: Arc<McpServer>,
    listener: TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    idle_timeout: Duration,
) -> std::io::Result<()> {
    let state = Arc::new(HttpState {
        server,
        sessions: Mutex::default(),
        idle_timeout,
    });
    let janitor = tokio::spawn(forget_idle_sessions(Arc::clone(&state)));
    let app = Router::new()
        .route(
            "/mcp",
            post(handle_post).get(handle_get).delete(handle_delete),
        )
        .layer(DefaultBodyLimit::max(MAX_LINE_BYTES))
        .layer(axum::middleware::from_fn(bounded_request))
        .with_state(state);
    let served = serve_connections(listener, app, shutdown).await;
    janitor.abort();
    served
}

struct HttpState {
    server: Arc<McpServer>,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    idle_timeout: Duration,
}

struct HttpSession {
    session: Arc<Session>,
    /// The open GET stream, if any: server notifications go there and nowhere else.
    get_stream: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>,
    /// Event ids, unique within the session across all of its streams.
    next_event: Arc<AtomicU64>,
    notifier: tokio::task::AbortHandle,
    last_active: Mutex<Instant>,
}

impl HttpSession {
    fn touch(&self) {
        *self.last_active.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    fn is_idle(&self, timeout: Duration) -> bool {
        let stream_open = self
            .get_stream
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|s| !s.is_closed());
        !stream_open
            && self
                .last_active
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .elapsed()
                > timeout
    }
}

async fn forget_idle_sessions(state: Arc<HttpState>) {
    let period = (state.idle_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(60));
    loop {
        tokio::time::sleep(period).await;
        state
            .lock_sessions()
            .retain(|_, session| !session.is_idle(state.idle_timeout));
    }
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.notifier.abort();
    }
}

impl HttpState {
    fn lock_sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn new_session(&self) -> (String, Arc<HttpSession>) {
        let id = new_session_id();
        let get_stream: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>> = Arc::default();
        let notifier = tokio::spawn(forward_list_changed(
            self.server.subscribe_list_changed(),
            Arc::clone(&get_stream),
        ));
        let session = Arc::new(HttpSession {
            session: Session::new(Arc::clone(&self.server)),
            get_stream,
            next_event: Arc::new(AtomicU64::new(1)),
            notifier: notifier.abort_handle(),
            last_active: Mutex::new(Instant::now()),
        });
        let mut sessions = self.lock_sessions();
        if sessions.len() >= MAX_SESSIONS {
            // Clients that vanish without a DELETE must not grow the map without bound: the least
            // recently used session with no open stream makes room.
            let oldest = sessions
                .iter()
                .filter(|(_, s)| s.is_idle(Duration::ZERO))
                .min_by_key(|(_, s)| *s.last_active.lock().unwrap_or_else(|p| p.into_inner()))
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                sessions.remove(&oldest);
            }
        }
        sessions.insert(id.clone(), Arc::clone(&session));
        (id, session)
    }

    /// The session a request names: 400 without an id, 404 for an unknown or ended one.
    fn session_for(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Response> {
        let Some(id) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
            return Err(plain(
                StatusCode::BAD_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
            ));
        };
        let session = self.lock_sessions().get(id).cloned();
        session.inspect(|s| s.touch()).ok_or_else(|| {
            plain(
                StatusCode::NOT_FOUND,
                "Session not found: initialize a new session",
            )
        })
    }
}

async fn forward_list_changed(
    mut changes: broadcast::Receiver<()>,
    get_stream: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>,
) {
    loop {
        match changes.recv().await {
            Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                let stream = get_stream.lock().unwrap_or_else(|p| p.into_inner()).clone();
                if let Some(stream) = stream {
                    let _ = stream.send(tools_list_changed());
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

async fn handle_post(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err((status, reason)) = guard_host(&headers) {
        return plain(status, reason);
    }
    if !accepts(&headers, "application/json") || !accepts(&headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        );
    }
    if !is_json_body(&headers) {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let message = match Message::parse(&body) {
        Ok(message) => message,
        Err(rejection) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                encode_error(rejection.id.as_ref(), &rejection.error),
                None,
            );
        }
    };
    let is_initialize =
        matches!(&message, Message::Request { method, .. } if method == "initialize");
    // Both revisions: a request that declares a stateless version in `_meta`, or any request on
    // no session but `initialize`, speaks 2026-07-28.
    if speaks_stateless(&message) || (!is_initialize && !headers.contains_key("mcp-session-id")) {
        return handle_stateless_post(&state.server, &headers, message).await;
    }
    if let Err((status, reason)) = guard(&headers) {
        return plain(status, reason);
    }
    let (session_id, http_session) = if is_initialize {
        let (id, session) = state.new_session();
        (Some(id), session)
    } else {
        match state.session_for(&headers) {
            Ok(session) => (None, session),
            Err(refused) => return refused,
        }
    };
    let wants_stream = may_notify_first(&message);
    let is_request = matches!(message, Message::Request { .. });
    let (outbox, replies) = mpsc::unbounded_channel::<String>();
    answer_on_session(&http_session.session, message, &outbox);
    drop(outbox);
    if !is_request {
        return StatusCode::ACCEPTED.into_response();
    }
    if wants_stream {
        return sse_response(Arc::clone(&http_session.next_event), replies);
    }
    let mut replies = replies;
    match replies.recv().await {
        Some(reply) => json_response(StatusCode::OK, reply, session_id),
        None => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request produced no response",
        ),
    }
}

async fn handle_get(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    if let Err((status, reason)) = guard(&headers) {
        return plain(status, reason);
    }
    if !accepts(&headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    let http_session = match state.session_for(&headers) {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let (sender, receiver) = mpsc::unbounded_channel();
    // One GET stream per session: a new one replaces the old, so no message is sent twice.
    *http_session
        .get_stream
        .lock()
        .unwrap_or_else(|p| p.into_inner()) = Some(sender);
    sse_response(Arc::clone(&http_session.next_event), receiver)
}

async fn handle_delete(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    if let Err((status, reason)) = guard(&headers) {
        return plain(status, reason);
    }
    let Some(id) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
        return plain(
            StatusCode::BAD_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        );
    };
    match state.lock_sessions().remove(id) {
        Some(_) => StatusCode::NO_CONTENT.into_response(),
        None => plain(StatusCode::NOT_FOUND, "Session not found"),
    }
}

/// 128 random bits as hex: visible ASCII only, as the specification requires.
fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back to time and a counter, still unique within this process.
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes[..8].copy_from_slice(&(nanos as u64).to_le_bytes());
        bytes[8..].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    }
    crate::hashing::hex(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::ServedTools;

    async fn post(
        client: &reqwest::Client,
        url: &str,
        session: Option<&str>,
        body: &str,
    ) -> reqwest::Response {
        let mut request = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.body(body.to_string()).send().await.unwrap()
    }

    #[tokio::test]
    async fn idle_sessions_are_forgotten_but_not_ones_with_an_open_stream() {
        let server = McpServer::new(Default::default(), ServedTools::new(Vec::new()).unwrap());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(serve_http_with(
            server,
            listener,
            std::future::pending(),
            Duration::from_millis(200),
        ));
        let client = reqwest::Client::new();
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        let idle = post(&client, &url, None, initialize).await.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        let streaming = post(&client, &url, None, initialize).await.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        let stream = client
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &streaming)
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), 200);
        assert_eq!(
            post(&client, &url, Some(&idle), ping).await.status(),
            200,
            "still active"
        );
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(
            post(&client, &url, Some(&idle), ping).await.status(),
            404,
            "forgotten after the idle timeout"
        );
        assert_eq!(
            post(&client, &url, Some(&streaming), ping).await.status(),
            200,
            "an open GET stream keeps it"
        );
        drop(stream);
    }

    #[tokio::test]
    async fn sessions_are_capped_and_the_least_recently_used_goes_first() {
        let server = McpServer::new(Default::default(), ServedTools::new(Vec::new()).unwrap());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(serve_http(server, listener, std::future::pending()));
        let client = reqwest::Client::new();
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        let mut ids = Vec::new();
        for _ in 0..MAX_SESSIONS + 10 {
            let response = post(&client, &url, None, initialize).await;
            ids.push(
                response.headers()["mcp-session-id"]
                    .to_str()
                    .unwrap()
                    .to_string(),
            );
            if ids.len() % 100 == 0 {
                // The first session stays in use: the next ones become the oldest.
                assert_eq!(post(&client, &url, Some(&ids[0]), ping).await.status(), 200);
            }
        }
        assert_eq!(post(&client, &url, Some(&ids[0]), ping).await.status(), 200);
        assert_eq!(post(&client, &url, Some(&ids[1]), ping).await.status(), 404);
        assert_eq!(
            post(&client, &url, Some(ids.last().unwrap()), ping)
                .await
                .status(),
            200
        );
    }
}
