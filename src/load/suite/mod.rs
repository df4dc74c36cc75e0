//! Suite files (and their JSON Lines task files) into `model::Suite`, cross-checked against the
//! suite's toolset and every loaded variant of it: expected tools exist, expected arguments are
//! parameters, acceptable values satisfy the parameter's schema, ids are unique.
//!
//! This file reads the suite file itself and its `scoring`; `task_file` reads JSON Lines task
//! files, and `task` checks each task, wherever it was written.

mod keys;
mod place;
mod satisfiable;
mod task;
mod task_file;
mod task_shape;

pub use keys::unknown_suite_keys;
pub use task_file::check_unreferenced_task_file;

use super::Diagnostic;
use super::source::SourceText;
use super::toolset::Loaded;
use super::variant::LoadedVariant;
use crate::model::{ScoringProfile, Suite, Task, Toolset};
use crate::spec::{Located, SuiteFile};
use place::Place;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use task::TaskChecks;
use task_file::load_task_records;

/// Parses a suite file without checking it against a toolset (the workspace resolves `toolset` first).
pub fn parse_suite(source: &SourceText) -> Result<SuiteFile, Diagnostic> {
    let file: SuiteFile = source.parse_toml()?;
    source.check_format(&file.format)?;
    Ok(file)
}

/// The path a suite's `tasks_file` points at.
pub fn tasks_file_path(suite_path: &Path, tasks_file: &str) -> PathBuf {
    suite_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(tasks_file)
}

/// Loads a parsed suite: its inline tasks and its `tasks_file`, checked against `toolset` and `variants`.
pub fn load_suite(
    source: &SourceText,
    file: SuiteFile,
    toolset: &Toolset,
    variants: &[&LoadedVariant],
) -> Loaded<Suite> {
    let mut diagnostics = Vec::new();
    let mut checks = TaskChecks {
        toolset,
        variants,
        first_seen: HashMap::new(),
        search: crate::gold_arguments::SearchBudget::for_load(),
    };
    let mut tasks = Vec::new();
    for spec in file.tasks {
        let place = Place::Toml {
            source,
            fallback: spec.span.clone(),
        };
        tasks.extend(checks.task(spec.value, &place, &mut diagnostics));
    }
    if let Some(tasks_file) = &file.tasks_file {
        let path = tasks_file_path(&source.path, tasks_file);
        match SourceText::read(&path) {
            Ok(lines) => tasks.extend(load_task_records(&lines, &mut checks, &mut diagnostics)),
            Err(read_error) => diagnostics.push(
                source
                    .error(
                        tasks_file.span.as_ref(),
                        format!("tasks_file {:?}: {}", tasks_file.value, read_error.message),
                    )
                    .help("the path is relative to this suite file; fix it or remove `tasks_file`"),
            ),
        }
    }
    if tasks.is_empty() && !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.push(
            source
                .error(
                    file.suite.span.as_ref(),
                    format!("suite {:?} has no tasks", file.suite.value),
                )
                .help("add [[task]] entries or a `tasks_file`"),
        );
    }
    let scoring = scoring_profile(source, file.scoring.as_ref(), &tasks, &mut diagnostics);
    let today = file
        .today
        .as_ref()
        .and_then(|written| today(source, written, &mut diagnostics));
    for task in &mut tasks {
        task.scoring = scoring;
        task.today = today.clone();
        task.drafted_by = file.drafted_by.clone();
    }
    let suite = Suite {
        name: file.suite.value,
        description: file.description,
        source: source.path.clone(),
        toolset: toolset.name.clone(),
        scoring,
        today,
        tasks,
    };
    Loaded::finish(suite, diagnostics)
}

/// The suite's `today`: a calendar date, written as a TOML date or a string `YYYY-MM-DD`.
fn today(
    source: &SourceText,
    written: &Located<serde_json::Value>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<String> {
    let mut value = written.value.clone();
    crate::spec::toml_datetimes_as_strings(&mut value);
    let text = value.as_str().unwrap_or_default();
    let valid =
        crate::registry::compile_schema(&serde_json::json!({"type": "string", "format": "date"}))
            .is_ok_and(|date| date.is_valid(&value));
    if valid {
        return Some(text.to_string());
    }
    diagnostics.push(
        source
            .error(
                written.span.as_ref(),
                format!("`today` is {value}, not a date"),
            )
            .help("write the date the suite's tools answer as of, e.g. `today = 2026-11-30`"),
    );
    None
}

/// The suite's `scoring`: a known profile, and `bfcl` only where every task carries BFCL's record.
fn scoring_profile(
    source: &SourceText,
    written: Option<&Located<String>>,
    tasks: &[Task],
    diagnostics: &mut Vec<Diagnostic>,
) -> ScoringProfile {
    let Some(written) = written else {
        return ScoringProfile::Mcp;
    };
    let Some(profile) = ScoringProfile::parse(&written.value) else {
        diagnostics.push(
            source
                .error(
                    written.span.as_ref(),
                    format!("unknown scoring profile {:?}", written.value),
                )
                .help("`scoring` is \"mcp\" (mcpick's rules) or \"bfcl\" (BFCL's checker)"),
        );
        return ScoringProfile::Mcp;
    };
    if profile == ScoringProfile::Bfcl
        && let Some(task) = tasks.iter().find(|t| t.bfcl.is_none())
    {
        diagnostics.push(
            source
                .error(
                    written.span.as_ref(),
                    format!(
                        "scoring = \"bfcl\", but task {:?} has no `bfcl` record",
                        task.id
                    ),
                )
                .help(
                    "the bfcl profile needs the records `mcpick import-bfcl` writes; use \"mcp\"",
                ),
        );
    }
    profile
}
