//! `mcpick merge DIR... -o DIR`: the shards of a split run made into one run folder — the library
//! checks the plans and unions the trials (`record::merge_runs`); this writes the merged
//! `manifest.json` and `trials.jsonl`, rebuilds every output from them, and says what is missing.

use super::ExitStatus;
use crate::record::{RunFolder, merge_runs};
use crate::report::rebuild;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run_merge(
    folders: &[PathBuf],
    output: &Path,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    if folders.iter().any(|f| same_folder(f, output)) {
        writeln!(
            out,
            "mcpick merge: the output {} is one of the folders merged; name a new one",
            output.display()
        )?;
        return Ok(ExitStatus::InvalidInput);
    }
    let merged = match merge_runs(folders) {
        Ok(merged) => merged,
        Err(e) => {
            writeln!(out, "mcpick merge: refused: {e}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    if output.join("trials.jsonl").exists() {
        writeln!(
            out,
            "mcpick merge: {} already holds a run; merge into a new folder",
            output.display()
        )?;
        return Ok(ExitStatus::InvalidInput);
    }
    let mut folder = RunFolder::create(output)?;
    folder.write(
        "manifest.json",
        &serde_json::to_string_pretty(&merged.manifest).unwrap_or_default(),
    )?;
    for trial in &merged.trials {
        folder.append(trial)?;
    }
    drop(folder);
    let markdown = rebuild(output)?;
    writeln!(out, "{markdown}")?;
    writeln!(
        out,
        "merged {} folders: {} of {} planned trials{} into {}",
        folders.len(),
        merged.trials.len(),
        merged.planned,
        if merged.duplicates > 0 {
            format!(
                " ({} found twice with the same result, kept once)",
                merged.duplicates
            )
        } else {
            String::new()
        },
        output.display()
    )?;
    for conflict in &merged.conflicts {
        writeln!(out, "conflict: {conflict}")?;
    }
    for line in merged.set_aside.iter().take(20) {
        writeln!(out, "not merged: {line}")?;
    }
    if merged.set_aside.len() > 20 {
        writeln!(
            out,
            "not merged: {} more line(s)",
            merged.set_aside.len() - 20
        )?;
    }
    for missing in &merged.missing {
        writeln!(out, "missing: {missing}")?;
    }
    if merged.trials.len() < merged.planned {
        writeln!(
            out,
            "finish the merged run with: mcpick run --resume {}",
            output.display()
        )?;
        return Ok(ExitStatus::Incomplete);
    }
    Ok(ExitStatus::Success)
}

fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
