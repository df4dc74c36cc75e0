//! `mcpick import`: snapshot a live MCP server's `tools/list` (over stdio or Streamable HTTP) into a
//! JSON toolset (`import::live_server::save_server_tools`), and check it the way `validate` does.

use super::ExitStatus;
use super::resolve::{live_server, negotiation, required_out};
use crate::cli::ImportOptions;
use crate::import::live_server::{ToolsetFormat, save_server_tools};
use crate::load::Workspace;
use std::io::Write;

pub fn run_import(options: ImportOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let Some(source) = live_server(&options.server) else {
        writeln!(
            out,
            "mcpick import: give exactly one of --stdio \"CMD ARGS\" or --url URL"
        )?;
        return Ok(ExitStatus::InvalidInput);
    };
    let output = match required_out(&options.out) {
        Ok(output) => output,
        Err(message) => {
            writeln!(out, "mcpick import: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    if let Err(message) = ToolsetFormat::of(&output) {
        writeln!(out, "mcpick import: {message}")?;
        return Ok(ExitStatus::InvalidInput);
    }
    let name = options.name.name.clone().unwrap_or_else(|| {
        output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "imported".into())
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let saved = runtime.block_on(save_server_tools(
        &source,
        negotiation(options.server.era),
        std::time::Duration::from_secs_f64(options.server.server_timeout),
        &|_| (output.clone(), name.clone()),
    ))?;
    let saved = match saved {
        Ok(saved) => saved,
        Err(message) => {
            writeln!(out, "mcpick import: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    writeln!(
        out,
        "wrote {} tools from {} (MCP {}) to {}",
        saved.tools,
        saved.server_name,
        saved.protocol_version,
        saved.file.display()
    )?;
    for note in &saved.notes {
        writeln!(out, "  note: {note}")?;
    }
    // What the server said on standard error is its own: kept in the import log, not shown as ours.
    if let Some((log, lines)) = &saved.stderr_log {
        writeln!(
            out,
            "  the server's standard error ({lines} lines) is in {}",
            log.display()
        )?;
    }
    // What was written must load: check it the way `validate` does.
    let workspace = Workspace::load(std::slice::from_ref(&saved.file));
    for d in workspace.files.iter().flat_map(|f| &f.diagnostics) {
        writeln!(out, "{d}")?;
    }
    Ok(if workspace.has_errors() {
        ExitStatus::InvalidInput
    } else {
        ExitStatus::Success
    })
}
