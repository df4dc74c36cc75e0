//! The run folder on disk: `trials.jsonl` appended one flushed line per finished trial (a crash
//! loses nothing finished), opened for a resumed run only after its lines were checked against the
//! plan and those that are not its trials set aside (`trial_lines`, `set_aside`) — so the next
//! record starts on a line of its own — and every other file of the folder replaced whole
//! (`file_replace`), so a kill leaves the old version or the new one, never an empty file.

use super::manifest::{MANIFEST_FILE, Manifest};
use super::planned::PlannedKeys;
use super::set_aside::move_aside;
use super::stamp::utc_stamp;
use super::trial::StoredTrial;
use super::trial_lines::{StoredTrials, TRIALS_FILE, read_trials};
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
    /// Opens (creating if needed) a run folder for appending, with the trials it already holds:
    /// each line of `trials.jsonl` is checked against `plan`, and the lines that are not its
    /// trials (a last line cut short by a kill among them) are moved into `set-aside.jsonl` first.
    pub fn open(path: &Path, plan: &PlannedKeys) -> std::io::Result<(RunFolder, StoredTrials)> {
        std::fs::create_dir_all(path)?;
        let mut stored = match read_trials(path, Some(plan)) {
            Ok(stored) => stored,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => StoredTrials::default(),
            Err(e) => return Err(e),
        };
        stored.earlier_set_aside = super::set_aside::count(path)?;
        move_aside(
            path,
            &stored.set_aside,
            &utc_stamp(std::time::SystemTime::now()),
        )?;
        let mut folder = RunFolder::create(path)?;
        // A whole last trial written without its newline (by hand) must not take the next one in.
        if !ends_with_newline(&path.join(TRIALS_FILE))? {
            folder.trials.write_all(b"\n")?;
            folder.trials.flush()?;
        }
        Ok((folder, stored))
    }

    /// Opens (creating if needed) a new run folder for appending: one without trials, or one
    /// whose trials were checked by `open`.
    pub fn create(path: &Path) -> std::io::Result<RunFolder> {
        std::fs::create_dir_all(path)?;
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

/// Whether a file is empty or ends with a newline (what an append-only file of lines must, before a
/// line is appended).
pub fn ends_with_newline(path: &Path) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = File::open(path)?;
    if file.metadata()?.len() == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Replaces `name` in the run folder at `folder` with `contents`, whole.
pub fn write_whole(folder: &Path, name: &str, contents: &[u8]) -> std::io::Result<()> {
    replace(&folder.join(name), contents)
}
