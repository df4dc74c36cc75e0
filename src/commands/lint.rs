//! `mcpick lint`: resolve the toolset (and variant), gather what is allowed (the toolset file's
//! `lint.allow`, the workspace's `mcpick.toml` `[lint]`, `--allow`), lint it, print findings
//! grouped by tool — in English, with the source chapter's own words for each rule only when
//! `--sources` asks — and count what was allowed.

use super::ExitStatus;
use crate::cli::OutputFormat;
use crate::lint::{Allowance, Finding, LintSeverity, Rule, lint_allowing};
use crate::load::ToolsetTarget;
use crate::spec::ConfigFile;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// How findings are printed.
#[derive(Debug, Clone, Copy)]
pub struct LintOutput {
    pub format: OutputFormat,
    /// With each finding, the chapter's own words for its rule.
    pub sources: bool,
}

/// What is allowed and what fails.
#[derive(Debug, Clone, Default)]
pub struct LintPolicy {
    /// Exit 1 when a finding (not allowed) at or above this severity is reported.
    pub fail_on: Option<LintSeverity>,
    /// `--allow`.
    pub allow: Vec<Allowance>,
    /// `--config`: where `[lint]` allowances are read (default `mcpick.toml` when there is one).
    pub config: Option<PathBuf>,
}

pub fn run_lint(
    toolset: &str,
    variant: Option<&str>,
    output: LintOutput,
    policy: LintPolicy,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    if output.format == OutputFormat::Markdown {
        writeln!(out, "{}", OutputFormat::markdown_refusal("lint"))?;
        return Ok(ExitStatus::InvalidInput);
    }
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
    let allowances = match allowances(target, &policy) {
        Ok(allowances) => allowances,
        Err(message) => {
            writeln!(out, "{message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let linted = lint_allowing(target, &allowances);
    let findings = &linted.findings;
    let label = match &target.variant {
        Some(v) => format!("{} (variant {v})", target.name),
        None => target.name.clone(),
    };
    let passage = |rule: &str| {
        Rule::by_id(rule)
            .filter(|_| output.sources)
            .map(Rule::passage)
    };
    // Every allowance in force: the toolset file's, then the workspace's and the command line's.
    let in_force: Vec<String> = target
        .lint_allow
        .iter()
        .cloned()
        .chain(allowances.iter().map(Allowance::to_string))
        .collect();
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
            let report = serde_json::json!({
                "toolset": target.name,
                "variant": target.variant,
                "tools": target.tools.len(),
                "findings": findings,
                "allowed": {
                    "count": linted.allowed.len(),
                    "by_rule": by_rule(&linted.allowed),
                    "allowances": in_force,
                },
            });
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            )?;
        }
        OutputFormat::Text | OutputFormat::Markdown => {
            for f in findings {
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
            let allowed = match linted.allowed.len() {
                0 => String::new(),
                n => {
                    let rules: Vec<String> = by_rule(&linted.allowed)
                        .into_iter()
                        .map(|(rule, n)| format!("{rule} {n}"))
                        .collect();
                    format!("; {n} findings allowed ({})", rules.join(", "))
                }
            };
            writeln!(
                out,
                "{label}: {} tools, {} findings ({} errors, {} warnings, {} info){allowed}",
                target.tools.len(),
                findings.len(),
                count(LintSeverity::Error),
                count(LintSeverity::Warning),
                count(LintSeverity::Info)
            )?;
        }
    }
    let failing = policy
        .fail_on
        .is_some_and(|threshold| findings.iter().any(|f| f.severity >= threshold));
    Ok(if failing {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}

/// The workspace's allowances for this toolset, then the command line's. A `--allow` naming a tool
/// the toolset does not have is refused (a typo would silently allow nothing); the config file's
/// may name tools of other variants, and its rules were checked when it was parsed.
fn allowances(
    toolset: &crate::model::Toolset,
    policy: &LintPolicy,
) -> Result<Vec<Allowance>, String> {
    let (config, path) = ConfigFile::load(policy.config.as_deref())?;
    let shown = path.map(|p| p.display().to_string()).unwrap_or_default();
    let mut allowances = Vec::new();
    for entry in config.lint.allowed_for(&toolset.name) {
        allowances.push(
            Allowance::parse(&entry).map_err(|e| format!("{shown}: error: [lint] allow: {e}"))?,
        );
    }
    for allowance in &policy.allow {
        if let Some(tool) = &allowance.tool
            && toolset.tool(tool).is_none()
        {
            return Err(format!(
                "error: --allow {allowance}: toolset {} has no tool {tool:?}",
                toolset.name
            ));
        }
        allowances.push(allowance.clone());
    }
    Ok(allowances)
}

/// How many allowed findings each rule has, by rule id.
fn by_rule(findings: &[Finding]) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for finding in findings {
        *counts.entry(finding.rule).or_insert(0) += 1;
    }
    counts
}
