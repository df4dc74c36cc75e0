//! `mcpick run`: every task of the chosen suites against every backend, each trial on a fresh MCP
//! session of its suite's toolset; the run folder is written as trials finish, then the summary.
//! `ab --junit FILE` and `ab --format markdown` also give the A/B verdict (`report::ab_verdict`,
//! rebuilt with the summary) as JUnit XML and as a pull-request comment; a run that does not start
//! gives both too, saying why (`commands::run` refuses them for `run` and `sweep`).

use super::ExitStatus;
use super::resolve::run_settings;
use crate::cli::{OutputFormat, RunOptions};
use crate::report::{ComparisonVerdict, VerdictKind, pull_request_comment, rebuild, rebuild_run};
use crate::runner::{FolderRun, RunTarget, ShardRequest, StartError, StartedRun, run};
use std::io::Write;
use std::time::{Instant, SystemTime};

pub fn run_run(options: RunOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let started = Instant::now();
    let started_at = SystemTime::now();
    let markdown = options.format.format == OutputFormat::Markdown;
    let junit = options.junit.junit.clone();
    // The A/B verdict, written to the JUnit file and printed as a comment when asked for; `true`
    // when it took stdout.
    let give_verdict =
        |verdict: &ComparisonVerdict, out: &mut dyn Write| -> std::io::Result<bool> {
            if let Some(path) = &junit {
                verdict.write_junit(path, started_at)?;
            }
            if markdown {
                write!(out, "{}", pull_request_comment(verdict))?;
            }
            Ok(markdown)
        };
    let refused =
        |problems: &[String]| ComparisonVerdict::refused(VerdictKind::Ab, problems.join("; "));
    let target = match &options.resume {
        Some(folder) => {
            if !options.backends.backends.is_empty() || !options.paths.is_empty() {
                writeln!(
                    out,
                    "mcpick run: --resume repeats the recorded plan; drop the suites and --backend arguments"
                )?;
                return Ok(ExitStatus::InvalidInput);
            }
            RunTarget::Resume {
                folder: folder.clone(),
                budget: options.budget.budget,
                kv_cache: options
                    .model
                    .no_kv_cache
                    .then_some(crate::backend::PrefixCacheUse::Off),
            }
        }
        None => RunTarget::New {
            settings: Box::new(run_settings(&options)),
            out: options.out.out.clone(),
        },
    };
    let shards = ShardRequest {
        shard: options.shard,
        shards: options.shards,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // What the run says before its first trial goes to `out` as it starts; an error writing it is
    // kept for after.
    let json = options.format.format == OutputFormat::Json;
    // With --format json or markdown stdout holds the one JSON object or comment and nothing else.
    let quiet = json || markdown;
    let mut said: std::io::Result<()> = Ok(());
    let result = runtime.block_on(run(
        target,
        shards,
        &|name| std::env::var(name).ok(),
        !options.progress.no_progress,
        &mut |run| {
            if said.is_ok() {
                said = if quiet {
                    announce(run, &mut std::io::stderr())
                } else {
                    announce(run, out)
                };
            }
        },
    ));
    // Trials abandoned at Ctrl-C may still hold the runtime; do not wait for them.
    runtime.shutdown_background();
    said?;
    let run = match result {
        Ok(run) => run,
        Err(StartError::Plan(problems)) => {
            if give_verdict(&refused(&problems), out)? {
                return Ok(ExitStatus::InvalidInput);
            }
            if json {
                let refused = serde_json::json!({ "ran": false, "problems": problems });
                writeln!(out, "{refused}")?;
                return Ok(ExitStatus::InvalidInput);
            }
            for problem in &problems {
                writeln!(out, "{problem}")?;
            }
            writeln!(out, "mcpick run: nothing was run")?;
            return Ok(ExitStatus::InvalidInput);
        }
        Err(StartError::Refused(why)) => {
            if give_verdict(&refused(std::slice::from_ref(&why)), out)? {
                return Ok(ExitStatus::InvalidInput);
            }
            if json {
                let refused = serde_json::json!({ "ran": false, "problems": [why] });
                writeln!(out, "{refused}")?;
                return Ok(ExitStatus::InvalidInput);
            }
            writeln!(out, "mcpick run: {why}")?;
            return Ok(ExitStatus::InvalidInput);
        }
        Err(StartError::Io(e)) => return Err(e),
    };
    // The summary comes from trials.jsonl alone, exactly as `mcpick report` rebuilds it.
    let rebuilt = rebuild_run(&run.folder)?;
    let missing = run.pending - run.ran;
    let status = if run.interrupted {
        ExitStatus::Interrupted
    } else if missing > 0 {
        ExitStatus::Incomplete
    } else if !rebuilt.cannot_say.is_empty() {
        // As `compare` does: a comparison with nothing to compare is no evidence, not a pass.
        ExitStatus::InvalidInput
    } else {
        ExitStatus::Success
    };
    if junit.is_some() || markdown {
        let mut verdict = rebuilt.ab_verdict.unwrap_or_else(|| {
            ComparisonVerdict::refused(
                VerdictKind::Ab,
                "no A/B verdict: the run has fewer than two arms, or its analysis failed (the text report says why)".into(),
            )
        });
        if missing > 0 {
            verdict.cannot_compare.push(format!(
                "the run stopped with {missing} of its {} planned trials not run (`mcpick run --resume` finishes it)",
                run.planned
            ));
        }
        if give_verdict(&verdict, out)? {
            return Ok(status);
        }
    }
    if json {
        writeln!(out, "{}", run_json(&run, &rebuilt.cannot_say, missing)?)?;
        return Ok(status);
    }
    writeln!(out, "\n{}", rebuilt.text)?;
    writeln!(
        out,
        "{} trials run in {:.1} s (${:.4}); {} of {} planned trials done; results in {}",
        run.ran,
        started.elapsed().as_secs_f64(),
        run.cost_usd,
        run.planned - missing,
        run.planned,
        run.folder.display()
    )?;
    for (lane, work) in &run.local_work {
        writeln!(
            out,
            "{lane}: {} tokens evaluated, {} restored from the prefix cache, {} generated",
            work.batched, work.restored, work.generated
        )?;
    }
    for (backend, reason) in &run.halted {
        writeln!(out, "backend {backend} was stopped: {reason}")?;
    }
    if run.budget_reached {
        writeln!(
            out,
            "the budget of ${:.2} is spent",
            run.budget.unwrap_or(0.0)
        )?;
    }
    if missing > 0 {
        writeln!(
            out,
            "{missing} trials were not run; finish them with: mcpick run --resume {}",
            run.folder.display()
        )?;
    }
    for reason in &rebuilt.cannot_say {
        writeln!(out, "cannot say: {reason}")?;
    }
    Ok(status)
}

/// `--format json`: how the run ended, and its summary.json as written.
fn run_json(
    run: &FolderRun,
    cannot_say: &[String],
    missing: usize,
) -> std::io::Result<serde_json::Value> {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.folder.join("summary.json"))?)
            .map_err(std::io::Error::other)?;
    Ok(serde_json::json!({
        "ran": true,
        "folder": run.folder,
        "trials_run": run.ran,
        "planned": run.planned,
        "done": run.planned - missing,
        "interrupted": run.interrupted,
        "budget_reached": run.budget_reached,
        "cost_usd": run.cost_usd,
        "halted": run.halted.iter().map(|(backend, reason)| serde_json::json!({"backend": backend, "reason": reason})).collect::<Vec<_>>(),
        "cannot_say": cannot_say,
        "summary": summary,
    }))
}

