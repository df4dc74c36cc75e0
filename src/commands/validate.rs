//! `mcpick validate`: one line per file, the diagnostics, and the totals.

use super::ExitStatus;
use crate::cli::OutputFormat;
use crate::load::Workspace;
use std::io::Write;
use std::path::PathBuf;

pub fn run_validate(
    paths: &[PathBuf],
    format: OutputFormat,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    if format == OutputFormat::Markdown {
        writeln!(out, "{}", OutputFormat::markdown_refusal("validate"))?;
        return Ok(ExitStatus::InvalidInput);
    }
    let workspace = Workspace::load(paths);
    let counts = workspace.counts();
    match format {
        OutputFormat::Json => {
            let report = serde_json::json!({ "files": workspace.files, "counts": counts, "valid": !workspace.has_errors() });
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            )?;
        }
        OutputFormat::Text | OutputFormat::Markdown => {
            let width = workspace
                .files
                .iter()
                .map(|f| f.path.display().to_string().len())
                .max()
                .unwrap_or(0);
            for file in &workspace.files {
                let status = match (file.errors(), file.warnings()) {
                    (0, 0) => "ok".to_string(),
                    (0, w) => format!("ok ({w} warning{})", plural(w)),
                    (e, _) => format!("FAILED ({e} error{})", plural(e)),
                };
                writeln!(
                    out,
                    "{:<width$}  {}  [{status}]",
                    file.path.display().to_string(),
                    file.summary
                )?;
            }
            let diagnostics: Vec<_> = workspace
                .files
                .iter()
                .flat_map(|f| &f.diagnostics)
                .collect();
            if !diagnostics.is_empty() {
                writeln!(out)?;
                for d in diagnostics {
                    writeln!(out, "{d}")?;
                }
            }
            let share = if counts.tasks > 0 {
                100.0 * counts.no_call_tasks as f64 / counts.tasks as f64
            } else {
                0.0
            };
            writeln!(out)?;
            writeln!(
                out,
                "{} files: {} toolsets ({} tools),{} {} variants, {} suites ({} tasks: {} no-call = {share:.1}%, {} any-of, {} all-of, {} multi-step, {} with their own tool list; languages {}); {} errors, {} warnings",
                counts.files,
                counts.toolsets,
                counts.tools,
                if counts.bystanders > 0 {
                    format!(
                        " {} bystander servers ({} tools),",
                        counts.bystanders, counts.bystander_tools
                    )
                } else {
                    String::new()
                },
                counts.variants,
                counts.suites,
                counts.tasks,
                counts.no_call_tasks,
                counts.any_of_tasks,
                counts.all_of_tasks,
                counts.multi_step_tasks,
                counts.own_tool_list_tasks,
                if counts.languages.is_empty() {
                    "-".to_string()
                } else {
                    counts.languages.join(", ")
                },
                counts.errors,
                counts.warnings,
            )?;
        }
    }
    Ok(if workspace.has_errors() {
        ExitStatus::InvalidInput
    } else {
        ExitStatus::Success
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
