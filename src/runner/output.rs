//! The run folder: `trials.jsonl` (one line per trial, appended and flushed as each finishes, so a
//! crash loses nothing finished), `summary.json`, `summary.md`, and the same table for the terminal.

use crate::score::{Interval, Outcome, Tally, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// One line of `trials.jsonl`.
#[derive(Debug, Clone, Serialize)]
pub struct TrialLine<'a> {
    pub suite: &'a str,
    pub toolset: &'a str,
    pub task: &'a str,
    pub backend: &'a str,
    pub lang: &'a str,
    pub tags: &'a [String],
    #[serde(flatten)]
    pub verdict: &'a Verdict,
    pub calls: &'a [crate::score::ObservedCall],
    pub shown_tools: usize,
    pub turns: usize,
    pub latency_ms: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub backend_error: Option<&'a str>,
    pub transcript: &'a [crate::backend::ChatMessage],
}

/// An open run folder.
pub struct RunFolder {
    pub path: PathBuf,
    trials: BufWriter<File>,
}

impl RunFolder {
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
    pub fn append(&mut self, line: &TrialLine<'_>) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.trials, line)?;
        self.trials.write_all(b"\n")?;
        self.trials.flush()
    }

    pub fn write(&self, name: &str, contents: &str) -> std::io::Result<()> {
        std::fs::write(self.path.join(name), contents)
    }
}

/// Tallies per (backend, suite), as a Markdown table and as JSON.
pub fn summary_table(tallies: &BTreeMap<(String, String), Tally>) -> (String, serde_json::Value) {
    let mut markdown = String::from(
        "| backend | suite | trials | accuracy | selection | tool + args | abstention P / R | errors |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut json = Vec::new();
    for ((backend, suite), tally) in tallies {
        let (accuracy, selection, full) = (
            tally.accuracy(),
            tally.selection_accuracy(),
            tally.full_accuracy(),
        );
        let (precision, recall) = (tally.abstention_precision(), tally.abstention_recall());
        markdown.push_str(&format!(
            "| {backend} | {suite} | {} | {} | {} | {} | {:.2} / {:.2} | {} |\n",
            tally.trials(),
            percent(&accuracy),
            percent(&selection),
            percent(&full),
            precision.estimate,
            recall.estimate,
            tally.count(Outcome::Error)
        ));
        let counts: BTreeMap<&str, u64> = Outcome::ALL
            .iter()
            .map(|o| (o.as_str(), tally.count(*o)))
            .collect();
        json.push(serde_json::json!({
            "backend": backend, "suite": suite, "trials": tally.trials(), "outcomes": counts,
            "accuracy": accuracy, "selection_accuracy": selection, "full_accuracy": full,
            "abstention_precision": precision, "abstention_recall": recall,
            "self_correction": tally.self_correction_rate(),
        }));
    }
    (markdown, serde_json::Value::Array(json))
}

fn percent(interval: &Interval) -> String {
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        interval.estimate * 100.0,
        interval.low * 100.0,
        interval.high * 100.0
    )
}
