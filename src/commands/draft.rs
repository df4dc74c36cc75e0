//! `mcpick draft`: the toolset named (a file, a name in `toolsets/`, or a live server's tools,
//! saved into the output folder by `import::live_server`, as `import` saves them), the drafter's
//! settings and the agreement run's (`RunSettings::default()`, with the shared model flags)
//! resolved, the draft made (`crate::draft`), and what it wrote said.

use super::ExitStatus;
use super::resolve::{
    backend_options, negotiation, one_live_server, reply_timeout, required_out, writer_timeout,
};
use crate::cli::DraftOptions;
use crate::draft::{AskCounts, DraftSettings, draft};
use crate::import::live_server::{file_name_for, save_server_tools};
use crate::load::{ToolsetTarget, Workspace};
use crate::settings::RunSettings;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run_draft(options: DraftOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let folder = match required_out(&options.out) {
        Ok(folder) => folder,
        Err(message) => {
            writeln!(out, "mcpick draft: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // Before anything is written: a folder draft did not write is never written into (a live
    // server's snapshot would land in it too), and the work folder marks the folder as draft's.
    if let Err(message) = crate::draft::folder::check_folder(&folder) {
        writeln!(out, "mcpick draft: {message}")?;
        return Ok(ExitStatus::InvalidInput);
    }
    std::fs::create_dir_all(folder.join(crate::draft::folder::WORK_FOLDER))?;
    let (toolset, toolset_file) = match resolve_toolset(&options, &folder, &runtime, out)? {
        Ok(found) => found,
        Err(message) => {
            writeln!(out, "mcpick draft: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let mut backend = backend_options(&options.model, &options.hosted);
    // A hosted drafter writes several requests with their calls in one reply.
    backend.max_tokens = backend.max_tokens.or(Some(4096));
    let agreement = RunSettings {
        backend: backend_options(&options.model, &options.hosted),
        timeout: reply_timeout(&options.hosted),
        // The agreement run resumes through its own folder; a drafted request asked again after a
        // new draft is a new question, not one to answer from the cache.
        no_cache: true,
        ..RunSettings::default()
    };
    let settings = DraftSettings {
        toolset,
        toolset_file,
        drafter: options.drafter.clone(),
        backend,
        counts: AskCounts {
            per_tool: options.per_tool as usize,
            pairs: options.pairs,
            no_call: options.no_call as usize,
        },
        seed: u64::from(options.seed.seed.unwrap_or(0)),
        out: folder.clone(),
        timeout: writer_timeout(&options.hosted),
        agreement,
        progress: !options.progress.no_progress,
    };
    let result = runtime.block_on(draft(&settings, &mut |line| {
        eprintln!("mcpick draft: {line}")
    }));
    runtime.shutdown_background();
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(message) => {
            writeln!(out, "mcpick draft: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let dropped: Vec<String> = outcome
        .dropped
        .iter()
        .map(|(reason, n)| format!("{n} {reason}"))
        .collect();
    writeln!(
        out,
        "drafted {} requests in {:.0} s: kept {} ({} doubtful), dropped {}{}",
        outcome.written,
        outcome.seconds,
        outcome.kept,
        outcome.doubtful,
        outcome.written - outcome.kept,
        if dropped.is_empty() {
            String::new()
        } else {
            format!(" ({})", dropped.join(", "))
        }
    )?;
    if outcome.failed_asks > 0 {
        writeln!(
            out,
            "{} asks brought no usable reply (DRAFT.md says why)",
            outcome.failed_asks
        )?;
    }
    if outcome.resumed > 0 {
        writeln!(
            out,
            "{} asks were answered by the interrupted draft before",
            outcome.resumed
        )?;
    }
    let dir = folder.display();
    writeln!(
        out,
        "wrote {dir}/suite.toml, {dir}/tasks.jsonl and {dir}/DRAFT.md; review with: mcpick review {dir}"
    )?;
    Ok(ExitStatus::Success)
}

/// The toolset to draft for and the file the suite will name; a live server's tools are saved to
/// `DIR/NAME.json` first. The outer error is I/O; the inner one, bad input.
fn resolve_toolset(
    options: &DraftOptions,
    folder: &Path,
    runtime: &tokio::runtime::Runtime,
    out: &mut dyn Write,
) -> std::io::Result<Result<(crate::model::Toolset, PathBuf), String>> {
    if let Some(toolset) = &options.toolset {
        let target = ToolsetTarget {
            toolset: toolset.clone(),
            variant: None,
        };
        return Ok(match target.load() {
            Ok(toolset) => {
                let file = toolset.source.clone();
                Ok((toolset, file))
            }
            Err(errors) => Err(errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")),
        });
    }
    let server = match one_live_server(&options.server) {
        Ok(server) => server,
        Err(message) => return Ok(Err(message)),
    };
    let place = |server: &str| {
        let name = file_name_for(server);
        (folder.join(format!("{name}.json")), name)
    };
    let saved = match runtime.block_on(save_server_tools(
        &server,
        negotiation(options.server.era),
        std::time::Duration::from_secs_f64(options.server.server_timeout),
        &place,
    ))? {
        Ok(saved) => saved,
        Err(message) => return Ok(Err(format!("the server: {message}"))),
    };
    writeln!(
        out,
        "saved the tools of {} to {}",
        saved.server_name,
        saved.file.display()
    )?;
    for note in &saved.notes {
        writeln!(out, "  note: {note}")?;
    }
    let workspace = Workspace::load(std::slice::from_ref(&saved.file));
    let errors: Vec<String> = workspace
        .error_diagnostics()
        .map(ToString::to_string)
        .collect();
    Ok(match workspace.toolsets.first() {
        Some(toolset) if errors.is_empty() => Ok((toolset.clone(), saved.file)),
        _ => Err(format!(
            "the server's tools do not load as a toolset:\n{}",
            errors.join("\n")
        )),
    })
}
