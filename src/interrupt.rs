//! What "stop" means to a long-running command: Ctrl-C (SIGINT) or SIGTERM — what Kubernetes,
//! Slurm and systemd send before they kill. `mcpick run` keeps its finished trials and writes its
//! summary on either; `mcpick serve` shuts down cleanly on either. A run listens (`listen`) before
//! it writes its manifest, so a signal that comes while it is still starting is held for it rather
//! than killing the process.

#[cfg(unix)]
use tokio::signal::unix::{Signal, SignalKind, signal};

/// Completes when the process is asked to stop (listening from the first poll).
pub async fn requested() {
    listen().requested().await
}

/// Signals to stop, listened for since `listen` was called.
pub struct Interrupt {
    /// SIGINT and SIGTERM; `None` where the handlers could not be installed (Ctrl-C is then
    /// listened for from the first poll).
    #[cfg(unix)]
    signals: Option<(Signal, Signal)>,
}

/// Starts listening now: a signal that arrives before `requested` is awaited is kept. Must be
/// called inside a tokio runtime.
pub fn listen() -> Interrupt {
    #[cfg(unix)]
    {
        Interrupt {
            signals: signal(SignalKind::interrupt())
                .and_then(|int| Ok((int, signal(SignalKind::terminate())?)))
                .ok(),
        }
    }
    #[cfg(not(unix))]
    Interrupt {}
}

impl Interrupt {
    /// Completes once a stop was asked for since `listen`.
    pub async fn requested(&mut self) {
        #[cfg(unix)]
        if let Some((int, term)) = &mut self.signals {
            tokio::select! {
                _ = int.recv() => {},
                _ = term.recv() => {},
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}
