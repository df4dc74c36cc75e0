//! `mcpick explain`: the command line resolved into `ExplainSettings` (the runs take
//! `RunSettings::default()` with the shared flags, graded as in `ab`; a model without
//! probabilities is measured over `--repeats`, 5 unless said), the units measured, and what they
//! do told: the units that move each explained tool's picks most, the time and tokens per unit,
//! where everything is. Exit 0 when every unit was measured, 2 on bad input, 3 when the budget or
//! the backend stopped it, 130 on Ctrl-C.

use super::ExitStatus;
use super::resolve::{graded_run, out_and_backend};
use crate::cli::ExplainOptions;
use crate::explain::{Ending, ExplainSettings, explain, ranked};
use std::io::Write;

/// Trials per task for a model whose probabilities are not known, unless `--repeats` says.
const HOSTED_REPEATS: u32 = 5;

pub fn run_explain(options: ExplainOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let (folder, backend) = match out_and_backend(
        &options.out,
        &options.backends,
        "the model whose picks are explained",
    ) {
        Ok(resolved) => resolved,
        Err(message) => {
            writeln!(out, "mcpick explain: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let local = backend == "local" || backend.starts_with("local:");
    let mut run = graded_run(
        &backend,
        &options.model,
        &options.hosted,
        &options.profiles,
        &options.budget,
    );
    run.repeats = options
        .repeats
        .unwrap_or(if local { 1 } else { HOSTED_REPEATS });
    let settings = ExplainSettings {
        suite: options.suite.clone(),
        variant: options.variants.single().map(str::to_string),
        tools: options.tools.clone(),
        neighbours: options.neighbours as usize,
        keep_order: options.keep_order,
        out: folder.clone(),
        run,
        progress: !options.progress.no_progress,
    };
    if !local {
        eprintln!(
            "mcpick explain: {backend} gives no probabilities here: each unit is measured by its right picks over {} repeat(s) per task",
            settings.run.repeats
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(explain(&settings, &mut |line| {
        eprintln!("mcpick explain: {line}")
    }));
    runtime.shutdown_background();
    let (ending, explanation) = match result {
        Ok(done) => done,
        Err(message) => {
            writeln!(out, "mcpick explain: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    for tool in &explanation.tools {
        let top = ranked(&explanation.units, tool);
        if top.is_empty() {
            continue;
        }
        writeln!(
            out,
            "What moves {tool}'s picks most ({}, Δ with the unit minus without it):",
            explanation.measure
        )?;
        for (unit, effect) in top.iter().take(5) {
            writeln!(
                out,
                "  {:+.3} [{:+.3}, {:+.3}] {:<10} {} {}: {}",
                effect.delta,
                effect.low,
                effect.high,
                effect.verdict.as_str(),
                unit.unit.tool,
                crate::explain::unit_label(unit),
                crate::untrusted_text::shown(&unit.unit.text, 90)
            )?;
        }
    }
    let timed: Vec<_> = explanation.units.iter().filter_map(|u| u.cost).collect();
    if !timed.is_empty() {
        let n = timed.len() as f64;
        writeln!(
            out,
            "{} of {} unit(s) measured; per unit {:.1} s, {:.0} tokens evaluated and {:.0} restored from the prefix cache on average; {:.0} s in all",
            explanation.measured(),
            explanation.units.len(),
            timed.iter().map(|c| c.seconds).sum::<f64>() / n,
            timed.iter().map(|c| c.evaluated as f64).sum::<f64>() / n,
            timed.iter().map(|c| c.restored as f64).sum::<f64>() / n,
            explanation.seconds
        )?;
    }
    if let Some(why) = &explanation.stopped {
        writeln!(out, "stopped: {why}")?;
    }
    let dir = folder.display();
    writeln!(
        out,
        "{dir}/EXPLAIN.md, {dir}/explain.json, {dir}/explain.html"
    )?;
    Ok(match ending {
        Ending::Done => ExitStatus::Success,
        Ending::Interrupted => ExitStatus::Interrupted,
        Ending::Incomplete => ExitStatus::Incomplete,
    })
}
