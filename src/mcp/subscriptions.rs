//! `subscriptions/listen`, the 2026-07-28 way to hear that the tool list changed (it replaces the
//! HTTP GET stream and session-wide `list_changed`). A listen request names the notifications it
//! wants; the server acknowledges the subset it honours (here only `toolsListChanged`: this server
//! has no prompts or resources), then tags every notification it sends with the listen request's id
//! (`io.modelcontextprotocol/subscriptionId`) until the client goes away. The transports own the
//! stream: HTTP answers with an SSE response per listen, stdio keeps the listens of its connection.

use super::jsonrpc::{ErrorObject, INVALID_PARAMS, RequestId, encode_notification, encode_result};
use super::session::{McpServer, Outbox};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::broadcast;

pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// One client's open listen request.
#[derive(Debug, Clone)]
pub struct Listen {
    pub id: RequestId,
    /// Whether the client asked for `notifications/tools/list_changed`.
    pub tools_list_changed: bool,
}

impl Listen {
    /// Reads a listen request's `notifications` filter.
    pub fn from_params(id: RequestId, params: Option<&Value>) -> Result<Listen, ErrorObject> {
        let filter = params.and_then(|p| p.get("notifications"));
        let filter = match filter {
            None => &Value::Null,
            Some(filter @ Value::Object(_)) => filter,
            Some(_) => {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    "Invalid params: notifications must be an object",
                ));
            }
        };
        Ok(Listen {
            id,
            tools_list_changed: filter.get("toolsListChanged") == Some(&Value::Bool(true)),
        })
    }

    fn tagged(&self) -> Value {
        json!({ META_SUBSCRIPTION_ID: self.id })
    }

    /// The first message of the stream: what is honoured of what was asked.
    pub fn acknowledged(&self) -> String {
        let mut honoured = serde_json::Map::new();
        if self.tools_list_changed {
            honoured.insert("toolsListChanged".into(), json!(true));
        }
        encode_notification(
            "notifications/subscriptions/acknowledged",
            Some(&json!({ "_meta": self.tagged(), "notifications": honoured })),
        )
    }

    /// The tool list changed, tagged with this listen's id; `None` if it was not asked for.
    pub fn list_changed(&self) -> Option<String> {
        self.tools_list_changed.then(|| {
            encode_notification(
                "notifications/tools/list_changed",
                Some(&json!({ "_meta": self.tagged() })),
            )
        })
    }

    /// The result that ends a listen the server closes.
    pub fn closed(&self) -> String {
        encode_result(
            &self.id,
            &json!({ "resultType": "complete", "_meta": self.tagged() }),
        )
    }
}

/// Sends `listen`'s stream to `outbox` — the acknowledgement, then each change — until the
/// receiving end goes away or the server stops.
pub async fn stream(server: Arc<McpServer>, listen: Listen, outbox: Outbox) {
    let mut changes = server.subscribe_list_changed();
    drop(server);
    if outbox.send(listen.acknowledged()).is_err() {
        return;
    }
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    if let Some(message) = listen.list_changed()
                        && outbox.send(message).is_err()
                    {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => {
                    let _ = outbox.send(listen.closed());
                    return;
                }
            },
            () = outbox.closed() => return,
        }
    }
}
