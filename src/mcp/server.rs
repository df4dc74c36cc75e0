//! The command layer: what each MCP method does, independent of transport. `McpServer` holds what all
//! sessions share (the served tools, swapped atomically on reload, and the `list_changed` broadcast);
//! a `Session` is one client's connection state (negotiated version, log level, calls in flight).
//! Transports feed parsed `Message`s to `Session::dispatch` and carry whatever it sends to the
//! `Outbox` they passed: responses, and the progress and log notifications of a request.

use super::call::{CallPlan, ToolCall, finish_call, plan_call};
use super::jsonrpc::{
    ErrorObject, INVALID_PARAMS, METHOD_NOT_FOUND, Message, RequestId, encode_error,
    encode_notification, encode_result, params_object,
};
use super::served::ServedTools;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::AbortHandle;

/// Protocol versions this server speaks, newest first.
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
pub const LATEST_VERSION: &str = SUPPORTED_VERSIONS[0];

/// How long a server-to-client request (sampling, elicitation) waits for the client's answer.
const CLIENT_REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a session's outgoing messages go, already encoded as JSON text.
pub type Outbox = mpsc::UnboundedSender<String>;

/// What the server is and how it lists.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub name: String,
    pub version: String,
    /// Tools per `tools/list` page; `None` lists everything at once (what most clients expect).
    pub page_size: Option<usize>,
    pub instructions: Option<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            name: "mcpick".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            page_size: None,
            instructions: None,
        }
    }
}

/// State shared by every session of one server.
pub struct McpServer {
    pub config: ServerConfig,
    tools: RwLock<Arc<ServedTools>>,
    list_changed: broadcast::Sender<()>,
}

impl McpServer {
    pub fn new(config: ServerConfig, tools: ServedTools) -> Arc<McpServer> {
        let (list_changed, _) = broadcast::channel(16);
        Arc::new(McpServer {
            config,
            tools: RwLock::new(Arc::new(tools)),
            list_changed,
        })
    }

    /// The tools being served now.
    pub fn tools(&self) -> Arc<ServedTools> {
        self.tools
            .read()
            .map(|t| Arc::clone(&t))
            .unwrap_or_else(|poisoned| Arc::clone(&poisoned.into_inner()))
    }

    /// Serves a new tool set and tells every session, once.
    pub fn replace_tools(&self, tools: ServedTools) {
        let mut slot = self
            .tools
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let generation = slot.generation + 1;
        *slot = Arc::new(tools.with_generation(generation));
        drop(slot);
        let _ = self.list_changed.send(());
    }

    /// Sessions open now (each holds one `list_changed` receiver until it ends).
    pub fn open_sessions(&self) -> usize {
        self.list_changed.receiver_count()
    }

