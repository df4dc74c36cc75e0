//! Replacing a file whole. The run-folder files that are rewritten — the manifest, the summaries,
//! and the CSV, Parquet and HTML derived from `trials.jsonl` — are written to a temporary file beside
//! the target, flushed to disk and renamed over it, so a kill at any moment leaves the old file or
//! the new one, never an empty or half-written one (a 0-byte manifest once made `--resume` refuse its
//! folder). `trials.jsonl` itself is only ever appended to.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Replaces `path` with `contents`.
pub fn replace(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    replace_with(path, |file| file.write_all(contents))
}

/// Replaces `path` with what `write` writes into a fresh file. When anything fails, `path` is left
/// as it was and the temporary file is removed.
pub fn replace_with<E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<(), E>,
) -> Result<(), E> {
    let temporary = temporary_beside(path);
    let result = write_then_rename(path, &temporary, write);
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

fn write_then_rename<E: From<std::io::Error>>(
    path: &Path,
    temporary: &Path,
    write: impl FnOnce(&mut File) -> Result<(), E>,
) -> Result<(), E> {
    let mut file = File::create(temporary)?;
    write(&mut file)?;
    // Data on disk before the rename, or a crash right after it could leave an empty file.
    file.sync_all()?;
    std::fs::rename(temporary, path)?;
    Ok(())
}

/// `.NAME.PID-N.tmp` in the same folder: a rename within one file system is atomic, the process id
/// keeps two processes writing the same folder off each other's temporary file, and N two threads
/// of one process writing the same file (two lanes saving one prefix-cache entry).
fn temporary_beside(path: &Path) -> PathBuf {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_a_failed_write_leaves_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        replace(&path, b"{\"v\": 1}").unwrap();
        replace(&path, b"{\"v\": 2}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"v\": 2}");
        let failed: std::io::Result<()> = replace_with(&path, |file| {
            file.write_all(b"{\"v\": ")?;
            Err(std::io::Error::other("killed halfway"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"v\": 2}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
    }
}
