//! JSON Lines task files: one task per non-blank line, each reported by line and record number;
//! a file no suite references is checked for syntax and fields only.

use super::keys::unknown_record_keys;
use super::place::Place;
use super::task::TaskChecks;
use crate::load::Diagnostic;
use crate::load::source::{SourceText, json_error_help};
use crate::load::toolset::strip_position;
use crate::model::Task;
use crate::spec::TaskSpec;

/// Checks a JSON Lines task file that no suite references: syntax and fields only.
pub fn check_unreferenced_task_file(source: &SourceText) -> (usize, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut count = 0;
    for (line, record, text) in records(source) {
        if read_record(source, line, record, text, &mut diagnostics).is_some() {
            count += 1;
        }
    }
    (count, diagnostics)
}

pub fn load_task_records(
    source: &SourceText,
    checks: &mut TaskChecks<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Task> {
    let mut tasks = Vec::new();
    for (line, record, text) in records(source) {
        if let Some(spec) = read_record(source, line, record, text, diagnostics) {
            let place = Place::Record {
                path: &source.path,
                line,
                record,
            };
            tasks.extend(checks.task(spec, &place, diagnostics));
        }
    }
    tasks
}

/// One record read: JSON, every unknown key named, then the task as written.
fn read_record(
    source: &SourceText,
    line: usize,
    record: usize,
    text: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<TaskSpec> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            diagnostics.push(record_error(source, line, record, &e));
            return None;
        }
    };
    diagnostics.extend(unknown_record_keys(
        &source.path,
        line,
        record,
        text,
        &value,
    ));
    match serde_json::from_value::<TaskSpec>(value) {
        Ok(spec) => Some(spec),
        Err(e) => {
            diagnostics.push(record_error(source, line, record, &e));
            None
        }
    }
}

/// Non-blank lines as (1-based line, 1-based record, text).
fn records(source: &SourceText) -> impl Iterator<Item = (usize, usize, &str)> {
    source
        .text
        .lines()
        .enumerate()
        .filter(|(_, text)| !text.trim().is_empty())
        .enumerate()
        .map(|(record, (line, text))| (line + 1, record + 1, text))
}

fn record_error(
    source: &SourceText,
    line: usize,
    record: usize,
    error: &serde_json::Error,
) -> Diagnostic {
    let message = error.to_string();
    let (what, help) = if error.is_syntax() || error.is_eof() {
        ("not valid JSON".to_string(), "each line must be one complete JSON object, e.g. {\"id\": \"t1\", \"prompt\": \"...\", \"expect_no_call\": true}".to_string())
    } else {
        ("not a valid task".to_string(), json_error_help(&message))
    };
    let mut d = Diagnostic::error(
        &source.path,
        format!("{what}: {}", strip_position(&message)),
    )
    .at(line, error.column().max(1))
    .help(help);
    d.record = Some(record);
    d
}
