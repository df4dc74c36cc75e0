//! `mcpick improve`: the command line resolved into `ImproveSettings` (the runs take `run`'s
//! defaults, graded as in `ab`), the loop run, and its ending told: the held-out verdict, what was
//! tried, where everything is. Exit 0 when the rewrite is adopted, 1 when it is not, 3 when the
//! budget stopped it, 130 on Ctrl-C.

use super::ExitStatus;
use super::run::run_settings;
use crate::backend::{BackendOptions, LocalOptions};
use crate::cli::{Cli, Command, ImproveOptions};
use crate::improve::{Ending, ImproveSettings, improve, verdict_sentence};
use clap::Parser;
use std::io::Write;
use std::time::Duration;

pub fn run_improve(options: ImproveOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let Ok(Cli {
        command: Command::Run(run_options),
        ..
    }) = Cli::try_parse_from(["mcpick", "run", "--backend", "bm25"])
    else {
        unreachable!("`mcpick run --backend bm25` parses")
    };
    let mut run = run_settings(&run_options);
    run.backends = vec![options.backend.clone()];
    run.config = options.config.clone();
    run.budget = options.budget;
    run.backend.base_url = options.base_url.clone();
    run.backend.api_key_env = options.api_key_env.clone();
    run.backend.local.model = options.model.clone();
    run.backend.local.threads = options.threads;
    run.backend.local.graded = Some(true);
    run.backend.local.kv_cache = options.no_kv_cache.then_some(false);
    let settings = ImproveSettings {
        suite: options.suite.clone(),
        variant: options.variant.clone(),
        rewriter: options.rewriter.clone(),
        rewriter_options: BackendOptions {
            base_url: options.base_url.clone(),
            api_key_env: options.api_key_env.clone(),
            max_tokens: None,
            local: LocalOptions {
                model: options.model.clone(),
                threads: options.threads,
                kv_cache: options.no_kv_cache.then_some(false),
                ..LocalOptions::default()
            },
        },
        rounds: options.rounds,
        candidates: options.candidates,
        targets: options.targets,
        held_out: options.holdout,
        seed: options.seed,
        out: options.out.clone(),
        run,
        timeout: Duration::try_from_secs_f64(options.timeout.max(1.0)).unwrap_or(Duration::MAX),
        progress: !options.no_progress,
    };
    eprintln!(
        "mcpick improve: {} round(s), {} target tool(s) a round, {} rewriter candidate(s) per target plus the rules' one; {:.0}% of the tasks held out",
        settings.rounds,
        settings.targets,
        settings.candidates,
        settings.held_out * 100.0
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(improve(&settings, &mut |line| {
        eprintln!("mcpick improve: {line}")
    }));
    runtime.shutdown_background();
    let (ending, account) = match result {
        Ok(done) => done,
        Err(message) => {
            writeln!(out, "mcpick improve: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    writeln!(out, "{}.", verdict_sentence(&account))?;
    if let Some(reason) = &account.stopped {
        writeln!(out, "rounds ended: {reason}")?;
    }
    let run_seconds: Vec<f64> = account
        .rounds
        .iter()
        .flat_map(|r| &r.tried)
        .filter(|t| t.judgement.is_some())
        .map(|t| t.seconds)
        .collect();
    writeln!(
        out,
        "{} candidate(s) proposed, {} run on the {} working tasks ({:.0} s each on average), in {:.0} s; held out: {} tasks",
        account.candidates_proposed(),
        account.candidates_run(),
        account.working.len(),
        run_seconds.iter().sum::<f64>() / run_seconds.len().max(1) as f64,
        account.seconds,
        account.held_out.len()
    )?;
    let dir = options.out.display();
    match ending {
        Ending::Adopted => writeln!(
            out,
            "adopted: {dir}/variant.toml (e.g. mcpick ab {} {dir}/variant.toml --variant {} --variant {} --backend {})",
            options.suite.display(),
            account.start,
            account.final_label.as_deref().unwrap_or(""),
            options.backend
        )?,
        Ending::NotAdopted if account.final_label.is_some() => writeln!(
            out,
            "not adopted; what was tried is in {dir}/variant.toml and {dir}/IMPROVE.md"
        )?,
        Ending::NotAdopted => writeln!(out, "nothing to adopt; {dir}/IMPROVE.md tells why")?,
        Ending::Interrupted | Ending::Incomplete => writeln!(
            out,
            "stopped; run the same command again to go on (results so far: {dir}/IMPROVE.md)"
        )?,
    }
    Ok(match ending {
        Ending::Adopted => ExitStatus::Success,
        Ending::NotAdopted => ExitStatus::Findings,
        Ending::Interrupted => ExitStatus::Interrupted,
        Ending::Incomplete => ExitStatus::Incomplete,
    })
}
