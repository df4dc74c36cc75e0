//! One client's connection: the revision it speaks (agreed at `initialize`, or the one stateless
//! request it lives for), the capabilities it declared, its log level, the calls in flight, the
//! streams it keeps open until cancelled or closed, the requests sent to the client awaiting its
//! answer; and `ToolCall`, the request a tool runs under with the outbox its messages go to. Results
//! are encoded in the session's revision. State only: nothing here knows a method.

use super::server::{McpServer, with_marks};
use crate::mcp::protocol::jsonrpc::{
    ErrorObject, INTERNAL_ERROR, RequestId, encode_raw_result, encode_request, encode_result,
};
use crate::mcp::protocol::revision::{LogLevel, META_SERVER_INFO};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

/// How long a server-to-client request (sampling, elicitation) waits for the client's answer.
const CLIENT_REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a session's outgoing messages go, already encoded as JSON text.
pub type Outbox = mpsc::UnboundedSender<String>;

/// The request being answered and where its messages go.
pub struct ToolCall<'a> {
    pub session: &'a Arc<Session>,
    pub id: &'a RequestId,
    pub outbox: &'a Outbox,
}

#[derive(Debug, Default)]
pub(in crate::mcp) struct SessionState {
    pub(in crate::mcp) initialized: bool,
    pub(in crate::mcp) protocol_version: Option<String>,
    /// Messages below this level are not sent; `None` until the client sets one (then all are sent).
    pub(in crate::mcp) log_level: Option<LogLevel>,
    /// The capabilities the client declared at `initialize` (or in a stateless request's `_meta`).
    pub(in crate::mcp) client_capabilities: Value,
    /// A session for one stateless request: its results carry `resultType`, and it sends log
    /// messages only at the level the request asked for.
    pub(in crate::mcp) stateless: bool,
}

pub type ClientReply = Result<Value, ErrorObject>;

/// One client's connection.
pub struct Session {
    pub server: Arc<McpServer>,
    state: Mutex<SessionState>,
    /// Requests being answered on tasks of their own, cancellable by id.
    in_flight: Mutex<HashMap<RequestId, AbortHandle>>,
    /// Streams the connection keeps open until the client cancels them or the connection closes.
    open_streams: Mutex<HashMap<RequestId, AbortHandle>>,
    /// Requests this server sent the client (sampling, elicitation), waiting for its response.
    awaiting_client: Mutex<HashMap<RequestId, oneshot::Sender<ClientReply>>>,
    next_request: AtomicU64,
}

impl Session {
    pub fn new(server: Arc<McpServer>) -> Arc<Session> {
        Arc::new(Session {
            server,
            state: Mutex::default(),
            in_flight: Mutex::default(),
            open_streams: Mutex::default(),
            awaiting_client: Mutex::default(),
            next_request: AtomicU64::new(1),
        })
    }

    /// The session of one stateless request, set up from what its `_meta` declares.
    pub fn for_request(
        server: Arc<McpServer>,
        version: String,
        client_capabilities: Value,
        log_level: Option<LogLevel>,
    ) -> Arc<Session> {
        let session = Session::new(server);
        {
            let mut state = session.lock_state();
            state.initialized = true;
            state.protocol_version = Some(version);
            state.client_capabilities = client_capabilities;
            state.log_level = log_level;
            state.stateless = true;
        }
        session
    }

