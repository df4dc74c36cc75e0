//! The review of drafted tasks: a suite folder's task file (`tasks_file`, as `mcpick draft` writes
//! it) read as records, the pending ones (`review = "draft"` or `"doubtful"`) found, and each
//! decision written back at once. The file on disk is the truth, not a copy in memory: a person
//! may edit it in another window while a question waits. So each decision re-reads the file under
//! a lock (`.review.lock` beside it, against a second `review` or a `draft` into the same folder),
//! finds the record exactly as it was shown — by its whole content, not its id, so two tasks that
//! share an id are two tasks — changes that one line and nothing else (every other line is kept
//! byte for byte), and replaces the file whole (temporary file, sync, rename) only if it is still
//! what was read. A record that changed since it was shown is not decided on: the reviewer is
//! shown it again. Accepted tasks say `review = "accepted"`; rejected ones move to
//! `rejected.jsonl` beside the task file; an edited one replaces the record only if the suite
//! still loads without errors. No terminal here: the command (`commands::review`) asks.

use crate::file_replace::replace;
use crate::load::Workspace;
use crate::spec::SuiteFile;
use crate::untrusted_text::shown;
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A suite's task file, open for review.
pub struct ReviewFile {
    pub suite: PathBuf,
    pub tasks_file: PathBuf,
}

/// A record of the task file.
pub type Record = Map<String, Value>;

/// What a reviewer decided about one record.
#[derive(Debug, Clone)]
pub enum Decision {
    Accept,
    Reject,
    /// Replace it with this record (an edit); kept only if the suite still loads.
    Replace(Record),
}

/// What became of a decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Decided {
    Done,
    /// The record is not in the file as it was shown (edited or removed meanwhile): nothing was
    /// written.
    Changed,
}

/// The task file as read: each line's bytes (without its `\n`), and its record where it is one.
struct Lines {
    bytes: Vec<u8>,
    lines: Vec<(Vec<u8>, Option<Record>)>,
}

impl ReviewFile {
    /// Opens the suite in `dir` (or the suite file `dir` names) and checks its task file reads.
    pub fn open(dir: &Path) -> Result<ReviewFile, String> {
        let suite = if dir.is_dir() {
            dir.join("suite.toml")
        } else {
            dir.to_path_buf()
        };
        let text = std::fs::read_to_string(&suite).map_err(|e| {
            format!(
                "{}: {e} (review takes a folder `mcpick draft` wrote, or its suite file)",
                suite.display()
            )
        })?;
        let file: SuiteFile = toml::from_str(&text)
            .map_err(|e| format!("{}: not a suite file: {}", suite.display(), e.message()))?;
        let Some(tasks_file) = file.tasks_file.as_ref().map(|f| f.value.as_str()) else {
            return Err(format!(
                "{}: the suite has no `tasks_file`; review works on task records, as `mcpick draft` writes them",
                suite.display()
            ));
        };
        let tasks_file = suite.parent().unwrap_or(Path::new(".")).join(tasks_file);
        let file = ReviewFile { suite, tasks_file };
        file.records()?;
        Ok(file)
    }

    fn read(&self) -> Result<Lines, String> {
        let bytes = std::fs::read(&self.tasks_file)
            .map_err(|e| format!("{}: {e}", self.tasks_file.display()))?;
        let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let lines = if body.is_empty() {
            Vec::new()
        } else {
            body.split(|&b| b == b'\n')
                .map(|line| {
                    let record = match serde_json::from_slice::<Value>(line) {
                        Ok(Value::Object(record)) => Some(record),
                        _ => None,
                    };
                    (line.to_vec(), record)
                })
                .collect()
        };
        Ok(Lines { bytes, lines })
    }

    /// Every record now on disk.
    pub fn records(&self) -> Result<Vec<Record>, String> {
        self.read()?.records(&self.tasks_file)
    }

    /// The records nobody has decided on yet, as they are on disk now, doubtful ones first.
    pub fn pending(&self) -> Result<Vec<Record>, String> {
        let mut pending: Vec<Record> = self
            .records()?
            .into_iter()
            .filter(|r| matches!(state(r), Some("draft" | "doubtful")))
            .collect();
        pending.sort_by_key(|r| state(r) != Some("doubtful"));
        Ok(pending)
    }

