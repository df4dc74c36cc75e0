//! The run folder: `trials.jsonl` (one line per trial, appended and flushed as each finishes, so a
//! crash loses nothing finished), and everything derived from it alone by `rebuild` — `summary.json`,
//! `summary.md`, `trials.csv`, and through `analysis` and `report` `trials.parquet` and
//! `report.html` — so `mcpick report` and a finished run produce the same outputs. Those, like the
//! manifest, are replaced whole (`file_replace`): a kill never leaves one empty.

use crate::analysis::trials::parse_rows;
use crate::analysis::{RunAnalysis, analyse};
use crate::file_replace::replace;
use crate::model::ScoringProfile;
use crate::report::markdown::{markdown_table, percent};
use crate::report::{Table, experiment_markdown, html_page};
use crate::score::{Outcome, Tally, Verdict};
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
    /// The variant arm (absent when the run names no variants).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<&'a str>,
    /// Tools a sweep trial shows (absent: the suite's whole toolset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distractors: Option<&'a str>,
    pub sweep_seed: u32,
    pub repeat: u32,
    /// 1-based position of the first expected tool in the list shown.
    pub gold_position: Option<usize>,
    pub expected_tools: &'a [&'a str],
    /// The tool names in the order `tools/list` gave them.
    pub tools_shown: &'a [String],
    pub lang: &'a str,
    pub tags: &'a [String],
    /// The scoring profile the verdict was reached under.
    pub scoring: ScoringProfile,
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

    /// Writes (or rewrites) a file of the folder whole: a kill leaves the old or the new one.
    pub fn write(&self, name: &str, contents: &str) -> std::io::Result<()> {
        replace(&self.path.join(name), contents.as_bytes())
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
        #[serde(flatten)]
        key: StoredKey,
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
        keys.insert(finished.key.into_trial_key());
    }
    Ok((keys, cost))
}

/// What identifies a trial in a line of `trials.jsonl` (lines written before experiments lack the
/// variant, size, seed and repeat: they read as the defaults), for `--resume` and `rebuild` alike.
#[derive(Debug, Deserialize)]
struct StoredKey {
    suite: String,
    task: String,
    backend: String,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    size: Option<u32>,
    #[serde(default)]
    sweep_seed: u32,
    #[serde(default)]
    repeat: u32,
}

impl StoredKey {
    fn into_trial_key(self) -> super::TrialKey {
        super::TrialKey {
            suite: self.suite,
            task: self.task,
            backend: self.backend,
            variant: self.variant.unwrap_or_default(),
            size: self.size.unwrap_or(0),
            sweep_seed: self.sweep_seed,
            repeat: self.repeat,
        }
    }
}

/// What `rebuild` reads back from each line of `trials.jsonl`.
#[derive(Debug, Deserialize)]
struct StoredTrial {
    #[serde(flatten)]
    key: StoredKey,
    toolset: String,
    #[serde(default)]
    gold_position: Option<usize>,
    lang: String,
    /// Lines written before profiles existed were scored by mcpick's rules.
    #[serde(default)]
    scoring: ScoringProfile,
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
    /// The scoring profiles of its trials (one, unless `(all)` spans suites scored differently).
    scoring: std::collections::BTreeSet<&'static str>,
    /// Trials whose first reply failed under a one-response profile but whose later turns would
    /// have passed under `mcp`.
    later_turn_fixed: u64,
}

