//! Rebuilding a run folder's outputs from its records: `trials.jsonl` read once into stored
//! trials, `manifest.json` once, the lint findings on the toolsets the run used (read from
//! `toolsets/` when the working directory has one), the summary cells and the analysis computed
//! once, then every exporter's file written whole. `mcpick report` and the end of a run both call
//! this, so they produce the same outputs.

use super::experiment_markdown;
use super::exporters::{RunReport, all_exporters};
use super::markdown::markdown_table;
use super::summary::summary_table;
use crate::analysis::summary::summary_cells;
use crate::analysis::{ToolsetFinding, analyse};
use crate::lint::lint;
use crate::load::Workspace;
use crate::record::{Manifest, StoredTrial, read_trials, write_whole};
use std::collections::BTreeSet;
use std::path::Path;

/// Rebuilds `trials.csv`, `trials.parquet`, `report.html`, `summary.md` and `summary.json` from the
/// folder's records, and returns the summary as the terminal shows it (the table, its notes and the
/// experiment sections). A line of `trials.jsonl` that does not read (a crash can cut the last one
/// short) is skipped and counted in the summary, never fatal.
pub fn rebuild(folder: &Path) -> std::io::Result<String> {
    let stored = read_trials(folder)?;
    let manifest = Manifest::read(folder).ok();
    let findings = toolset_findings(&stored.trials);
    let analysis = analyse(
        &stored.trials,
        manifest
            .as_ref()
            .map_or(Vec::new(), |(m, _)| m.named_arms().to_vec()),
        manifest
            .as_ref()
            .map_or(Vec::new(), |(m, _)| m.named_exposures()),
        &findings,
    );
    let (summary, summary_json) = summary_table(&summary_cells(&stored.trials));
    let mut text = markdown_table(&summary);
    if stored.unreadable > 0 {
        text.push_str(&format!(
            "\n{} line(s) of trials.jsonl could not be read and are not counted.\n",
            stored.unreadable
        ));
    }
    let later_turn_fixed: u64 = stored
        .trials
        .iter()
        .map(|t| u64::from(t.verdict.later_turn_fixed))
        .sum();
    if later_turn_fixed > 0 {
        text.push_str(&format!(
            "\n{later_turn_fixed} trial(s) scored by BFCL's rules failed on their first reply but pass with their later turns under mcpick's (`later_turn_fixed` in summary.json, per cell).\n"
        ));
    }
    match &analysis {
        Ok(analysis) => text.push_str(&experiment_markdown(analysis)),
        Err(e) => text.push_str(&format!("\nanalysis failed: {e}\n")),
    }
    let report = RunReport {
        title: format!(
            "mcpick run {}",
            folder
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned())
        ),
        trials: &stored.trials,
        unreadable: stored.unreadable,
        manifest_text: manifest.as_ref().map_or("", |(_, text)| text),
        summary,
        summary_json,
        summary_text: text,
        analysis,
    };
    for exporter in all_exporters() {
        if let Some(bytes) = exporter.export(&report)? {
            write_whole(folder, exporter.file_name(), &bytes)?;
        }
    }
    Ok(report.summary_text)
}

/// The lint findings on every toolset and variant the trials name, as `toolsets/` defines them.
fn toolset_findings(trials: &[StoredTrial]) -> Vec<ToolsetFinding> {
    let toolsets_dir = Path::new("toolsets");
    if !toolsets_dir.is_dir() {
        return Vec::new();
    }
    let workspace = Workspace::load(&[toolsets_dir.to_path_buf()]);
    let names: BTreeSet<&str> = trials
        .iter()
        .flat_map(|r| [Some(r.toolset.as_str()), r.variant.as_deref()])
        .flatten()
        .collect();
    names
        .iter()
        .filter_map(|name| {
            workspace
                .toolset(name)
                .or_else(|| workspace.variant(name).map(|v| &v.toolset))
        })
        .flat_map(|toolset| {
            lint(toolset)
                .into_iter()
                .map(move |finding| ToolsetFinding {
                    toolset: toolset.name.clone(),
                    finding,
                })
        })
        .collect()
}
