//! What a `subscriptions/listen` request says and the messages its stream is made of — the 2026-07-28
//! way to hear that the tool list changed (it replaces the HTTP GET stream and session-wide
//! `list_changed`). A listen names the notifications it wants; the server acknowledges the subset it
//! honours (here only `toolsListChanged`: this server has no prompts or resources), then tags every
//! notification it sends with the listen request's id (`io.modelcontextprotocol/subscriptionId`).
//! Following the changes is the method layer's (`methods::listen`).

use super::jsonrpc::{ErrorObject, INVALID_PARAMS, RequestId, encode_notification, encode_result};
use super::notifications::TOOLS_LIST_CHANGED;
use super::revision::META_SUBSCRIPTION_ID;
use serde_json::{Value, json};

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
            encode_notification(TOOLS_LIST_CHANGED, Some(&json!({ "_meta": self.tagged() })))
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
