//! Analysis of a finished (or partial) run, from its records alone: the trials become a polars
//! DataFrame (`trials`; the Parquet exporter writes it as `trials.parquet`), the summary cells are
//! tallies per backend and suite (`summary`), the experiment tables are polars queries
//! (`experiments`: A/B arms on picks and on the graded measure, who gains at whose expense,
//! exposure strategies and their recall/selection split, size curves), the statistics behind every
//! verdict are pure functions (`statistics`), and two runs
//! compared trial by trial for a regression gate (`run_comparison`); both compare a graded
//! measure beside the picks (`graded_measure`), and both name the tasks whose picks moved
//! between their two sides (`movers`). The author's view — each expected tool's right
//! picks, who took them, and the requests that failed — is `per_tool`; which bystander server
//! took the suite's picks (`--bystanders`) is `bystander_picks`.
//! The task is the unit throughout: a task's repeats, sizes and seeds become one rate before any
//! interval or test, and a report's comparisons are adjusted for each other (`Adjustment`); an A/B
//! run with nothing to compare says so (`cannot_say`).
//! Everything comes in as arguments — the records, the arms the manifest names, the lint findings
//! on the toolsets used, the adjustment; nothing here reads or writes a file. Rendering belongs to
//! `report`.

pub mod bystander_picks;
pub mod experiments;
pub mod graded_measure;
pub mod movers;
pub mod per_tool;
pub mod run_comparison;
pub mod statistics;
pub mod summary;
pub mod trials;

use crate::lint::Finding;
use crate::record::StoredTrial;
use bystander_picks::{BystanderTake, bystander_takes};
use experiments::{
    AbComparison, ConfusionMatrix, CountTokenEffect, ExposureSplit, PositionCurve, PullTable,
    SizeCurve, SplitRow, ab_comparisons, confusions, count_vs_tokens, exposure_splits,
    position_curves, pull_tables, size_curves,
};
use per_tool::{FailingRequest, ToolPicks, per_tool};
use polars::prelude::DataFrame;
use statistics::Adjustment;
use std::collections::{BTreeMap, BTreeSet};

/// Confused pairs reported per backend, and linked to lint findings.
pub const CONFUSED_PAIRS_SHOWN: usize = 5;

/// Everything analysis found in one run.
pub struct RunAnalysis {
    /// The trials as a table, one row per trial.
    pub frame: DataFrame,
    /// The arms in the order the run named them (empty without variants).
    pub arms: Vec<String>,
    pub ab: Vec<AbComparison>,
    /// Why the A/B test cannot say anything for a backend and pair of arms: no task was scored
    /// under both (every trial of one arm, or of both, ended in an error).
    pub cannot_say: Vec<String>,
    /// Per backend and arm B: the mass each tool draws on its own tasks and takes from others'.
    pub pulls: Vec<PullTable>,
    /// The exposure strategies in the order the run named them (empty without `--exposure`).
    pub exposures: Vec<String>,
    /// Each strategy after the first against the first, paired on the same trials.
    pub exposure_ab: Vec<AbComparison>,
    /// Where each strategy's misses come from (recall or search, then selection).
    pub exposure_splits: Vec<ExposureSplit>,
    /// A sweep with several description arms: the effect of the tool count and of prompt tokens,
    /// told apart.
    pub count_vs_tokens: Vec<CountTokenEffect>,
    pub sizes: Vec<SizeCurve>,
    pub positions: Vec<PositionCurve>,
    pub confusions: Vec<ConfusionMatrix>,
    /// Lint findings about either tool of a confused pair, keyed by the pair.
    pub lint_links: BTreeMap<(String, String), Vec<String>>,
    /// Each expected tool's picks per series.
    pub per_tool: Vec<ToolPicks>,
    /// The requests whose first pick was wrong in some series.
    pub failing_requests: Vec<FailingRequest>,
    /// Per backend and bystander server shown beside the suites: the picks its tools took.
    pub bystander_takes: Vec<BystanderTake>,
}

/// For each backend and arm after the first that `ab` holds no comparison of, why: the trials of
/// each side and how many of them ended in an error.
fn without_pairs(trials: &[StoredTrial], arms: &[String], ab: &[AbComparison]) -> Vec<String> {
    let Some((first, others)) = arms.split_first() else {
        return Vec::new();
    };
    let backends: BTreeSet<&str> = trials.iter().map(|t| t.backend.as_str()).collect();
    let count = |backend: &str, arm: &str| {
        let of_arm = trials
            .iter()
            .filter(|t| t.backend == backend && t.variant.as_deref() == Some(arm));
        let (all, errors) = of_arm.fold((0, 0), |(all, errors), t| {
            (
                all + 1,
                errors + u64::from(t.verdict.outcome == crate::score::Outcome::Error),
            )
        });
        format!("{arm}: {all} trials, {errors} errors")
    };
    let mut reasons = Vec::new();
    for backend in backends {
        for other in others {
            let compared = ab
                .iter()
                .any(|c| c.backend == backend && &c.arm_b == other && c.tasks > 0);
            if !compared {
                reasons.push(format!(
                    "backend {backend}: no task was scored under both {first} and {other} ({}; {})",
                    count(backend, first),
                    count(backend, other)
                ));
            }
        }
    }
    reasons
}

