//! What a running tool sends besides its result: progress for the request that asked for it, and
//! log messages where the session lets them through (`Session::log_passes`).

use crate::mcp::protocol::notifications;
use crate::mcp::protocol::revision::LogLevel;
use crate::mcp::state::session::ToolCall;
use serde_json::Value;

/// Sends `notifications/progress` for the request that gave `token`.
pub(super) fn progress(
    call: &ToolCall<'_>,
    token: &Value,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) {
    let _ = call
        .outbox
        .send(notifications::progress(token, progress, total, message));
}

/// Sends `notifications/message` if the level passes the session's filter.
pub(super) fn log(call: &ToolCall<'_>, level: LogLevel, logger: &str, data: Value) {
    if call.session.log_passes(level) {
        let _ = call
            .outbox
            .send(notifications::log_message(level, logger, data));
    }
}
