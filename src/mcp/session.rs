//! One client's connection and what every connection of a server shares. `McpServer` holds the
//! served tools (swapped atomically on reload), the `list_changed` broadcast and the key that signs
//! request states; a `Session` holds one client's state — the negotiated version (or the one
//! request it lives for, in 2026-07-28), the declared capabilities, the log level, the calls in
//! flight, the requests sent to the client and, on stdio, the connection's open listens — and
//! `ToolCall` is the request a tool runs under,
//! with the outbox its notifications go to. The method handlers (`server`), `tools/call` (`call`)
//! and the conformance fixtures (`fixtures`) all build on these types; nothing here knows a method.

use super::jsonrpc::{ErrorObject, RequestId, encode_notification, encode_result};
use super::request_state::StateKey;
use super::served::ServedTools;
use super::subscriptions::Listen;
use super::tool_search::ToolSearch;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::AbortHandle;

/// Where a modern result names the server that answered it.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

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

impl ServerConfig {
    /// Who the server is, as a modern result's `_meta` names it.
    pub fn server_info(&self) -> Value {
        json!({ "name": self.name, "version": self.version })
    }
}

/// The members every modern result carries, serialised once per server (a result is then the
/// marks and its own members, joined as text): `list` adds the caching hints of `tools/list` —
/// `ttlMs` 0 (a reload can change the list at any moment) and `cacheScope` public (every client is
/// served the same list).
pub(super) struct ModernMarks {
    result: String,
    list: String,
}

impl ModernMarks {
    fn new(config: &ServerConfig) -> ModernMarks {
        let meta = json!({ META_SERVER_INFO: config.server_info() });
        let members = |value: Value| {
            let text = value.to_string();
            text[1..text.len() - 1].to_string()
        };
        ModernMarks {
            result: members(json!({ "resultType": "complete", "_meta": meta })),
            list: members(json!({
                "resultType": "complete", "ttlMs": 0, "cacheScope": "public", "_meta": meta
            })),
        }
    }
}

/// `{marks, …raw object's members}`.
fn with_marks(marks: &str, raw_object: &str) -> String {
    let members = raw_object.trim_start().strip_prefix('{').unwrap_or("}");
    if members.trim_start().starts_with('}') {
        format!("{{{marks}}}")
    } else {
        format!("{{{marks},{members}")
    }
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
    /// Signs the `requestState` of 2026-07-28 multi-round calls.
    pub(super) state_key: StateKey,
    pub(super) marks: ModernMarks,
    /// The hidden catalogue `search_tools` searches (a `search-tool` trial's server), if any.
    pub(super) search: Option<ToolSearch>,
}

impl McpServer {
    pub fn new(config: ServerConfig, tools: ServedTools) -> Arc<McpServer> {
        let (list_changed, _) = broadcast::channel(16);
        Arc::new(McpServer {
            marks: ModernMarks::new(&config),
            config,
            tools: RwLock::new(Arc::new(tools)),
            list_changed,
            state_key: StateKey::generate(),
            search: None,
        })
    }

