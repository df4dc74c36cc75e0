//! The subcommands: each resolves its arguments, calls the library, and writes what the user sees to
//! the writer it is given (stdout in the binary, a buffer in tests). Exit codes are decided here.

mod compare;
mod draft;
mod explain;
mod import;
mod import_dataset;
mod improve;
mod lint;
mod list;
mod merge;
mod models;
mod resolve;
mod review;
mod run;
mod serve;
mod validate;

use crate::cli::Command;
use std::io::Write;
use std::path::PathBuf;

pub use compare::run_compare;
pub use draft::run_draft;
pub use explain::run_explain;
pub use import::run_import;
pub use import_dataset::{run_import_bfcl, run_import_metatool};
pub use improve::run_improve;
pub use lint::{LintOutput, LintPolicy, run_lint};
pub use list::run_list;
pub use merge::run_merge;
pub use models::run_models;
pub use resolve::run_settings;
pub use review::run_review;
pub use run::{run_report, run_run};
pub use serve::run_serve;
pub use validate::run_validate;

/// How a command ended, mapped to the process exit code by `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran, and its findings fail the requested threshold.
    Findings,
    /// Exit 2: the input files are invalid.
    InvalidInput,
    /// Exit 3: the run stopped with trials left (a backend's key was rejected, the budget was
    /// spent); `--resume` finishes it.
    Incomplete,
    /// Exit 130 (the shell's code for SIGINT): stopped by Ctrl-C; `--resume` finishes it.
    Interrupted,
}

impl ExitStatus {
    pub fn exit_code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::InvalidInput => 2,
            ExitStatus::Incomplete => 3,
            ExitStatus::Interrupted => 130,
        }
    }
}

/// Runs one parsed command.
pub fn run(command: Command, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    match command {
        Command::Validate { paths, format } => {
            run_validate(&default_paths(paths), format.format, out)
        }
        Command::Lint {
            toolset,
            variant,
            format,
            fail_on,
            sources,
            allow,
            config,
        } => run_lint(
            &toolset,
            variant.single(),
            LintOutput {
                format: format.format,
                sources,
            },
            LintPolicy {
                fail_on,
                allow,
                config: config.config,
            },
            out,
        ),
        Command::List { paths } => run_list(&default_paths(paths), out),
        Command::Models {
            fetch,
            clear_kv_cache,
        } => run_models(&fetch, clear_kv_cache, out),
        Command::Serve(options) => run_serve(options, out),
        Command::Draft(options) => run_draft(*options, out),
        Command::Improve(options) => run_improve(*options, out),
        Command::Explain(options) => run_explain(*options, out),
        Command::Review { dir } => run_review(&dir, out),
        Command::Import(options) => run_import(options, out),
        Command::ImportBfcl(options) => run_import_bfcl(options, out),
        Command::ImportMetatool(options) => run_import_metatool(options, out),
        Command::Run(options) | Command::Sweep(options) if comparison_only(&options).is_some() => {
            writeln!(
                out,
                "mcpick: {} is a verdict on a comparison: use it with `mcpick ab` (two or more --variant arms) or `mcpick compare BASE NEW`; run and sweep print text or json",
                comparison_only(&options).unwrap_or_default()
            )?;
            Ok(ExitStatus::InvalidInput)
        }
        Command::Run(options) => run_run(*options, out),
        Command::Ab(options) if options.resume.is_none() && options.variants.variants.len() < 2 => {
            writeln!(
                out,
                "mcpick ab: name at least two arms, e.g. --variant travel-terse --variant travel-rich (or --variant base)"
            )?;
            Ok(ExitStatus::InvalidInput)
        }
        Command::Sweep(options)
            if options.resume.is_none()
                && options.sizes.is_empty()
                && options.bystanders.is_empty() =>
        {
            writeln!(
                out,
                "mcpick sweep: give the sizes, e.g. --sizes 5,15,30,50,100, or the bystander servers to show beside the suite, e.g. --bystanders all"
            )?;
            Ok(ExitStatus::InvalidInput)
        }
        // An A/B test compares how sure the model was, not only what it picked.
        Command::Ab(mut options) => {
            options.graded = true;
            run_run(*options, out)
        }
        Command::Sweep(options) => run_run(*options, out),
        Command::Report { run_dir } => run_report(&run_dir, out),
        Command::Merge { run_dirs, out: to } => match resolve::required_out(&to) {
            Ok(to) => run_merge(&run_dirs, &to, out),
            Err(message) => {
                writeln!(out, "mcpick merge: {message}")?;
                Ok(ExitStatus::InvalidInput)
            }
        },
        Command::Compare {
            base,
            new,
            alpha,
            min_selection,
            allow_missing,
            margin,
            adjust,
            format,
            junit,
        } => run_compare(
            &base,
            &new,
            crate::analysis::run_comparison::GateSettings {
                alpha: alpha.alpha,
                margin: margin.map(|points| points / 100.0),
                adjustment: adjust.adjust,
                min_selection,
                allow_missing,
            },
            compare::CompareOutput {
                format: format.format,
                junit: junit.junit.as_deref(),
            },
            out,
        ),
        Command::Power {
            difference,
            discordant,
            alpha,
            power,
        } => {
            use crate::analysis::statistics::{exact_tasks_needed, paired_sample_size};
            let connor = paired_sample_size(difference, discordant, alpha.alpha, power);
            let effect = format!(
                "{:.1} percentage points with {:.0}% power at alpha {} when {:.1}% of tasks disagree",
                difference.abs() * 100.0,
                power * 100.0,
                alpha.alpha,
                discordant * 100.0
            );
            match (
                exact_tasks_needed(difference, discordant, alpha.alpha, power),
                connor,
            ) {
                (Some(tasks), Some(connor)) => {
                    writeln!(
                        out,
                        "{tasks} paired tasks detect a difference of {effect}, by the exact McNemar test an A/B test runs ({connor} by Connor's normal approximation, which overstates the exact test's power)"
                    )?;
                    Ok(ExitStatus::Success)
                }
                (None, Some(connor)) => {
                    writeln!(
                        out,
                        "more than 100,000 paired tasks: the exact McNemar test needs more to detect {effect} (Connor's approximation: {connor})"
                    )?;
                    Ok(ExitStatus::Success)
                }
                _ => {
                    writeln!(
                        out,
                        "mcpick power: no sample size for these values: the difference must be non-zero and at most the discordant share (both fractions in 0..1), alpha and power in 0..1"
                    )?;
                    Ok(ExitStatus::InvalidInput)
                }
            }
        }
    }
}

/// The flag a `run` or `sweep` was given that only a comparison's verdict has: `--junit` or
/// `--format markdown`.
fn comparison_only(options: &crate::cli::RunOptions) -> Option<&'static str> {
    if options.junit.junit.is_some() {
        Some("--junit")
    } else if options.format.format == crate::cli::OutputFormat::Markdown {
        Some("--format markdown")
    } else {
        None
    }
}

/// `toolsets/` and `tasks/` when no path is given.
fn default_paths(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from("toolsets"), PathBuf::from("tasks")]
    } else {
        paths
    }
}
