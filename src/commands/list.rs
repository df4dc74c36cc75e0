//! `mcpick list`: the toolsets, variants and suites found, with their sizes and files.

use super::ExitStatus;
use crate::load::Workspace;
use crate::model::Toolset;
use std::io::Write;
use std::path::PathBuf;

pub fn run_list(paths: &[PathBuf], out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let workspace = Workspace::load(paths);
    write_toolsets(out, "toolsets:", &workspace.toolsets)?;
    if !workspace.bystanders.is_empty() {
        let heading = "bystander servers (used by `sweep --bystanders`):";
        write_toolsets(out, heading, &workspace.bystanders)?;
    }
    writeln!(out, "variants:")?;
    for v in &workspace.variants {
        writeln!(
            out,
            "  {:<20} of {:<14} {}",
            v.name,
            v.base,
            v.source.display()
        )?;
    }
    writeln!(out, "suites:")?;
    for s in &workspace.suites {
        writeln!(
            out,
            "  {:<20} {:>4} tasks   on {:<14} {}",
            s.name,
            s.tasks.len(),
            s.toolset,
            s.source.display()
        )?;
    }
    let failed: Vec<_> = workspace.files.iter().filter(|f| f.errors() > 0).collect();
    if !failed.is_empty() {
        writeln!(
            out,
            "not loaded ({} files with errors; run `mcpick validate` for details):",
            failed.len()
        )?;
        for f in failed {
            writeln!(out, "  {}", f.path.display())?;
        }
        return Ok(ExitStatus::InvalidInput);
    }
    Ok(ExitStatus::Success)
}

/// A heading and a line per toolset: name, tool count, file.
fn write_toolsets(out: &mut dyn Write, heading: &str, toolsets: &[Toolset]) -> std::io::Result<()> {
    writeln!(out, "{heading}")?;
    for t in toolsets {
        writeln!(
            out,
            "  {:<20} {:>4} tools   {}",
            t.name,
            t.tools.len(),
            t.source.display()
        )?;
    }
    Ok(())
}
