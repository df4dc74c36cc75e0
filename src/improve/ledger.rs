//! The held-out ledger: every held-out verdict `improve` reaches, one JSON line in
//! `improve-ledger.jsonl` in mcpick's cache folder, keyed by the suite (its name and file) and the
//! held-out task set. Rerunning `improve` with another `--seed` or `-o` until something is adopted
//! selects on held-out data — the held-out parts of different seeds overlap — so before a verdict
//! the ledger is read and, when held-out tasks of this improve have judged earlier improves of the
//! same suite, `IMPROVE.md` and the terminal say how many tasks and how many earlier verdicts. A
//! verdict is one folder, seed and held-out set: recorded once (a resumed improve does not count
//! itself), while a folder emptied and run again with another seed is another verdict. A line that
//! does not read is skipped: the ledger warns, it never stops an improve.

use crate::runner::cache_folder;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One verdict.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    pub suite: String,
    /// The suite's file, canonical where it can be (so `./x.toml` and `x.toml` are one suite).
    pub source: String,
    pub held_out: Vec<String>,
    /// The improve's folder, made absolute.
    pub folder: String,
    pub seed: u64,
    pub adopted: bool,
    pub p_value: f64,
}

/// What earlier verdicts of the same suite the held-out tasks have judged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reuse {
    /// Earlier verdicts (other folders) whose held-out part shares a task with this one.
    pub verdicts: usize,
    /// This improve's held-out tasks that judged at least one of them.
    pub tasks: usize,
    /// Of those verdicts, how many adopted.
    pub adopted: usize,
}

impl Reuse {
    /// The warning, when there is one.
    pub fn warning(&self, held_out: usize) -> Option<String> {
        (self.verdicts > 0).then(|| {
            format!(
                "{} of these {held_out} held-out tasks already judged {} earlier improve(s) of this suite ({} adopted): a verdict reached by rerunning until something is adopted is chosen on held-out data, so count this one as exploratory",
                self.tasks, self.verdicts, self.adopted
            )
        })
    }
}

/// The ledger's file: in `folder`, or in mcpick's cache folder.
pub fn ledger_path(folder: Option<&Path>) -> PathBuf {
    folder
        .map(Path::to_path_buf)
        .unwrap_or_else(cache_folder)
        .join("improve-ledger.jsonl")
}

impl Verdict {
    /// Whether `other` is this very verdict (the same folder, seed and held-out set).
    fn same_as(&self, other: &Verdict) -> bool {
        self.folder == other.folder && self.seed == other.seed && self.held_out == other.held_out
    }
}

fn read(path: &Path) -> Vec<Verdict> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// How the held-out tasks of `verdict` (not yet recorded) have been used before.
pub fn earlier(path: &Path, verdict: &Verdict) -> Reuse {
    let entries = read(path);
    let ours: BTreeSet<&String> = verdict.held_out.iter().collect();
    let mut seen: BTreeSet<&String> = BTreeSet::new();
    let mut reuse = Reuse::default();
    for entry in &entries {
        if entry.suite != verdict.suite || entry.source != verdict.source || entry.same_as(verdict)
        {
            continue;
        }
        let shared: Vec<&String> = entry.held_out.iter().filter(|t| ours.contains(t)).collect();
        if shared.is_empty() {
            continue;
        }
        reuse.verdicts += 1;
        reuse.adopted += usize::from(entry.adopted);
        seen.extend(shared);
    }
    reuse.tasks = seen.len();
    reuse
}

/// Records `verdict` unless its folder's verdict is there already. An error is returned for the
/// caller to mention; it never stops an improve.
pub fn record(path: &Path, verdict: &Verdict) -> Result<(), String> {
    if read(path).iter().any(|e| e.same_as(verdict)) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let line = serde_json::to_string(verdict).map_err(|e| e.to_string())? + "\n";
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(line.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(folder: &str, held_out: &[&str], adopted: bool) -> Verdict {
        Verdict {
            suite: "travel".into(),
            source: "tasks/travel.toml".into(),
            held_out: held_out.iter().map(|t| t.to_string()).collect(),
            folder: folder.into(),
            seed: 1,
            adopted,
            p_value: 0.2,
        }
    }

    #[test]
    fn a_rerun_on_overlapping_held_out_tasks_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let path = ledger_path(Some(dir.path()));
        let first = verdict("/a", &["t1", "t2", "t3"], false);
        assert_eq!(earlier(&path, &first), Reuse::default());
        record(&path, &first).unwrap();
        // The same folder again (a resumed improve) is neither counted nor recorded twice.
        assert_eq!(earlier(&path, &first), Reuse::default());
        record(&path, &first).unwrap();
        let second = verdict("/b", &["t2", "t3", "t4"], true);
        let reuse = earlier(&path, &second);
        assert_eq!(
            reuse,
            Reuse {
                verdicts: 1,
                tasks: 2,
                adopted: 0
            }
        );
        assert!(
            reuse
                .warning(3)
                .unwrap()
                .starts_with("2 of these 3 held-out tasks")
        );
        record(&path, &second).unwrap();
        let third = verdict("/c", &["t3", "t9"], false);
        assert_eq!(earlier(&path, &third).verdicts, 2);
        // The first folder emptied and run again with another seed: another verdict.
        let reseeded = Verdict {
            seed: 2,
            ..verdict("/a", &["t1", "t5"], false)
        };
        assert_eq!(earlier(&path, &reseeded).verdicts, 1);
        // Another suite, or tasks not shared, are not reuse; a damaged line is skipped.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"not json\n")
            .unwrap();
        assert_eq!(
            earlier(&path, &verdict("/d", &["t7"], false)),
            Reuse::default()
        );
        assert_eq!(read(&path).len(), 2);
    }
}
