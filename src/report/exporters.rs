//! Every output file of a run folder behind one trait, as hyperfine does its formats: an exporter
//! turns the run's report (its records, summary and analysis, built once by `rebuild`) into the
//! bytes of one file — `trials.csv`, `trials.parquet`, `report.html`, `summary.md` and
//! `summary.json`. Exporters compute nothing of their own and never touch the disk; `rebuild`
//! writes what they return, each file replaced whole.

use super::summary::experiments_json;
use super::{Table, html_page};
use crate::analysis::RunAnalysis;
use crate::analysis::trials::parquet_bytes;
use crate::record::StoredTrial;
use std::io;

/// A run as every exporter sees it.
pub struct RunReport<'a> {
    /// The page title (`mcpick run FOLDER`).
    pub title: String,
    pub trials: &'a [StoredTrial],
    /// The trials the plan holds (`None` without a manifest).
    pub planned: Option<usize>,
    /// Lines of `trials.jsonl` that are not the plan's trials, `trials.jsonl:LINE: why`.
    pub set_aside: Vec<String>,
    /// Lines an earlier `--resume` moved to `set-aside.jsonl`.
    pub earlier_set_aside: usize,
    /// `manifest.json` as it is on disk (empty when there is none).
    pub manifest_text: &'a str,
    /// The summary's cells (each backend on each suite) as a table, and as JSON.
    pub summary: Table,
    pub summary_json: serde_json::Value,
    /// What the terminal shows and `summary.md` holds below its heading: the table, the notes on
    /// unreadable lines and later-turn fixes, and the experiment sections.
    pub summary_text: String,
    /// The analysis, or why it failed (the summary is written either way).
    pub analysis: Result<RunAnalysis, String>,
    /// The client profile's part (`--client`), absent when the run named none.
    pub client: Option<serde_json::Value>,
}

/// One output file.
pub trait Exporter {
    /// Its name in the run folder.
    fn file_name(&self) -> &'static str;
    /// Its contents; `None` when there is nothing to write (an analysis that failed).
    fn export(&self, report: &RunReport<'_>) -> io::Result<Option<Vec<u8>>>;
}

/// Every exporter, in the order their files are written.
pub fn all_exporters() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(CsvExporter),
        Box::new(ParquetExporter),
        Box::new(HtmlExporter),
        Box::new(MarkdownExporter),
        Box::new(JsonExporter),
    ]
}

/// `trials.csv`: one row per readable trial, the columns a spreadsheet wants — the request
/// (`prompt`, as the stored transcript holds it) and the tool it expects among them.
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn file_name(&self) -> &'static str {
        "trials.csv"
    }

    fn export(&self, report: &RunReport<'_>) -> io::Result<Option<Vec<u8>>> {
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
            "p_right",
            "margin",
            // Last, so that readers that take the earlier columns by position read on as before.
            "expected_tool",
            "prompt",
        ])?;
        for trial in report.trials {
            let verdict = &trial.verdict;
            let acceptable = trial.acceptable_actions();
            let graded = trial.actions.as_ref();
            let cells = [
                trial.suite.as_str(),
                &trial.toolset,
                &trial.task,
                &trial.backend,
                trial.variant.as_deref().unwrap_or(""),
                &trial.size.map_or(String::new(), |n| n.to_string()),
                &trial.sweep_seed.to_string(),
                &trial.repeat.to_string(),
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
                &graded.map_or(String::new(), |a| format!("{:.6}", a.p_right(&acceptable))),
                &graded
                    .and_then(|a| a.margin(&acceptable))
                    .map_or(String::new(), |m| format!("{m:.4}")),
                trial.expected_tool().unwrap_or(""),
                trial.prompt(),
            ];
            csv.write_record(cells.map(|cell| spreadsheet_safe(cell).into_owned()))?;
        }
        csv.into_inner().map(Some).map_err(|e| e.into_error())
    }
}

