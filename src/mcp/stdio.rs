//! Newline-delimited JSON over a byte stream: the stdio transport, and — over `tokio::io::duplex` —
//! the in-memory transport of in-process runs, so both run exactly the same code. One reader loop
//! parses lines and dispatches them (calls run concurrently); one writer task owns the output and
//! writes one compact JSON object per line, flushing per burst. Nothing else is ever written to the
//! output: logs go to stderr.

use super::jsonrpc::{Message, encode_error};
use super::server::{McpServer, Outbox, Session, list_changed_notification};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc};

/// Lines longer than this are answered with an error and skipped, so one bad peer cannot exhaust memory.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// How long, after the input ends, in-flight calls may still answer before the transport gives up.
const DRAIN_AFTER_EOF: Duration = Duration::from_secs(2);

/// Serves one session on stdin/stdout until stdin closes.
pub async fn serve_stdio(server: Arc<McpServer>) -> std::io::Result<()> {
    serve_stream(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves one session on any byte stream pair until the reader reaches end of input.
pub async fn serve_stream<R, W>(server: Arc<McpServer>, reader: R, writer: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let session = Session::new(Arc::clone(&server));
    let (outbox, outgoing) = mpsc::unbounded_channel::<String>();
    let writer_task = tokio::spawn(write_lines(writer, outgoing));
    let notifier = tokio::spawn(forward_list_changed(
        server.subscribe_list_changed(),
        outbox.clone(),
    ));

    let result = read_lines(reader, &session, &outbox).await;

    notifier.abort();
    drop(outbox);
    match tokio::time::timeout(DRAIN_AFTER_EOF, writer_task).await {
        Ok(Ok(written)) => written?,
        Ok(Err(join_error)) => return Err(std::io::Error::other(join_error)),
        Err(_) => tracing::warn!(
            "calls still running {DRAIN_AFTER_EOF:?} after input ended; not waiting for them"
        ),
    }
    result
}

async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    session: &Arc<Session>,
    outbox: &Outbox,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Ok(());
        }
        if line.len() > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            let error = super::jsonrpc::ErrorObject::new(
                super::jsonrpc::INVALID_REQUEST,
                format!("Invalid Request: message longer than {MAX_LINE_BYTES} bytes"),
            );
            let _ = outbox.send(encode_error(None, &error));
            skip_rest_of_line(&mut reader).await?;
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        match Message::parse(text) {
            Ok(message) => session.dispatch(message, outbox),
            Err(rejection) => {
                tracing::debug!("rejected input: {}", rejection.error.message);
                let _ = outbox.send(encode_error(rejection.id.as_ref(), &rejection.error));
            }
        }
    }
}

async fn skip_rest_of_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> std::io::Result<()> {
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buffer.len();
                reader.consume(n);
            }
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut outgoing: mpsc::UnboundedReceiver<String>,
) -> std::io::Result<()> {
    let mut buffer = Vec::with_capacity(64 * 1024);
    while let Some(message) = outgoing.recv().await {
        buffer.clear();
        buffer.extend_from_slice(message.as_bytes());
        buffer.push(b'\n');
        // Write whatever else is already queued in the same syscall, then flush once per burst.
        while let Ok(more) = outgoing.try_recv() {
            buffer.extend_from_slice(more.as_bytes());
            buffer.push(b'\n');
        }
        writer.write_all(&buffer).await?;
        writer.flush().await?;
    }
    writer.shutdown().await.or(Ok(()))
}

async fn forward_list_changed(mut changes: broadcast::Receiver<()>, outbox: Outbox) {
    loop {
        match changes.recv().await {
            // Several reloads in a burst still deserve one notification each; a lagged receiver
            // sends one for the lot, since the client re-lists anyway.
            Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                if outbox.send(list_changed_notification()).is_err() {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}
