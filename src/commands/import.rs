//! `mcpick import`: snapshot a live MCP server's `tools/list` (over stdio or HTTP) into a JSON
//! toolset (`import::live_server::save_server_tools`), and check it the way `validate` does. The
//! server is named by `--stdio`, `--url`, or a client's config file (`--mcp-config FILE[#NAME]`);
//! a config without `#NAME` imports every server it names, one toolset each, and one server that
//! fails is reported without stopping the others.

use super::ExitStatus;
use super::resolve::{live_servers, negotiation};
use crate::cli::ImportOptions;
use crate::import::live_server::{ChosenServer, ToolsetFormat, file_name_for, save_server_tools};
use crate::load::Workspace;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a config's servers go when `-o` names no folder.
const DEFAULT_FOLDER: &str = "toolsets";

pub fn run_import(options: ImportOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let servers = match live_servers(&options.server) {
        Ok(servers) => servers,
        Err(message) => {
            writeln!(out, "mcpick import: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let from_config = options.server.mcp_config.is_some();
    let output = options
        .out
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_FOLDER));
    let names_a_file = ToolsetFormat::of(&output).is_ok();
    // One server goes where -o says (a file, or a folder when it came from a config); several
    // go into the folder -o names, each named after its server.
    if !from_config || (servers.len() == 1 && names_a_file) {
        if let Err(message) = ToolsetFormat::of(&output) {
            writeln!(out, "mcpick import: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    } else if names_a_file {
        writeln!(
            out,
            "mcpick import: -o {} names one file, and {} servers are chosen: give -o a folder, or pick one with FILE#NAME",
            output.display(),
            servers.len()
        )?;
        return Ok(ExitStatus::InvalidInput);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut failed = 0;
    let mut written: Vec<PathBuf> = Vec::new();
    for server in &servers {
        let server = match server {
            Ok(server) => server,
            Err(unread) => {
                // One server's missing variable does not stop the others of the file.
                writeln!(out, "mcpick import ({}): {}", unread.name, unread.message)?;
                failed += 1;
                continue;
            }
        };
        let name = options.name.name.as_deref().filter(|_| servers.len() == 1);
        let (file, name) = destination(server, &output, names_a_file, name, &written);
        let status = import_one(&runtime, &options, server, &file, &name, out)?;
        written.push(file);
        if status != ExitStatus::Success {
            failed += 1;
        }
    }
    if servers.len() > 1 {
        writeln!(
            out,
            "imported {} of {} servers",
            servers.len() - failed,
            servers.len()
        )?;
    }
    Ok(if failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::InvalidInput
    })
}

/// The file and toolset name one server is written to.
fn destination(
    server: &ChosenServer,
    output: &Path,
    names_a_file: bool,
    name: Option<&str>,
    written: &[PathBuf],
) -> (PathBuf, String) {
    if names_a_file {
        let stem = output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "imported".into());
        return (output.to_path_buf(), name.map_or(stem, str::to_string));
    }
    // Two names that make one file name ("my server", "my-server") get a file each.
    let base = file_name_for(server.name.as_deref().unwrap_or("server"));
    let mut stem = base.clone();
    let mut n = 1;
    while written.contains(&output.join(format!("{stem}.json"))) {
        n += 1;
        stem = format!("{base}-{n}");
    }
    (
        output.join(format!("{stem}.json")),
        name.map_or(stem, str::to_string),
    )
}

fn import_one(
    runtime: &tokio::runtime::Runtime,
    options: &ImportOptions,
    server: &ChosenServer,
    file: &Path,
    name: &str,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let label = server
        .name
        .as_deref()
        .map_or_else(String::new, |name| format!(" ({name})"));
    let saved = runtime.block_on(save_server_tools(
        server,
        negotiation(options.server.era),
        std::time::Duration::from_secs_f64(options.server.server_timeout),
        &|_| (file.to_path_buf(), name.to_string()),
    ))?;
    let saved = match saved {
        Ok(saved) => saved,
        Err(message) => {
            writeln!(out, "mcpick import{label}: {message}")?;
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