/// A cell a spreadsheet will show as text: one whose text would start a formula — `=`, `+`, `-`,
/// `@`, a tab or a carriage return first, a task id like `=cmd|' /C calc'!A0` from an imported data
/// set — gets a leading `'`, as OWASP's CSV-injection guidance says (numbers, `-3.5` among them,
/// stay numbers). The csv writer quotes whatever needs quoting.
fn spreadsheet_safe(cell: &str) -> std::borrow::Cow<'_, str> {
    let starts_formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if starts_formula && cell.trim().parse::<f64>().is_err() {
        std::borrow::Cow::Owned(format!("'{cell}"))
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// `trials.parquet`: the analysis frame (zstd) for pandas, polars, DuckDB or Spark.
pub struct ParquetExporter;

impl Exporter for ParquetExporter {
    fn file_name(&self) -> &'static str {
        "trials.parquet"
    }

    fn export(&self, report: &RunReport<'_>) -> io::Result<Option<Vec<u8>>> {
        let Ok(analysis) = &report.analysis else {
            return Ok(None);
        };
        // The writer needs the frame mutably (it may rechunk); a copy shares its buffers.
        let mut frame = analysis.frame.clone();
        parquet_bytes(&mut frame)
            .map(Some)
            .map_err(|e| io::Error::other(format!("trials.parquet: {e}")))
    }
}

/// `report.html`: the self-contained page with every table and chart.
pub struct HtmlExporter;

impl Exporter for HtmlExporter {
    fn file_name(&self) -> &'static str {
        "report.html"
    }

    fn export(&self, report: &RunReport<'_>) -> io::Result<Option<Vec<u8>>> {
        let Ok(analysis) = &report.analysis else {
            return Ok(None);
        };
        let page = html_page(
            &report.title,
            &report.summary,
            analysis,
            report.trials,
            report.manifest_text.to_string(),
        );
        Ok(Some(page.into_bytes()))
    }
}

/// `summary.md`: the terminal's summary under a heading.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }

    fn export(&self, report: &RunReport<'_>) -> io::Result<Option<Vec<u8>>> {
        Ok(Some(
            format!(
                "# mcpick run\n\nAccuracies with Wilson 95% intervals.\n\n{}",
                report.summary_text
            )
            .into_bytes(),
        ))
    }
}

/// `summary.json`: the cells, the trials counted of those planned, the lines not counted, and the
/// experiments.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn file_name(&self) -> &'static str {
        "summary.json"
    }

    fn export(&self, report: &RunReport<'_>) -> io::Result<Option<Vec<u8>>> {
        let experiments = match &report.analysis {
            Ok(analysis) => experiments_json(analysis),
            Err(_) => serde_json::Value::Null,
        };
        let mut summary = serde_json::json!({
            "cells": report.summary_json,
            "trials": report.trials.len(),
            "planned_trials": report.planned,
            "unreadable_lines": report.set_aside.len(),
            "set_aside": report.set_aside,
            "set_aside_earlier": report.earlier_set_aside,
            "experiments": experiments,
        });
        if let (Some(client), Some(fields)) = (&report.client, summary.as_object_mut()) {
            fields.insert("client".into(), client.clone());
        }
        Ok(Some(
            serde_json::to_string_pretty(&summary)
                .unwrap_or_default()
                .into_bytes(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::spreadsheet_safe;

    #[test]
    fn cells_that_start_a_formula_are_text() {
        assert_eq!(
            spreadsheet_safe("=cmd|' /C calc'!A0"),
            "'=cmd|' /C calc'!A0"
        );
        for formula in ["+1+1", "-2+3+cmd|' /C calc'!A0", "@SUM(A1)", "\tx", "\r=1"] {
            assert!(spreadsheet_safe(formula).starts_with('\''), "{formula:?}");
        }
        for plain in ["travel", "-3.5", "12", "a=b", ""] {
            assert_eq!(spreadsheet_safe(plain), plain);
        }
    }
}
