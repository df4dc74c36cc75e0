//! `mcpick import`: snapshot a live MCP server's `tools/list` (over stdio or Streamable HTTP) into a
//! JSON toolset (`import::live_server`), write it, and check it the way `validate` does.

use super::ExitStatus;
use crate::cli::{EraChoice, ImportOptions};
use crate::import::live_server::{ServerSource, snapshot_server, toolset_document};
use crate::load::Workspace;
use crate::mcp::client::Negotiation;
use std::io::Write;

/// The MCP revision `--era` asks a live server to be spoken to in (`import`, `draft`).
pub(super) fn negotiation(era: EraChoice) -> Negotiation {
    match era {
        EraChoice::Auto => Negotiation::Auto,
        EraChoice::Stateless => Negotiation::Stateless,
        EraChoice::Sessions => Negotiation::Sessions,
    }
}

pub fn run_import(options: ImportOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let source = match (&options.stdio, &options.url) {
        (Some(command), None) => ServerSource::Stdio(command.clone()),
        (None, Some(url)) => ServerSource::Url(url.clone()),
        _ => {
            writeln!(
                out,
                "mcpick import: give exactly one of --stdio \"CMD ARGS\" or --url URL"
            )?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let negotiation = negotiation(options.era);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let snapshot = match runtime.block_on(snapshot_server(&source, negotiation)) {
        Ok(snapshot) => snapshot,
        Err(message) => {
            writeln!(out, "mcpick import: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let name = options.name.clone().unwrap_or_else(|| {
        options
            .output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "imported".into())
    });
    let (server_name, protocol_version, tools) = (
        snapshot.server_name.clone(),
        snapshot.protocol_version.clone(),
        snapshot.tools.len(),
    );
    let server_stderr = snapshot.stderr.clone();
    let (document, notes) = toolset_document(snapshot, &name, &source);
    if let Some(parent) = options
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(
        &options.output,
        serde_json::to_string_pretty(&document).unwrap_or_default() + "\n",
    )?;
    writeln!(
        out,
        "wrote {tools} tools from {server_name} (MCP {protocol_version}) to {}",
        options.output.display()
    )?;
    for note in notes {
        writeln!(out, "  note: {note}")?;
    }
    // What the server said on standard error is its own: kept in the import log, not shown as ours.
    if !server_stderr.is_empty() {
        let log = options.output.with_extension("import.log");
        std::fs::write(&log, &server_stderr)?;
        writeln!(
            out,
            "  the server's standard error ({} lines) is in {}",
            server_stderr.lines().count(),
            log.display()
        )?;
    }
    // What was written must load: check it the way `validate` does.
    let workspace = Workspace::load(std::slice::from_ref(&options.output));
    for d in workspace.files.iter().flat_map(|f| &f.diagnostics) {
        writeln!(out, "{d}")?;
    }
    Ok(if workspace.has_errors() {
        ExitStatus::InvalidInput
    } else {
        ExitStatus::Success
    })
}
