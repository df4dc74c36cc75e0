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

/// A stop remembered for a command that does work between runs (`improve`'s rewriter asks): once
/// a signal has been handled, the process no longer dies of the next one, and a run that is not
/// running hears nothing — so such a command watches from its start, and checks between steps.
/// A run in flight hears the same signal and stops as it always does.
#[derive(Clone)]
pub struct StopWatch {
    stopped: std::sync::Arc<std::sync::atomic::AtomicBool>,
    notify: std::sync::Arc<tokio::sync::Notify>,
}

impl StopWatch {
    /// Starts watching; must be called inside a tokio runtime.
    pub fn start() -> StopWatch {
        let watch = StopWatch {
            stopped: Default::default(),
            notify: Default::default(),
        };
        let mut interrupt = listen();
        let signalled = watch.clone();
        tokio::spawn(async move {
            interrupt.requested().await;
            signalled
                .stopped
                .store(true, std::sync::atomic::Ordering::SeqCst);
            signalled.notify.notify_waiters();
        });
        watch
    }

    /// Whether a stop was asked for.
    pub fn stopped(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Completes once a stop was asked for (at once if it already was).
    pub async fn requested(&self) {
        let notified = self.notify.notified();
        if self.stopped() {
            return;
        }
        notified.await;
    }
}
