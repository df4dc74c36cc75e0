//! The summary in the two forms exporters write: the table of cells (`summary.md`, the terminal,
//! `report.html`) and the JSON of `summary.json` — the cells with every interval and count, and
//! the experiments (A/B comparisons, size curves with their fits, gold positions, confusion).
//! `report.html` shows the one table as two (`split_speed_and_cost`), so that it fits a laptop
//! screen; the terminal and `summary.md` keep it whole.

use super::Table;
use super::tables::percent;
use crate::analysis::RunAnalysis;
use crate::analysis::experiments::Measure;
use crate::analysis::summary::SummaryCell;
use crate::score::Outcome;
use std::collections::BTreeMap;

/// The cells as a table and as JSON.
pub fn summary_table(
    cells: &BTreeMap<(String, String), SummaryCell>,
) -> (Table, serde_json::Value) {
    let mut table = Table {
        caption: "Summary per backend and suite: accuracies over tasks (a task's repeats, sizes and seeds averaged into its rate) with Wilson 95% intervals over tasks, or a bootstrap over tasks where a task's trials disagree".into(),
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
    for ((backend, suite), cell) in cells {
        let tally = &cell.tally;
        let (p50, p95) = (cell.latency_p50_ms, cell.latency_p95_ms);
        let (accuracy, selection, full) = (cell.accuracy(), cell.selection(), cell.full());
        let (precision, recall) = (tally.abstention_precision(), tally.abstention_recall());
        let scoring = cell.scoring.iter().copied().collect::<Vec<_>>().join("+");
        let calls_per_task = cell.calls_per_task();
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

/// The summary's columns about speed and spend rather than picks; with the cell's keys they make
/// the page's second summary table.
const SPEED_AND_COST: [&str; 3] = ["latency p50 / p95", "tokens in / out", "cost"];
/// The columns that say which cell a row is, repeated in both tables.
const CELL_KEYS: [&str; 2] = ["backend", "suite"];

/// The summary as the page shows it: the picks table, then speed and cost in a table of their own
/// (thirteen columns side by side overflow a 1,400-pixel screen).
pub fn split_speed_and_cost(summary: &Table) -> [Table; 2] {
    let take = |keep: &dyn Fn(&str) -> bool, caption: String| {
        let columns: Vec<usize> = (0..summary.header.len())
            .filter(|&i| keep(&summary.header[i]))
            .collect();
        Table {
            caption,
            header: columns.iter().map(|&i| summary.header[i].clone()).collect(),
            rows: summary
                .rows
                .iter()
                .map(|row| {
                    columns
                        .iter()
                        .map(|&i| row.get(i).cloned().unwrap_or_default())
                        .collect()
                })
                .collect(),
        }
    };
    [
        take(&|h| !SPEED_AND_COST.contains(&h), summary.caption.clone()),
        take(
            &|h| CELL_KEYS.contains(&h) || SPEED_AND_COST.contains(&h),
            "Speed and spend per backend and suite".into(),
        ),
    ]
}

/// The experiment results as JSON for `summary.json`.
pub fn experiments_json(analysis: &RunAnalysis) -> serde_json::Value {
    use serde_json::json;
    let comparison = |c: &crate::analysis::experiments::AbComparison| {
        json!({
            "backend": c.backend, "arm_a": c.arm_a, "arm_b": c.arm_b, "pairs": c.pairs,
            "a": c.a, "b": c.b,
            "difference": c.difference.as_ref().map(|d| json!({"estimate": d.difference, "low": d.low, "high": d.high})),
            "unit": "task", "tasks": c.tasks, "adjustment": c.adjustment.as_str(),
            "picks_test": {
                "test": c.picks.test_name(), "only_a": c.picks.only_a, "only_b": c.picks.only_b,
                "p_value": c.picks.p_value, "p_adjusted": c.picks_p_adjusted,
                "interval": c.picks.interval_name(),
            },
            "verdict": c.verdict.sentence(&c.arm_a, &c.arm_b),
            "decided_by": match c.decided_by { Measure::Picks => "picks", Measure::Graded => "graded" },
            "picks_verdict": c.picks_verdict.sentence(&c.arm_a, &c.arm_b),
            "picks_detectable": c.picks_detectable,
            "graded": c.graded.as_ref().map(|g| json!({
                "measure": g.source.describe(),
                "tasks": g.comparison.tasks, "mean_a": g.comparison.mean_a, "mean_b": g.comparison.mean_b,
                "difference": {"estimate": g.comparison.difference, "low": g.comparison.low, "high": g.comparison.high},
                "sign_flip": {"p_value": g.comparison.p_value, "p_adjusted": g.p_adjusted, "exact": g.comparison.exact},
                "detectable": g.comparison.minimum_detectable,
                "verdict": g.verdict.sentence(&c.arm_a, &c.arm_b),
            })),
            "only_a_tasks": c.only_a, "only_b_tasks": c.only_b,
            "tasks_for_80_percent_power": c.tasks_needed,
            "repeats": c.repeats_a.as_ref().zip(c.repeats_b.as_ref()).map(|(a, b)| json!({
                "a": {"tasks": a.tasks, "pass_at_k": a.pass_at_k, "all_pass": a.all_pass, "consistency": a.consistency},
                "b": {"tasks": b.tasks, "pass_at_k": b.pass_at_k, "all_pass": b.all_pass, "consistency": b.consistency},
            })),
        })
    };
    let ab: Vec<_> = analysis.ab.iter().map(comparison).collect();
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
                    "n_at_90_percent_interval": c.n_at_90_interval.map(|(low, high)| json!({
                        "low": low, "high": high.is_finite().then_some(high),
                    })),
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
    let mut experiments = json!({"arms": analysis.arms, "ab": ab, "sizes": sizes, "positions": positions, "confusion": confusion});
    if !analysis.pulls.is_empty() {
        experiments["pulls"] = analysis.pulls.iter().map(|p| json!({
            "backend": p.backend, "arm_a": p.arm_a, "arm_b": p.arm_b, "probabilities": p.probabilities,
            "tools": p.tools.iter().map(|t| json!({
                "action": t.tool, "own_tasks": t.own_tasks, "other_tasks": t.other_tasks,
                "own_a": t.own_a, "own_b": t.own_b, "taken_a": t.taken_a, "taken_b": t.taken_b,
                "own_gain": t.own_gain, "taken_gain": t.taken_gain, "flagged": t.flagged,
            })).collect::<Vec<_>>(),
        })).collect();
    }
    // Only runs that name strategies get these keys, so the summaries of other runs read as before.
    if !analysis.exposures.is_empty() {
        experiments["exposures"] = json!(analysis.exposures);
        experiments["exposure_ab"] = analysis.exposure_ab.iter().map(comparison).collect();
        experiments["exposure_splits"] = analysis.exposure_splits.iter().map(|s| json!({
            "backend": s.backend, "variant": s.variant, "exposure": s.exposure, "size": s.size,
            "right_pick": s.pick, "recall_at_k": s.recall, "search_found_gold": s.found,
            "pick_given_found": s.pick_given_found, "product": s.product,
            "searches_per_trial": s.searches_per_trial, "mean_input_tokens": s.mean_input_tokens,
            "flat_mean_input_tokens": s.flat_input_tokens,
        })).collect();
    }
    if !analysis.count_vs_tokens.is_empty() {
        experiments["count_vs_tokens"] = analysis
            .count_vs_tokens
            .iter()
            .map(|e| {
                json!({
                    "backend": e.backend, "exposure": e.exposure, "arms": e.arms,
                    "fit": e.fit.as_ref().map(|f| json!({
                        "intercept": f.intercept, "trials": f.trials, "correlation": f.correlation,
                        "count_slope": f.count_slope, "count_se": f.count_se, "count_p": f.count_p,
                        "token_slope": f.token_slope, "token_se": f.token_se, "token_p": f.token_p,
                    })),
                })
            })
            .collect();
    }
    experiments
}
