//! Rebuilding a run folder's outputs from its records: `trials.jsonl` read once into stored
//! trials, `manifest.json` once, the lint findings on the toolsets the run used (the files the
//! manifest recorded, each found where the run was started and taken only if its SHA-256 is still
//! the recorded one, so a folder reports the same wherever it is rebuilt), the summary cells and the
//! analysis computed once, then every exporter's file written whole. `mcpick report` and the end of
//! a run both call this, so they produce the same outputs.

use super::experiment_markdown;
use super::exporters::{RunReport, all_exporters};
use super::summary::summary_table;
use crate::analysis::summary::summary_cells;
use crate::analysis::{ToolsetFinding, analyse};
use crate::document::markdown::markdown_table;
use crate::lint::lint;
use crate::load::Workspace;
use crate::record::{Manifest, SET_ASIDE_FILE, StoredTrial, read_run, write_whole};
use crate::settings::Adjustment;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A rebuilt report: the text the terminal shows, and why its A/B test cannot say anything for
/// some backend (empty when it can, or when the run has no A/B test).
pub struct Rebuilt {
    pub text: String,
    pub cannot_say: Vec<String>,
    /// The A/B verdict as rows that pass or fail, with its movers (`None` without two arms), for
    /// `ab --junit` and `ab --format markdown`.
    pub ab_verdict: Option<super::ComparisonVerdict>,
}

/// `rebuild_run`, for callers that want only the text.
pub fn rebuild(folder: &Path) -> std::io::Result<String> {
    rebuild_run(folder).map(|rebuilt| rebuilt.text)
}

