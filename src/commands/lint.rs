//! `mcpick lint`: resolve the toolset (and variant), lint it, print findings grouped by tool — in
//! English, with the source chapter's own words for each rule only when `--sources` asks.

use super::ExitStatus;
use crate::cli::OutputFormat;
use crate::lint::{LintSeverity, Rule, lint};
use crate::load::ToolsetTarget;
use std::io::Write;

/// How findings are printed.
#[derive(Debug, Clone, Copy)]
pub struct LintOutput {
    pub format: OutputFormat,
    /// With each finding, the chapter's own words for its rule.
    pub sources: bool,
}

pub fn run_lint(
    toolset: &str,
    variant: Option<&str>,
    output: LintOutput,
    fail_on: Option<LintSeverity>,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let wanted = ToolsetTarget {
        toolset: toolset.to_string(),
        variant: variant.map(str::to_string),
    };
    let loaded = match wanted.load() {
        Ok(loaded) => loaded,
        Err(errors) => {
            for d in errors {
                writeln!(out, "{d}")?;
            }
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let target = &loaded;
    let findings = lint(target);
    let label = match &target.variant {
        Some(v) => format!("{} (variant {v})", target.name),
        None => target.name.clone(),
    };
    let passage = |rule: &str| {
        Rule::by_id(rule)
            .filter(|_| output.sources)
            .map(Rule::passage)
    };
    match output.format {
        OutputFormat::Json => {
            let findings: Vec<serde_json::Value> = findings
                .iter()
                .map(|f| {
                    let mut value = serde_json::to_value(f).unwrap_or_default();
                    if let Some(passage) = passage(f.rule) {
                        value["passage"] = serde_json::json!(passage);
                    }
                    value
                })
                .collect();
            let report = serde_json::json!({ "toolset": target.name, "variant": target.variant, "tools": target.tools.len(), "findings": findings });
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            )?;
        }
        OutputFormat::Text => {
            for f in &findings {
                let severity = match f.severity {
                    LintSeverity::Info => "info",
                    LintSeverity::Warning => "warning",
                    LintSeverity::Error => "error",
                };
                writeln!(
                    out,
                    "{severity:<7} {:<24} {:<32} {}",
                    f.tool.as_deref().unwrap_or("(toolset)"),
                    f.rule,
                    f.message
                )?;
                writeln!(out, "        suggestion: {}  [{}]", f.suggestion, f.source)?;
                if let Some(passage) = passage(f.rule) {
                    writeln!(out, "        passage: {passage}")?;
                }
            }
            let count = |s| findings.iter().filter(|f| f.severity == s).count();
            writeln!(
                out,
                "{label}: {} tools, {} findings ({} errors, {} warnings, {} info)",
                target.tools.len(),
                findings.len(),
                count(LintSeverity::Error),
                count(LintSeverity::Warning),
                count(LintSeverity::Info)
            )?;
        }
    }
    let failing = fail_on.is_some_and(|threshold| findings.iter().any(|f| f.severity >= threshold));
    Ok(if failing {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}
