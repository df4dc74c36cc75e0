//! The run folder: `trials.jsonl` (one line per trial, appended and flushed as each finishes, so a
//! crash loses nothing finished), and everything derived from it alone by `rebuild` — `summary.json`,
//! `summary.md`, `trials.csv` — so `mcpick report` and a finished run produce the same outputs.

use crate::score::{Interval, Outcome, Tally, Verdict};
use serde::{Deserialize, Serialize};
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
    /// Tools shown to the model under another name (provider naming rules), as (MCP, provider).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub renamed_tools: &'a [(String, String)],
    pub turns: usize,
    pub latency_ms: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Requests sent to the backend, retries included.
    pub requests: u32,
    pub retries: u32,
    /// Replies served from the response cache.
    pub cached_replies: u32,
    pub cost_usd: f64,
    pub backend_error: Option<&'a str>,
    pub transcript: &'a [crate::backend::ChatMessage],
}

/// An open run folder.
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
    pub fn append(&mut self, line: &TrialLine<'_>) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.trials, line)?;
        self.trials.write_all(b"\n")?;
        self.trials.flush()
    }

    pub fn write(&self, name: &str, contents: &str) -> std::io::Result<()> {
        std::fs::write(self.path.join(name), contents)
    }
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

/// What a run folder already holds: its finished trials as (suite, task, backend) — what `--resume`
/// skips — and what they cost. A line that does not parse is not a finished trial, so that trial
/// runs again.
pub fn finished_trials(
    folder: &Path,
) -> std::io::Result<(std::collections::HashSet<super::TrialKey>, f64)> {
    #[derive(Deserialize)]
    struct Finished {
        suite: String,
        task: String,
        backend: String,
        #[serde(default)]
        cost_usd: f64,
    }
    let text = match std::fs::read_to_string(folder.join("trials.jsonl")) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let mut keys = std::collections::HashSet::new();
    let mut cost = 0.0;
    for finished in text
        .lines()
        .filter_map(|line| serde_json::from_str::<Finished>(line).ok())
    {
        cost += finished.cost_usd;
        keys.insert(super::TrialKey {
            suite: finished.suite,
            task: finished.task,
            backend: finished.backend,
        });
    }
    Ok((keys, cost))
}

/// What `rebuild` reads back from each line of `trials.jsonl`.
#[derive(Debug, Deserialize)]
struct StoredTrial {
    suite: String,
    toolset: String,
    task: String,
    backend: String,
    lang: String,
    #[serde(flatten)]
    verdict: Verdict,
    calls: Vec<crate::score::ObservedCall>,
    turns: usize,
    latency_ms: f64,
    input_tokens: u64,
    output_tokens: u64,
    #[serde(default)]
    retries: u32,
    #[serde(default)]
    cost_usd: f64,
    backend_error: Option<String>,
}

/// One cell of the summary: a backend on a suite (or on all suites).
#[derive(Default)]
struct Cell {
    tally: Tally,
    latencies_ms: Vec<f64>,
    input_tokens: u64,
    output_tokens: u64,
    retries: u64,
    cost_usd: f64,
    calls: u64,
}

