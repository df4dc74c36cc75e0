//! A run's outputs, rebuilt from its records (`rebuild`) and written by exporters behind one trait
//! (`exporters`: CSV, Parquet, HTML, Markdown, JSON): the summary table and JSON (`summary`), the
//! Markdown sections of `summary.md` (also printed on the terminal) and the self-contained
//! `report.html`. Both are built from the same tables, so the page and the summary never disagree;
//! nothing here computes a statistic — the numbers are `analysis`'s.

mod exporters;
pub mod html;
pub mod markdown;
mod rebuild;
mod summary;

pub use exporters::{Exporter, RunReport, all_exporters};
pub use rebuild::rebuild;

use crate::analysis::RunAnalysis;
use crate::record::StoredTrial;
pub use html::Table;
use markdown::{
    ab_table, confused_table, count_tokens_table, discordant_lines, exposure_ab_table, fit_table,
    markdown_table, position_table, repeats_table, size_table, split_table,
};

/// The experiment sections of `summary.md`, empty when the run has no experiment to report.
pub fn experiment_markdown(analysis: &RunAnalysis) -> String {
    let mut text = String::new();
    if !analysis.ab.is_empty() {
        text.push_str("\n## Description A/B\n\n");
        text.push_str(&caption_and_table(&ab_table(&analysis.ab)));
        text.push_str("\nDiscordant tasks:\n\n");
        text.push_str(&discordant_lines(&analysis.ab));
        if let Some(repeats) = repeats_table(&analysis.ab) {
            text.push('\n');
            text.push_str(&caption_and_table(&repeats));
        }
    }
    if !analysis.exposure_ab.is_empty() {
        text.push_str("\n## Exposure strategies\n\n");
        text.push_str(&caption_and_table(&exposure_ab_table(
            &analysis.exposure_ab,
        )));
        text.push_str("\nDiscordant tasks:\n\n");
        text.push_str(&discordant_lines(&analysis.exposure_ab));
    }
    if !analysis.exposure_splits.is_empty() {
        text.push('\n');
        text.push_str(&caption_and_table(&split_table(&analysis.exposure_splits)));
    }
    if !analysis.sizes.is_empty() {
        text.push_str("\n## Toolset size\n\n");
        text.push_str(&caption_and_table(&size_table(&analysis.sizes)));
        text.push('\n');
        text.push_str(&caption_and_table(&fit_table(&analysis.sizes)));
        text.push('\n');
        text.push_str(&caption_and_table(&position_table(analysis)));
    }
    if !analysis.count_vs_tokens.is_empty() {
        text.push('\n');
        text.push_str(&caption_and_table(&count_tokens_table(
            &analysis.count_vs_tokens,
        )));
    }
    let confused = confused_table(analysis);
    if !confused.rows.is_empty() {
        text.push_str("\n## Confusion\n\n");
        text.push_str(&caption_and_table(&confused));
    }
    text
}

fn caption_and_table(table: &Table) -> String {
    format!("{}.\n\n{}", table.caption, markdown_table(table))
}

/// `report.html`: the summary table, every experiment table and chart, and the manifest.
pub fn html_page(
    title: &str,
    summary: Table,
    analysis: &RunAnalysis,
    trials: &[StoredTrial],
    manifest_json: String,
) -> String {
    let mut tables = vec![summary];
    if !analysis.ab.is_empty() {
        tables.push(ab_table(&analysis.ab));
        tables.extend(repeats_table(&analysis.ab));
    }
    if !analysis.exposure_ab.is_empty() {
        tables.push(exposure_ab_table(&analysis.exposure_ab));
    }
    if !analysis.exposure_splits.is_empty() {
        tables.push(split_table(&analysis.exposure_splits));
    }
    if !analysis.sizes.is_empty() {
        tables.push(size_table(&analysis.sizes));
        tables.push(fit_table(&analysis.sizes));
        tables.push(position_table(analysis));
    }
    if !analysis.count_vs_tokens.is_empty() {
        tables.push(count_tokens_table(&analysis.count_vs_tokens));
    }
    let confused = confused_table(analysis);
    if !confused.rows.is_empty() {
        tables.push(confused);
    }
    let point = |x: f64, i: &crate::score::Interval| html::CurvePoint {
        x,
        estimate: i.estimate,
        low: i.low,
        high: i.high,
        trials: i.trials,
    };
    // One chart line per sweep series, its points read off each size by `value`.
    let sweep_lines =
        |value: &dyn Fn(&crate::analysis::experiments::SizePoint) -> html::CurvePoint| {
            analysis
                .sizes
                .iter()
                .map(|c| html::SizeCurve {
                    series: c.series.clone(),
                    points: c.points.iter().map(value).collect(),
                })
                .collect::<Vec<_>>()
        };
    let size_curves = sweep_lines(&|p| point(f64::from(p.size), &p.pick));
    // Tokens are drawn only when some backend reported any (offline baselines report none).
    let token_curves = if analysis
        .sizes
        .iter()
        .flat_map(|c| &c.points)
        .any(|p| p.mean_input_tokens > 0.0)
    {
        sweep_lines(&|p| html::CurvePoint {
            x: f64::from(p.size),
            estimate: p.mean_input_tokens,
            low: p.mean_input_tokens,
            high: p.mean_input_tokens,
            trials: p.pick.trials,
        })
    } else {
        Vec::new()
    };
    let position_curves = if analysis.sizes.is_empty() {
        Vec::new()
    } else {
        analysis
            .positions
            .iter()
            .map(|c| html::SizeCurve {
                series: c.series.clone(),
                points: c
                    .buckets
                    .iter()
                    .map(|(first, _, i)| point(f64::from(*first), i))
                    .collect(),
            })
            .collect()
    };
    let ab_comparisons = analysis
        .ab
        .iter()
        .chain(&analysis.exposure_ab)
        .filter_map(|c| {
            let d = c.difference.as_ref()?;
            Some(html::AbComparison {
                backend: c.backend.clone(),
                arm_a: c.arm_a.clone(),
                arm_b: c.arm_b.clone(),
                difference: d.difference,
                low: d.low,
                high: d.high,
                p_value: c.mcnemar.p_value,
                verdict: c.verdict.sentence(&c.arm_a, &c.arm_b),
            })
        })
        .collect();
    let confusions = analysis
        .confusions
        .iter()
        .map(|m| html::Confusion {
            backend: m.backend.clone(),
            expected: m.expected.clone(),
            picked: m.picked.clone(),
            counts: m.counts.clone(),
        })
        .collect();
    let mut latencies: Vec<html::LatencySeries> = Vec::new();
    let mut backends: Vec<&str> = trials.iter().map(|r| r.backend.as_str()).collect();
    backends.sort_unstable();
    backends.dedup();
    for backend in backends {
        latencies.push(html::LatencySeries {
            series: backend.to_string(),
            latencies_ms: trials
                .iter()
                .filter(|r| r.backend == backend && r.scored())
                .map(|r| r.latency_ms)
                .collect(),
        });
    }
    html::render(&html::ReportPage {
        title: title.to_string(),
        summary_tables: tables,
        size_curves,
        token_curves,
        position_curves,
        ab_comparisons,
        confusions,
        latencies,
        manifest_json,
    })
}