/// Rebuilds `trials.csv`, `trials.parquet`, `report.html`, `summary.md` and `summary.json` from the
/// folder's records, and returns the summary as the terminal shows it (the table, its notes and the
/// experiment sections) with what its A/B test cannot say. A line of `trials.jsonl` that is not one
/// of the plan's trials (a crash can cut the last one short) is named and left out of every count,
/// never fatal; a manifest that does not hold together is (`record::read_run`).
pub fn rebuild_run(folder: &Path) -> std::io::Result<Rebuilt> {
    let records = read_run(folder).map_err(std::io::Error::other)?;
    let planned = records.planned();
    let (stored, manifest) = (records.stored, records.manifest);
    let (findings, unlinted) = match &manifest {
        Some((manifest, _)) => toolset_findings(manifest, folder, &stored.trials),
        None => (Vec::new(), Vec::new()),
    };
    let analysis = analyse(
        &stored.trials,
        manifest
            .as_ref()
            .map_or(Vec::new(), |(m, _)| m.named_arms()),
        manifest
            .as_ref()
            .map_or(Vec::new(), |(m, _)| m.named_exposures()),
        &findings,
        manifest
            .as_ref()
            .map_or(Adjustment::Holm, |(m, _)| m.options.adjust),
        &manifest.as_ref().map_or(Vec::new(), |(m, _)| {
            m.suites
                .iter()
                .map(|s| (s.suite.clone(), s.bystanders.clone()))
                .collect()
        }),
    );
    let (summary, summary_json) = summary_table(&summary_cells(&stored.trials));
    let mut text = markdown_table(&summary);
    text.push_str(&trial_count(
        stored.trials.len(),
        planned,
        stored.set_aside.len(),
        stored.earlier_set_aside,
    ));
    for line in stored.set_aside.iter().take(10) {
        text.push_str(&format!("- {} (not counted)\n", line.describe()));
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
    for file in &unlinted {
        text.push_str(&format!(
            "\nlint findings on {file} are left out of the report.\n"
        ));
    }
    if let Some((manifest, _)) = &manifest {
        text.push_str(&draft_notes(manifest));
    }
    let client = manifest
        .as_ref()
        .and_then(|(m, _)| m.client.as_ref())
        .map(|profile| super::client::client_part(profile, &stored.trials));
    if let Some((_, client_text)) = &client {
        text.push_str(client_text);
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
        planned,
        set_aside: stored
            .set_aside
            .iter()
            .map(|line| line.describe())
            .collect(),
        earlier_set_aside: stored.earlier_set_aside,
        manifest_text: manifest.as_ref().map_or("", |(_, text)| text),
        summary,
        summary_json,
        summary_text: text,
        analysis,
        client: client.map(|(value, _)| value),
    };
    for exporter in all_exporters() {
        if let Some(bytes) = exporter.export(&report)? {
            write_whole(folder, exporter.file_name(), &bytes)?;
        }
    }
    let cannot_say = report
        .analysis
        .as_ref()
        .map_or(Vec::new(), |a| a.cannot_say.clone());
    let ab_verdict = report
        .analysis
        .as_ref()
        .ok()
        .filter(|a| a.arms.len() >= 2)
        .map(|a| super::ab_verdict(&a.ab, &a.cannot_say, report.trials));
    Ok(Rebuilt {
        text: report.summary_text,
        cannot_say,
        ab_verdict,
    })
}

/// The line that says how many trials the summary counts, of how many planned, and how many lines
/// were left out.
fn trial_count(
    trials: usize,
    planned: Option<usize>,
    set_aside: usize,
    earlier_set_aside: usize,
) -> String {
    let mut text = match planned {
        Some(planned) => format!("\n{trials} of {planned} planned trials"),
        None => format!("\n{trials} trials (no manifest says how many were planned)"),
    };
    if let Some(missing) = planned.map(|p| p.saturating_sub(trials)).filter(|m| *m > 0) {
        text.push_str(&format!(
            "; {missing} not run yet (`mcpick run --resume` runs them)"
        ));
    }
    if set_aside > 0 {
        text.push_str(&format!(
            "; {set_aside} line(s) of trials.jsonl are not this plan's trials and are not counted (moved to {SET_ASIDE_FILE} on --resume)"
        ));
    }
    if earlier_set_aside > 0 {
        text.push_str(&format!(
            "; {earlier_set_aside} line(s) set aside earlier are in {SET_ASIDE_FILE}"
        ));
    }
    text.push_str(".\n");
    text
}

/// What a reader must know of drafted suites: tasks no person has accepted, and a backend whose
/// model drafted the tasks it is judged on (it grades its own homework).
fn draft_notes(manifest: &Manifest) -> String {
    let mut notes = String::new();
    for suite in &manifest.suites {
        // A suite run under several arms is listed once per arm; its note is said once.
        let mut say = |note: String| {
            if !notes.contains(&note) {
                notes.push_str(&note);
            }
        };
        if suite.unreviewed > 0 {
            say(format!(
                "\nsuite {}: {} of its {} tasks are unreviewed drafts (review = draft or doubtful); `mcpick review` walks them.\n",
                suite.suite, suite.unreviewed, suite.tasks
            ));
        }
        let Some(drafted_by) = &suite.drafted_by else {
            continue;
        };
        for lane in &manifest.backends {
            let local_sha = lane
                .local
                .as_ref()
                .and_then(|l| l["model_sha256"].as_str())
                .map(|sha| format!("sha256:{sha}"));
            if local_sha.as_deref() == Some(drafted_by.model.as_str())
                || lane.id == drafted_by.model
            {
                say(format!(
                    "\nbackend {} is the model that drafted suite {} ({}): it grades its own homework.\n",
                    lane.id, suite.suite, drafted_by.drafter
                ));
            }
        }
    }
    notes
}

/// The lint findings on every toolset and variant the trials name, from the files the manifest
/// recorded; with the files that could not be taken, and why.
fn toolset_findings(
    manifest: &Manifest,
    folder: &Path,
    trials: &[StoredTrial],
) -> (Vec<ToolsetFinding>, Vec<String>) {
    let mut found = Vec::new();
    let mut unlinted = Vec::new();
    for (recorded, sha256) in &manifest.files {
        match recorded_file(Path::new(recorded), sha256, folder) {
            Ok(path) => found.push(path),
            Err(why) => unlinted.push(format!("{recorded} ({why})")),
        }
    }
    let workspace = Workspace::load(&found);
    let names: BTreeSet<&str> = trials
        .iter()
        .flat_map(|r| [Some(r.toolset.as_str()), r.variant.as_deref()])
        .flatten()
        .collect();
    let findings = names
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
        .collect();
    (findings, unlinted)
}

/// A file the manifest recorded, as it was: its path as recorded (relative to where the run was
/// started: the working directory, or a folder above the run folder) holding the recorded SHA-256.
fn recorded_file(recorded: &Path, sha256: &str, folder: &Path) -> Result<PathBuf, &'static str> {
    let mut candidates = vec![recorded.to_path_buf()];
    if recorded.is_relative()
        && let Ok(folder) = folder.canonicalize()
    {
        candidates.extend(folder.ancestors().map(|above| above.join(recorded)));
    }
    let mut changed = false;
    for candidate in candidates.iter().filter(|c| c.is_file()) {
        if crate::hashing::file_sha256(candidate).is_ok_and(|sha| sha == sha256) {
            return Ok(candidate.clone());
        }
        changed = true;
    }
    Err(if changed {
        "it changed since the run"
    } else {
        "not found beside the run"
    })
}
