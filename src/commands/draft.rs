//! `mcpick draft`: the toolset named (a file, a name in `toolsets/`, or a live server's tools,
//! snapshotted into the output folder as `import` would), the drafter's settings and the agreement
//! run's (`run`'s defaults) resolved, the draft made (`crate::draft`), and what it wrote said.

use super::ExitStatus;
use super::run::run_settings;
use crate::backend::{BackendOptions, LocalOptions};
use crate::cli::{Cli, Command, DraftOptions};
use crate::draft::{AskCounts, DraftSettings, draft};
use crate::import::live_server::{ServerSource, snapshot_server, toolset_document};
use crate::load::{ToolsetTarget, Workspace};
use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

pub fn run_draft(options: DraftOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // Before anything is written: a folder draft did not write is never written into (a live
    // server's snapshot would land in it too), and the work folder marks the folder as draft's.
    if let Err(message) = crate::draft::folder::check_folder(&options.out) {
        writeln!(out, "mcpick draft: {message}")?;
        return Ok(ExitStatus::InvalidInput);
    }
    std::fs::create_dir_all(options.out.join(crate::draft::folder::WORK_FOLDER))?;
    let (toolset, toolset_file) = match resolve_toolset(&options, &runtime, out)? {
        Ok(found) => found,
        Err(message) => {
            writeln!(out, "mcpick draft: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let backend = BackendOptions {
        base_url: options.base_url.clone(),
        api_key_env: options.api_key_env.clone(),
        // A hosted drafter writes several requests with their calls in one reply.
        max_tokens: Some(options.max_tokens.unwrap_or(4096)),
        local: LocalOptions {
            model: options.model.clone(),
            threads: Some(options.threads.unwrap_or(cores)),
            threads_batch: Some(options.threads.unwrap_or(cores)),
            kv_cache: options.no_kv_cache.then_some(false),
            ..LocalOptions::default()
        },
    };
    // The agreement run takes `run`'s defaults, with the drafter's model settings.
    let Ok(Cli {
        command: Command::Run(run_options),
        ..
    }) = Cli::try_parse_from(["mcpick", "run", "--backend", "bm25"])
    else {
        unreachable!("`mcpick run --backend bm25` parses")
    };
    let mut agreement = run_settings(&run_options);
    agreement.backend.local.model = options.model.clone();
    agreement.backend.local.kv_cache = options.no_kv_cache.then_some(false);
    agreement.backend.base_url = options.base_url.clone();
    agreement.backend.api_key_env = options.api_key_env.clone();
    // The agreement run resumes through its own folder; a drafted request asked again after a new
    // draft is a new question, not one to answer from the cache.
    agreement.no_cache = true;
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
        seed: options.seed,
        out: options.out.clone(),
        timeout: Duration::try_from_secs_f64(options.timeout.max(1.0)).unwrap_or(Duration::MAX),
        agreement,
        progress: !options.no_progress,
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
    let dir = options.out.display();
    writeln!(
        out,
        "wrote {dir}/suite.toml, {dir}/tasks.jsonl and {dir}/DRAFT.md; review with: mcpick review {dir}"
    )?;
    Ok(ExitStatus::Success)
}

/// The toolset to draft for and the file the suite will name; a live server's tools are written
/// to `DIR/NAME.json` first. The outer error is I/O; the inner one, bad input.
fn resolve_toolset(
    options: &DraftOptions,
    runtime: &tokio::runtime::Runtime,
    out: &mut dyn Write,
) -> std::io::Result<Result<(crate::model::Toolset, PathBuf), String>> {
    let source = match (&options.toolset, &options.stdio, &options.url) {
        (Some(toolset), None, None) => {
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
        (None, Some(command), None) => ServerSource::Stdio(command.clone()),
        (None, None, Some(url)) => ServerSource::Url(url.clone()),
        _ => {
            return Ok(Err(
                "give a toolset, --stdio \"CMD ARGS\" or --url URL".into()
            ));
        }
    };
    let negotiation = super::import::negotiation(options.era);
    let snapshot = match runtime.block_on(snapshot_server(&source, negotiation)) {
        Ok(snapshot) => snapshot,
        Err(message) => return Ok(Err(format!("the server: {message}"))),
    };
    let name = sanitised_name(&snapshot.server_name);
    let server = snapshot.server_name.clone();
    let (document, notes) = toolset_document(snapshot, &name, &source);
    let file = options.out.join(format!("{name}.json"));
    crate::file_replace::replace(
        &file,
        (serde_json::to_string_pretty(&document).unwrap_or_default() + "\n").as_bytes(),
    )?;
    writeln!(out, "saved the tools of {server} to {}", file.display())?;
    for note in notes {
        writeln!(out, "  note: {note}")?;
    }
    let workspace = Workspace::load(std::slice::from_ref(&file));
    let errors: Vec<String> = workspace
        .error_diagnostics()
        .map(ToString::to_string)
        .collect();
    Ok(match workspace.toolsets.first() {
        Some(toolset) if errors.is_empty() => Ok((toolset.clone(), file)),
        _ => Err(format!(
            "the server's tools do not load as a toolset:\n{}",
            errors.join("\n")
        )),
    })
}

/// A server's name as a file and toolset name: letters, digits, `-` and `_`.
fn sanitised_name(server: &str) -> String {
    let name: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_string();
    if name.is_empty() {
        "server".into()
    } else {
        name
    }
}
