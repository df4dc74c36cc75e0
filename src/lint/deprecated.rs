//! A tool marked deprecated — by its description ("DEPRECATED: Use read_text_file instead"), its
//! title, or a `deprecated` flag in its annotations or `_meta` — is still listed, still competes for
//! every pick its replacement should win, and is the hardest pick of the filesystem server. The
//! finding names the tool it points to, when its text names another tool of the toolset.

use super::{Finding, LintSeverity, Rule, push};
use crate::model::{Tool, Toolset};
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

static DEPRECATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(deprecated|obsolete|no longer supported|superseded by)\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

pub(super) fn lint_deprecated(toolset: &Toolset, findings: &mut Vec<Finding>) {
    for tool in &toolset.tools {
        let text = [tool.title.as_deref(), tool.description.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let annotations = tool
            .annotations
            .as_ref()
            .and_then(|a| serde_json::to_value(a).ok());
        let flagged =
            flagged(annotations.as_ref().and_then(Value::as_object)) || flagged(tool.meta.as_ref());
        if !DEPRECATED.is_match(&text) && !flagged {
            continue;
        }
        let replacement = replacement(&text, tool, toolset);
        let (message, suggestion) = match replacement {
            Some(other) => (
                format!("the tool is marked deprecated in favour of {other}, yet it is still listed"),
                format!("drop it from the tools the server lists; while it is listed, models still pick it where {other} is right"),
            ),
            None => (
                "the tool is marked deprecated, yet it is still listed".to_string(),
                "drop it from the tools the server lists, or name the tool that replaces it in its description".to_string(),
            ),
        };
        push(
            findings,
            Some(&tool.name),
            Rule::Deprecated,
            LintSeverity::Warning,
            message,
            suggestion,
        );
    }
}

/// Whether an annotations or `_meta` object says `deprecated` (true, or a reason).
fn flagged(object: Option<&serde_json::Map<String, Value>>) -> bool {
    object.into_iter().flatten().any(|(key, value)| {
        key.to_lowercase().contains("deprecated")
            && !matches!(value, Value::Bool(false) | Value::Null)
    })
}

/// The other tool of the toolset the deprecated tool's text names (the first it mentions).
fn replacement<'a>(text: &str, tool: &Tool, toolset: &'a Toolset) -> Option<&'a str> {
    toolset
        .tools
        .iter()
        .filter(|other| other.name != tool.name)
        .filter_map(|other| {
            let pattern = format!(r"\b{}\b", regex::escape(&other.name));
            let at = Regex::new(&pattern).ok()?.find(text)?.start();
            Some((at, other.name.as_str()))
        })
        .min()
        .map(|(_, name)| name)
}