/// Rebuilds `summary.json`, `summary.md` and `trials.csv` from `trials.jsonl` alone, and returns the
/// Markdown table. A line that does not parse (a crash can cut the last one short) is skipped and
/// counted in the summary, never fatal.
pub fn rebuild(folder: &Path) -> std::io::Result<String> {
    let text = std::fs::read_to_string(folder.join("trials.jsonl"))?;
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    let mut csv = csv::Writer::from_path(folder.join("trials.csv"))?;
    csv.write_record([
        "suite",
        "toolset",
        "task",
        "backend",
        "lang",
        "outcome",
        "selection_correct",
        "first_tool",
        "self_corrected",
        "calls",
        "turns",
        "latency_ms",
        "input_tokens",
        "output_tokens",
        "retries",
        "cost_usd",
        "backend_error",
        "detail",
    ])?;
    let mut unreadable = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(trial) = serde_json::from_str::<StoredTrial>(line) else {
            unreadable += 1;
            continue;
        };
        let verdict = &trial.verdict;
        csv.write_record([
            trial.suite.as_str(),
            &trial.toolset,
            &trial.task,
            &trial.backend,
            &trial.lang,
            verdict.outcome.as_str(),
            &verdict
                .selection_correct
                .map_or(String::new(), |b| b.to_string()),
            verdict.first_tool.as_deref().unwrap_or(""),
            &verdict.self_corrected.to_string(),
            &trial.calls.len().to_string(),
            &trial.turns.to_string(),
            &format!("{:.3}", trial.latency_ms),
            &trial.input_tokens.to_string(),
            &trial.output_tokens.to_string(),
            &trial.retries.to_string(),
            &format!("{:.6}", trial.cost_usd),
            trial.backend_error.as_deref().unwrap_or(""),
            &verdict.detail,
        ])?;
        for suite in [trial.suite.clone(), "(all)".to_string()] {
            let cell = cells.entry((trial.backend.clone(), suite)).or_default();
            cell.tally.add(verdict);
            cell.latencies_ms.push(trial.latency_ms);
            cell.input_tokens += trial.input_tokens;
            cell.output_tokens += trial.output_tokens;
            cell.retries += u64::from(trial.retries);
            cell.calls += trial.calls.len() as u64;
            cell.cost_usd += trial.cost_usd;
        }
    }
    csv.flush()?;
    let (markdown, json) = summary_table(&mut cells);
    let note = if unreadable > 0 {
        format!("\n{unreadable} line(s) of trials.jsonl could not be read and are not counted.\n")
    } else {
        String::new()
    };
    std::fs::write(
        folder.join("summary.md"),
        format!("# mcpick run\n\nAccuracies with Wilson 95% intervals.\n\n{markdown}{note}"),
    )?;
    let summary = serde_json::json!({ "cells": json, "unreadable_lines": unreadable });
    std::fs::write(
        folder.join("summary.json"),
        serde_json::to_string_pretty(&summary).unwrap_or_default(),
    )?;
    Ok(format!("{markdown}{note}"))
}

/// The cells as a Markdown table and as JSON.
fn summary_table(cells: &mut BTreeMap<(String, String), Cell>) -> (String, serde_json::Value) {
    let mut markdown = String::from(
        "| backend | suite | trials | accuracy | selection | tool + args | abstention P / R | calls / task | latency p50 / p95 | tokens in / out | cost | errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut json = Vec::new();
    for ((backend, suite), cell) in cells.iter_mut() {
        let tally = &cell.tally;
        cell.latencies_ms.sort_by(f64::total_cmp);
        let (p50, p95) = (
            percentile(&cell.latencies_ms, 0.50),
            percentile(&cell.latencies_ms, 0.95),
        );
        let (accuracy, selection, full) = (
            tally.accuracy(),
            tally.selection_accuracy(),
            tally.full_accuracy(),
        );
        let (precision, recall) = (tally.abstention_precision(), tally.abstention_recall());
        let calls_per_task = if tally.trials() == 0 {
            0.0
        } else {
            cell.calls as f64 / tally.trials() as f64
        };
        markdown.push_str(&format!(
            "| {backend} | {suite} | {} | {} | {} | {} | {:.2} / {:.2} | {calls_per_task:.2} | {p50:.0} / {p95:.0} ms | {} / {} | ${:.4} | {} |\n",
            tally.trials(),
            percent(&accuracy),
            percent(&selection),
            percent(&full),
            precision.estimate,
            recall.estimate,
            cell.input_tokens,
            cell.output_tokens,
            cell.cost_usd,
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
            "calls_per_task": calls_per_task,
            "latency_ms": { "p50": p50, "p95": p95 },
            "tokens": { "input": cell.input_tokens, "output": cell.output_tokens },
            "cost_usd": cell.cost_usd,
            "retries": cell.retries,
        }));
    }
    (markdown, serde_json::Value::Array(json))
}

/// Nearest-rank percentile of sorted values (0 when there are none).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn percent(interval: &Interval) -> String {
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        interval.estimate * 100.0,
        interval.low * 100.0,
        interval.high * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&values, 0.50), 10.0);
        assert_eq!(percentile(&values, 0.95), 19.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