    /// A success response in the session's revision: a stateless result also says it is complete
    /// (`resultType`) and who answered (`_meta`).
    pub fn encode_result(&self, id: &RequestId, mut result: Value) -> String {
        if !self.lock_state().stateless {
            return encode_result(id, &result);
        }
        let Some(object) = result.as_object_mut() else {
            return encode_result(id, &result);
        };
        if !object.contains_key("resultType") && !object.contains_key("_meta") {
            // The common case: the marks, written once per server, go in front as text.
            let raw = serde_json::to_string(&result).unwrap_or_default();
            return encode_raw_result(id, &with_marks(&self.server.marks.result, &raw));
        }
        // An `input_required` result already says what it is.
        object
            .entry("resultType")
            .or_insert_with(|| json!("complete"));
        let meta = object.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(META_SERVER_INFO.into(), self.server.config.server_info());
        }
        encode_result(id, &result)
    }

    /// A list result already serialised (a JSON object), in the session's revision: a stateless
    /// one also carries its caching hints (`ResultMarks::list`).
    pub fn encode_list_result(&self, id: &RequestId, raw_result: &str) -> String {
        if !self.lock_state().stateless {
            return encode_raw_result(id, raw_result);
        }
        encode_raw_result(id, &with_marks(&self.server.marks.list, raw_result))
    }

    /// Whether this is the session of one stateless request.
    pub fn is_stateless(&self) -> bool {
        self.lock_state().stateless
    }

    /// The protocol version agreed at `initialize`, if it happened.
    pub fn protocol_version(&self) -> Option<String> {
        self.lock_state().protocol_version.clone()
    }

    /// Whether the client declared a capability (e.g. "sampling", "elicitation").
    pub fn client_declared(&self, capability: &str) -> bool {
        self.lock_state()
            .client_capabilities
            .get(capability)
            .is_some_and(Value::is_object)
    }

    /// Whether a log message of `level` may be sent on this session: at or above the level the
    /// client set; a stateless request that names no level asked for none.
    pub fn log_passes(&self, level: LogLevel) -> bool {
        let state = self.lock_state();
        match state.log_level {
            Some(minimum) => level >= minimum,
            None => !state.stateless,
        }
    }

    /// Sends a request to the client on `outbox` (the stream of the call that needs it) and waits for
    /// the client's response, which arrives through `deliver_client_reply`.
    pub async fn request_client(
        &self,
        outbox: &Outbox,
        method: &str,
        params: Value,
    ) -> ClientReply {
        if self.lock_state().stateless {
            // A stateless revision forbids server requests: input is asked for with an
            // `input_required` result instead, so no caller should get here.
            return Err(ErrorObject::new(
                INTERNAL_ERROR,
                format!(
                    "{method}: a stateless request cannot be answered with a server request; ask through an input_required result"
                ),
            ));
        }
        // String ids in their own namespace, so they can never collide with the client's.
        let id = RequestId::String(format!(
            "mcpick-{}",
            self.next_request.fetch_add(1, Ordering::Relaxed)
        ));
        let (reply_tx, reply_rx) = oneshot::channel();
        lock(&self.awaiting_client).insert(id.clone(), reply_tx);
        let _ = outbox.send(encode_request(&id, method, Some(&params)));
        let reply = tokio::time::timeout(CLIENT_REPLY_TIMEOUT, reply_rx).await;
        lock(&self.awaiting_client).remove(&id);
        match reply {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) | Err(_) => Err(ErrorObject::new(
                INTERNAL_ERROR,
                format!("the client did not answer {method} within {CLIENT_REPLY_TIMEOUT:?}"),
            )),
        }
    }

    /// Hands the client's response to the request of ours waiting for it; a response to nothing
    /// this server asked is dropped.
    pub fn deliver_client_reply(&self, id: &RequestId, reply: ClientReply) {
        if let Some(waiter) = lock(&self.awaiting_client).remove(id) {
            let _ = waiter.send(reply);
        }
    }

    /// Keeps a request being answered on a task of its own cancellable by its id. Register before
    /// the task can finish: the caller holds the returned guard across spawn and insert.
    pub fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, AbortHandle>> {
        lock(&self.in_flight)
    }

    /// Keeps a stream open on this connection until it is cancelled or the connection closes.
    pub fn keep_open(&self, id: RequestId, stream: AbortHandle) {
        lock(&self.open_streams).insert(id, stream);
    }

    /// Cancels what `id` names: a request in flight or an open stream. Unknown or finished ids are
    /// ignored, as the specification asks.
    pub fn cancel(&self, id: &RequestId) {
        if let Some(handle) = lock(&self.in_flight).remove(id) {
            handle.abort();
        } else if let Some(handle) = lock(&self.open_streams).remove(id) {
            handle.abort();
        }
    }

    /// The connection is closing: its open streams end (requests in flight may still answer).
    pub fn close(&self) {
        for (_, handle) in lock(&self.open_streams).drain() {
            handle.abort();
        }
    }

    pub(in crate::mcp) fn lock_state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        lock(&self.state)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