    /// Ids that more than one record has, each once.
    pub fn shared_ids(&self) -> Result<Vec<String>, String> {
        let mut seen = std::collections::BTreeMap::<String, usize>::new();
        for record in self.records()? {
            *seen.entry(id_of(&record).to_string()).or_default() += 1;
        }
        Ok(seen
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(id, _)| id)
            .collect())
    }

    /// The record `shown` is now: itself if it is still in the file as shown; else, if the
    /// person edited it meanwhile, the one pending record with its id; else none (decided or
    /// removed elsewhere).
    pub fn current(&self, shown: &Record) -> Result<Option<Record>, String> {
        let records = self.records()?;
        if records.contains(shown) {
            return Ok(Some(shown.clone()));
        }
        let mut same_id = records
            .into_iter()
            .filter(|r| id_of(r) == id_of(shown) && matches!(state(r), Some("draft" | "doubtful")));
        Ok(match (same_id.next(), same_id.next()) {
            (Some(record), None) => Some(record),
            _ => None,
        })
    }

    /// Applies `decision` to the record `shown`, as it is on disk now.
    pub fn decide(&self, shown: &Record, decision: &Decision) -> Result<Decided, String> {
        let _lock = self.lock()?;
        let Decision::Replace(edited) = decision else {
            return Ok(self.decide_locked(shown, decision)?.0);
        };
        // An edit is kept only if it brings no error the suite did not have.
        let before = self.load_errors();
        let (decided, position) = self.decide_locked(shown, decision)?;
        if decided != Decided::Done {
            return Ok(decided);
        }
        let new: Vec<String> = self
            .load_errors()
            .into_iter()
            .filter(|e| !before.contains(e))
            .collect();
        if new.is_empty() {
            return Ok(Decided::Done);
        }
        // The edit goes back out the way it came in, at the line it went to: other lines
        // changed meanwhile stay.
        match self.restore_line(position, edited, shown)? {
            Decided::Done => Err(new.join("\n")),
            Decided::Changed => Err(format!(
                "{}\nand the file changed meanwhile, so the edit could not be taken back: line {} holds it",
                new.join("\n"),
                position + 1
            )),
        }
    }

    /// Applies `decision` to the first line holding `shown`: whether it was done, and at which
    /// line.
    fn decide_locked(
        &self,
        shown: &Record,
        decision: &Decision,
    ) -> Result<(Decided, usize), String> {
        let lines = self.read()?;
        self.refuse_unreadable(&lines)?;
        let Some(position) = lines
            .lines
            .iter()
            .position(|(_, record)| record.as_ref() == Some(shown))
        else {
            return Ok((Decided::Changed, 0));
        };
        let replacement = match decision {
            Decision::Accept => {
                let mut record = shown.clone();
                record.insert("review".into(), Value::String("accepted".into()));
                Some(Value::Object(record).to_string().into_bytes())
            }
            Decision::Replace(record) => {
                Some(Value::Object(record.clone()).to_string().into_bytes())
            }
            Decision::Reject => None,
        };
        // Still what was read (an editor's save in the meantime is not overwritten): only then is
        // anything written, the rejected line first.
        if !self.unchanged(&lines)? {
            return Ok((Decided::Changed, position));
        }
        if matches!(decision, Decision::Reject) {
            self.append_rejected(&lines.lines[position].0)?;
        }
        self.write(&lines, position, replacement)?;
        Ok((Decided::Done, position))
    }

    /// Puts `previous` back at line `position` if it still holds `now`.
    fn restore_line(
        &self,
        position: usize,
        now: &Record,
        previous: &Record,
    ) -> Result<Decided, String> {
        let lines = self.read()?;
        let holds = lines
            .lines
            .get(position)
            .is_some_and(|(_, record)| record.as_ref() == Some(now));
        if !holds || !self.unchanged(&lines)? {
            return Ok(Decided::Changed);
        }
        let previous = Value::Object(previous.clone()).to_string().into_bytes();
        self.write(&lines, position, Some(previous))?;
        Ok(Decided::Done)
    }

    fn refuse_unreadable(&self, lines: &Lines) -> Result<(), String> {
        match lines
            .lines
            .iter()
            .position(|(text, r)| r.is_none() && !text.trim_ascii().is_empty())
        {
            Some(k) => Err(format!(
                "{}:{}: not a task record (a JSON object) now; fix the line, then decide again",
                self.tasks_file.display(),
                k + 1
            )),
            None => Ok(()),
        }
    }

    fn unchanged(&self, lines: &Lines) -> Result<bool, String> {
        let now = std::fs::read(&self.tasks_file)
            .map_err(|e| format!("{}: {e}", self.tasks_file.display()))?;
        Ok(now == lines.bytes)
    }

    fn append_rejected(&self, line: &[u8]) -> Result<(), String> {
        let rejected = self.tasks_file.with_file_name("rejected.jsonl");
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&rejected)
            .map_err(|e| format!("{}: {e}", rejected.display()))?;
        file.write_all(line)
            .and_then(|()| file.write_all(b"\n"))
            .and_then(|()| file.sync_data())
            .map_err(|e| format!("{}: {e}", rejected.display()))
    }

    /// Replaces the task file with `lines`, line `position` replaced (or, with `None`, left out);
    /// every other line as it was, byte for byte.
    fn write(
        &self,
        lines: &Lines,
        position: usize,
        replacement: Option<Vec<u8>>,
    ) -> Result<(), String> {
        let mut text: Vec<u8> = Vec::with_capacity(lines.bytes.len());
        for (k, (line, _)) in lines.lines.iter().enumerate() {
            let line = if k == position {
                match &replacement {
                    Some(replacement) => replacement,
                    None => continue,
                }
            } else {
                line
            };
            text.extend_from_slice(line);
            text.push(b'\n');
        }
        replace(&self.tasks_file, &text).map_err(|e| format!("{}: {e}", self.tasks_file.display()))
    }

    fn load_errors(&self) -> Vec<String> {
        Workspace::load(std::slice::from_ref(&self.suite))
            .error_diagnostics()
            .map(|d| d.to_string())
            .collect()
    }

    /// The folder's review lock, held while a decision is written (`draft` holds it too while
    /// it writes the task file).
    fn lock(&self) -> Result<std::fs::File, String> {
        crate::folder_lock::hold(&lock_path(&self.tasks_file))
    }
}

