//! `mcpick run`: every task of the chosen suites against every backend, each trial on a fresh MCP
//! session of its suite's toolset; the run folder is written as trials finish, then the summary.

use super::Outcome;
use crate::backend::{BackendOptions, LocalSettings};
use crate::cli::{DistractorChoice, RunOptions};
use crate::record::{RunFolder, Shard, StoredManifest, finished_trials, shard_from_environment};
use crate::report::rebuild;
use crate::runner::{RunPlan, execute};
use crate::settings::{BatchMode, Distractors, RunSettings};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The settings a run's command line asks for (`--out`, `--resume` and `--no-progress` stay here:
/// they say where and how, not what).
pub fn run_settings(options: &RunOptions) -> RunSettings {
    RunSettings {
        paths: options.paths.clone(),
        backends: options.backends.clone(),
        max_turns: options.max_turns,
        scoring: options.scoring.clone(),
        tags: options.tags.clone(),
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
            local: LocalSettings {
                model: options.model.clone(),
                threads: options.threads,
                threads_batch: options.threads_batch,
                ctx_size: options.ctx_size,
                temperature: options.temperature,
                seed: options.seed,
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

pub fn run_run(options: RunOptions, out: &mut dyn Write) -> std::io::Result<Outcome> {
    let started = Instant::now();
    let show_progress = !options.no_progress;
    // The manifest of a resumed run, read once: its settings are the plan, and its plan hash, start
    // time and earlier resumptions carry over into the new manifest.
    let previous = options.resume.as_deref().map(StoredManifest::read);
    let (settings, folder_path, resuming) = match (&options.resume, &previous) {
        (Some(folder), Some(previous)) => match previous.clone().and_then(|m| m.settings()) {
            Ok(mut recorded) => {
                if !options.backends.is_empty() || !options.paths.is_empty() {
                    writeln!(
                        out,
                        "mcpick run: --resume repeats the recorded plan; drop the suites and --backend arguments"
                    )?;
                    return Ok(Outcome::InvalidInput);
                }
                // How the resumed run is shown and paid for may change; what it runs may not.
                recorded.budget = options.budget.or(recorded.budget);
                (recorded, folder.clone(), true)
            }
            Err(e) => {
                writeln!(out, "mcpick run: cannot resume: {e}")?;
                return Ok(Outcome::InvalidInput);
            }
        },
        _ => (run_settings(&options), PathBuf::new(), false),
    };
    let plan = match RunPlan::resolve(&settings) {
        Ok(plan) => Arc::new(plan),
        Err(problems) => {
            for problem in &problems.0 {
                writeln!(out, "{problem}")?;
            }
            writeln!(out, "mcpick run: nothing was run")?;
            return Ok(Outcome::InvalidInput);
        }
    };
    // What the plan noticed goes where it always went: standard error, beside the progress bar.
    for notice in &plan.notices {
        eprintln!("mcpick run: {notice}");
    }
    let shard = match resolve_shard(&options, previous.as_ref().and_then(|p| p.as_ref().ok())) {
        Ok(shard) => shard,
        Err(e) => {
            writeln!(out, "mcpick run: {e}")?;
            return Ok(Outcome::InvalidInput);
        }
    };
    let folder_path = if resuming {
        folder_path
    } else {
        match (&options.out, shard) {
            (Some(out), None) => out.clone(),
            (None, None) => PathBuf::from(format!(
                "reports/{}-{}",
                utc_stamp(SystemTime::now()),
                plan.hash
            )),
            // Shards started apart share no clock: by default they meet in the plan's folder.
            (out, Some((shard, _))) => out
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("reports/{}", plan.hash)))
                .join(shard.folder_name()),
        }
    };
    let mut folder = RunFolder::create(&folder_path)?;
    let finished = finished_trials(&folder_path)?;
    let (done, already_spent) = (finished.keys, finished.cost_usd);
    let mut all = plan.trials();
    if let Some((shard, source)) = shard {
        let planned = all.len();
        all.retain(|t| shard.owns(&plan.key(*t)));
        eprintln!(
            "mcpick run: shard {shard} (from {source}): {} of the plan's {planned} trials",
            all.len()
        );
    }
    let pending: Vec<_> = all
        .iter()
        .copied()
        .filter(|t| !done.contains(&plan.key(*t)))
        .collect();
    let mut manifest = plan.manifest.clone();
    if resuming {
        let previous = previous
            .and_then(Result::ok)
            .map(|m| m.document)
            .unwrap_or_default();
        if previous["plan_hash"] != manifest["plan_hash"] {
            writeln!(
                out,
                "warning: the suites, toolsets or options changed since this run started (plan {} → {}); finished trials are kept as they are",
                previous["plan_hash"], manifest["plan_hash"]
            )?;
        }
        let mut resumes = previous["resumed"].as_array().cloned().unwrap_or_default();
        resumes.push(serde_json::json!(utc_stamp(SystemTime::now())));
        manifest["resumed"] = serde_json::Value::Array(resumes);
        manifest["started"] = previous["started"].clone();
        // A merged folder stays one: which shards it was made of is kept.
        if !previous["merged_from"].is_null() {
            manifest["merged_from"] = previous["merged_from"].clone();
        }
    } else {
        manifest["started"] = serde_json::json!(utc_stamp(SystemTime::now()));
    }
    if let Some((shard, _)) = shard {
        manifest["shard"] =
            serde_json::json!({"index": shard.index, "count": shard.count, "trials": all.len()});
    }
    folder.write(
        "manifest.json",
        &serde_json::to_string_pretty(&manifest).unwrap_or_default(),
    )?;
    let suites: std::collections::BTreeSet<&str> =
        plan.suites.iter().map(|s| s.name.as_str()).collect();
    let mut shape = format!("{} suites", suites.len());
    if !settings.variants.is_empty() {
        shape.push_str(&format!(" × {} arms", settings.variants.len()));
    }
    if !plan.sizes.is_empty() {
        shape.push_str(&format!(
            " × {} sizes × {} seeds",
            plan.sizes.len(),
            plan.seeds
        ));
    }
    if !plan.exposures.is_empty() {
        shape.push_str(&format!(" × {} exposures", plan.exposures.len()));
    }
    if plan.repeats > 1 {
        shape.push_str(&format!(" × {} repeats", plan.repeats));
    }
    writeln!(
        out,
        "running {} trials ({shape} × {} backends{}) into {}",
        pending.len(),
        plan.lanes.len(),
        if pending.len() < all.len() {
            format!("; {} already done", all.len() - pending.len())
        } else {
            String::new()
        },
        folder_path.display()
    )?;
    out.flush()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let execution = runtime.block_on(execute(
        Arc::clone(&plan),
        pending.clone(),
        already_spent,
        &mut folder,
        show_progress,
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
        "{} trials in {:.1} s (${:.4}); results in {}",
        execution.finished,
        started.elapsed().as_secs_f64(),
        execution.cost_usd,
        folder_path.display()
    )?;
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
        Outcome::Interrupted
    } else if missing > 0 {
        Outcome::Incomplete
    } else {
        Outcome::Success
    })
}

/// The shard this process runs: on `--resume` the one the manifest recorded, else `--shard`, else
/// the one the environment names (`--shards` with Kubernetes' index, or a Slurm array's); with
/// where it came from, for the user.
fn resolve_shard(
    options: &RunOptions,
    previous: Option<&StoredManifest>,
) -> Result<Option<(Shard, &'static str)>, String> {
    if let Some(previous) = previous {
        return Ok(Shard::of_manifest(&previous.document).map(|s| (s, "the manifest")));
    }
    if let Some(shard) = options.shard {
        return Ok(Some((shard, "--shard")));
    }
    shard_from_environment(options.shards, &|name| std::env::var(name).ok())
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
                "rebuilt summary.json, summary.md, trials.csv, trials.parquet and report.html in {}",
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
