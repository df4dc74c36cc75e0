//! What a server the client started as a child process writes on standard error: read as it comes
//! and kept (its last megabyte), so the server's own messages reach whoever asks — `import`'s log —
//! and not the user's terminal, where they would pass for mcpick's.

use std::sync::{Arc, Mutex};
use tokio::io::AsyncReadExt;

/// How much of a child server's standard error is kept.
const KEPT_BYTES: usize = 1 << 20;

/// The kept standard error of a child server.
#[derive(Debug, Default, Clone)]
pub struct StderrLog(Arc<Mutex<Vec<u8>>>);

impl StderrLog {
    /// Reads `stderr` into the log until it closes.
    pub fn keep(&self, mut stderr: tokio::process::ChildStderr) {
        let kept = Arc::clone(&self.0);
        tokio::spawn(async move {
            let mut buffer = [0u8; 8192];
            while let Ok(read) = stderr.read(&mut buffer).await {
                if read == 0 {
                    return;
                }
                let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                kept.extend_from_slice(&buffer[..read]);
                if kept.len() > KEPT_BYTES {
                    let excess = kept.len() - KEPT_BYTES;
                    kept.drain(..excess);
                }
            }
        });
    }

    /// What was written so far, as text (bytes that are not UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}
