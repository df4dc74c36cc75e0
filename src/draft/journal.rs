//! The draft's journal, `DIR/.draft/journal.jsonl`: each ask's checked reply, appended and synced
//! as it arrives, so a draft that is killed resumes with what it has and asks only for the rest.
//! The first line fingerprints what was asked (toolset, drafter, prompt templates, counts, seed); a
//! journal of other settings is set aside (renamed `.stale`) rather than mixed in. A torn last line
//! (a kill mid-write) is ignored, and that ask is asked again. An ask whose reply was unusable is
//! journaled as failed, so a resumed draft asks the ones never asked first and retries the failed
//! ones last, instead of stopping on the same three failures again.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub struct Journal {
    path: PathBuf,
    file: File,
    replies: HashMap<String, Value>,
    /// Asks that brought nothing usable, with why (the last time).
    failures: HashMap<String, String>,
}

/// What opening the journal found.
pub enum Opened {
    /// No journal, or one of other settings (set aside): every ask is asked.
    Fresh { set_aside: Option<PathBuf> },
    /// This many asks were answered before.
    Resumed(usize),
}

impl Journal {
    /// Opens (or starts) the journal in `work_dir` for `fingerprint`.
    pub fn open(work_dir: &Path, fingerprint: &str) -> std::io::Result<(Journal, Opened)> {
        std::fs::create_dir_all(work_dir)?;
        let path = work_dir.join("journal.jsonl");
        let mut replies = HashMap::new();
        let mut failures = HashMap::new();
        let mut set_aside = None;
        let mut resumed = false;
        if let Ok(bytes) = std::fs::read(&path) {
            let text = String::from_utf8_lossy(&bytes);
            let mut lines = text.lines();
            let header: Option<Value> = lines.next().and_then(|l| serde_json::from_str(l).ok());
            if header.as_ref().and_then(|h| h["fingerprint"].as_str()) == Some(fingerprint) {
                resumed = true;
                for line in lines {
                    let Ok(entry) = serde_json::from_str::<Value>(line) else {
                        continue;
                    };
                    let Some(ask) = entry["ask"].as_str() else {
                        continue;
                    };
                    match entry["failed"].as_str() {
                        Some(why) => {
                            failures.insert(ask.to_string(), why.to_string());
                        }
                        None => {
                            replies.insert(ask.to_string(), entry["reply"].clone());
                        }
                    }
                }
            } else {
                let stale = path.with_extension("jsonl.stale");
                std::fs::rename(&path, &stale)?;
                set_aside = Some(stale);
            }
        }
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        let mut journal = Journal {
            path,
            file,
            replies,
            failures,
        };
        if !resumed {
            journal.append(&json!({"fingerprint": fingerprint}))?;
        }
        let opened = if resumed {
            Opened::Resumed(journal.replies.len())
        } else {
            Opened::Fresh { set_aside }
        };
        Ok((journal, opened))
    }

    pub fn reply(&self, ask: &str) -> Option<&Value> {
        self.replies.get(ask)
    }

    /// Whether an earlier try of `ask` brought nothing usable (and no reply came since).
    pub fn failed_before(&self, ask: &str) -> bool {
        self.failures.contains_key(ask) && !self.replies.contains_key(ask)
    }

    /// Appends that an ask brought nothing usable, and why.
    pub fn record_failure(&mut self, ask: &str, why: &str) -> std::io::Result<()> {
        self.append(&json!({"ask": ask, "failed": why}))?;
        self.failures.insert(ask.to_string(), why.to_string());
        Ok(())
    }

    /// Appends an ask's reply and syncs it to disk.
    pub fn record(&mut self, ask: &str, reply: &Value) -> std::io::Result<()> {
        self.append(&json!({"ask": ask, "reply": reply}))?;
        self.replies.insert(ask.to_string(), reply.clone());
        Ok(())
    }

    fn append(&mut self, entry: &Value) -> std::io::Result<()> {
        // A torn line before this one (a kill mid-write) must not swallow this entry.
        let torn = std::fs::read(&self.path)
            .map(|bytes| !bytes.is_empty() && !bytes.ends_with(b"\n"))
            .unwrap_or(false);
        let mut line = if torn {
            "\n".to_string()
        } else {
            String::new()
        };
        line.push_str(&entry.to_string());
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_survive_a_restart_and_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (mut journal, opened) = Journal::open(dir.path(), "abc").unwrap();
            assert!(matches!(opened, Opened::Fresh { set_aside: None }));
            journal.record("tool:a", &json!({"requests": []})).unwrap();
        }
        // A kill in the middle of the next line.
        let path = dir.path().join("journal.jsonl");
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"ask\": \"tool:b\", \"rep").unwrap();
        let (mut journal, opened) = Journal::open(dir.path(), "abc").unwrap();
        assert!(matches!(opened, Opened::Resumed(1)));
        assert!(journal.reply("tool:a").is_some() && journal.reply("tool:b").is_none());
        journal.record("tool:b", &json!({"requests": [1]})).unwrap();
        let (journal, _) = Journal::open(dir.path(), "abc").unwrap();
        assert_eq!(journal.reply("tool:b"), Some(&json!({"requests": [1]})));
    }

    #[test]
    fn a_failed_ask_is_remembered_until_it_is_answered() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, _) = Journal::open(dir.path(), "abc").unwrap();
        journal.record_failure("tool:a", "not JSON").unwrap();
        drop(journal);
        let (mut journal, opened) = Journal::open(dir.path(), "abc").unwrap();
        assert!(matches!(opened, Opened::Resumed(0)));
        assert!(journal.failed_before("tool:a") && !journal.failed_before("tool:b"));
        journal.record("tool:a", &json!({"requests": []})).unwrap();
        assert!(!journal.failed_before("tool:a"));
    }

    #[test]
    fn a_journal_of_other_settings_is_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, _) = Journal::open(dir.path(), "abc").unwrap();
        journal.record("tool:a", &json!({})).unwrap();
        drop(journal);
        let (journal, opened) = Journal::open(dir.path(), "other").unwrap();
        assert!(journal.reply("tool:a").is_none());
        let Opened::Fresh {
            set_aside: Some(stale),
        } = opened
        else {
            panic!("not set aside")
        };
        assert!(stale.exists());
    }
}
