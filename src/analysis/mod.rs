//! Analysis of a finished (or partial) run, from its `trials.jsonl` alone: the trials become a polars
//! DataFrame (`trials`, also written as `trials.parquet`), the experiment tables are polars queries
//! (`experiments`), and the statistics behind every verdict are pure functions (`statistics`).
//! Rendering belongs to `report`; this module reads the run folder and writes only the Parquet file.

pub mod experiments;
pub mod statistics;
pub mod trials;

use crate::lint::lint;
use crate::load::Workspace;
use experiments::{
    AbComparison, ConfusionMatrix, PositionCurve, SizeCurve, ab_comparisons, confusions,
    position_curves, size_curves,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
pub use trials::TrialRow;

/// Confused pairs reported per backend, and linked to lint findings.
pub const CONFUSED_PAIRS_SHOWN: usize = 5;

/// Everything analysis found in one run.
pub struct RunAnalysis {
    pub rows: Vec<TrialRow>,
    /// The arms in the order the run named them (empty without variants).
    pub arms: Vec<String>,
    pub ab: Vec<AbComparison>,
    pub sizes: Vec<SizeCurve>,
    pub positions: Vec<PositionCurve>,
    pub confusions: Vec<ConfusionMatrix>,
    /// Lint findings about either tool of a confused pair, keyed by the pair.
    pub lint_links: BTreeMap<(String, String), Vec<String>>,
}

/// Analyses `rows` of the run in `folder` and writes `trials.parquet` there.
pub fn analyse(folder: &Path, rows: Vec<TrialRow>) -> Result<RunAnalysis, String> {
    let mut frame = trials::frame(&rows).map_err(|e| format!("trials as a table: {e}"))?;
    let parquet = folder.join("trials.parquet");
    trials::write_parquet(&mut frame, &parquet)
        .map_err(|e| format!("cannot write {}: {e}", parquet.display()))?;
    let arms = arms_of(folder, &rows);
    let failed = |what: &str, e: polars::error::PolarsError| format!("{what}: {e}");
    let ab = if arms.len() >= 2 {
        ab_comparisons(&frame, &arms).map_err(|e| failed("A/B comparison", e))?
    } else {
        Vec::new()
    };
    let sizes = size_curves(&frame).map_err(|e| failed("size sweep", e))?;
    let positions = position_curves(&frame).map_err(|e| failed("gold positions", e))?;
    let confusions = confusions(&frame).map_err(|e| failed("confusion", e))?;
    let lint_links = lint_links(&rows, &confusions);
    Ok(RunAnalysis {
        rows,
        arms,
        ab,
        sizes,
        positions,
        confusions,
        lint_links,
    })
}

/// The arms as the run's manifest lists them (A first); without a manifest, in name order.
fn arms_of(folder: &Path, rows: &[TrialRow]) -> Vec<String> {
    let seen: BTreeSet<&str> = rows.iter().filter_map(|r| r.variant.as_deref()).collect();
    let named: Vec<String> = std::fs::read_to_string(folder.join("manifest.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|m| serde_json::from_value(m["options"]["variants"].clone()).ok())
        .unwrap_or_default();
    let mut arms: Vec<String> = named
        .into_iter()
        .filter(|a| seen.contains(a.as_str()))
        .collect();
    for arm in seen {
        if !arms.iter().any(|a| a == arm) {
            arms.push(arm.to_string());
        }
    }
    arms
}

/// For each confused pair, the lint findings on either tool in the toolsets (and variants) the run
/// used, read from `toolsets/` when it is there: the descriptions to fix first.
fn lint_links(
    rows: &[TrialRow],
    confusions: &[ConfusionMatrix],
) -> BTreeMap<(String, String), Vec<String>> {
    let mut links = BTreeMap::new();
    let toolsets_dir = Path::new("toolsets");
    if !toolsets_dir.is_dir() || confusions.is_empty() {
        return links;
    }
    let workspace = Workspace::load(&[toolsets_dir.to_path_buf()]);
    let names: BTreeSet<&str> = rows
        .iter()
        .flat_map(|r| [Some(r.toolset.as_str()), r.variant.as_deref()])
        .flatten()
        .collect();
    let findings: Vec<_> = names
        .iter()
        .filter_map(|name| {
            workspace
                .toolset(name)
                .or_else(|| workspace.variant(name).map(|v| &v.toolset))
        })
        .flat_map(|toolset| {
            lint(toolset)
                .into_iter()
                .map(move |f| (toolset.name.clone(), f))
        })
        .collect();
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
    let findings: Vec<_> = findings
        .into_iter()
        .filter(|(_, f)| SELECTION_RULES.contains(&f.rule))
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