    /// A server that lists only `search_tools`, whose calls make tools of `search`'s catalogue
    /// callable (`tool_search`).
    pub fn with_tool_search(
        config: ServerConfig,
        search: ToolSearch,
    ) -> Result<Arc<McpServer>, crate::registry::RegistryError> {
        let tools = ServedTools::new(search.listed())?;
        let (list_changed, _) = broadcast::channel(16);
        Ok(Arc::new(McpServer {
            marks: ModernMarks::new(&config),
            config,
            tools: RwLock::new(Arc::new(tools)),
            list_changed,
            state_key: StateKey::generate(),
            search: Some(search),
        }))
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

    /// Tells every listener the tool list changed without changing it (the conformance suite's
    /// `test_trigger_tool_change`).
    pub fn announce_tools_changed(&self) {
        let _ = self.list_changed.send(());
    }

    /// Whether the server lists `search_tools` over a hidden catalogue (`with_tool_search`).
    pub fn has_tool_search(&self) -> bool {
        self.search.is_some()
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

/// The request being answered and where its notifications go.
pub struct ToolCall<'a> {
    pub session: &'a Arc<Session>,
    pub id: &'a RequestId,
    pub outbox: &'a Outbox,
}

impl ToolCall<'_> {
    /// Sends `notifications/progress` for this request.
    pub fn progress(
        &self,
        token: &Value,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) {
        let mut params = json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(message) = message {
            params["message"] = json!(message);
        }
        let _ = self
            .outbox
            .send(encode_notification("notifications/progress", Some(&params)));
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
pub(super) struct SessionState {
    pub(super) initialized: bool,
    pub(super) protocol_version: Option<String>,
    /// Messages below this level are not sent; `None` until the client sets one (then all are sent).
    pub(super) log_level: Option<LogLevel>,
    /// The capabilities the client declared at `initialize` (or in a modern request's `_meta`).
    pub(super) client_capabilities: Value,
    /// A session for one modern-era request: its results carry `resultType`, and it sends log
    /// messages only at the level the request asked for.
    pub(super) modern: bool,
}

pub type ClientReply = Result<Value, ErrorObject>;

/// One client's connection.
pub struct Session {
    pub server: Arc<McpServer>,
    pub(super) state: Mutex<SessionState>,
    pub(super) in_flight: Mutex<HashMap<RequestId, AbortHandle>>,
    /// Requests this server sent the client (sampling, elicitation), waiting for its response.
    pub(super) awaiting_client: Mutex<HashMap<RequestId, oneshot::Sender<ClientReply>>>,
    next_request: AtomicU64,
    /// The 2026-07-28 listens open on this connection (stdio; HTTP streams each on its own).
    listens: Mutex<Vec<Listen>>,
}

impl Session {
    pub fn new(server: Arc<McpServer>) -> Arc<Session> {
        Arc::new(Session {
            server,
            state: Mutex::default(),
            in_flight: Mutex::default(),
            awaiting_client: Mutex::default(),
            next_request: AtomicU64::new(1),
            listens: Mutex::default(),
        })
    }

    /// The session of one modern-era request, set up from what its `_meta` declares.
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
            state.modern = true;
        }
        session
    }

    /// A success response in the session's era: a modern result also says it is complete
    /// (`resultType`) and who answered (`_meta`).
    pub fn encode_result(&self, id: &RequestId, mut result: Value) -> String {
        if !self.lock_state().modern {
            return encode_result(id, &result);
        }
        let Some(object) = result.as_object_mut() else {
            return encode_result(id, &result);
        };
        if !object.contains_key("resultType") && !object.contains_key("_meta") {
            // The common case: the marks, written once per server, go in front as text.
            let raw = serde_json::to_string(&result).unwrap_or_default();
            return super::jsonrpc_raw_result(id, &with_marks(&self.server.marks.result, &raw));
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

    /// A list result already serialised (a JSON object), in the session's era: a modern one also
    /// carries its caching hints (`ModernMarks::list`).
    pub fn encode_list_result(&self, id: &RequestId, raw_result: &str) -> String {
        if !self.lock_state().modern {
            return super::jsonrpc_raw_result(id, raw_result);
        }
        super::jsonrpc_raw_result(id, &with_marks(&self.server.marks.list, raw_result))
    }

    /// Whether this is the session of one 2026-07-28 request.
    pub fn is_modern(&self) -> bool {
        self.lock_state().modern
    }

    /// The protocol version agreed at `initialize`, if it happened.
    pub fn protocol_version(&self) -> Option<String> {
        self.lock_state().protocol_version.clone()
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
        if self.lock_state().modern {
            // 2026-07-28 forbids server requests: input is asked for with an `input_required`
            // result (`input_required::Dialogue`), which is the only caller of this method.
            return Err(ErrorObject::new(
                super::jsonrpc::INTERNAL_ERROR,
                format!(
                    "{method}: a 2026-07-28 request cannot be answered with a server request; ask through an input_required result"
                ),
            ));
        }
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
        let state = self.lock_state();
        let (minimum, modern) = (state.log_level, state.modern);
        drop(state);
        // A modern request that names no level asked for no log messages.
        if minimum.is_some_and(|min| level < min) || (modern && minimum.is_none()) {
            return;
        }
        let params = json!({ "level": level.as_str(), "logger": logger, "data": data });
        let _ = outbox.send(encode_notification("notifications/message", Some(&params)));
    }

    /// Keeps a listen open on this connection until the client cancels it.
    pub fn add_listen(&self, listen: Listen) {
        self.listens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(listen);
    }

    /// Closes the listen `id` names, if one is open.
    pub(super) fn cancel_listen(&self, id: &RequestId) {
        self.listens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|listen| &listen.id != id);
    }

    /// The tagged `list_changed` of every open listen that asked for it.
    pub fn listen_notifications(&self) -> Vec<String> {
        self.listens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter_map(Listen::list_changed)
            .collect()
    }

    pub(super) fn lock_state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn lock_in_flight(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<RequestId, AbortHandle>> {
        self.in_flight
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
