//! The client's wire: delivering each incoming message to the request waiting for it (or to the
//! notification queue), newline-delimited JSON read and written on byte streams, and the
//! `text/event-stream` bodies of Streamable HTTP read event by event.

use super::lock;
use crate::mcp::protocol::jsonrpc::{ErrorObject, Message, RequestId};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

pub(super) type Pending =
    Arc<Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>>;

/// Whether an HTTP error body is a JSON-RPC error response (what a stateless server sends with 4xx).
pub(super) fn is_error_response(body: &str) -> bool {
    matches!(
        Message::parse(body.as_bytes()),
        Ok(Message::Response {
            outcome: Err(_),
            ..
        })
    )
}

/// Delivers one incoming message: a response to its waiting request, a notification to the queue.
pub(super) fn route(
    bytes: &[u8],
    pending: &Pending,
    notify: &mpsc::UnboundedSender<(String, Value)>,
) {
    match Message::parse(bytes) {
        Ok(Message::Response { id, outcome }) => {
            if let Some(waiter) = lock(pending).remove(&id) {
                let _ = waiter.send(outcome);
            }
        }
        // A listen's acknowledgement tells the caller nothing the listen did not already say.
        Ok(Message::Notification { method, .. })
            if method == "notifications/subscriptions/acknowledged" => {}
        Ok(Message::Notification { method, params }) => {
            let _ = notify.send((method, params.unwrap_or(Value::Null)));
        }
        // This client offers no capabilities, so a server request gets nothing to act on.
        Ok(Message::Request { .. }) => {}
        Err(rejection) => tracing::debug!(
            "ignoring unparseable server message: {}",
            rejection.error.message
        ),
    }
}

pub(super) async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    pending: Pending,
    notify: mpsc::UnboundedSender<(String, Value)>,
) {
    let mut lines = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let text = line.trim_ascii();
                if !text.is_empty() {
                    route(text, &pending, &notify);
                }
            }
        }
    }
    // The server is gone: fail every waiting request rather than let it time out.
    lock(&pending).clear();
}

pub(super) async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut outgoing: mpsc::UnboundedReceiver<String>,
) {
    while let Some(message) = outgoing.recv().await {
        let mut bytes = message.into_bytes();
        bytes.push(b'\n');
        if writer.write_all(&bytes).await.is_err() || writer.flush().await.is_err() {
            break;
        }
    }
    // The client is gone: end the server's input. Dropping this half alone would not (the reading
    // half keeps a split stream open), so an in-memory session would wait for input forever and
    // every trial's session would stay in memory until the run ended.
    let _ = writer.shutdown().await;
}

/// Reads a `text/event-stream` body, routing the `data` of each event.
pub(super) async fn read_sse(
    response: reqwest::Response,
    pending: Pending,
    notify: mpsc::UnboundedSender<(String, Value)>,
) {
    use futures_util::StreamExt;
    let mut stream = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    while let Some(Ok(chunk)) = stream.next().await {
        buffer.extend_from_slice(&chunk);
        while let Some(end) = find_event_end(&buffer) {
            let event: Vec<u8> = buffer.drain(..end).collect();
            let data = sse_data(&event);
            if !data.trim_ascii().is_empty() {
                route(&data, &pending, &notify);
            }
        }
    }
}

/// The end (exclusive, separator included) of the first complete event in `buffer`.
pub(super) fn find_event_end(buffer: &[u8]) -> Option<usize> {
    let lf = buffer.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    let crlf = buffer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The joined `data:` lines of one event.
pub(super) fn sse_data(event: &[u8]) -> Vec<u8> {
    let mut data = Vec::new();
    for line in event.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(rest) = line.strip_prefix(b"data:") {
            if !data.is_empty() {
                data.push(b'\n');
            }
            data.extend_from_slice(rest.strip_prefix(b" ").unwrap_or(rest));
        }
    }
    data
}
