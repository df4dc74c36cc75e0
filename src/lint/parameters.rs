//! The parameter checks: every parameter described, and not by one word (principle 2); optional
//! parameters with a useful default, never `null` (principle 3); and no two parameters a model
//! cannot tell apart by name (anti-pattern 3, `id` next to `userId`), judged on the names' words
//! rather than on substrings, so `thought` and `thoughtNumber` are two things.

use super::names::name_tokens;
use super::{Finding, LintSeverity, Rule, push, text_weight};
use crate::model::Tool;
use serde_json::Value;
use std::collections::BTreeSet;

pub(super) fn lint_parameters(tool: &Tool, findings: &mut Vec<Finding>) {
    let name = Some(tool.name.as_str());
    let required: BTreeSet<&str> = tool.required_parameters().into_iter().collect();
    let parameters: Vec<(&String, &Value)> = tool.parameters().collect();
    for (param, schema) in &parameters {
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        if description.is_empty() {
            push(
                findings,
                name,
                Rule::ParamWithoutDescription,
                LintSeverity::Warning,
                format!("parameter {param:?} has no description"),
                format!("describe {param:?}: its meaning, format and an example value"),
            );
        } else if text_weight(description) < 2.0 || name_tokens(description) == name_tokens(param) {
            push(
                findings,
                name,
                Rule::ParamDescriptionUninformative,
                LintSeverity::Warning,
                format!("parameter {param:?} is described only as {description:?}"),
                format!(
                    "say what {param:?} means, its format or allowed values, and give an example value"
                ),
            );
        }
        if !required.contains(param.as_str()) {
            match schema.get("default") {
                Some(Value::Null) => push(
                    findings,
                    name,
                    Rule::NullDefault,
                    LintSeverity::Warning,
                    format!("optional parameter {param:?} defaults to null"),
                    format!(
                        "give {param:?} the value the common case needs (e.g. `timeout: 30` rather than `timeout: null`)"
                    ),
                ),
                None if schema.get("const").is_none() => push(
                    findings,
                    name,
                    Rule::OptionalWithoutDefault,
                    LintSeverity::Info,
                    format!("optional parameter {param:?} has no default"),
                    format!(
                        "declare the value used when {param:?} is left out, so the model can safely omit it"
                    ),
                ),
                _ => {}
            }
        }
    }
    for (i, (a, a_schema)) in parameters.iter().enumerate() {
        for (b, b_schema) in &parameters[i + 1..] {
            if let Some(why) = confusable(a, a_schema, b, b_schema) {
                push(findings, name, Rule::OverlappingParams, LintSeverity::Warning, format!("parameters {a:?} and {b:?} overlap in meaning: {why}"),
                    "merge them or rename one so a model knows which to fill (e.g. `id` next to `userId`)".into());
            }
        }
    }
}

/// Why two parameter names would leave a model unsure which to fill, if they would. Names are
/// compared as sets of normalised words (lowercase, singular, common abbreviations spelled out):
/// - the same words (`user_id` and `userId`, `file` and `files`, `dir` and `directory`);
/// - or one name's words all within the other's, with the same last word — the head of an English
///   compound, what the value is — and values of the same JSON type: `userId` is a kind of `id`,
///   `outputPath` a kind of `path`; `thoughtNumber` is a number, not a `thought`, and an integer
///   `revisesThought` is not the string `thought`.
fn confusable(a: &str, a_schema: &Value, b: &str, b_schema: &Value) -> Option<&'static str> {
    let (wa, wb) = (parameter_words(a), parameter_words(b));
    let (sa, sb): (BTreeSet<&String>, BTreeSet<&String>) =
        (wa.iter().collect(), wb.iter().collect());
    if sa == sb {
        return Some("their names have the same words");
    }
    let nested = sa.is_subset(&sb) || sb.is_subset(&sa);
    let same_head = wa.last().is_some() && wa.last() == wb.last();
    (nested && same_head && types_agree(a_schema, b_schema))
        .then_some("one names a kind of what the other names, with values of the same type")
}