/// What a started run tells its user before the first trial: the plan's notices and the shard on
/// standard error (beside the progress bar, where they always went), warnings and what will run
/// on `out`.
fn announce(run: &StartedRun, out: &mut dyn Write) -> std::io::Result<()> {
    for notice in &run.plan.notices {
        eprintln!("mcpick run: {notice}");
    }
    if let Some((shard, source)) = &run.shard {
        eprintln!(
            "mcpick run: shard {shard} (from {source}): {} of the plan's {} trials",
            run.owned, run.plan.manifest.trials
        );
    }
    for warning in &run.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    let pending = run.pending.len();
    writeln!(
        out,
        "running {pending} of {} planned trials ({}){} into {}",
        run.owned,
        run.plan.shape(),
        if pending < run.owned {
            format!("; {} already done", run.owned - pending)
        } else {
            String::new()
        },
        run.folder.path.display()
    )?;
    out.flush()
}

/// `mcpick report RUN_DIR`: rebuild every output of a run from its `trials.jsonl`.
pub fn run_report(folder: &std::path::Path, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    match rebuild(folder) {
        Ok(markdown) => {
            writeln!(out, "{markdown}")?;
            writeln!(
                out,
                "rebuilt summary.json, summary.md, trials.csv, trials.parquet and report.html in {}",
                folder.display()
            )?;
            Ok(ExitStatus::Success)
        }
        Err(e) => {
            writeln!(out, "mcpick report: {e}")?;
            Ok(ExitStatus::InvalidInput)
        }
    }
}
