//! `mcpick improve`: the command line resolved into `ImproveSettings` (the runs take
//! `RunSettings::default()` with the shared flags, graded as in `ab`), the loop run, and its ending
//! told: the held-out verdict, what was tried, where everything is. Exit 0 when the rewrite is
//! adopted, 1 when it is not, 3 when the budget stopped it, 130 on Ctrl-C.

use super::ExitStatus;
use super::resolve::{backend_options, graded_run, out_and_backend, writer_timeout};
use crate::cli::ImproveOptions;
use crate::improve::{Ending, ImproveSettings, improve, verdict_sentence};
use std::io::Write;

pub fn run_improve(options: ImproveOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let (folder, backend) = match out_and_backend(
        &options.out,
        &options.backends,
        "the model whose picks are measured",
    ) {
        Ok(resolved) => resolved,
        Err(message) => {
            writeln!(out, "mcpick improve: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let run = graded_run(
        &backend,
        &options.model,
        &options.hosted,
        &options.profiles,
        &options.budget,
    );
    let settings = ImproveSettings {
        suite: options.suite.clone(),
        variant: options.variants.single().map(str::to_string),
        rewriter: options.rewriter.clone(),
        rewriter_options: backend_options(&options.model, &options.hosted),
        rounds: options.rounds,
        candidates: options.candidates,
        targets: options.targets,
        explain: options.explain,
        held_out: options.holdout,
        minutes: options.minutes,
        seed: u64::from(options.seed.seed.unwrap_or(0)),
        out: folder.clone(),
        run,
        timeout: writer_timeout(&options.hosted),
        progress: !options.progress.no_progress,
    };
    eprintln!(
        "mcpick improve: {} round(s), {} a round, {} rewriter candidate(s) per target plus the rules' one; {:.0}% of the tasks held out",
        settings.rounds,
        settings.targets.map_or_else(
            || "every tool with something to fix".to_string(),
            |t| format!("{t} target tool(s)")
        ),
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
    let run_seconds = account.slate_seconds();
    writeln!(
        out,
        "{} candidate(s) proposed, {} measured in {} run(s) on the {} working tasks ({:.0} s a run on average), in {:.0} s; held out: {} tasks",
        account.candidates_proposed(),
        account.candidates_run(),
        run_seconds.len(),
        account.working.len(),
        run_seconds.iter().sum::<f64>() / run_seconds.len().max(1) as f64,
        account.seconds,
        account.held_out.len()
    )?;
    let dir = folder.display();
    match ending {
        Ending::Adopted => writeln!(
            out,
            "adopted: {dir}/variant.toml (e.g. mcpick ab {} {dir}/variant.toml --variant {} --variant {} --backend {})",
            options.suite.display(),
            account.start,
            account.final_label.as_deref().unwrap_or(""),
            backend
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
