//! The experiment tables, each a polars query over the trials frame followed by the statistics:
//! paired comparisons of arms (description variants, or exposure strategies: `ab`, on picks and on
//! the graded measure), accuracy against
//! toolset size with a logistic fit (one series per backend, arm and strategy), accuracy by the
//! gold tool's position, and the confusion of expected against picked tools; who gains at whose
//! expense between description arms is `pull`'s; what each exposure
//! strategy's misses come from is `exposure_split`'s, and the count-versus-tokens fit of a sweep
//! with several description arms `count_vs_tokens`'s. The metric is
//! the *pick*: the first call chose an acceptable tool, or nothing was called when nothing should
//! be; `error` trials are left out of every figure (and of both sides of a pair). A sweep's
//! per-size intervals and its N at 90% are over tasks (`size_by_task`).

use super::statistics::{LogisticFit, fit_logistic_in_log_n};
use crate::score::{Interval, wilson_interval};
use polars::prelude::*;
use std::collections::BTreeMap;

/// The columns that name a trial's condition; two trials are a pair when they agree on all of them
/// but the one compared (the variant in a description A/B test, the exposure strategy in a
/// strategy comparison).
const CONDITION_KEYS: [&str; 8] = [
    "backend",
    "suite",
    "task",
    "variant",
    "exposure",
    "size",
    "sweep_seed",
    "repeat",
];
const BOOTSTRAP_RESAMPLES: usize = 10_000;
const BOOTSTRAP_SEED: u64 = 20_261_201;

/// Accuracy at one toolset size.
#[derive(Debug, Clone)]
pub struct SizePoint {
    pub size: u32,
    pub pick: Interval,
    pub correct: Interval,
    pub mean_input_tokens: f64,
    pub mean_shown: f64,
}

/// One backend's (and arm's) sweep.
#[derive(Debug, Clone)]
pub struct SizeCurve {
    pub series: String,
    /// Each size's accuracies, with intervals over tasks (a task's seeds averaged).
    pub points: Vec<SizePoint>,
    /// The logistic fit to every trial.
    pub fit: Option<LogisticFit>,
    /// The 95% interval on the fit's N at 90%, by resampling tasks (the high end infinite when
    /// too many resamples never fall that far).
    pub n_at_90_interval: Option<(f64, f64)>,
}

/// Accuracy by the gold tool's position in the list, in buckets.
#[derive(Debug, Clone)]
pub struct PositionCurve {
    pub series: String,
    /// (first position of the bucket, its label, the pick accuracy there).
    pub buckets: Vec<(u32, String, Interval)>,
}

/// Expected × picked counts for one backend.
#[derive(Debug, Clone)]
pub struct ConfusionMatrix {
    pub backend: String,
    pub expected: Vec<String>,
    pub picked: Vec<String>,
    pub counts: Vec<Vec<u64>>,
    /// Unordered tool pairs that take each other's selections, most first: (a, b, a→b, b→a).
    pub confused_pairs: Vec<(String, String, u64, u64)>,
}

/// The label of the pick when nothing was called.
pub const NO_CALL: &str = "(none)";

fn scored(frame: &DataFrame) -> LazyFrame {
    frame.clone().lazy().filter(col("scored"))
}

fn strings(frame: &DataFrame, name: &str) -> PolarsResult<Vec<String>> {
    Ok(frame
        .column(name)?
        .as_materialized_series()
        .str()?
        .iter()
        .map(|v| v.unwrap_or_default().to_string())
        .collect())
}

fn numbers(frame: &DataFrame, name: &str) -> PolarsResult<Vec<u64>> {
    let column = frame
        .column(name)?
        .as_materialized_series()
        .cast(&DataType::UInt64)?;
    Ok(column
        .u64()?
        .iter()
        .map(Option::unwrap_or_default)
        .collect())
}

fn floats(frame: &DataFrame, name: &str) -> PolarsResult<Vec<f64>> {
    let column = frame
        .column(name)?
        .as_materialized_series()
        .cast(&DataType::Float64)?;
    Ok(column
        .f64()?
        .iter()
        .map(|v| v.unwrap_or(f64::NAN))
        .collect())
}

fn bools(frame: &DataFrame, name: &str) -> PolarsResult<Vec<bool>> {
    Ok(frame
        .column(name)?
        .as_materialized_series()
        .bool()?
        .iter()
        .map(Option::unwrap_or_default)
        .collect())
}

fn count_as_u64(e: Expr) -> Expr {
    e.cast(DataType::UInt64)
}

