//! The folder a draft writes into, and a person's work in it. Draft writes only into a folder that
//! is new, empty or its own (its `suite.toml` has `[drafted_by]`, or it holds draft's work folder
//! `.draft` from an interrupted draft); a folder holding anything else — a suite written by hand,
//! a task file, notes — is refused before anything is written. Drafting again into its own folder
//! keeps every task already there, line for line (accepted, edited or still pending: a review's
//! work is never lost), and adds only new requests: one already there or rejected in a review
//! (`rejected.jsonl`) is not drafted again, and a new task never takes an id already used.

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The work folder draft keeps inside its output folder (journal, candidates, agreement run).
pub const WORK_FOLDER: &str = ".draft";

/// Refuses `dir` unless draft may write into it (see the module's paragraph).
pub fn check_folder(dir: &Path) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        if dir.exists() {
            return Err(format!(
                "{}: not a folder draft can write into",
                dir.display()
            ));
        }
        return Ok(());
    };
    if entries.count() == 0 {
        return Ok(());
    }
    let suite = dir.join("suite.toml");
    if suite.exists() {
        let drafted = std::fs::read_to_string(&suite)
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|table| table.get("drafted_by").is_some_and(toml::Value::is_table));
        if drafted {
            return Ok(());
        }
        return Err(format!(
            "{} was not written by `mcpick draft` (it has no [drafted_by]): draft never overwrites a suite; draft into a new folder with -o",
            suite.display()
        ));
    }
    if dir.join(WORK_FOLDER).is_dir() {
        return Ok(());
    }
    Err(format!(
        "{} holds files `mcpick draft` did not write: draft into a new or empty folder with -o",
        dir.display()
    ))
}

/// The tasks a folder already holds, which a new draft keeps.
#[derive(Debug, Default)]
pub struct EarlierTasks {
    /// The task file's lines, as they are.
    pub lines: Vec<String>,
    ids: HashSet<String>,
    /// Each task's request as the checks read it, with its id.
    prompts: HashMap<String, String>,
    /// The requests rejected in a review, as the checks read them.
    rejected: HashSet<String>,
}

impl EarlierTasks {
    /// What `dir/tasks.jsonl` and `dir/rejected.jsonl` hold; nothing for a new folder. A line
    /// that is not a task record stops the draft: it is somebody's work, to be fixed by hand, not
    /// dropped.
    pub fn read(dir: &Path) -> Result<EarlierTasks, String> {
        let mut earlier = EarlierTasks::default();
        let tasks = dir.join("tasks.jsonl");
        let text = match std::fs::read_to_string(&tasks) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("{}: {e}", tasks.display())),
        };
        for (k, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let Ok(Value::Object(record)) = serde_json::from_str::<Value>(line) else {
                return Err(format!(
                    "{}:{}: not a task record; fix the line before drafting again (a new draft keeps every task there)",
                    tasks.display(),
                    k + 1
                ));
            };
            let id = record.get("id").and_then(Value::as_str).unwrap_or("");
            if let Some(prompt) = record.get("prompt").and_then(Value::as_str) {
                earlier.prompts.insert(read_as(prompt), id.to_string());
            }
            earlier.ids.insert(id.to_string());
            earlier.lines.push(line.to_string());
        }
        let rejected = std::fs::read_to_string(dir.join("rejected.jsonl")).unwrap_or_default();
        for line in rejected.lines() {
            if let Ok(record) = serde_json::from_str::<Value>(line)
                && let Some(prompt) = record.get("prompt").and_then(Value::as_str)
            {
                earlier.rejected.insert(read_as(prompt));
            }
        }
        Ok(earlier)
    }

    /// Why `request` is not new here, if it is not.
    pub fn already(&self, request: &str) -> Option<String> {
        let read = read_as(request);
        if let Some(id) = self.prompts.get(&read) {
            return Some(format!("already in the folder's tasks as {id}"));
        }
        self.rejected
            .contains(&read)
            .then(|| "rejected in an earlier review".to_string())
    }

    /// `wanted`, or `wanted-2`, `wanted-3`… if an earlier task has it.
    pub fn free_id(&self, wanted: &str) -> String {
        if !self.ids.contains(wanted) {
            return wanted.to_string();
        }
        (2..)
            .map(|n| format!("{wanted}-{n}"))
            .find(|id| !self.ids.contains(id))
            .expect("an id is free")
    }
}

/// A request as the duplicate check reads it.
fn read_as(text: &str) -> String {
    super::duplicates::normalise(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_empty_or_drafted_folders_are_written_into() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_folder(&dir.path().join("new")).is_ok());
        assert!(check_folder(dir.path()).is_ok(), "empty");
        std::fs::write(dir.path().join("notes.md"), "mine").unwrap();
        assert!(
            check_folder(dir.path())
                .unwrap_err()
                .contains("did not write")
        );
        std::fs::write(
            dir.path().join("suite.toml"),
            crate::spec::toml_text(&crate::spec::SuiteFile::new("s", "t.toml")).unwrap(),
        )
        .unwrap();
        assert!(
            check_folder(dir.path())
                .unwrap_err()
                .contains("[drafted_by]")
        );
        std::fs::write(
            dir.path().join("suite.toml"),
            crate::spec::toml_text(&crate::spec::SuiteFile {
                drafted_by: Some(crate::spec::DraftedBySpec {
                    drafter: "local".into(),
                    model: "m".into(),
                    prompt_template: "p".into(),
                    seed: 0,
                    mcpick: None,
                }),
                ..crate::spec::SuiteFile::new("s", "t.toml")
            })
            .unwrap(),
        )
        .unwrap();
        assert!(check_folder(dir.path()).is_ok());
        let interrupted = tempfile::tempdir().unwrap();
        std::fs::create_dir(interrupted.path().join(WORK_FOLDER)).unwrap();
        assert!(check_folder(interrupted.path()).is_ok());
    }

    #[test]
    fn earlier_tasks_are_kept_and_not_drafted_again() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tasks.jsonl"),
            "{\"id\": \"w-1\", \"prompt\": \"Is it raining in Oslo?\", \"review\": \"accepted\"}\n\n{\"id\": \"w-2\", \"prompt\": \"Wind in Rome?\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("rejected.jsonl"),
            "{\"id\": \"w-3\", \"prompt\": \"Snow in Lima?\"}\n",
        )
        .unwrap();
        let earlier = EarlierTasks::read(dir.path()).unwrap();
        assert_eq!(earlier.lines.len(), 2);
        assert!(
            earlier
                .already("is it raining in oslo")
                .unwrap()
                .contains("w-1")
        );
        assert!(
            earlier
                .already("Snow in L\u{0456}ma?")
                .unwrap()
                .contains("rejected")
        );
        assert!(earlier.already("Sun in Nice?").is_none());
        assert_eq!(earlier.free_id("w-1"), "w-1-2");
        assert_eq!(earlier.free_id("w-9"), "w-9");
        std::fs::write(dir.path().join("tasks.jsonl"), "{\"id\": \"w-1\"\nbroken\n").unwrap();
        assert!(
            EarlierTasks::read(dir.path())
                .unwrap_err()
                .contains("tasks.jsonl:1")
        );
    }
}
