//! The command layer: what each MCP method does, independent of transport. Transports feed parsed
//! `Message`s to `Session::dispatch` and carry whatever it sends to the `Outbox` they passed:
//! responses, and the progress and log notifications of a request. The state it works on —
//! `McpServer`, `Session` — lives in `session`.

use super::call::{CallPlan, finish_call, plan_call};
use super::jsonrpc::{
    ErrorObject, INVALID_PARAMS, METHOD_NOT_FOUND, Message, RequestId, encode_error,
    encode_notification, params_object,
};
pub use super::session::ToolCall;
pub use super::session::{LogLevel, McpServer, Outbox, ServerConfig, Session};
use serde_json::{Value, json};
use std::sync::Arc;

/// Protocol versions this server speaks, newest first.
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
pub const LATEST_VERSION: &str = SUPPORTED_VERSIONS[0];

impl Session {
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
            Ok(result) => self.encode_result(id, result),
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
            Ok(raw_result) => self.encode_list_result(id, &raw_result),
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
                } else {
                    self.cancel_listen(&id);
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
}

/// The `notifications/tools/list_changed` message.
pub fn list_changed_notification() -> String {
    encode_notification("notifications/tools/list_changed", None)
}

/// A client's method name as an error repeats it: the first 100 characters, so a 50 MB name is not
/// echoed back whole.
pub(super) fn name_excerpt(name: &str) -> String {
    match name.char_indices().nth(100) {
        Some((cut, _)) => format!("{}… ({} bytes)", &name[..cut], name.len()),
        None => name.to_string(),
    }
}