    /// A receiver that fires after each `replace_tools`.
    pub fn subscribe_list_changed(&self) -> broadcast::Receiver<()> {
        self.list_changed.subscribe()
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

#[derive(Debug, Default)]
struct SessionState {
    initialized: bool,
    protocol_version: Option<String>,
    /// Messages below this level are not sent; `None` until the client sets one (then all are sent).
    log_level: Option<LogLevel>,
    /// The capabilities the client declared at `initialize`.
    client_capabilities: Value,
}

type ClientReply = Result<Value, ErrorObject>;

/// One client's connection.
pub struct Session {
    pub server: Arc<McpServer>,
    state: Mutex<SessionState>,
    in_flight: Mutex<HashMap<RequestId, AbortHandle>>,
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
            awaiting_client: Mutex::default(),
            next_request: AtomicU64::new(1),
        })
    }

    /// The protocol version agreed at `initialize`, if it happened.
    pub fn protocol_version(&self) -> Option<String> {
        self.lock_state().protocol_version.clone()
    }

    /// Handles one incoming message. Requests are answered on `outbox` (a tools/call that has to wait
    /// runs on a task of its own, so a slow tool never blocks the session and can be cancelled);
    /// notifications and responses get no answer.
    pub fn dispatch(self: &Arc<Self>, message: Message, outbox: &Outbox) {
        match message {
            Message::Request { id, method, params } => {
                if method == "tools/call" {
                    self.start_call(id, params, outbox.clone());
                } else {
                    let reply = self.handle_request(&id, &method, params);
                    let _ = outbox.send(reply);
                }
            }
            Message::Notification { method, params } => self.handle_notification(&method, params),
            Message::Response { id, outcome } => {
                // A response to nothing this server asked is dropped.
                let waiter = self
                    .awaiting_client
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                if let Some(waiter) = waiter {
                    let _ = waiter.send(outcome);
                }
            }
        }
    }

    fn handle_request(&self, id: &RequestId, method: &str, params: Option<Value>) -> String {
        let outcome = match method {
            "initialize" => Ok(self.initialize(params_object(params))),
            "ping" => Ok(json!({})),
            "tools/list" => return self.list_tools(id, params_object(params)),
            "logging/setLevel" => self.set_level(params_object(params)),
            // Answer at once: SDK clients probe `server/discover` first and wait for a reply.
            _ => Err(ErrorObject::new(
                METHOD_NOT_FOUND,
                format!("Method not found: {}", name_excerpt(method)),
            )),
        };
        match outcome {
            Ok(result) => encode_result(id, &result),
            Err(error) => encode_error(Some(id), &error),
        }
    }

    fn initialize(&self, params: serde_json::Map<String, Value>) -> Value {
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(LATEST_VERSION);
        let version = if SUPPORTED_VERSIONS.contains(&requested) {
            requested
        } else {
            LATEST_VERSION
        };
        let mut state = self.lock_state();
        state.protocol_version = Some(version.to_string());
        state.client_capabilities = params.get("capabilities").cloned().unwrap_or(Value::Null);
        drop(state);
        let config = &self.server.config;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": { "tools": { "listChanged": true }, "logging": {} },
            "serverInfo": { "name": config.name, "version": config.version },
        });
        if let Some(instructions) = &config.instructions {
            result["instructions"] = json!(instructions);
        }
        result
    }

    fn list_tools(&self, id: &RequestId, params: serde_json::Map<String, Value>) -> String {
        let tools = self.server.tools();
        match tools.list_page(params.get("cursor"), self.server.config.page_size) {
            Ok(raw_result) => super::jsonrpc_raw_result(id, &raw_result),
            Err(message) => encode_error(Some(id), &ErrorObject::new(INVALID_PARAMS, message)),
        }
    }

    fn set_level(&self, params: serde_json::Map<String, Value>) -> Result<Value, ErrorObject> {
        let level = params.get("level").and_then(Value::as_str).and_then(LogLevel::parse).ok_or_else(|| {
            ErrorObject::new(
                INVALID_PARAMS,
                "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency",
            )
        })?;
        self.lock_state().log_level = Some(level);
        Ok(json!({}))
    }

    fn handle_notification(&self, method: &str, params: Option<Value>) {
        match method {
            "notifications/initialized" => self.lock_state().initialized = true,
            "notifications/cancelled" => {
                let params = params_object(params);
                let Some(id) = params
                    .get("requestId")
                    .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok())
                else {
                    return;
                };
                // Unknown or finished ids are ignored, as the spec asks.
                if let Some(handle) = self.lock_in_flight().remove(&id) {
                    handle.abort();
                }
            }
            _ => {}
        }
    }

    fn start_call(self: &Arc<Self>, id: RequestId, params: Option<Value>, outbox: Outbox) {
        let pending = match plan_call(self, &id, params_object(params)) {
            CallPlan::Ready(reply) => {
                let _ = outbox.send(reply);
                return;
            }
            CallPlan::Later(pending) => pending,
        };
        let session = Arc::clone(self);
        let call_id = id.clone();
        // Hold the lock across spawn and insert so a fast call cannot finish before it is registered.
        let mut in_flight = self.lock_in_flight();
        let task = tokio::spawn(async move {
            let call = ToolCall {
                session: &session,
                id: &call_id,
                outbox: &outbox,
            };
            let reply = finish_call(call, pending).await;
            session.lock_in_flight().remove(&call_id);
            let _ = outbox.send(reply);
        });
        in_flight.insert(id, task.abort_handle());
    }

    /// Whether the client declared a capability (e.g. "sampling", "elicitation") at `initialize`.
    pub fn client_declared(&self, capability: &str) -> bool {
        self.lock_state()
            .client_capabilities
            .get(capability)
            .is_some_and(Value::is_object)
    }

    /// Sends a request to the client on `outbox` (the stream of the call that needs it) and waits for
    /// the client's response, which arrives through `dispatch`.
    pub async fn request_client(
        &self,
        outbox: &Outbox,
        method: &str,
        params: Value,
    ) -> ClientReply {
        // String ids in their own namespace, so they can never collide with the client's.
        let id = RequestId::String(format!(
            "mcpick-{}",
            self.next_request.fetch_add(1, Ordering::Relaxed)
        ));
        let (reply_tx, reply_rx) = oneshot::channel();
        self.awaiting_client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), reply_tx);
        let _ = outbox.send(super::jsonrpc::encode_request(&id, method, Some(&params)));
        let reply = tokio::time::timeout(CLIENT_REPLY_TIMEOUT, reply_rx).await;
        self.awaiting_client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        match reply {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) | Err(_) => Err(ErrorObject::new(
                super::jsonrpc::INTERNAL_ERROR,
                format!("the client did not answer {method} within {CLIENT_REPLY_TIMEOUT:?}"),
            )),
        }
    }

    /// Sends `notifications/message` if the level passes the session's filter.
    pub fn log(&self, outbox: &Outbox, level: LogLevel, logger: &str, data: Value) {
        let minimum = self.lock_state().log_level;
        if minimum.is_some_and(|min| level < min) {
            return;
        }
        let params = json!({ "level": level.as_str(), "logger": logger, "data": data });
        let _ = outbox.send(encode_notification("notifications/message", Some(&params)));
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lock_in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, AbortHandle>> {
        self.in_flight
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The `notifications/tools/list_changed` message.
pub fn list_changed_notification() -> String {
    encode_notification("notifications/tools/list_changed", None)
}

/// A client's method name as an error repeats it: the first 100 characters, so a 50 MB name is not
/// echoed back whole.
fn name_excerpt(name: &str) -> String {
    match name.char_indices().nth(100) {
        Some((cut, _)) => format!("{}… ({} bytes)", &name[..cut], name.len()),
        None => name.to_string(),
    }
}
