//! The client's Streamable HTTP side: the link (URL, pooled connection, and in the earlier era the
//! session id and negotiated version), POSTing one message and routing what comes back — JSON, an
//! SSE stream read in the background, or a 4xx carrying a JSON-RPC error — and the streams that
//! bring unsolicited notifications (the session's GET stream, or a 2026-07-28 listen).

use super::wire::{is_error_response, read_sse, route};
use super::{ClientError, McpClient, lock};
use std::sync::{Arc, Mutex};

pub(super) struct HttpLink {
    pub(super) http: reqwest::Client,
    pub(super) url: String,
    pub(super) session_id: Mutex<Option<String>>,
    pub(super) protocol_version: Mutex<Option<String>>,
}

impl McpClient {
    /// POSTs one message and routes whatever comes back (JSON, or an SSE stream read to its end).
    /// `stateless_headers`: the headers of a 2026-07-28 request, which carries no session.
    pub(super) async fn post(
        &self,
        link: &HttpLink,
        body: String,
        initializing: bool,
        stateless_headers: Option<Vec<(String, String)>>,
    ) -> Result<(), ClientError> {
        let mut request = link
            .http
            .post(&link.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(headers) = stateless_headers {
            for (name, value) in headers {
                request = request.header(name, value);
            }
        } else {
            if let Some(session) = lock(&link.session_id).clone() {
                request = request.header("mcp-session-id", session);
            }
            if let Some(version) = lock(&link.protocol_version).clone() {
                request = request.header("mcp-protocol-version", version);
            }
        }
        let response = request.send().await.map_err(http_error)?;
        let status = response.status();
        if initializing
            && let Some(session) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            *lock(&link.session_id) = Some(session.to_string());
        }
        if status.as_u16() == 202 {
            return Ok(());
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            // A stateless server answers a refused request with a 4xx carrying its JSON-RPC error.
            if is_error_response(&body) {
                route(body.as_bytes(), &self.pending, &self.notify_tx);
                return Ok(());
            }
            return Err(ClientError::Http {
                status: status.as_u16(),
                body,
            });
        }
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if is_sse {
            // Read the stream in the background: a tool's progress arrives before its response.
            let pending = Arc::clone(&self.pending);
            let notify = self.notify_tx.clone();
            tokio::spawn(read_sse(response, pending, notify));
        } else {
            let bytes = response.bytes().await.map_err(http_error)?;
            route(&bytes, &self.pending, &self.notify_tx);
        }
        Ok(())
    }

    pub(super) fn open_http_notification_stream(&self, link: &HttpLink) {
        let mut request = link
            .http
            .get(&link.url)
            .header("accept", "text/event-stream");
        if let Some(session) = lock(&link.session_id).clone() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = lock(&link.protocol_version).clone() {
            request = request.header("mcp-protocol-version", version);
        }
        self.stream_in_background(request);
    }

    /// Sends `request` and routes the SSE stream it opens, in the background. A server that
    /// streams nothing there (405 to a GET, an error to a listen) simply sends no notifications.
    pub(super) fn stream_in_background(&self, request: reqwest::RequestBuilder) {
        let pending = Arc::clone(&self.pending);
        let notify = self.notify_tx.clone();
        tokio::spawn(async move {
            if let Ok(response) = request.send().await
                && response.status().is_success()
            {
                read_sse(response, pending, notify).await;
            }
        });
    }
}

/// A transport error, without its URL: a URL filled from a config's variables may carry a
/// secret, and the caller knows which server it asked.
pub(super) fn http_error(e: reqwest::Error) -> ClientError {
    let e = e.without_url();
    let mut message = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(inner) = cause {
        message = format!("{message}: {inner}");
        cause = inner.source();
    }
    ClientError::Io(std::io::Error::other(message))
}
