//! The review of drafted tasks: a suite folder's task file (`tasks_file`, as `mcpick draft` writes
//! it) read as records, the pending ones (`review = "draft"` or `"doubtful"`) found, and each
//! decision written back at once, whole (temporary file, sync, rename), so a review that is quit or
//! killed keeps every decision made and a later one goes on with what is left. Accepted tasks say
//! `review = "accepted"`; rejected ones move to `rejected.jsonl` beside the task file; an edited one
//! replaces the record only if the suite still loads without errors. No terminal here: the command
//! (`commands::review`) asks the questions.

use crate::file_replace::replace;
use crate::load::Workspace;
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A suite's task file, open for review.
pub struct ReviewFile {
    pub suite: PathBuf,
    pub tasks_file: PathBuf,
    records: Vec<Map<String, Value>>,
}

impl ReviewFile {
    /// Opens the suite in `dir` (or the suite file `dir` names) and its task file.
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
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| format!("{}: not a suite file: {}", suite.display(), e.message()))?;
        let Some(tasks_file) = table.get("tasks_file").and_then(|v| v.as_str()) else {
            return Err(format!(
                "{}: the suite has no `tasks_file`; review works on task records, as `mcpick draft` writes them",
                suite.display()
            ));
        };
        let tasks_file = suite.parent().unwrap_or(Path::new(".")).join(tasks_file);
        let text = std::fs::read_to_string(&tasks_file)
            .map_err(|e| format!("{}: {e}", tasks_file.display()))?;
        let mut records = Vec::new();
        for (k, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(record)) => records.push(record),
                _ => {
                    return Err(format!(
                        "{}:{}: not a task record (a JSON object); fix the line, `mcpick validate` says more",
                        tasks_file.display(),
                        k + 1
                    ));
                }
            }
        }
        Ok(ReviewFile {
            suite,
            tasks_file,
            records,
        })
    }

    /// The positions of the records nobody has accepted yet, doubtful ones first.
    pub fn pending(&self) -> Vec<usize> {
        let state = |k: usize| self.records[k].get("review").and_then(Value::as_str);
        let mut pending: Vec<usize> = (0..self.records.len())
            .filter(|&k| matches!(state(k), Some("draft" | "doubtful")))
            .collect();
        pending.sort_by_key(|&k| state(k) != Some("doubtful"));
        pending
    }

    pub fn record(&self, position: usize) -> &Map<String, Value> {
        &self.records[position]
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Marks a record accepted, and saves.
    pub fn accept(&mut self, position: usize) -> std::io::Result<()> {
        self.records[position].insert("review".into(), Value::String("accepted".into()));
        self.save()
    }

    /// Moves a record to `rejected.jsonl` beside the task file, and saves. Positions after it
    /// move up by one.
    pub fn reject(&mut self, position: usize) -> std::io::Result<()> {
        let record = self.records.remove(position);
        let rejected = self.tasks_file.with_file_name("rejected.jsonl");
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&rejected)?;
        writeln!(file, "{}", Value::Object(record.clone()))?;
        file.sync_data()?;
        if let Err(e) = self.save() {
            self.records.insert(position, record);
            return Err(e);
        }
        Ok(())
    }

    /// Replaces a record with an edited one, if it is a JSON object with an `id` and the suite
    /// still loads without errors; otherwise the record stays as it was and the errors are returned.
    pub fn replace_record(&mut self, position: usize, edited: &str) -> Result<(), String> {
        let record = match serde_json::from_str::<Value>(edited) {
            Ok(Value::Object(record)) if record.get("id").is_some_and(Value::is_string) => record,
            Ok(_) => return Err("the edited task is not a JSON object with an \"id\"".into()),
            Err(e) => return Err(format!("the edited task is not JSON: {e}")),
        };
        let previous = std::mem::replace(&mut self.records[position], record);
        let checked = self.save().map_err(|e| e.to_string()).and_then(|()| {
            let workspace = Workspace::load(std::slice::from_ref(&self.suite));
            let errors: Vec<String> = workspace
                .error_diagnostics()
                .map(|d| d.to_string())
                .collect();
            if errors.is_empty() {
                Ok(())
            } else {
                Err(errors.join("\n"))
            }
        });
        if checked.is_err() {
            self.records[position] = previous;
            self.save().map_err(|e| e.to_string())?;
        }
        checked
    }

    fn save(&self) -> std::io::Result<()> {
        let mut text = String::new();
        for record in &self.records {
            text.push_str(&Value::Object(record.clone()).to_string());
            text.push('\n');
        }
        replace(&self.tasks_file, text.as_bytes())
    }
}

/// A record as the reviewer sees it: id and state, the request, what is expected, what the
/// offline pickers chose.
pub fn describe(record: &Map<String, Value>) -> String {
    let text = |key: &str| record.get(key).and_then(Value::as_str).unwrap_or("");
    let mut lines = vec![format!("{} ({})", text("id"), text("review"))];
    lines.push(format!("  request:  {}", text("prompt")));
    let expected = match (record.get("expect"), record.get("expect_no_call")) {
        (Some(expect), _) => expect.to_string(),
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
            .map(|(picker, pick)| format!("{picker} → {}", pick.as_str().unwrap_or("?")))
            .collect();
        lines.push(format!("  picked:   {}", picks.join(", ")));
    }
    lines.join("\n")
}
