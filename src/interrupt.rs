//! What "stop" means to a long-running command: Ctrl-C (SIGINT) or SIGTERM — what Kubernetes,
//! Slurm and systemd send before they kill. `mcpick run` keeps its finished trials and writes its
//! summary on either; `mcpick serve` shuts down cleanly on either. A run listens (`listen`) before
//! it writes its manifest, so a signal that comes while it is still starting is held for it rather
//! than killing the process. A stop heard once is remembered for the process: a command that runs
//! several runs (`improve`, `explain`) watches from its start (`StopWatch`), and every run after
//! the signal stops at once.

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

/// Set once any listener in the process has heard a stop: a command that runs several runs stops
/// them all, a run started after the signal included (it would not hear it: once handled, a signal
/// is only delivered to listeners that exist when it comes).
static STOP_HEARD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Interrupt {
    /// Completes once a stop was asked for since `listen`, or at once if one was already heard in
    /// this process.
    pub async fn requested(&mut self) {
        if stop_heard() {
            return;
        }
        #[cfg(unix)]
        if let Some((int, term)) = &mut self.signals {
            tokio::select! {
                _ = int.recv() => {},
                _ = term.recv() => {},
            }
            STOP_HEARD.store(true, std::sync::atomic::Ordering::SeqCst);
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
        STOP_HEARD.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Whether a stop was heard in this process.
pub fn stop_heard() -> bool {
    STOP_HEARD.load(std::sync::atomic::Ordering::SeqCst)
}

/// A stop heard between runs, for a command that does work there (`improve`'s rewriter asks,
/// `explain`'s analysis): once a signal has been handled, the process no longer dies of the next
/// one, and no run is listening — so such a command watches from its start. What it hears stops
/// every later run at its start (`stop_heard`), and the command can check or wait for it.
#[derive(Clone)]
pub struct StopWatch {
    notify: std::sync::Arc<tokio::sync::Notify>,
}

impl StopWatch {
    /// Starts watching; must be called inside a tokio runtime.
    pub fn start() -> StopWatch {
        let watch = StopWatch {
            notify: Default::default(),
        };
        let mut interrupt = listen();
        let signalled = watch.clone();
        tokio::spawn(async move {
            interrupt.requested().await;
            signalled.notify.notify_waiters();
        });
        watch
    }

    /// Whether a stop was asked for.
    pub fn stopped(&self) -> bool {
        stop_heard()
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
