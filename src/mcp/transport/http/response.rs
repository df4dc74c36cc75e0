//! The HTTP responses of the Streamable HTTP transport: JSON bodies (with the session id a new
//! session gets), plain-text refusals, and SSE streams framed by hand: a session's start with a
//! priming event so a client can resume; a 2026-07-28 request's carry only its messages.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// An SSE response: a priming event (an id and empty data, so a client can resume), then each message.
/// Framed here rather than with axum's `Sse`, which leaves out the empty `data:` line the priming
/// event needs.
pub(super) fn sse_response(
    next_event: Arc<AtomicU64>,
    messages: mpsc::UnboundedReceiver<String>,
) -> Response {
    let priming_id = next_event.fetch_add(1, Ordering::Relaxed);
    let priming =
        stream::once(
            async move { Ok::<String, Infallible>(format!("id: {priming_id}\ndata: \n\n")) },
        );
    let events = UnboundedReceiverStream::new(messages).map(move |message| {
        let id = next_event.fetch_add(1, Ordering::Relaxed);
        // A JSON-RPC message is one line (serde_json never emits raw newlines), so one data line.
        Ok::<String, Infallible>(format!("event: message\nid: {id}\ndata: {message}\n\n"))
    });
    let body = Body::from_stream(priming.chain(events));
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// A 2026-07-28 SSE response: the messages of one request, no event ids (the revision dropped
/// resumption), unbuffered by proxies.
pub(super) fn stream_response(
    first: Option<String>,
    messages: mpsc::UnboundedReceiver<String>,
) -> Response {
    let frame = |message: String| Ok::<String, Infallible>(format!("data: {message}\n\n"));
    let events = stream::iter(first)
        .chain(UnboundedReceiverStream::new(messages))
        .map(frame);
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(events),
    )
        .into_response()
}

pub(super) fn json_response(
    status: StatusCode,
    body: String,
    session_id: Option<String>,
) -> Response {
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response.headers_mut().insert("mcp-session-id", id);
    }
    response
}

pub(super) fn plain(status: StatusCode, message: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message,
    )
        .into_response()
}
