//! `mcpick lint`: resolve the toolset (and variant), lint it, print findings grouped by tool.

use super::Outcome;
use crate::cli::OutputFormat;
use crate::lint::{LintSeverity, lint};
use crate::load::Workspace;
use crate::model::Toolset;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run_lint(
    toolset: &str,
    variant: Option<&str>,
    format: OutputFormat,
    fail_on: Option<LintSeverity>,
    out: &mut dyn Write,
) -> std::io::Result<Outcome> {
    let mut paths = vec![toolset_path(toolset)];
    match variant {
        Some(v) if looks_like_path(v) => paths.push(PathBuf::from(v)),
        Some(_) => paths.push(PathBuf::from("toolsets/variants")),
        None => {}
    }
    let workspace = Workspace::load(&paths);
    let Some(target) = pick(&workspace, toolset, variant) else {
        for d in workspace
            .files
            .iter()
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.is_error())
        {
            writeln!(out, "{d}")?;
        }
        let wanted = variant.map_or_else(
            || format!("toolset {toolset:?}"),
            |v| format!("variant {v:?} of {toolset:?}"),
        );
        writeln!(
            out,
            "cannot lint {wanted}: it did not load (see above), or no such file/name"
        )?;
        return Ok(Outcome::InvalidInput);
    };
    let findings = lint(target);
    let label = match &target.variant {
        Some(v) => format!("{} (variant {v})", target.name),
        None => target.name.clone(),
    };
    match format {
        OutputFormat::Json => {
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
        Outcome::Findings
    } else {
        Outcome::Success
    })
}

fn pick<'a>(workspace: &'a Workspace, toolset: &str, variant: Option<&str>) -> Option<&'a Toolset> {
    let base = if looks_like_path(toolset) {
        let path = normal(Path::new(toolset));
        workspace
            .toolsets
            .iter()
            .find(|t| normal(&t.source) == path)?
    } else {
        workspace.toolset(toolset)?
    };
    match variant {
        None => Some(base),
        Some(v) if looks_like_path(v) => {
            let path = normal(Path::new(v));
            workspace
                .variants
                .iter()
                .find(|x| normal(&x.source) == path && x.base == base.name)
                .map(|x| &x.toolset)
        }
        Some(v) => workspace
            .variants
            .iter()
            .find(|x| x.name == v && x.base == base.name)
            .map(|x| &x.toolset),
    }
}

fn toolset_path(toolset: &str) -> PathBuf {
    if looks_like_path(toolset) {
        return PathBuf::from(toolset);
    }
    let json = PathBuf::from(format!("toolsets/{toolset}.json"));
    if json.is_file() {
        json
    } else {
        PathBuf::from(format!("toolsets/{toolset}.toml"))
    }
}

fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.ends_with(".toml") || s.ends_with(".json")
}

fn normal(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}