/// Pick accuracy against toolset size, per backend and arm, with the logistic fit in log N.
pub fn size_curves(frame: &DataFrame) -> PolarsResult<Vec<SizeCurve>> {
    let table = scored(frame)
        .filter(col("size").gt(lit(0u32)))
        .group_by([col("backend"), col("variant"), col("exposure"), col("size")])
        .agg([
            count_as_u64(col("right_pick").sum()).alias("picks"),
            count_as_u64(col("correct").sum()).alias("corrects"),
            count_as_u64(len()).alias("trials"),
            col("input_tokens")
                .cast(DataType::Float64)
                .mean()
                .alias("tokens"),
            col("shown_tools")
                .cast(DataType::Float64)
                .mean()
                .alias("shown"),
        ])
        .sort(
            ["backend", "variant", "exposure", "size"],
            SortMultipleOptions::default(),
        )
        .collect()?;
    let (backends, variants) = (strings(&table, "backend")?, strings(&table, "variant")?);
    let exposures = strings(&table, "exposure")?;
    let sizes = numbers(&table, "size")?;
    let (picks, corrects, trials) = (
        numbers(&table, "picks")?,
        numbers(&table, "corrects")?,
        numbers(&table, "trials")?,
    );
    let (tokens, shown) = (floats(&table, "tokens")?, floats(&table, "shown")?);
    let by_task = size_by_task::series_by_task(frame)?;
    let mut curves: Vec<SizeCurve> = Vec::new();
    let mut fitted: Vec<Vec<(f64, u64, u64)>> = Vec::new();
    for i in 0..table.height() {
        let series = series_name(&backends[i], &variants[i], &exposures[i]);
        let tasks = by_task.get(&(
            backends[i].clone(),
            variants[i].clone(),
            exposures[i].clone(),
        ));
        if curves.last().is_none_or(|c| c.series != series) {
            curves.push(SizeCurve {
                series,
                points: Vec::new(),
                fit: None,
                n_at_90_interval: tasks.and_then(|t| t.n_at_90_interval()),
            });
            fitted.push(Vec::new());
        }
        let size = sizes[i] as u32;
        let (pick, correct) = match tasks {
            Some(tasks) => tasks.intervals_at(size),
            None => (
                wilson_interval(picks[i], trials[i]),
                wilson_interval(corrects[i], trials[i]),
            ),
        };
        if let (Some(curve), Some(points)) = (curves.last_mut(), fitted.last_mut()) {
            curve.points.push(SizePoint {
                size,
                pick,
                correct,
                mean_input_tokens: tokens[i],
                mean_shown: shown[i],
            });
            points.push((f64::from(size), picks[i], trials[i]));
        }
    }
    for (curve, points) in curves.iter_mut().zip(&fitted) {
        curve.fit = fit_logistic_in_log_n(points);
    }
    Ok(curves)
}

/// Buckets of gold positions: position effects are strongest at the top of a list.
const POSITION_BUCKETS: [(u32, &str); 8] = [
    (1, "1"),
    (2, "2"),
    (3, "3"),
    (4, "4–5"),
    (6, "6–10"),
    (11, "11–20"),
    (21, "21–50"),
    (51, "51+"),
];

fn bucket_of(position: u32) -> u32 {
    POSITION_BUCKETS
        .iter()
        .rev()
        .find(|(first, _)| position >= *first)
        .map_or(1, |(first, _)| *first)
}

/// Pick accuracy by the gold tool's (1-based) position in the list shown, per backend and arm.
pub fn position_curves(frame: &DataFrame) -> PolarsResult<Vec<PositionCurve>> {
    let table = scored(frame)
        .filter(col("gold_position").is_not_null())
        .with_column(
            col("gold_position")
                .map(
                    |c| {
                        let buckets: UInt32Chunked =
                            c.as_materialized_series().u32()?.apply_values(bucket_of);
                        Ok(buckets.into_column())
                    },
                    |_, field| Ok(Field::new(field.name().clone(), DataType::UInt32)),
                )
                .alias("bucket"),
        )
        .group_by([
            col("backend"),
            col("variant"),
            col("exposure"),
            col("bucket"),
        ])
        .agg([
            count_as_u64(col("right_pick").sum()).alias("picks"),
            count_as_u64(len()).alias("trials"),
        ])
        .sort(
            ["backend", "variant", "exposure", "bucket"],
            SortMultipleOptions::default(),
        )
        .collect()?;
    let (backends, variants) = (strings(&table, "backend")?, strings(&table, "variant")?);
    let exposures = strings(&table, "exposure")?;
    let buckets = numbers(&table, "bucket")?;
    let (picks, trials) = (numbers(&table, "picks")?, numbers(&table, "trials")?);
    let mut curves: Vec<PositionCurve> = Vec::new();
    for i in 0..table.height() {
        let series = series_name(&backends[i], &variants[i], &exposures[i]);
        if curves.last().is_none_or(|c| c.series != series) {
            curves.push(PositionCurve {
                series,
                buckets: Vec::new(),
            });
        }
        let first = buckets[i] as u32;
        let label = POSITION_BUCKETS
            .iter()
            .find(|(f, _)| *f == first)
            .map_or_else(|| first.to_string(), |(_, l)| l.to_string());
        if let Some(curve) = curves.last_mut() {
            curve
                .buckets
                .push((first, label, wilson_interval(picks[i], trials[i])));
        }
    }
    Ok(curves)
}

