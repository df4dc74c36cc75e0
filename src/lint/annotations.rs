//! The annotation checks (principle 6, anti-pattern 6): hints that contradict each other, a tool
//! whose name's verb destroys without `destructiveHint`, one whose verb only reads without
//! `readOnlyHint`. The verb is the one the name checks find (after the toolset's namespace).

use super::names::name_verb;
use super::verbs::{DESTRUCTIVE_VERBS, READ_ONLY_VERBS};
use super::{Finding, LintSeverity, Rule, push};
use crate::model::Tool;

pub(super) fn lint_annotations(tool: &Tool, namespace: &[String], findings: &mut Vec<Finding>) {
    let name = Some(tool.name.as_str());
    let hints = tool.annotations.clone().unwrap_or_default();
    if hints.read_only_hint == Some(true) && hints.destructive_hint == Some(true) {
        push(
            findings,
            name,
            Rule::ContradictoryHints,
            LintSeverity::Error,
            "readOnlyHint and destructiveHint are both true".into(),
            "a read-only tool cannot destroy data; set the hint that is true".into(),
        );
    }
    let Some(verb) = name_verb(&tool.name, namespace) else {
        return;
    };
    if DESTRUCTIVE_VERBS.contains(&verb.as_str()) {
        if hints.read_only_hint == Some(true) {
            push(findings, name, Rule::DestructiveWithoutHint, LintSeverity::Error, format!("a {verb:?} tool is marked readOnlyHint = true"),
                "clients skip confirmation for read-only tools; remove readOnlyHint and set destructiveHint = true".into());
        } else if hints.destructive_hint != Some(true) {
            push(findings, name, Rule::DestructiveWithoutHint, LintSeverity::Warning, format!("a {verb:?} tool does not declare destructiveHint = true"),
                "set annotations.destructiveHint = true so clients ask before calling it (and idempotentHint if a repeat is harmless)".into());
        }
    } else if READ_ONLY_VERBS.contains(&verb.as_str()) && hints.read_only_hint.is_none() {
        push(findings, name, Rule::ReadOnlyWithoutHint, LintSeverity::Info, format!("a {verb:?} tool does not declare readOnlyHint"),
            "set annotations.readOnlyHint = true if it changes nothing, so clients can call it without confirmation and in parallel".into());
    }
}
