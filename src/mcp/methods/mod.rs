//! What each MCP method does, for every revision, through one dispatcher (`route`): a message on a
//! session opened by `initialize` (`answer_on_session`), a stateless request answered on a session
//! that lives as long as the request (`answer_stateless`), or either as a connection sends them
//! (`answer`, for stdio and the in-memory pipe). Transports hand over parsed messages and carry what
//! is sent to the outbox they pass — responses, and a request's progress and log notifications;
//! they ask `may_notify_first` instead of knowing method names. The methods: the lifecycle, listing
//! and discovery (`lifecycle`), `tools/call` (`call`, with what a running tool sends in `notify`),
//! asking the client for input in either revision (`input_required`), `subscriptions/listen`
//! (`listen`), and the conformance suite's tools that `tools/call` runs (`fixtures`).

mod call;
pub mod fixtures;
mod input_required;
mod lifecycle;
mod listen;
mod notify;

use super::protocol::jsonrpc::{Message, RequestId, encode_error};
use super::protocol::revision::{RequestMeta, request_meta, speaks_stateless};
use super::state::server::McpServer;
use super::state::session::{Outbox, Session};
use serde_json::Value;
use std::sync::Arc;

/// Answers one message a connection sent: a stateless request on a session of its own (a listen
/// it opens stays open on `connection` until cancelled or the connection closes); anything else on
/// the connection's session. Requests are answered on `outbox`; notifications and responses get
/// no answer.
pub fn answer(connection: &Arc<Session>, message: Message, outbox: &Outbox) {
    if speaks_stateless(&message) && matches!(message, Message::Request { .. }) {
        answer_stateless_message(&connection.server, message, Some(connection), outbox);
    } else {
        answer_on_session(connection, message, outbox);
    }
}

/// Answers a message on a session of the session revisions (opened by `initialize`).
pub fn answer_on_session(session: &Arc<Session>, message: Message, outbox: &Outbox) {
    match message {
        Message::Request { id, method, params } => {
            route(session, id, &method, params, outbox, None);
        }
        Message::Notification { method, params } => {
            lifecycle::notification(session, &method, params);
        }
        Message::Response { id, outcome } => session.deliver_client_reply(&id, outcome),
    }
}

/// Answers a stateless message: its `_meta` is checked, then the request is answered on a session
/// that lives as long as it. Notifications and responses belong to no request: nothing to answer.
pub fn answer_stateless_message(
    server: &Arc<McpServer>,
    message: Message,
    connection: Option<&Arc<Session>>,
    outbox: &Outbox,
) {
    let Message::Request { id, method, params } = message else {
        return;
    };
    match request_meta(params.as_ref()) {
        Ok(meta) => answer_stateless(server, id, method, params, meta, connection, outbox),
        Err(error) => {
            let _ = outbox.send(encode_error(Some(&id), &error));
        }
    }
}

/// Answers a stateless request whose `_meta` has been read and checked (`request_meta`). A listen
/// keeps sending to `outbox` until it closes; on a connection (`connection`), cancelling it by id
/// or closing the connection ends it.
pub fn answer_stateless(
    server: &Arc<McpServer>,
    id: RequestId,
    method: String,
    params: Option<Value>,
    meta: RequestMeta,
    connection: Option<&Arc<Session>>,
    outbox: &Outbox,
) {
    let session = Session::for_request(
        Arc::clone(server),
        meta.version,
        meta.client_capabilities,
        meta.log_level,
    );
    route(&session, id, &method, params, outbox, connection);
}

/// Whether answering `message` may send notifications before the response (a tool's progress and
/// log messages), so an HTTP transport streams the answer.
pub fn may_notify_first(message: &Message) -> bool {
    matches!(message, Message::Request { method, .. } if method == "tools/call")
}

/// The one dispatcher: each method, in the revisions that have it; anything else is `-32601`.
fn route(
    session: &Arc<Session>,
    id: RequestId,
    method: &str,
    params: Option<Value>,
    outbox: &Outbox,
    connection: Option<&Arc<Session>>,
) {
    let stateless = session.is_stateless();
    let reply = match method {
        "tools/call" => return call::start(session, id, params, outbox.clone()),
        "tools/list" => lifecycle::list_tools(session, &id, params),
        "subscriptions/listen" if stateless => {
            return listen::open(&session.server, id, params.as_ref(), outbox, connection);
        }
        "server/discover" if stateless => lifecycle::discover(session, &id),
        "initialize" if !stateless => lifecycle::initialize(session, &id, params),
        "ping" if !stateless => lifecycle::ping(session, &id),
        "logging/setLevel" if !stateless => lifecycle::set_level(session, &id, params),
        // Answer at once: SDK clients probe `server/discover` first and wait for a reply.
        _ => lifecycle::method_not_found(&id, method),
    };
    let _ = outbox.send(reply);
}