/// A lint finding on a toolset the run used, with that toolset's name.
pub struct ToolsetFinding {
    pub toolset: String,
    pub finding: Finding,
}

/// Analyses a run's `trials`: `named_arms` and `named_exposures` are the arms and exposure
/// strategies in the order its manifest names them, `findings` the lint findings on the toolsets
/// (and variants) it used, `adjustment` how its comparisons' p-values are adjusted together,
/// `bystanders` the bystander servers each suite showed (by suite name).
pub fn analyse(
    trials: &[StoredTrial],
    named_arms: Vec<String>,
    named_exposures: Vec<String>,
    findings: &[ToolsetFinding],
    adjustment: Adjustment,
    bystanders: &[(String, Vec<crate::record::BystanderRecord>)],
) -> Result<RunAnalysis, String> {
    let frame = trials::frame(trials).map_err(|e| format!("trials as a table: {e}"))?;
    let arms = named_then_seen(
        named_arms,
        trials.iter().filter_map(|r| r.variant.as_deref()),
    );
    let exposures = named_then_seen(
        named_exposures,
        trials.iter().filter_map(|r| r.exposure.as_deref()),
    );
    let failed = |what: &str, e: polars::error::PolarsError| format!("{what}: {e}");
    let ab = if arms.len() >= 2 {
        ab_comparisons(&frame, "variant", &arms, adjustment)
            .map_err(|e| failed("A/B comparison", e))?
    } else {
        Vec::new()
    };
    let cannot_say = without_pairs(trials, &arms, &ab);
    let pulls = if arms.len() >= 2 {
        pull_tables(trials, &arms)
    } else {
        Vec::new()
    };
    let exposure_ab = if exposures.len() >= 2 {
        ab_comparisons(&frame, "exposure", &exposures, adjustment)
            .map_err(|e| failed("exposure comparison", e))?
    } else {
        Vec::new()
    };
    let split_rows: Vec<SplitRow> = trials.iter().filter_map(SplitRow::of).collect();
    let exposure_splits = exposure_splits(&split_rows);
    let count_vs_tokens = count_vs_tokens(trials);
    let sizes = size_curves(&frame).map_err(|e| failed("size sweep", e))?;
    let positions = position_curves(&frame).map_err(|e| failed("gold positions", e))?;
    let confusions = confusions(&frame).map_err(|e| failed("confusion", e))?;
    let lint_links = lint_links(findings, &confusions);
    let (per_tool, failing_requests) = per_tool(trials);
    Ok(RunAnalysis {
        frame,
        arms,
        ab,
        cannot_say,
        pulls,
        exposures,
        exposure_ab,
        exposure_splits,
        count_vs_tokens,
        sizes,
        positions,
        confusions,
        lint_links,
        per_tool,
        failing_requests,
        bystander_takes: bystander_takes(trials, bystanders),
    })
}

/// The values (arms, strategies) as the run's manifest lists them (A first), then any others the
/// trials carry, in name order.
fn named_then_seen<'a>(named: Vec<String>, carried: impl Iterator<Item = &'a str>) -> Vec<String> {
    let seen: BTreeSet<&str> = carried.collect();
    let mut values: Vec<String> = named
        .into_iter()
        .filter(|a| seen.contains(a.as_str()))
        .collect();
    for value in seen {
        if !values.iter().any(|a| a == value) {
            values.push(value.to_string());
        }
    }
    values
}

/// For each confused pair, the lint findings on either tool: the descriptions to fix first.
fn lint_links(
    findings: &[ToolsetFinding],
    confusions: &[ConfusionMatrix],
) -> BTreeMap<(String, String), Vec<String>> {
    let mut links = BTreeMap::new();
    if confusions.is_empty() {
        return links;
    }
    // Only findings about what a model picks by — the description, the name, a look-alike
    // neighbour — bear on confusion; parameter findings bear on arguments.
    const SELECTION_RULES: [&str; 6] = [
        "empty-description",
        "short-description",
        "name-not-verb-first",
        "name-too-long",
        "nested-name",
        "similar-descriptions",
    ];
    let findings: Vec<(&str, &Finding)> = findings
        .iter()
        .filter(|f| SELECTION_RULES.contains(&f.finding.rule))
        .map(|f| (f.toolset.as_str(), &f.finding))
        .collect();
    for matrix in confusions {
        for (a, b, _, _) in matrix.confused_pairs.iter().take(CONFUSED_PAIRS_SHOWN) {
            let mut texts: Vec<String> = findings
                .iter()
                .filter(|(_, f)| {
                    f.tool.as_deref() == Some(a.as_str())
                        || f.tool.as_deref() == Some(b.as_str())
                        || (f.message.contains(a.as_str()) && f.message.contains(b.as_str()))
                })
                .map(|(toolset, f)| format!("{toolset}: {} — {}", f.rule, f.message))
                .collect();
            texts.sort();
            texts.dedup();
            if !texts.is_empty() {
                links.insert((a.clone(), b.clone()), texts);
            }
        }
    }
    links
}
