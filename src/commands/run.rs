//! `mcpick run`: every task of the chosen suites against every backend, each trial on a fresh MCP
//! session of its suite's toolset; the run folder is written as trials finish, then the summary.

use super::Outcome;
use crate::backend::AnyBackend;
use crate::cli::RunOptions;
use crate::load::Workspace;
use crate::mcp::{McpServer, ServedTools, ServerConfig};
use crate::runner::{RunFolder, TrialLine, rebuild, run_trial};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

pub fn run_run(options: RunOptions, out: &mut dyn Write) -> std::io::Result<Outcome> {
    let started = Instant::now();
    let mut backends = Vec::new();
    for spec in &options.backends {
        match AnyBackend::parse(spec) {
            Ok(backend) => backends.push(backend),
            Err(e) => {
                writeln!(out, "mcpick run: {e}")?;
                return Ok(Outcome::InvalidInput);
            }
        }
    }
    let mut paths = vec![PathBuf::from("toolsets")];
    paths.extend(if options.paths.is_empty() {
        vec![PathBuf::from("tasks")]
    } else {
        options.paths.clone()
    });
    let workspace = Workspace::load(&paths);
    if workspace.has_errors() {
        for d in workspace
            .files
            .iter()
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.is_error())
        {
            writeln!(out, "{d}")?;
        }
        writeln!(
            out,
            "mcpick run: fix the files above first (`mcpick validate` checks them)"
        )?;
        return Ok(Outcome::InvalidInput);
    }
    let mut suites: Vec<_> = workspace.suites.iter().collect();
    suites.sort_by(|a, b| a.name.cmp(&b.name));
    let trials: usize = suites.iter().map(|s| s.tasks.len()).sum::<usize>() * backends.len();
    let plan = format!(
        "{:?}|{:?}|{}",
        options.backends,
        suites.iter().map(|s| &s.name).collect::<Vec<_>>(),
        options.max_turns
    );
    let folder_path = options.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "reports/{}-{:08x}",
            utc_stamp(SystemTime::now()),
            fnv1a(&plan) as u32
        ))
    });
    let mut folder = RunFolder::create(&folder_path)?;
    folder.write(
        "manifest.json",
        &serde_json::to_string_pretty(&serde_json::json!({
            "mcpick_version": env!("CARGO_PKG_VERSION"),
            "command": std::env::args().collect::<Vec<_>>(),
            "backends": options.backends,
            "suites": suites.iter().map(|s| serde_json::json!({"suite": s.name, "toolset": s.toolset, "tasks": s.tasks.len(), "file": s.source})).collect::<Vec<_>>(),
            "max_turns": options.max_turns,
            "trials": trials,
        }))
        .unwrap_or_default(),
    )?;
    writeln!(
        out,
        "running {trials} trials ({} suites × {} backends) into {}",
        suites.len(),
        backends.len(),
        folder_path.display()
    )?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    for suite in &suites {
        let Some(toolset) = workspace.toolset(&suite.toolset) else {
            continue;
        };
        let served = match ServedTools::new(toolset.tools.clone()) {
            Ok(served) => served,
            Err(e) => {
                writeln!(out, "{}: cannot serve: {e}", toolset.source.display())?;
                return Ok(Outcome::InvalidInput);
            }
        };
        let server = McpServer::new(ServerConfig::default(), served);
        for backend in &backends {
            let id = backend.id();
            for task in &suite.tasks {
                let outcome = runtime.block_on(run_trial(
                    &server,
                    backend,
                    task,
                    options.max_turns,
                    fnv1a(&task.id),
                ));
                folder.append(&TrialLine {
                    suite: &suite.name,
                    toolset: &suite.toolset,
                    task: &task.id,
                    backend: &id,
                    lang: &task.lang,
                    tags: &task.tags,
                    verdict: &outcome.verdict,
                    calls: &outcome.record.calls,
                    shown_tools: outcome.record.shown_tools.len(),
                    turns: outcome.turns,
                    latency_ms: outcome.latency_ms,
                    input_tokens: outcome.input_tokens,
                    output_tokens: outcome.output_tokens,
                    backend_error: outcome.record.backend_error.as_deref(),
                    transcript: &outcome.transcript,
                })?;
            }
        }
    }
    // The summary comes from trials.jsonl alone, exactly as `mcpick report` rebuilds it.
    drop(folder);
    let markdown = rebuild(&folder_path)?;
    writeln!(out, "\n{markdown}")?;
    writeln!(
        out,
        "{trials} trials in {:.1} s; results in {}",
        started.elapsed().as_secs_f64(),
        folder_path.display()
    )?;
    Ok(Outcome::Success)
}

/// A stable 64-bit hash (FNV-1a) for seeds and folder names.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `YYYYMMDDTHHMMSSZ` in UTC.
fn utc_stamp(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = ((seconds / 86_400) as i64, seconds % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// `mcpick report RUN_DIR`: rebuild every output of a run from its `trials.jsonl`.
pub fn run_report(folder: &std::path::Path, out: &mut dyn Write) -> std::io::Result<Outcome> {
    match rebuild(folder) {
        Ok(markdown) => {
            writeln!(out, "{markdown}")?;
            writeln!(
                out,
                "rebuilt summary.json, summary.md and trials.csv in {}",
                folder.display()
            )?;
            Ok(Outcome::Success)
        }
        Err(e) => {
            writeln!(
                out,
                "mcpick report: cannot read {}: {e}",
                folder.join("trials.jsonl").display()
            )?;
            Ok(Outcome::InvalidInput)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn utc_stamps_are_calendar_dates() {
        assert_eq!(utc_stamp(UNIX_EPOCH), "19700101T000000Z");
        assert_eq!(
            utc_stamp(UNIX_EPOCH + Duration::from_secs(1_796_065_200)),
            "20261130T190000Z"
        );
        assert_eq!(
            utc_stamp(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "20000229T000000Z"
        );
    }
}
