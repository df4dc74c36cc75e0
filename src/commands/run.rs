//! `mcpick run`: every task of the chosen suites against every backend, each trial on a fresh MCP
//! session of its suite's toolset; the run folder is written as trials finish, then the summary.

use super::ExitStatus;
use super::resolve::run_settings;
use crate::cli::RunOptions;
use crate::report::{rebuild, rebuild_run};
use crate::runner::{RunTarget, ShardRequest, StartError, StartedRun, run};
use std::io::Write;
use std::time::Instant;

pub fn run_run(options: RunOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let started = Instant::now();
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
    let mut said: std::io::Result<()> = Ok(());
    let result = runtime.block_on(run(
        target,
        shards,
        &|name| std::env::var(name).ok(),
        !options.progress.no_progress,
        &mut |run| {
            if said.is_ok() {
                said = announce(run, out);
            }
        },
    ));
    // Trials abandoned at Ctrl-C may still hold the runtime; do not wait for them.
    runtime.shutdown_background();
    said?;
    let run = match result {
        Ok(run) => run,
        Err(StartError::Plan(problems)) => {
            for problem in &problems {
                writeln!(out, "{problem}")?;
            }
            writeln!(out, "mcpick run: nothing was run")?;
            return Ok(ExitStatus::InvalidInput);
        }
        Err(StartError::Refused(why)) => {
            writeln!(out, "mcpick run: {why}")?;
            return Ok(ExitStatus::InvalidInput);
        }
        Err(StartError::Io(e)) => return Err(e),
    };
    // The summary comes from trials.jsonl alone, exactly as `mcpick report` rebuilds it.
    let rebuilt = rebuild_run(&run.folder)?;
    writeln!(out, "\n{}", rebuilt.text)?;
    let missing = run.pending - run.ran;
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
    Ok(if run.interrupted {
        ExitStatus::Interrupted
    } else if missing > 0 {
        ExitStatus::Incomplete
    } else if !rebuilt.cannot_say.is_empty() {
        // As `compare` does: a comparison with nothing to compare is no evidence, not a pass.
        ExitStatus::InvalidInput
    } else {
        ExitStatus::Success
    })
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
