//! The notifications a server sends, encoded: a request's progress, a log message, and that the
//! tool list changed. Which session may send them, and when, is the method layer's.

use super::jsonrpc::encode_notification;
use super::revision::LogLevel;
use serde_json::{Value, json};

pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// `notifications/progress` for the request that gave `token`.
pub fn progress(token: &Value, progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let mut params = json!({ "progressToken": token, "progress": progress });
    if let Some(total) = total {
        params["total"] = json!(total);
    }
    if let Some(message) = message {
        params["message"] = json!(message);
    }
    encode_notification("notifications/progress", Some(&params))
}

/// `notifications/message`: one log message.
pub fn log_message(level: LogLevel, logger: &str, data: Value) -> String {
    let params = json!({ "level": level.as_str(), "logger": logger, "data": data });
    encode_notification("notifications/message", Some(&params))
}

/// `notifications/tools/list_changed`, untagged (a session's).
pub fn tools_list_changed() -> String {
    encode_notification(TOOLS_LIST_CHANGED, None)
}
