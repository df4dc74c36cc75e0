//! The candidate built without a model: the lint's own suggestions carried out. A parameter the
//! lint finds undescribed or described only by its name gets its meaning, format or allowed values
//! and an example, read from its JSON Schema (type, `enum`, `format`, `pattern`, bounds, `default`,
//! `examples`); the description gets the sentence the similar-descriptions rule asks for — "For
//! …, use NEIGHBOUR instead." — built from each confusable neighbour's own words (and, for a tool
//! with no description, "Use this to …" from its name). Nothing here reads a task. Pure.

use super::targets::Target;
use super::wording::{Wording, wording_of};
use crate::lint::{Finding, is_action_verb, name_tokens};
use crate::model::{Tool, Toolset};
use serde_json::Value;

/// At most this many neighbours are named in the "not for" sentence.
const NEIGHBOURS_NAMED: usize = 2;

/// The rules' wording for `target`, or `None` when the rules have nothing to add.
pub fn rule_wording(toolset: &Toolset, target: &Target, findings: &[Finding]) -> Option<Wording> {
    let tool = toolset.tool(&target.standing.tool)?;
    let mut wording = wording_of(tool);
    let mut changed = false;
    for (param, schema) in tool.parameters() {
        let flagged = findings.iter().any(|f| {
            f.tool.as_deref() == Some(tool.name.as_str())
                && matches!(
                    f.rule,
                    "param-without-description" | "param-description-uninformative"
                )
                && f.message.starts_with(&format!("parameter {param:?} "))
        });
        if flagged {
            wording
                .params
                .insert(param.clone(), parameter_text(tool, param, schema));
            changed = true;
        }
    }
    let neighbours: Vec<&Tool> = target
        .neighbours
        .iter()
        .filter_map(|n| toolset.tool(n))
        .take(NEIGHBOURS_NAMED)
        .collect();
    if !neighbours.is_empty() {
        let mut description = sentence(wording.description.trim());
        if description.is_empty() {
            let own = purpose(tool);
            let link = if own.split(' ').next().is_some_and(is_action_verb) {
                "to"
            } else {
                "for"
            };
            description = format!("Use this {link} {own}.");
        }
        for neighbour in neighbours {
            description.push_str(&format!(
                " For {}, use {} instead.",
                purpose(neighbour),
                neighbour.name
            ));
        }
        wording.description = description;
        changed = true;
    }
    changed.then_some(wording)
}

/// A text ending in a full stop (empty stays empty).
pub(super) fn sentence(text: &str) -> String {
    match text.chars().last() {
        None => String::new(),
        Some('.' | '!' | '?') => text.to_string(),
        Some(_) => format!("{text}."),
    }
}

/// What a tool is for, in a few lowercase words: its description's first clause when it has one,
/// else its name's words.
fn purpose(tool: &Tool) -> String {
    let description = tool.description.as_deref().unwrap_or("").trim();
    let first = description
        .split_terminator(['.', '\n', ':', ';'])
        .next()
        .unwrap_or("")
        .trim();
    let words = if first.is_empty() {
        name_tokens(&tool.name).join(" ")
    } else {
        first.to_string()
    };
    let mut chars = words.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => words,
    }
}

/// A parameter's description from its schema: what it is (its name's words, the tool's subject),
/// its type or format, its allowed values or bounds, its default, an example.
fn parameter_text(tool: &Tool, param: &str, schema: &Value) -> String {
    let words = name_tokens(param).join(" ");
    let mut parts = vec![format!("The {words}")];
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("");
    match schema.get("format").and_then(Value::as_str) {
        Some("date") => parts.push("as a date, YYYY-MM-DD".into()),
        Some("date-time") => parts.push("as an ISO 8601 date and time".into()),
        Some("email") => parts.push("as an email address".into()),
        Some("uri") => parts.push("as a URI".into()),
        Some(other) => parts.push(format!("in {other} format")),
        None if kind == "integer" => parts.push("as a whole number".into()),
        None if kind == "number" => parts.push("as a number".into()),
        None if kind == "boolean" => parts.push("(true or false)".into()),
        None if kind == "array" => parts.push("as a list".into()),
        None => {}
    }
    let mut text = parts.join(", ");
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(value_text).collect();
        text.push_str(&format!("; one of {}", values.join(", ")));
    }
    match (schema.get("minimum"), schema.get("maximum")) {
        (Some(low), Some(high)) => text.push_str(&format!(", from {low} to {high}")),
        (Some(low), None) => text.push_str(&format!(", at least {low}")),
        (None, Some(high)) => text.push_str(&format!(", at most {high}")),
        (None, None) => {}
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        text.push_str(&format!(", matching {pattern}"));
    }
    text.push('.');
    if let Some(default) = schema.get("default").filter(|d| !d.is_null()) {
        text.push_str(&format!(" Default {}.", value_text(default)));
    }
    let example = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
        .or_else(|| schema.get("example"));
    if let Some(example) = example {
        text.push_str(&format!(" Example: {}.", value_text(example)));
    }
    if !tool.required_parameters().contains(&param) && schema.get("default").is_none() {
        text.push_str(" Optional.");
    }
    text
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}
