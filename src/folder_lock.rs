//! A lock file that says one process is working in a folder: an advisory lock (`flock`) on a file
//! of the folder's, held for as long as the returned `File` lives and released by the system when
//! the process ends, however it ends. `review` waits for it before each write, so two reviews (or a
//! review and a draft) never interleave their rewrites of one task file; `improve` refuses to
//! start when another holds it, since two would append the same trials to the same runs.

use std::fs::File;
use std::path::Path;

/// Opens (creating it) the lock file at `path`.
fn open(path: &Path) -> Result<File, String> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Holds the lock at `path`, waiting while another process does.
pub fn hold(path: &Path) -> Result<File, String> {
    let file = open(path)?;
    file.lock()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(file)
}

/// Holds the lock at `path` if nobody else does; `Ok(None)` when another process holds it.
pub fn try_hold(path: &Path) -> Result<Option<File>, String> {
    let file = open(path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("{}: {e}", path.display())),
    }
}
