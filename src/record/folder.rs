//! The run folder on disk: `trials.jsonl` appended one flushed line per finished trial (a crash
//! loses nothing finished; a last line cut short by one is dropped before the next append), read
//! back whole into `StoredTrial`s, and every other file of the folder replaced whole
//! (`file_replace`), so a kill leaves the old version or the new one, never an empty file.

use super::manifest::{MANIFEST_FILE, Manifest};
use super::trial::StoredTrial;
use crate::file_replace::replace;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// An open run folder, appending to its `trials.jsonl`.
pub struct RunFolder {
    pub path: PathBuf,
    trials: BufWriter<File>,
}

impl RunFolder {
    /// Opens (creating if needed) a run folder for appending. A last line cut short by a crash is
    /// removed first, so the next record starts on a line of its own.
    pub fn create(path: &Path) -> std::io::Result<RunFolder> {
        std::fs::create_dir_all(path)?;
        drop_partial_last_line(&path.join("trials.jsonl"))?;
        let trials = BufWriter::new(
            File::options()
                .create(true)
                .append(true)
                .open(path.join("trials.jsonl"))?,
        );
        Ok(RunFolder {
            path: path.to_path_buf(),
            trials,
        })
    }

    /// Appends one trial and flushes it to the file.
    pub fn append(&mut self, trial: &StoredTrial) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.trials, trial)?;
        self.trials.write_all(b"\n")?;
        self.trials.flush()
    }

    /// Writes (or rewrites) the folder's manifest whole.
    pub fn write_manifest(&self, manifest: &Manifest) -> std::io::Result<()> {
        self.write(MANIFEST_FILE, &manifest.to_json())
    }

    /// Writes (or rewrites) a file of the folder whole: a kill leaves the old or the new one.
    pub fn write(&self, name: &str, contents: &str) -> std::io::Result<()> {
        write_whole(&self.path, name, contents.as_bytes())
    }
}

/// Replaces `name` in the run folder at `folder` with `contents`, whole.
pub fn write_whole(folder: &Path, name: &str, contents: &[u8]) -> std::io::Result<()> {
    replace(&folder.join(name), contents)
}

/// Cuts a file after its last newline: a line without one was being written when the run died.
fn drop_partial_last_line(path: &Path) -> std::io::Result<()> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(());
    };
    let keep = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    if keep < bytes.len() {
        File::options()
            .write(true)
            .open(path)?
            .set_len(keep as u64)?;
    }
    Ok(())
}

/// A run folder's trials as read back.
#[derive(Debug, Default)]
pub struct StoredTrials {
    /// The lines that parse, in file order.
    pub trials: Vec<StoredTrial>,
    /// Lines that do not (a crash can cut the last one short): counted, never fatal.
    pub unreadable: usize,
}

/// Reads `trials.jsonl` of the folder, once; a folder without one holds no trials.
pub fn read_trials(folder: &Path) -> std::io::Result<StoredTrials> {
    let text = std::fs::read_to_string(folder.join("trials.jsonl"))?;
    let mut stored = StoredTrials::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<StoredTrial>(line) {
            Ok(trial) => stored.trials.push(trial),
            Err(_) => stored.unreadable += 1,
        }
    }
    Ok(stored)
}