/// Expected × picked matrices per backend (trials that expect a call), and the most confused pairs.
pub fn confusions(frame: &DataFrame) -> PolarsResult<Vec<ConfusionMatrix>> {
    let table = scored(frame)
        .filter(col("expected_tool").is_not_null())
        .with_column(col("first_tool").fill_null(lit(NO_CALL)))
        .group_by([col("backend"), col("expected_tool"), col("first_tool")])
        .agg([count_as_u64(len()).alias("count")])
        .sort(
            ["backend", "expected_tool", "first_tool"],
            SortMultipleOptions::default(),
        )
        .collect()?;
    let backends = strings(&table, "backend")?;
    let expected = strings(&table, "expected_tool")?;
    let picked = strings(&table, "first_tool")?;
    let counts = numbers(&table, "count")?;
    let mut per_backend: BTreeMap<&str, BTreeMap<(&str, &str), u64>> = BTreeMap::new();
    for i in 0..table.height() {
        *per_backend
            .entry(&backends[i])
            .or_default()
            .entry((&expected[i], &picked[i]))
            .or_default() += counts[i];
    }
    let mut matrices = Vec::new();
    for (backend, cells) in per_backend {
        let mut rows: Vec<String> = cells.keys().map(|(e, _)| e.to_string()).collect();
        rows.dedup();
        let mut columns: Vec<String> = rows.clone();
        for (_, p) in cells.keys() {
            if !columns.iter().any(|c| c == p) {
                columns.push(p.to_string());
            }
        }
        let matrix = rows
            .iter()
            .map(|e| {
                columns
                    .iter()
                    .map(|p| cells.get(&(e.as_str(), p.as_str())).copied().unwrap_or(0))
                    .collect()
            })
            .collect();
        let mut pairs: BTreeMap<(&str, &str), (u64, u64)> = BTreeMap::new();
        for (&(e, p), &n) in &cells {
            if e == p || p == NO_CALL {
                continue;
            }
            if e < p {
                pairs.entry((e, p)).or_default().0 += n;
            } else {
                pairs.entry((p, e)).or_default().1 += n;
            }
        }
        let mut confused_pairs: Vec<(String, String, u64, u64)> = pairs
            .into_iter()
            .map(|((a, b), (ab, ba))| (a.to_string(), b.to_string(), ab, ba))
            .collect();
        confused_pairs.sort_by(|x, y| (y.2 + y.3).cmp(&(x.2 + x.3)).then(x.0.cmp(&y.0)));
        matrices.push(ConfusionMatrix {
            backend: backend.to_string(),
            expected: rows,
            picked: columns,
            counts: matrix,
            confused_pairs,
        });
    }
    Ok(matrices)
}

/// "bm25", "bm25 / travel-rich", "bm25 / retrieve:embed:5" or "bm25 / travel-rich / flat".
pub fn series_name(backend: &str, variant: &str, exposure: &str) -> String {
    let mut name = backend.to_string();
    for part in [variant, exposure] {
        if !part.is_empty() {
            name.push_str(" / ");
            name.push_str(part);
        }
    }
    name
}

mod ab;
mod count_vs_tokens;
mod exposure_split;
mod pull;
mod size_by_task;
pub use ab::{ALPHA, AbComparison, GradedAb, Measure, ab_comparisons};
pub use count_vs_tokens::{CountTokenEffect, count_vs_tokens};
pub use exposure_split::{ExposureSplit, SplitRow, exposure_splits};
pub use pull::{FLAG_PICKS, FLAG_RISE, PullTable, ToolPull, pull_tables};

#[cfg(test)]
mod tests;
