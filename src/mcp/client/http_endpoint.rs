//! Reaching a server over HTTP as a client config names it: a URL, the headers every request
//! carries (an `Authorization` a config file holds, say), and which HTTP transport it speaks —
//! Streamable HTTP, or the older HTTP+SSE transport of 2024-11-05 (`type: "sse"` in client
//! configs), reached through `legacy_sse`. The headers are given to the HTTP client only; nothing
//! here records them.

use super::http_link::HttpLink;
use super::legacy_sse::LegacySseLink;
use super::{ClientError, Link, McpClient, Negotiation, lock};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

/// Which HTTP transport a server speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HttpTransport {
    /// Streamable HTTP: one endpoint taking POSTs (MCP 2025-03-26 and later).
    #[default]
    Streamable,
    /// HTTP+SSE (MCP 2024-11-05): a GET stream that names where to POST, answers on that stream.
    LegacySse,
}

/// An HTTP server as a config file names it.
#[derive(Debug, Clone, Default)]
pub struct HttpEndpoint {
    pub url: String,
    /// Sent with every request; values may be secrets, so they are never written anywhere.
    pub headers: Vec<(String, String)>,
    pub transport: HttpTransport,
}

impl HttpEndpoint {
    /// Streamable HTTP at `url`, no headers.
    pub fn streamable(url: &str) -> HttpEndpoint {
        HttpEndpoint {
            url: url.to_string(),
            ..HttpEndpoint::default()
        }
    }

    /// The HTTP client every request to this server goes through, its headers set once.
    fn http_client(&self) -> Result<reqwest::Client, ClientError> {
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &self.headers {
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                ClientError::Protocol(format!("header name {name:?} is not a valid HTTP header"))
            })?;
            // The value is not quoted back: it may be a secret.
            let mut value = reqwest::header::HeaderValue::from_str(value).map_err(|_| {
                ClientError::Protocol(format!(
                    "the value of header {name} is not a valid HTTP header value"
                ))
            })?;
            value.set_sensitive(true);
            // A name given twice is sent twice, as an HTTP client would.
            headers.append(name, value);
        }
        reqwest::Client::builder()
            .tcp_nodelay(true)
            .default_headers(headers)
            .build()
            .map_err(|e| ClientError::Protocol(e.to_string()))
    }
}

impl McpClient {
    /// Connects to `endpoint` in the transport it speaks, each request waiting up to
    /// `request_timeout`. The older SSE transport predates the stateless revision, so it always
    /// speaks the `initialize` handshake.
    pub async fn connect_endpoint(
        endpoint: &HttpEndpoint,
        negotiation: Negotiation,
        request_timeout: Duration,
    ) -> Result<McpClient, ClientError> {
        let http = endpoint.http_client()?;
        if endpoint.transport == HttpTransport::LegacySse {
            let (link, stream) = LegacySseLink::open(http, &endpoint.url, request_timeout).await?;
            let mut client = McpClient::unconnected(Link::LegacySse(link), None);
            client.request_timeout = request_timeout;
            client.read_legacy_stream(stream);
            return client.negotiate(Negotiation::Sessions).await;
        }
        let link = HttpLink {
            http,
            url: endpoint.url.clone(),
            session_id: Mutex::new(None),
            protocol_version: Mutex::new(None),
        };
        let mut client = McpClient::unconnected(Link::Http(link), None);
        client.request_timeout = request_timeout;
        let client = client.negotiate(negotiation).await?;
        if client.is_stateless() {
            client.listen_for_changes();
        } else if let Link::Http(link) = &client.link {
            *lock(&link.protocol_version) = client
                .server_info
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
            client.open_http_notification_stream(link);
        }
        Ok(client)
    }
}
