//! `mcpick run`: every task of the chosen suites against every backend, each trial on a fresh MCP
//! session of its suite's toolset; the run folder is written as trials finish, then the summary.

use super::ExitStatus;
use crate::backend::{BackendOptions, LocalOptions};
use crate::cli::{DistractorChoice, RunOptions};
use crate::report::rebuild;
use crate::runner::{RunTarget, ShardRequest, StartError, StartedRun, execute, start_run};
use crate::settings::{BatchMode, Distractors, RunSettings};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// The settings a run's command line asks for (`--out`, `--resume` and `--no-progress` stay here:
/// they say where and how, not what).
pub fn run_settings(options: &RunOptions) -> RunSettings {
    RunSettings {
        paths: options.paths.clone(),
        backends: options.backends.clone(),
        max_turns: options.max_turns,
        scoring: options.scoring.clone(),
        tags: options.tags.clone(),
        tasks: Vec::new(),
        variants: options.variants.clone(),
        sizes: options.sizes.clone(),
        distractors: match options.distractors {
            DistractorChoice::Random => Distractors::Random,
            DistractorChoice::Similar => Distractors::Similar,
        },
        exposures: options.exposures.clone(),
        seeds: options.seeds,
        repeats: options.repeats,
        pool: options.pool.clone(),
        config: options.config.clone(),
        backend: BackendOptions {
            base_url: options.base_url.clone(),
            api_key_env: options.api_key_env.clone(),
            max_tokens: options.max_tokens,
            local: LocalOptions {
                model: options.model.clone(),
                threads: options.threads,
                threads_batch: options.threads_batch,
                ctx_size: options.ctx_size,
                temperature: options.temperature,
                seed: options.seed,
                graded: options.graded.then_some(true),
                kv_cache: options.no_kv_cache.then_some(false),
            },
        },
        concurrency: options.concurrency,
        requests_per_minute: options.requests_per_minute,
        tokens_per_minute: options.tokens_per_minute,
        timeout: options.timeout,
        max_retries: options.max_retries,
        max_retry_wait: options.max_retry_wait,
        budget: options.budget,
        price: options.price.clone(),
        no_cache: options.no_cache,
        cache: options.cache.clone(),
        batch: options.batch.then_some(BatchMode {
            size: options.batch_size,
            poll: options.batch_poll,
        }),
    }
}

pub fn run_run(options: RunOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let started = Instant::now();
    let target = match &options.resume {
        Some(folder) => {
            if !options.backends.is_empty() || !options.paths.is_empty() {
                writeln!(
                    out,
                    "mcpick run: --resume repeats the recorded plan; drop the suites and --backend arguments"
                )?;
                return Ok(ExitStatus::InvalidInput);
            }
            RunTarget::Resume {
                folder: folder.clone(),
                budget: options.budget,
                kv_cache: options.no_kv_cache.then_some(false),
            }
        }
        None => RunTarget::New {
            settings: Box::new(run_settings(&options)),
            out: options.out.clone(),
        },
    };
    let shards = ShardRequest {
        shard: options.shard,
        shards: options.shards,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // Listening before the manifest is written: a Ctrl-C while the run is still starting is held
    // for the scheduler, which then stops the run as it would any other time.
    let interrupt = {
        let _entered = runtime.enter();
        crate::interrupt::listen()
    };
    let run = match start_run(target, shards, &|name| std::env::var(name).ok()) {
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
    let StartedRun {
        settings,
        plan,
        mut folder,
        owned,
        pending,
        shard,
        already_spent,
        warnings,
    } = run;
    // What the plan noticed goes where it always went: standard error, beside the progress bar.
    for notice in &plan.notices {
        eprintln!("mcpick run: {notice}");
    }
    if let Some((shard, source)) = shard {
        eprintln!(
            "mcpick run: shard {shard} (from {source}): {owned} of the plan's {} trials",
            plan.manifest.trials
        );
    }
    for warning in &warnings {
        writeln!(out, "warning: {warning}")?;
    }
    let folder_path = folder.path.clone();
    writeln!(
        out,
        "running {} of {owned} planned trials ({}){} into {}",
        pending.len(),
        plan.shape(),
        if pending.len() < owned {
            format!("; {} already done", owned - pending.len())
        } else {
            String::new()
        },
        folder_path.display()
    )?;
    out.flush()?;
    let execution = runtime.block_on(execute(
        Arc::clone(&plan),
        pending.clone(),
        already_spent,
        &mut folder,
        !options.no_progress,
        interrupt,
    ))?;
    // Trials abandoned at Ctrl-C may still hold the runtime; do not wait for them.
    runtime.shutdown_background();
    // The summary comes from trials.jsonl alone, exactly as `mcpick report` rebuilds it.
    drop(folder);
    let markdown = rebuild(&folder_path)?;
    writeln!(out, "\n{markdown}")?;
    let missing = pending.len() - execution.finished;
    writeln!(
        out,
        "{} trials run in {:.1} s (${:.4}); {} of {owned} planned trials done; results in {}",
        execution.finished,
        started.elapsed().as_secs_f64(),
        execution.cost_usd,
        owned - missing,
        folder_path.display()
    )?;
    for lane in &plan.lanes {
        if let Some(work) = lane.backend.local_work() {
            writeln!(
                out,
                "{}: {} tokens evaluated, {} restored from the prefix cache, {} generated",
                lane.id, work.batched, work.restored, work.generated
            )?;
        }
    }
    for (backend, reason) in &execution.halted {
        writeln!(out, "backend {backend} was stopped: {reason}")?;
    }
    if execution.budget_reached {
        writeln!(
            out,
            "the budget of ${:.2} is spent",
            settings.budget.unwrap_or(0.0)
        )?;
    }
    if missing > 0 {
        writeln!(
            out,
            "{missing} trials were not run; finish them with: mcpick run --resume {}",
            folder_path.display()
        )?;
    }
    Ok(if execution.interrupted {
        ExitStatus::Interrupted
    } else if missing > 0 {
        ExitStatus::Incomplete
    } else {
        ExitStatus::Success
    })
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
