//! The in-memory transport for in-process runs: a `tokio::io::duplex` pipe with the stdio transport's
//! newline-delimited JSON on both ends, so the runner's calls take the same path as an outside client's.

use super::stdio::serve_stream;
use crate::mcp::client::{ClientError, McpClient, Negotiation};
use crate::mcp::state::server::McpServer;
use std::sync::Arc;

/// Bytes buffered in each direction of the pipe.
const PIPE_BYTES: usize = 256 * 1024;

/// Starts a session of `server` on an in-memory pipe and returns a client connected to it. The
/// client speaks the stateless revision 2026-07-28, which this server does: no handshake, no probe, so a trial's first
/// message is its `tools/list`. The session ends when the client is dropped.
pub async fn connect_in_memory(server: Arc<McpServer>) -> Result<McpClient, ClientError> {
    let (client_end, server_end) = tokio::io::duplex(PIPE_BYTES);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        if let Err(e) = serve_stream(server, server_read, server_write).await {
            tracing::debug!("in-memory session ended: {e}");
        }
    });
    let (client_read, client_write) = tokio::io::split(client_end);
    McpClient::connect_lines_with(client_read, client_write, Negotiation::Stateless).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{ServedTools, ServerConfig};
    use std::time::Duration;

    #[tokio::test]
    async fn a_dropped_client_ends_its_session() {
        let server = McpServer::new(
            ServerConfig::default(),
            ServedTools::new(Vec::new()).unwrap(),
        );
        let clients = [
            connect_in_memory(Arc::clone(&server)).await.unwrap(),
            connect_in_memory(Arc::clone(&server)).await.unwrap(),
        ];
        // No handshake: a first request makes sure both sessions are being served.
        for client in &clients {
            client.list_tools().await.unwrap();
            assert_eq!(client.protocol_version, "2026-07-28");
        }
        assert_eq!(server.open_sessions(), 2);
        drop(clients);
        // A run opens one session per trial: each must end with its trial, not with the run.
        for _ in 0..200 {
            if server.open_sessions() == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{} sessions outlived their clients", server.open_sessions());
    }
}
