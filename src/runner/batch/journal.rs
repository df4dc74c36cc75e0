//! The run folder's `batches.jsonl`: one line for each provider batch the run submitted — the
//! backend, the provider, the batch id, the custom ids it holds, when — written and flushed to disk
//! as soon as the provider answers with the id. A run killed between submitting and collecting
//! finds its batches here when resumed, and polls them instead of submitting their requests again.
//! A later line for a custom id overrides an earlier one (a request resubmitted after its first
//! batch failed or expired). The journal is read back as outside input: a batch id that could not
//! have come from a provider (`backend::usable_id`: it would leave its URL path segment) is a lost
//! batch, and its requests are submitted again.

use crate::record::{MAX_LINE_BYTES, ends_with_newline, read_bounded_line};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub const JOURNAL_FILE: &str = "batches.jsonl";

/// One submitted batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubmittedBatch {
    pub backend: String,
    pub provider: String,
    pub batch_id: String,
    /// OpenAI's endpoint or Anthropic's beta header the batch's requests share.
    pub group: String,
    pub custom_ids: Vec<String>,
    /// Seconds since the Unix epoch.
    pub submitted_at: u64,
}

#[derive(Debug)]
pub struct BatchJournal {
    path: PathBuf,
    file: Mutex<File>,
}

impl BatchJournal {
    /// Opens the journal of the run folder `folder` for appending, with the batches it already
    /// lists. A line that does not parse (a crash cut it short) is skipped with a warning: its
    /// requests are submitted again, which costs money but loses nothing.
    pub fn open(folder: &Path) -> std::io::Result<(BatchJournal, Vec<SubmittedBatch>)> {
        let path = folder.join(JOURNAL_FILE);
        let mut earlier = Vec::new();
        if path.exists() {
            let mut reader = BufReader::new(File::open(&path)?);
            let mut bytes = Vec::new();
            for number in 0.. {
                let (length, _) = read_bounded_line(&mut reader, &mut bytes, MAX_LINE_BYTES)?;
                if length == 0 {
                    break;
                }
                let line = String::from_utf8_lossy(&bytes);
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<SubmittedBatch>(&line) {
                    Ok(batch) if crate::backend::usable_id(&batch.batch_id) => earlier.push(batch),
                    Ok(batch) => tracing::warn!(
                        "{}:{}: the batch id {:?} is not one a provider gives (letters, digits, _ and -); its requests will be submitted again",
                        path.display(),
                        number + 1,
                        batch.batch_id.chars().take(80).collect::<String>()
                    ),
                    Err(e) => tracing::warn!(
                        "{}:{}: skipped a batch record that does not parse ({e}); its requests will be submitted again",
                        path.display(),
                        number + 1
                    ),
                }
            }
        }
        let mut file = File::options().create(true).append(true).open(&path)?;
        // A line cut short by a crash must not swallow the next record.
        if !ends_with_newline(&path)? {
            file.write_all(b"\n")?;
        }
        Ok((
            BatchJournal {
                path,
                file: Mutex::new(file),
            },
            earlier,
        ))
    }

    /// Appends one batch and makes it durable before the queue goes on to poll it.
    pub fn record(&self, batch: &SubmittedBatch) -> std::io::Result<()> {
        let mut line = serde_json::to_string(batch).map_err(std::io::Error::other)?;
        line.push('\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("the batch journal's lock is poisoned"))?;
        file.write_all(line.as_bytes())?;
        file.sync_data()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(id: &str) -> SubmittedBatch {
        SubmittedBatch {
            backend: "openai:m".into(),
            provider: "openai".into(),
            batch_id: id.into(),
            group: "/v1/chat/completions".into(),
            custom_ids: vec!["a".into(), "b".into()],
            submitted_at: 1,
        }
    }

    #[test]
    fn batches_survive_reopening_and_a_cut_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let (journal, earlier) = BatchJournal::open(dir.path()).unwrap();
        assert!(earlier.is_empty());
        journal.record(&batch("b1")).unwrap();
        drop(journal);
        // A crash in the middle of a second record.
        let path = dir.path().join(JOURNAL_FILE);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"backend\": \"open");
        std::fs::write(&path, text).unwrap();
        let (journal, earlier) = BatchJournal::open(dir.path()).unwrap();
        assert_eq!(earlier, vec![batch("b1")]);
        journal.record(&batch("b2")).unwrap();
        drop(journal);
        let (_, earlier) = BatchJournal::open(dir.path()).unwrap();
        assert_eq!(earlier, vec![batch("b1"), batch("b2")]);
    }

    /// Ids read back are checked as the provider's are: one that would leave its path segment, or
    /// a line that is not UTF-8, is a lost batch (its requests go again), never a URL.
    #[test]
    fn ids_edited_in_the_journal_are_lost_batches() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = Vec::new();
        for id in [
            "batch_ok",
            "batch_1?leak=1",
            "..%2F..%2Fstats",
            "../../../v1/files",
            "",
        ] {
            text.extend(serde_json::to_vec(&batch(id)).unwrap());
            text.push(b'\n');
        }
        text.extend(b"\xff\xfe{\"batch_id\": 1}\n");
        std::fs::write(dir.path().join(JOURNAL_FILE), text).unwrap();
        let (_, earlier) = BatchJournal::open(dir.path()).unwrap();
        assert_eq!(earlier, vec![batch("batch_ok")]);
    }
}
