//! The HTTP+SSE transport of MCP 2024-11-05, which servers still offer and client configs still
//! name (`"type": "sse"`): the client opens a GET event stream; the server's first event,
//! `endpoint`, says where to POST messages; every answer comes back as a `message` event on that
//! stream, the POSTs themselves answered only with 202. When the stream ends, the server is gone
//! and every waiting request fails at once.

use super::wire::{Pending, find_event_end, route, sse_data};
use super::{ClientError, McpClient, lock};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;

/// Where this client POSTs: the URL the server's `endpoint` event named.
pub(super) struct LegacySseLink {
    pub(super) http: reqwest::Client,
    pub(super) post_url: String,
}

/// The GET stream after its `endpoint` event, and what was read of it past that event.
pub(super) struct OpenStream {
    chunks: Chunks,
    rest: Vec<u8>,
}

impl LegacySseLink {
    /// Opens the event stream at `url` and waits up to `wait` for the `endpoint` event.
    pub(super) async fn open(
        http: reqwest::Client,
        url: &str,
        wait: Duration,
    ) -> Result<(LegacySseLink, OpenStream), ClientError> {
        // The URL may have been filled from a config's variables: the error does not repeat it.
        let base = reqwest::Url::parse(url)
            .map_err(|e| ClientError::Protocol(format!("the server's URL is not a URL: {e}")))?;
        let opened = async {
            let response = http
                .get(base.clone())
                .header("accept", "text/event-stream")
                .send()
                .await
                .map_err(super::http_link::http_error)?;
            let status = response.status();
            if !status.is_success() {
                let body = response.text().await.unwrap_or_default();
                return Err(ClientError::Http {
                    status: status.as_u16(),
                    body,
                });
            }
            first_endpoint(response).await
        };
        let (endpoint, stream) = tokio::time::timeout(wait, opened)
            .await
            .map_err(|_| ClientError::Timeout(wait))??;
        let post_url = base.join(endpoint.trim()).map_err(|e| {
            ClientError::Protocol(format!("the endpoint event {endpoint:?} is not a URL: {e}"))
        })?;
        // Every POST carries the config's headers (often a credential): only to the server's own
        // origin, as the SDKs insist, never to wherever its event points.
        if post_url.origin() != base.origin() {
            return Err(ClientError::Protocol(format!(
                "the endpoint event names another origin ({}); its messages would carry this server's headers there",
                post_url.origin().ascii_serialization()
            )));
        }
        Ok((
            LegacySseLink {
                http,
                post_url: post_url.to_string(),
            },
            stream,
        ))
    }

    /// POSTs one message; its answer comes on the event stream.
    pub(super) async fn post(&self, body: String) -> Result<(), ClientError> {
        let response = self
            .http
            .post(&self.post_url)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .map_err(super::http_link::http_error)?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        Err(ClientError::Http {
            status: status.as_u16(),
            body: response.text().await.unwrap_or_default(),
        })
    }
}

/// Reads events until the `endpoint` one: its data, and the stream left after it.
async fn first_endpoint(response: reqwest::Response) -> Result<(String, OpenStream), ClientError> {
    let mut bytes = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    loop {
        while let Some(end) = find_event_end(&buffer) {
            let event: Vec<u8> = buffer.drain(..end).collect();
            if event_name(&event) == Some("endpoint") {
                let endpoint = String::from_utf8_lossy(&sse_data(&event)).into_owned();
                // The rest of the body is read by `read_legacy_stream`: hand it what is buffered.
                return Ok((endpoint, OpenStream::rest_of(bytes, buffer)));
            }
        }
        match bytes.next().await {
            Some(Ok(chunk)) => buffer.extend_from_slice(&chunk),
            Some(Err(e)) => return Err(super::http_link::http_error(e)),
            None => {
                return Err(ClientError::Protocol(
                    "the SSE stream ended before its `endpoint` event; is this an HTTP+SSE server (`type: \"sse\"`)?".into(),
                ));
            }
        }
    }
}

/// The `event:` name of one event, if it has one.
fn event_name(event: &[u8]) -> Option<&str> {
    event
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .find_map(|line| line.strip_prefix(b"event:"))
        .and_then(|name| std::str::from_utf8(name).ok())
        .map(str::trim)
}

/// The stream's chunks; an error ends it like its end does.
type Chunks = std::pin::Pin<Box<dyn futures_util::Stream<Item = Option<Vec<u8>>> + Send>>;

impl OpenStream {
    fn rest_of<B: AsRef<[u8]>>(
        bytes: impl futures_util::Stream<Item = Result<B, reqwest::Error>> + Send + 'static,
        rest: Vec<u8>,
    ) -> OpenStream {
        OpenStream {
            chunks: Box::pin(bytes.map(|chunk| chunk.ok().map(|b| b.as_ref().to_vec()))),
            rest,
        }
    }
}

impl McpClient {
    /// Routes the stream's `message` events to the requests waiting for them, in the background.
    pub(super) fn read_legacy_stream(&self, stream: OpenStream) {
        let pending = Arc::clone(&self.pending);
        let notify = self.notify_tx.clone();
        tokio::spawn(async move {
            let OpenStream {
                chunks: mut bytes,
                rest: mut buffer,
            } = stream;
            loop {
                while let Some(end) = find_event_end(&buffer) {
                    let event: Vec<u8> = buffer.drain(..end).collect();
                    let data = sse_data(&event);
                    if matches!(event_name(&event), None | Some("message"))
                        && !data.trim_ascii().is_empty()
                    {
                        route(&data, &pending, &notify);
                    }
                }
                match bytes.next().await {
                    Some(Some(chunk)) => buffer.extend_from_slice(&chunk),
                    _ => break,
                }
            }
            forget_waiting(&pending);
        });
    }
}

/// The server is gone: fail every waiting request rather than let it time out.
fn forget_waiting(pending: &Pending) {
    lock(pending).clear();
}