/// A parameter name's words, singular, abbreviations spelled out.
fn parameter_words(name: &str) -> Vec<String> {
    name_tokens(name)
        .into_iter()
        .map(|word| spelled_out(&singular(&word)).to_string())
        .collect()
}

/// A plural noun's singular, by the regular English endings (`entities` → `entity`, `boxes` →
/// `box`, `files` → `file`); words ending in `ss`, `us` or `is` are left alone.
fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies")
        && stem.len() >= 2
    {
        return format!("{stem}y");
    }
    if let Some(stem) = word.strip_suffix("es")
        && ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|end| stem.ends_with(end))
    {
        return stem.to_string();
    }
    match word.strip_suffix('s') {
        Some(stem) if word.len() > 2 && !["ss", "us", "is"].iter().any(|e| word.ends_with(e)) => {
            stem.to_string()
        }
        _ => word.to_string(),
    }
}

/// The word an abbreviation common in parameter names stands for.
fn spelled_out(word: &str) -> &str {
    match word {
        "identifier" => "id",
        "dir" => "directory",
        "num" | "no" => "number",
        "msg" => "message",
        "desc" => "description",
        "cfg" | "conf" | "config" => "configuration",
        "param" => "parameter",
        "arg" => "argument",
        "src" => "source",
        "dst" | "dest" => "destination",
        "max" => "maximum",
        "min" => "minimum",
        "len" => "length",
        "img" => "image",
        "url" | "uri" => "url",
        other => other,
    }
}

/// Whether two parameter schemas hold the same kind of value: the same JSON types (`null` aside:
/// an optional `["string", "null"]` is a string), or one declares none. A string next to a
/// `["boolean", "string"]` flag is not the same kind: the flag is a boolean a lenient server also
/// takes spelled out.
fn types_agree(a: &Value, b: &Value) -> bool {
    let types = |schema: &Value| -> BTreeSet<String> {
        let listed: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        listed
            .into_iter()
            .filter(|t| *t != "null")
            .map(str::to_string)
            .collect()
    };
    let (ta, tb) = (types(a), types(b));
    ta.is_empty() || tb.is_empty() || ta == tb
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn overlaps(a: (&str, &str), b: (&str, &str)) -> bool {
        confusable(a.0, &json!({"type": a.1}), b.0, &json!({"type": b.1})).is_some()
    }

    #[test]
    fn a_kind_of_the_same_thing_overlaps() {
        assert!(overlaps(("id", "string"), ("userId", "string")));
        assert!(
            confusable(
                "id",
                &json!({"type": "string"}),
                "userId",
                &json!({"type": ["string", "null"]})
            )
            .is_some()
        );
        assert!(overlaps(("path", "string"), ("outputPath", "string")));
    }

    #[test]
    fn the_same_words_however_spelled_overlap() {
        assert!(overlaps(("user_id", "string"), ("userId", "string")));
        assert!(overlaps(("file", "string"), ("files", "array")));
        assert!(overlaps(("dir", "string"), ("directory", "string")));
    }

    #[test]
    fn a_word_in_common_is_not_an_overlap() {
        // The sequential-thinking server's parameters.
        assert!(!overlaps(
            ("thought", "string"),
            ("thoughtNumber", "integer")
        ));
        assert!(!overlaps(
            ("thought", "string"),
            ("nextThoughtNeeded", "boolean")
        ));
        assert!(!overlaps(
            ("thought", "string"),
            ("revisesThought", "integer")
        ));
        assert!(!overlaps(
            ("thought", "string"),
            ("branchFromThought", "integer")
        ));
        assert!(
            confusable(
                "thought",
                &json!({"type": "string"}),
                "needsMoreThoughts",
                &json!({"type": ["boolean", "string"]})
            )
            .is_none()
        );
        // Playwright's browser_wait_for: text to appear, text to disappear.
        assert!(!overlaps(("text", "string"), ("textGone", "string")));
    }

    #[test]
    fn plurals_become_singular_and_other_words_stay() {
        assert_eq!(singular("entities"), "entity");
        assert_eq!(singular("boxes"), "box");
        assert_eq!(singular("files"), "file");
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("address"), "address");
        assert_eq!(singular("ids"), "id");
    }
}
