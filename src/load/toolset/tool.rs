//! One tool checked: its name (SEP-986's characters and length, unique in the file), a description
//! that is not empty, its input and output schemas compiled, and its behaviour; TOML datetimes in
//! its schemas and fixtures read as strings.

use super::behavior::BehaviorChecks;
use crate::load::Diagnostic;
use crate::load::diagnostic::misspelling_of;
use crate::load::source::SourceText;
use crate::model::{Behavior, Tool};
use crate::registry::compile_object_schema;
use crate::spec::{Located, ToolAnnotations, ToolSpec, toml_datetimes_as_strings};
use serde_json::Value;
use std::collections::HashMap;
use std::ops::Range;

/// Checks tools one at a time, remembering names already seen in this file.
pub struct ToolChecker<'a> {
    source: &'a SourceText,
    first_seen: HashMap<String, Option<Range<usize>>>,
}

impl<'a> ToolChecker<'a> {
    pub fn new(source: &'a SourceText) -> ToolChecker<'a> {
        ToolChecker {
            source,
            first_seen: HashMap::new(),
        }
    }

    /// Declares a name as taken (a base tool when checking a variant's additions).
    pub fn reserve(&mut self, name: &str) {
        self.first_seen.insert(name.to_string(), None);
    }

    /// Records a duplicate, or remembers where the name was first defined.
    fn check_unique(
        &mut self,
        name: &str,
        span: Option<&Range<usize>>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match self.first_seen.get(name) {
            Some(first) => {
                let first = first
                    .as_ref()
                    .map(|s| format!(" (first defined on line {})", self.source.line_of(s.start)))
                    .unwrap_or_default();
                diagnostics.push(
                    self.source
                        .error(span, format!("duplicate tool name {name:?}{first}"))
                        .help("tool names must be unique within a toolset (MCP clients call tools by name); rename or remove one"),
                );
            }
            None => {
                self.first_seen.insert(name.to_string(), span.cloned());
            }
        }
    }

    /// Turns one written tool into a `Tool`, or records why it cannot be one. `fallback` positions
    /// problems whose own span is unknown (JSON files).
    pub fn tool(
        &mut self,
        mut spec: ToolSpec,
        fallback: Option<Range<usize>>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Tool> {
        let source = self.source;
        normalize_datetimes(&mut spec);
        let at = |span: &Option<Range<usize>>| span.clone().or_else(|| fallback.clone());
        let name = spec.name.value.clone();
        let name_span = at(&spec.name.span);
        let errors_before = diagnostics.iter().filter(|d| d.is_error()).count();

        diagnostics.extend(check_tool_name(source, &name, name_span.as_ref()));
        diagnostics.extend(misspelled_keys(source, &spec, name_span.as_ref()));
        self.check_unique(&name, name_span.as_ref(), diagnostics);
        if spec
            .description
            .as_ref()
            .is_some_and(|d| d.trim().is_empty())
        {
            let span = at(&spec.description.as_ref().and_then(|d| d.span.clone()));
            diagnostics.push(source.warning(span.as_ref(), format!("tool {name:?} has an empty description")).help(
                "say what the tool does, when to use it, its limits and argument formats; `mcpick lint` explains",
            ));
        }

        let input_schema = match spec.input_schema {
            Some(schema) => schema,
            None => {
                Located::new(serde_json::json!({"type": "object", "additionalProperties": false}))
            }
        };
        let schema_at = |schema: &Located<Value>,
                         which: &str,
                         diagnostics: &mut Vec<Diagnostic>| {
            compile_object_schema(schema)
                .map_err(|e| {
                    diagnostics.push(
                        source
                            .error(at(&schema.span).as_ref(), format!("tool {name:?}: {which}: {e}"))
                            .help("fix the schema; it must compile as JSON Schema (2020-12 unless \"$schema\" says otherwise)"),
                    )
                })
                .ok()
        };
        schema_at(&input_schema, "inputSchema", diagnostics);
        let output_validator = spec
            .output_schema
            .as_ref()
            .and_then(|schema| schema_at(schema, "outputSchema", diagnostics));

        let properties: Vec<String> = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect();
        let behavior = match &spec.behavior {
            Some(written) => {
                let checks = BehaviorChecks {
                    source,
                    tool: &name,
                    properties: &properties,
                    input_schema: &input_schema,
                    output: output_validator.as_ref(),
                    fallback: at(&written.span),
                };
                checks.behavior(&written.value, diagnostics)
            }
            None => {
                if spec.output_schema.is_some() {
                    diagnostics.push(source.error(name_span.as_ref(), format!("tool {name:?} declares an outputSchema but has no behavior")).help(
                        "add a [tool.behavior] with `structured = { ... }` matching the outputSchema (echo cannot produce structured content)",
                    ));
                }
                Some(Behavior::default())
            }
        };
        let errors_after = diagnostics.iter().filter(|d| d.is_error()).count();
        if errors_after > errors_before {
            return None;
        }
        Some(Tool {
            name,
            title: spec.title,
            description: spec.description.map(|d| d.value),
            input_schema: input_schema.value,
            output_schema: spec.output_schema.map(|s| s.value),
            annotations: spec.annotations,
            icons: spec.icons,
            execution: spec.execution,
            meta: spec.meta,
            extra: spec.extra,
            behavior: behavior?,
            line: name_span.map(|s| source.line_of(s.start)),
        })
    }
}

/// A key beyond MCP's that looks like a slip of one it defines (`descripton`, `input_schema`) is an
/// error, since the tool would silently lose what was meant; any other extra key is kept.
fn misspelled_keys(
    source: &SourceText,
    spec: &ToolSpec,
    at: Option<&Range<usize>>,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut check = |keys: &mut dyn Iterator<Item = &String>, known: &[&str], what: &str| {
        for key in keys {
            if let Some(near) = misspelling_of(key, known.iter().copied()) {
                let from = at.map_or(0, |span| span.start);
                let span = key_span(&source.text, key, from).or_else(|| at.cloned());
                found.push(
                    source
                        .error(span.as_ref(), format!("tool {:?}: unknown key `{key}` in {what}", spec.name.value))
                        .help(format!("did you mean `{near}`? Other keys are kept and passed to clients as they are")),
                );
            }
        }
    };
    check(&mut spec.extra.keys(), &ToolSpec::KNOWN_KEYS, "the tool");
    if let Some(annotations) = &spec.annotations {
        check(
            &mut annotations.extra.keys(),
            &ToolAnnotations::KNOWN_KEYS,
            "its annotations",
        );
    }
    found
}

/// Where `key` is written as a key (TOML `key =`, JSON `"key":`) at or after `from`: the spans
/// serde keeps are of values, and a misspelt key is best shown where it is.
fn key_span(text: &str, key: &str, from: usize) -> Option<Range<usize>> {
    let mut start = from;
    while let Some(found) = text.get(start..)?.find(key) {
        let at = start + found;
        let end = at + key.len();
        let before = text[..at].trim_end_matches([' ', '\t']);
        let opened =
            before.is_empty() || before.ends_with(['\n', '{', ',', '"']) || before.ends_with("\r");
        let after = text[end..].trim_start_matches('"').trim_start();
        if opened && (after.starts_with('=') || after.starts_with(':')) {
            let quoted = text[..at].ends_with('"');
            return Some(if quoted { at - 1..end + 1 } else { at..end });
        }
        start = end;
    }
    None
}

fn normalize_datetimes(spec: &mut ToolSpec) {
    let schemas = [spec.input_schema.as_mut(), spec.output_schema.as_mut()];
    for schema in schemas.into_iter().flatten() {
        toml_datetimes_as_strings(&mut schema.value);
    }
    if let Some(behavior) = spec.behavior.as_mut() {
        let behavior = &mut behavior.value;
        behavior
            .structured
            .iter_mut()
            .for_each(toml_datetimes_as_strings);
        for rule in &mut behavior.rules {
            rule.value
                .structured
                .iter_mut()
                .for_each(toml_datetimes_as_strings);
            rule.value
                .when
                .value
                .values_mut()
                .for_each(toml_datetimes_as_strings);
        }
    }
}

/// SEP-986 asks for 1–128 characters of `A-Z a-z 0-9 _ - .`; the SDKs warn rather than refuse, and so
/// do we, except for an empty name, which no client can call.
pub fn check_tool_name(
    source: &SourceText,
    name: &str,
    span: Option<&Range<usize>>,
) -> Vec<Diagnostic> {
    if name.is_empty() {
        return vec![
            source
                .error(span, "a tool name must not be empty")
                .help("use a short verb-first name such as \"get_weather\""),
        ];
    }
    let mut found = Vec::new();
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        found.push(source.warning(span, format!("tool name {name:?} contains {bad:?}; MCP (SEP-986) allows only A-Z, a-z, 0-9, '_', '-' and '.'")).help(
            "rename it, e.g. with '_' instead; some clients and model APIs reject such names",
        ));
    }
    let length = name.chars().count();
    if length > 64 {
        found.push(source.warning(span, format!("tool name {name:?} is {length} characters; keep names within 64 (SEP-986 allows 128, older clients 64)")).help("shorten it"));
    }
    found
}
