//! A run's trials as a polars DataFrame: one row per stored trial, the
//! columns every analysis groups by (backend, suite, variant, exposure, size, seed, repeat, task) and the
//! facts it counts (the outcome, whether the pick was right, how sure the model was of it where the
//! backend says — `p_right`, the margin, the strongest competitor — the tool expected and the tool picked,
//! the gold tool's position, whether retrieval or a search surfaced the gold tool, searches, tokens,
//! latency), built from the stored trials. The same frame is
//! written as `trials.parquet`.

use crate::record::StoredTrial;
use polars::prelude::*;

/// The rows as a DataFrame (one column per field; `variant` is "" and `size` 0 when absent, so
/// they group like any other value).
pub fn frame(rows: &[StoredTrial]) -> PolarsResult<DataFrame> {
    let text = |f: fn(&StoredTrial) -> &str| rows.iter().map(f).collect::<Vec<&str>>();
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
            "exposure".into(),
            text(|r| r.exposure.as_deref().unwrap_or_default()),
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
        Column::new("outcome".into(), text(|r| r.verdict.outcome.as_str())),
        Column::new(
            "scored".into(),
            rows.iter().map(StoredTrial::scored).collect::<Vec<bool>>(),
        ),
        Column::new(
            "right_pick".into(),
            rows.iter()
                .map(StoredTrial::right_pick)
                .collect::<Vec<bool>>(),
        ),
        Column::new(
            "correct".into(),
            rows.iter().map(StoredTrial::correct).collect::<Vec<bool>>(),
        ),
        Column::new(
            "expected_tool".into(),
            rows.iter()
                .map(StoredTrial::expected_tool)
                .collect::<Vec<Option<&str>>>(),
        ),
        Column::new(
            "p_right".into(),
            rows.iter()
                .map(StoredTrial::p_right)
                .collect::<Vec<Option<f64>>>(),
        ),
        Column::new(
            "margin".into(),
            rows.iter()
                .map(|r| {
                    r.actions
                        .as_ref()
                        .and_then(|a| a.margin(&r.acceptable_actions()))
                })
                .collect::<Vec<Option<f64>>>(),
        ),
        Column::new(
            "strongest_competitor".into(),
            rows.iter()
                .map(|r| {
                    r.actions.as_ref().and_then(|a| {
                        a.strongest_competitor(&r.acceptable_actions())
                            .map(|c| c.action.clone())
                    })
                })
                .collect::<Vec<Option<String>>>(),
        ),
        Column::new(
            "first_tool".into(),
            rows.iter()
                .map(|r| r.verdict.first_tool.as_deref())
                .collect::<Vec<Option<&str>>>(),
        ),
        Column::new(
            "gold_position".into(),
            rows.iter()
                .map(|r| r.gold_position.map(|p| p as u32))
                .collect::<Vec<Option<u32>>>(),
        ),
        Column::new(
            "shown_tools".into(),
            rows.iter()
                .map(|r| r.shown_count as u32)
                .collect::<Vec<u32>>(),
        ),
        Column::new(
            "gold_retrieved".into(),
            rows.iter()
                .map(StoredTrial::gold_retrieved)
                .collect::<Vec<Option<bool>>>(),
        ),
        Column::new(
            "searches".into(),
            rows.iter()
                .map(|r| r.searches.len() as u32)
                .collect::<Vec<u32>>(),
        ),
        Column::new(
            "search_found_gold".into(),
            rows.iter()
                .map(StoredTrial::search_found_gold)
                .collect::<Vec<Option<bool>>>(),
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

/// The frame as Parquet (zstd) for pandas, polars, DuckDB or Spark.
pub fn parquet_bytes(frame: &mut DataFrame) -> PolarsResult<Vec<u8>> {
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(frame)?;
    Ok(bytes)
}