/// The review lock of the folder holding `tasks_file`.
pub fn lock_path(tasks_file: &Path) -> std::path::PathBuf {
    tasks_file.with_file_name(".review.lock")
}

impl Lines {
    fn records(self, path: &Path) -> Result<Vec<Record>, String> {
        self.lines
            .into_iter()
            .enumerate()
            .filter(|(_, (text, _))| !text.trim_ascii().is_empty())
            .map(|(k, (_, record))| {
                record.ok_or_else(|| {
                    format!(
                        "{}:{}: not a task record (a JSON object); fix the line, `mcpick validate` says more",
                        path.display(),
                        k + 1
                    )
                })
            })
            .collect()
    }
}

fn state(record: &Record) -> Option<&str> {
    record.get("review").and_then(Value::as_str)
}

fn id_of(record: &Record) -> &str {
    record.get("id").and_then(Value::as_str).unwrap_or("")
}

/// A record as the reviewer sees it: id and state, the request, what is expected, what the
/// offline pickers chose — every piece with control and bidirectional characters escaped (a
/// request must not rewrite the screen it is shown on) and cut to a readable length.
pub fn describe(record: &Record) -> String {
    let text = |key: &str| shown(record.get(key).and_then(Value::as_str).unwrap_or(""), 2000);
    let mut lines = vec![format!("{} ({})", text("id"), text("review"))];
    lines.push(format!("  request:  {}", text("prompt")));
    let expected = match (record.get("expect"), record.get("expect_no_call")) {
        (Some(expect), _) => shown(&expect.to_string(), 2000),
        (None, Some(Value::Bool(true))) => "no tool call".into(),
        _ => "(see the record)".into(),
    };
    lines.push(format!("  expected: {expected}"));
    if let Some(picks) = record
        .get("provenance")
        .and_then(|p| p.get("picks"))
        .and_then(Value::as_object)
        .filter(|p| !p.is_empty())
    {
        let picks: Vec<String> = picks
            .iter()
            .map(|(picker, pick)| {
                format!(
                    "{} → {}",
                    shown(picker, 100),
                    shown(pick.as_str().unwrap_or("?"), 100)
                )
            })
            .collect();
        lines.push(format!("  picked:   {}", picks.join(", ")));
    }
    lines.join("\n")
}