/// Rebuilds `summary.json`, `summary.md`, `trials.csv`, `trials.parquet` and `report.html` from
/// `trials.jsonl` alone, and returns the Markdown (the summary table and the experiment sections).
/// A line that does not parse (a crash can cut the last one short) is skipped and counted in the
/// summary, never fatal.
pub fn rebuild(folder: &Path) -> std::io::Result<String> {
    let text = std::fs::read_to_string(folder.join("trials.jsonl"))?;
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    // Built in memory and replaced whole, like every derived file.
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record([
        "suite",
        "toolset",
        "task",
        "backend",
        "variant",
        "size",
        "sweep_seed",
        "repeat",
        "gold_position",
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
    let mut later_turn_fixed = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(trial) = serde_json::from_str::<StoredTrial>(line) else {
            unreadable += 1;
            continue;
        };
        let (key, verdict) = (&trial.key, &trial.verdict);
        csv.write_record([
            key.suite.as_str(),
            &trial.toolset,
            &key.task,
            &key.backend,
            key.variant.as_deref().unwrap_or(""),
            &key.size.map_or(String::new(), |n| n.to_string()),
            &key.sweep_seed.to_string(),
            &key.repeat.to_string(),
            &trial.gold_position.map_or(String::new(), |n| n.to_string()),
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
        let suite = match &key.variant {
            Some(variant) => format!("{} · {variant}", key.suite),
            None => key.suite.clone(),
        };
        let all = match &key.variant {
            Some(variant) => format!("(all) · {variant}"),
            None => "(all)".to_string(),
        };
        later_turn_fixed += u64::from(verdict.later_turn_fixed);
        for suite in [suite, all] {
            let cell = cells.entry((key.backend.clone(), suite)).or_default();
            cell.tally.add(verdict);
            cell.latencies_ms.push(trial.latency_ms);
            cell.input_tokens += trial.input_tokens;
            cell.output_tokens += trial.output_tokens;
            cell.retries += u64::from(trial.retries);
            cell.calls += trial.calls.len() as u64;
            cell.cost_usd += trial.cost_usd;
            cell.scoring.insert(trial.scoring.as_str());
            cell.later_turn_fixed += u64::from(verdict.later_turn_fixed);
        }
    }
    let csv = csv.into_inner().map_err(|e| e.into_error())?;
    replace(&folder.join("trials.csv"), &csv)?;
    let (table, json) = summary_table(&mut cells);
    let markdown = markdown_table(&table);
    let mut note = if unreadable > 0 {
        format!("\n{unreadable} line(s) of trials.jsonl could not be read and are not counted.\n")
    } else {
        String::new()
    };
    if later_turn_fixed > 0 {
        note.push_str(&format!(
            "\n{later_turn_fixed} trial(s) scored by BFCL's rules failed on their first reply but pass with their later turns under mcpick's (`later_turn_fixed` in summary.json, per cell).\n"
        ));
    }
    let (rows, _) = parse_rows(&text);
    let (experiments, experiments_json) = match analyse(folder, rows) {
        Ok(analysis) => {
            let manifest =
                std::fs::read_to_string(folder.join("manifest.json")).unwrap_or_default();
            let title = format!(
                "mcpick run {}",
                folder
                    .file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().into_owned())
            );
            replace(
                &folder.join("report.html"),
                html_page(&title, table, &analysis, manifest).as_bytes(),
            )?;
            (experiment_markdown(&analysis), experiments_json(&analysis))
        }
        Err(e) => (format!("\nanalysis failed: {e}\n"), serde_json::Value::Null),
    };
    replace(
        &folder.join("summary.md"),
        format!(
            "# mcpick run\n\nAccuracies with Wilson 95% intervals.\n\n{markdown}{note}{experiments}"
        )
        .as_bytes(),
    )?;
    let summary = serde_json::json!({
        "cells": json,
        "unreadable_lines": unreadable,
        "experiments": experiments_json,
    });
    replace(
        &folder.join("summary.json"),
        serde_json::to_string_pretty(&summary)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    Ok(format!("{markdown}{note}{experiments}"))
}

/// The cells as a table and as JSON.
fn summary_table(cells: &mut BTreeMap<(String, String), Cell>) -> (Table, serde_json::Value) {
    let mut table = Table {
        caption: "Summary per backend and suite: accuracies with Wilson 95% intervals".into(),
        header: [
            "backend",
            "suite",
            "trials",
            "accuracy",
            "selection",
            "tool + args",
            "abstention P / R",
            "calls / task",
            "latency p50 / p95",
            "tokens in / out",
            "cost",
            "errors",
            "scoring",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
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
        let scoring = cell.scoring.iter().copied().collect::<Vec<_>>().join("+");
        let calls_per_task = if tally.trials() == 0 {
            0.0
        } else {
            cell.calls as f64 / tally.trials() as f64
        };
        table.rows.push(vec![
            backend.clone(),
            suite.clone(),
            tally.trials().to_string(),
            percent(&accuracy),
            percent(&selection),
            percent(&full),
            format!("{:.2} / {:.2}", precision.estimate, recall.estimate),
            format!("{calls_per_task:.2}"),
            format!("{p50:.0} / {p95:.0} ms"),
            format!("{} / {}", cell.input_tokens, cell.output_tokens),
            format!("${:.4}", cell.cost_usd),
            tally.count(Outcome::Error).to_string(),
            scoring.clone(),
        ]);
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
            "scoring": scoring,
            "later_turn_fixed": cell.later_turn_fixed,
        }));
    }
    (table, serde_json::Value::Array(json))
}

/// Nearest-rank percentile of sorted values (0 when there are none).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The experiment results as JSON for `summary.json`.
fn experiments_json(analysis: &RunAnalysis) -> serde_json::Value {
    use serde_json::json;
    let ab: Vec<_> = analysis.ab.iter().map(|c| json!({
        "backend": c.backend, "arm_a": c.arm_a, "arm_b": c.arm_b, "pairs": c.pairs,
        "a": c.a, "b": c.b,
        "difference": c.difference.as_ref().map(|d| json!({"estimate": d.difference, "low": d.low, "high": d.high})),
        "mcnemar": {"only_a": c.mcnemar.only_a, "only_b": c.mcnemar.only_b, "p_value": c.mcnemar.p_value},
        "verdict": c.verdict.sentence(&c.arm_a, &c.arm_b),
        "only_a_tasks": c.only_a, "only_b_tasks": c.only_b,
        "tasks_for_80_percent_power": c.tasks_needed,
        "repeats": c.repeats_a.as_ref().zip(c.repeats_b.as_ref()).map(|(a, b)| json!({
            "a": {"tasks": a.tasks, "pass_at_k": a.pass_at_k, "all_pass": a.all_pass, "consistency": a.consistency},
            "b": {"tasks": b.tasks, "pass_at_k": b.pass_at_k, "all_pass": b.all_pass, "consistency": b.consistency},
        })),
    })).collect();
    let sizes: Vec<_> = analysis
        .sizes
        .iter()
        .map(|c| {
            json!({
                "series": c.series,
                "points": c.points.iter().map(|p| json!({
                    "size": p.size, "right_pick": p.pick, "correct": p.correct,
                    "mean_input_tokens": p.mean_input_tokens, "mean_tools_shown": p.mean_shown,
                })).collect::<Vec<_>>(),
                "fit": c.fit.as_ref().map(|f| json!({
                    "intercept": f.intercept, "slope": f.slope, "small_n": f.small_n,
                    "accuracy_at_small_n": f.accuracy_at_small_n,
                    "n_at_90_percent": f.n_at_90_percent, "n_at_50_percent": f.n_at_50_percent,
                })),
            })
        })
        .collect();
    let positions: Vec<_> = analysis.positions.iter().map(|c| json!({
        "series": c.series,
        "buckets": c.buckets.iter().map(|(first, label, i)| json!({"first": first, "label": label, "right_pick": i})).collect::<Vec<_>>(),
    })).collect();
    let confusion: Vec<_> = analysis.confusions.iter().map(|m| json!({
        "backend": m.backend, "expected": m.expected, "picked": m.picked, "counts": m.counts,
        "confused_pairs": m.confused_pairs.iter().map(|(a, b, ab, ba)| json!({
            "a": a, "b": b, "a_to_b": ab, "b_to_a": ba,
            "lint": analysis.lint_links.get(&(a.clone(), b.clone())),
        })).collect::<Vec<_>>(),
    })).collect();
    json!({"arms": analysis.arms, "ab": ab, "sizes": sizes, "positions": positions, "confusion": confusion})
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
