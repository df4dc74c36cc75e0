//! The report's sections, each experiment described once: its tables, the lines that name tasks,
//! and its charts, in the order a reader wants them — the summary, description A/B, exposure
//! strategies, toolset size, tools or tokens, confusion (with who gains at whose expense), the
//! bystander servers that took picks, latency. Built from the analysis and the
//! trials; every exporter renders these same sections.

use super::ab_tables::{
    ab_table, discordant_lines, exposure_ab_table, pull_table, repeats_table, take_over_lines,
};
use super::bystander_table::bystander_section;
use super::tables::{
    confused_table, count_tokens_table, fit_table, position_table, size_table, split_table,
};
use crate::analysis::RunAnalysis;
use crate::analysis::experiments::{AbComparison, SizePoint};
use crate::document::{
    Chart, ConfusionCounts, Curve, CurveKind, CurvePoint, ForestRow, LatencySeries, Part, Section,
    Table,
};
use crate::record::StoredTrial;
use crate::score::Interval;

/// The summary tables as a section of their own.
pub fn summary_section(tables: Vec<Table>) -> Section {
    Section {
        id: "summary",
        heading: "Summary".into(),
        parts: tables.into_iter().map(Part::Table).collect(),
    }
}

/// Every experiment the run has, each as one section; none without an experiment.
pub fn experiment_sections(analysis: &RunAnalysis) -> Vec<Section> {
    [
        ab_section(analysis),
        exposure_section(analysis),
        size_section(analysis),
        count_tokens_section(analysis),
        confusion_section(analysis),
        bystander_section(analysis),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Latency per backend, over its scored trials.
pub fn latency_section(trials: &[StoredTrial]) -> Option<Section> {
    let mut backends: Vec<&str> = trials.iter().map(|r| r.backend.as_str()).collect();
    backends.sort_unstable();
    backends.dedup();
    let series: Vec<LatencySeries> = backends
        .into_iter()
        .map(|backend| LatencySeries {
            series: backend.to_string(),
            latencies_ms: trials
                .iter()
                .filter(|r| r.backend == backend && r.scored())
                .map(|r| r.latency_ms)
                .collect(),
        })
        .collect();
    (!series.is_empty()).then(|| Section {
        id: "latency",
        heading: "Latency".into(),
        parts: vec![Part::Chart(Chart::Latency(series))],
    })
}

fn ab_section(analysis: &RunAnalysis) -> Option<Section> {
    if analysis.ab.is_empty() && analysis.cannot_say.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !analysis.cannot_say.is_empty() {
        parts.push(Part::Lines {
            caption: "Cannot say (nothing to compare)".into(),
            lines: analysis.cannot_say.clone(),
        });
    }
    if !analysis.ab.is_empty() {
        parts.push(Part::Table(ab_table(&analysis.ab)));
        parts.push(discordant(&analysis.ab));
        parts.extend(repeats_table(&analysis.ab).map(Part::Table));
        parts.push(Part::Chart(Chart::Forest(forest(&analysis.ab))));
    }
    Some(Section {
        id: "ab",
        heading: "Description A/B".into(),
        parts,
    })
}

fn exposure_section(analysis: &RunAnalysis) -> Option<Section> {
    if analysis.exposure_ab.is_empty() && analysis.exposure_splits.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !analysis.exposure_ab.is_empty() {
        parts.push(Part::Table(exposure_ab_table(&analysis.exposure_ab)));
        parts.push(discordant(&analysis.exposure_ab));
    }
    if !analysis.exposure_splits.is_empty() {
        parts.push(Part::Table(split_table(&analysis.exposure_splits)));
    }
    if !analysis.exposure_ab.is_empty() {
        parts.push(Part::Chart(Chart::Forest(forest(&analysis.exposure_ab))));
    }
    Some(Section {
        id: "exposure",
        heading: "Exposure strategies".into(),
        parts,
    })
}

fn size_section(analysis: &RunAnalysis) -> Option<Section> {
    if analysis.sizes.is_empty() {
        return None;
    }
    let point = |x: f64, i: &Interval| CurvePoint {
        x,
        estimate: i.estimate,
        low: i.low,
        high: i.high,
        trials: i.trials,
    };
    // One chart line per sweep series, its points read off each size by `value`.
    let sweep_lines = |value: &dyn Fn(&SizePoint) -> CurvePoint| {
        analysis
            .sizes
            .iter()
            .map(|c| Curve {
                series: c.series.clone(),
                points: c.points.iter().map(value).collect(),
            })
            .collect::<Vec<_>>()
    };
    let mut parts = vec![
        Part::Table(size_table(&analysis.sizes)),
        Part::Table(fit_table(&analysis.sizes)),
        Part::Table(position_table(analysis)),
        Part::Chart(Chart::Curves {
            kind: CurveKind::Size,
            curves: sweep_lines(&|p| point(f64::from(p.size), &p.pick)),
        }),
    ];
    // Tokens are drawn only when some backend reported any (offline baselines report none).
    if analysis
        .sizes
        .iter()
        .flat_map(|c| &c.points)
        .any(|p| p.mean_input_tokens > 0.0)
    {
        parts.push(Part::Chart(Chart::Curves {
            kind: CurveKind::Tokens,
            curves: sweep_lines(&|p| CurvePoint {
                x: f64::from(p.size),
                estimate: p.mean_input_tokens,
                low: p.mean_input_tokens,
                high: p.mean_input_tokens,
                trials: p.pick.trials,
            }),
        }));
    }
    let positions: Vec<Curve> = analysis
        .positions
        .iter()
        .map(|c| Curve {
            series: c.series.clone(),
            points: c
                .buckets
                .iter()
                .map(|(first, _, i)| point(f64::from(*first), i))
                .collect(),
        })
        .collect();
    if !positions.is_empty() {
        parts.push(Part::Chart(Chart::Curves {
            kind: CurveKind::Position,
            curves: positions,
        }));
    }
    Some(Section {
        id: "size",
        heading: "Toolset size".into(),
        parts,
    })
}

fn count_tokens_section(analysis: &RunAnalysis) -> Option<Section> {
    (!analysis.count_vs_tokens.is_empty()).then(|| Section {
        id: "tools-or-tokens",
        heading: "Tools or tokens".into(),
        parts: vec![Part::Table(count_tokens_table(&analysis.count_vs_tokens))],
    })
}

fn confusion_section(analysis: &RunAnalysis) -> Option<Section> {
    let confused = confused_table(analysis);
    let mut parts = Vec::new();
    if !confused.rows.is_empty() {
        parts.push(Part::Table(confused));
    }
    // Beside the confusion: which arm's descriptions pull picks from other tools' tasks.
    let pulls = pull_table(&analysis.pulls);
    if !pulls.rows.is_empty() {
        parts.push(Part::Table(pulls));
        let take_overs = take_over_lines(&analysis.pulls);
        if !take_overs.is_empty() {
            parts.push(Part::Lines {
                caption: "Take-overs".into(),
                lines: take_overs,
            });
        }
    }
    if !analysis.confusions.is_empty() {
        parts.push(Part::Chart(Chart::Confusion(
            analysis
                .confusions
                .iter()
                .map(|m| ConfusionCounts {
                    backend: m.backend.clone(),
                    expected: m.expected.clone(),
                    picked: m.picked.clone(),
                    counts: m.counts.clone(),
                })
                .collect(),
        )));
    }
    (!parts.is_empty()).then_some(Section {
        id: "confusion",
        heading: "Confusion".into(),
        parts,
    })
}

fn discordant(comparisons: &[AbComparison]) -> Part {
    Part::Lines {
        caption: "Discordant tasks".into(),
        lines: discordant_lines(comparisons),
    }
}

/// One row per comparison and measure: the picks, then the graded measure where there is one.
fn forest(comparisons: &[AbComparison]) -> Vec<ForestRow> {
    let mut rows = Vec::new();
    for c in comparisons {
        if let Some(d) = &c.difference {
            rows.push(ForestRow {
                backend: format!("{} · picks", c.backend),
                arm_a: c.arm_a.clone(),
                arm_b: c.arm_b.clone(),
                difference: d.difference,
                low: d.low,
                high: d.high,
                p_value: c.picks_p_adjusted,
                verdict: c.picks_verdict.sentence(&c.arm_a, &c.arm_b),
            });
        }
        if let Some(graded) = &c.graded {
            let g = &graded.comparison;
            rows.push(ForestRow {
                backend: format!("{} · {}", c.backend, graded.source.describe()),
                arm_a: c.arm_a.clone(),
                arm_b: c.arm_b.clone(),
                difference: g.difference,
                low: g.low,
                high: g.high,
                p_value: graded.p_adjusted,
                verdict: graded.verdict.sentence(&c.arm_a, &c.arm_b),
            });
        }
    }
    rows
}
