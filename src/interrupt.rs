//! What "stop" means to a long-running command: Ctrl-C (SIGINT) or SIGTERM — what Kubernetes,
//! Slurm and systemd send before they kill. `mcpick run` keeps its finished trials and writes its
//! summary on either; `mcpick serve` shuts down cleanly on either.

/// Completes when the process is asked to stop.
pub async fn requested() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut terminate) = signal(SignalKind::terminate()) else {
            // Without a SIGTERM handler, Ctrl-C still works.
            let _ = ctrl_c.await;
            return;
        };
        tokio::select! {
            _ = ctrl_c => {},
            _ = terminate.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
