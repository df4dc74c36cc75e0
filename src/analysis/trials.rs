//! A run's trials as flat rows and as a polars DataFrame: one row per line of `trials.jsonl`, the
//! columns every analysis groups by (backend, suite, variant, size, seed, repeat, task) and the
//! facts it counts (the outcome, whether the pick was right, the tool expected and the tool picked,
//! the gold tool's position, tokens, latency). The same frame is written as `trials.parquet`.

use polars::prelude::*;
use serde::Deserialize;
use std::path::Path;

/// What a line of `trials.jsonl` holds that analysis needs.
#[derive(Debug, Clone, Deserialize)]
pub struct TrialRow {
    pub suite: String,
    pub toolset: String,
    pub task: String,
    pub backend: String,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub size: Option<u32>,
    #[serde(default)]
    pub distractors: Option<String>,
    #[serde(default)]
    pub sweep_seed: u32,
    #[serde(default)]
    pub repeat: u32,
    #[serde(default)]
    pub gold_position: Option<u32>,
    #[serde(default)]
    pub expected_tools: Vec<String>,
    pub shown_tools: u32,
    pub outcome: String,
    pub selection_correct: Option<bool>,
    pub first_tool: Option<String>,
    pub latency_ms: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cost_usd: f64,
}

impl TrialRow {
    /// The trial ended in a verdict (a backend failure is counted apart and never scored).
    pub fn scored(&self) -> bool {
        self.outcome != "error"
    }

    /// The pick was right: the first call chose an acceptable tool, or nothing was called when
    /// nothing should be. This is tool *selection*; arguments are judged by `correct`.
    pub fn right_pick(&self) -> bool {
        match self.selection_correct {
            Some(right) => right,
            None => self.outcome == "correct_abstain",
        }
    }

    /// Tool and arguments right (or a right abstention).
    pub fn correct(&self) -> bool {
        matches!(self.outcome.as_str(), "correct" | "correct_abstain")
    }
}

/// Parses `trials.jsonl`; a line that does not parse (a crash can cut the last one short) is
/// counted, not fatal.
pub fn parse_rows(text: &str) -> (Vec<TrialRow>, usize) {
    let mut rows = Vec::new();
    let mut unreadable = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<TrialRow>(line) {
            Ok(row) => rows.push(row),
            Err(_) => unreadable += 1,
        }
    }
    (rows, unreadable)
}

/// The rows as a DataFrame (one column per field; `variant` is "" and `size` 0 when absent, so
/// they group like any other value).
pub fn frame(rows: &[TrialRow]) -> PolarsResult<DataFrame> {
    let text = |f: fn(&TrialRow) -> &str| rows.iter().map(f).collect::<Vec<&str>>();
    let columns = vec![
        Column::new("suite".into(), text(|r| &r.suite)),
        Column::new("toolset".into(), text(|r| &r.toolset)),
        Column::new("task".into(), text(|r| &r.task)),
        Column::new("backend".into(), text(|r| &r.backend)),
        Column::new(
            "variant".into(),
            text(|r| r.variant.as_deref().unwrap_or_default()),
        ),
        Column::new(
            "size".into(),
            rows.iter()
                .map(|r| r.size.unwrap_or(0))
                .collect::<Vec<u32>>(),
        ),
        Column::new(
            "distractors".into(),
            text(|r| r.distractors.as_deref().unwrap_or_default()),
        ),
        Column::new(
            "sweep_seed".into(),
            rows.iter().map(|r| r.sweep_seed).collect::<Vec<u32>>(),
        ),
        Column::new(
            "repeat".into(),
            rows.iter().map(|r| r.repeat).collect::<Vec<u32>>(),
        ),
        Column::new("outcome".into(), text(|r| &r.outcome)),
        Column::new(
            "scored".into(),
            rows.iter().map(TrialRow::scored).collect::<Vec<bool>>(),
        ),
        Column::new(
            "right_pick".into(),
            rows.iter().map(TrialRow::right_pick).collect::<Vec<bool>>(),
        ),
        Column::new(
            "correct".into(),
            rows.iter().map(TrialRow::correct).collect::<Vec<bool>>(),
        ),
        Column::new(
            "expected_tool".into(),
            rows.iter()
                .map(|r| r.expected_tools.first().map(String::as_str))
                .collect::<Vec<Option<&str>>>(),
        ),
        Column::new(
            "first_tool".into(),
            rows.iter()
                .map(|r| r.first_tool.as_deref())
                .collect::<Vec<Option<&str>>>(),
        ),
        Column::new(
            "gold_position".into(),
            rows.iter()
                .map(|r| r.gold_position)
                .collect::<Vec<Option<u32>>>(),
        ),
        Column::new(
            "shown_tools".into(),
            rows.iter().map(|r| r.shown_tools).collect::<Vec<u32>>(),
        ),
        Column::new(
            "latency_ms".into(),
            rows.iter().map(|r| r.latency_ms).collect::<Vec<f64>>(),
        ),
        Column::new(
            "input_tokens".into(),
            rows.iter().map(|r| r.input_tokens).collect::<Vec<u64>>(),
        ),
        Column::new(
            "output_tokens".into(),
            rows.iter().map(|r| r.output_tokens).collect::<Vec<u64>>(),
        ),
        Column::new(
            "cost_usd".into(),
            rows.iter().map(|r| r.cost_usd).collect::<Vec<f64>>(),
        ),
    ];
    DataFrame::new(rows.len(), columns)
}

/// Writes the frame as `trials.parquet` (zstd) for pandas, polars, DuckDB or Spark.
pub fn write_parquet(frame: &mut DataFrame, path: &Path) -> PolarsResult<()> {
    crate::file_replace::replace_with(path, |file| {
        ParquetWriter::new(file)
            .with_compression(ParquetCompression::Zstd(None))
            .finish(frame)
            .map(|_| ())
    })
}
