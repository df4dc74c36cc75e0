//! `subscriptions/listen` (stateless revisions): the listen's filter is read, the acknowledgement
//! sent at once, then each tool-list change follows, tagged with the listen's id, until the client
//! goes away, cancels it, closes the connection it was opened on, or the server stops. The stream
//! runs on a task of its own writing to the request's outbox, so an HTTP transport answers it as an
//! SSE stream and stdio interleaves it with the connection's other messages.

use crate::mcp::protocol::jsonrpc::{RequestId, encode_error};
use crate::mcp::protocol::listen::Listen;
use crate::mcp::state::server::McpServer;
use crate::mcp::state::session::{Outbox, Session};
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Opens a listen; on `connection`, it stays cancellable by its id.
pub(super) fn open(
    server: &Arc<McpServer>,
    id: RequestId,
    params: Option<&Value>,
    outbox: &Outbox,
    connection: Option<&Arc<Session>>,
) {
    let listen = match Listen::from_params(id.clone(), params) {
        Ok(listen) => listen,
        Err(error) => {
            let _ = outbox.send(encode_error(Some(&id), &error));
            return;
        }
    };
    // Subscribed before the acknowledgement, so no change after it is missed.
    let changes = server.subscribe_list_changed();
    if outbox.send(listen.acknowledged()).is_err() {
        return;
    }
    let stream = tokio::spawn(follow(changes, listen, outbox.clone()));
    if let Some(connection) = connection {
        connection.keep_open(id, stream.abort_handle());
    }
}

/// Sends each change to `outbox` until the receiving end goes away or the server stops.
async fn follow(mut changes: broadcast::Receiver<()>, listen: Listen, outbox: Outbox) {
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
