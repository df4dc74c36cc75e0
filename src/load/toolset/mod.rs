//! Toolset files (TOML, or JSON holding a captured `tools/list`) into `model::Toolset`: tool names,
//! schemas compiled, behaviours checked against the schemas they answer for.
//!
//! This file reads the two kinds of toolset file (and, for JSON, finds each tool's position in the
//! text) and holds `Loaded`, what loading any file produced; `tool` checks one tool, `behavior` the
//! fixture behaviour it answers with, and `parameters` holds the parameter checks suites and
//! variants use too.

mod behavior;
mod parameters;
mod tool;

pub use parameters::{check_literal, parameters_help};
pub use tool::{ToolChecker, check_tool_name};

use super::Diagnostic;
use super::source::{SourceText, json_error_help};
use crate::lint::Allowance;
use crate::model::{RegistryListing, Toolset};
use crate::spec::{FORMAT_VERSION, LintAllow, ToolSpec, ToolsetFile};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::ops::Range;

/// What loading one file produced: the value (if usable) and every diagnostic.
pub struct Loaded<T> {
    pub value: Option<T>,
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Loaded<T> {
    pub fn failed(diagnostic: Diagnostic) -> Loaded<T> {
        Loaded {
            value: None,
            diagnostics: vec![diagnostic],
        }
    }

    /// The value, unless an error was found.
    pub fn finish(value: T, diagnostics: Vec<Diagnostic>) -> Loaded<T> {
        let value = (!diagnostics.iter().any(Diagnostic::is_error)).then_some(value);
        Loaded { value, diagnostics }
    }
}

/// Loads a TOML toolset.
pub fn load_toml_toolset(source: &SourceText) -> Loaded<Toolset> {
    let file: ToolsetFile = match source.parse_toml() {
        Ok(file) => file,
        Err(d) => return Loaded::failed(d),
    };
    if let Err(d) = source.check_format(&file.format) {
        return Loaded::failed(d);
    }
    let mut diagnostics = Vec::new();
    let name = file
        .name
        .map(|n| n.value)
        .unwrap_or_else(|| file_stem(source));
    let mut checker = ToolChecker::new(source);
    let tools = file
        .tools
        .into_iter()
        .filter_map(|spec| checker.tool(spec.value, spec.span, &mut diagnostics))
        .collect();
    let lint_allow = file.lint.map(|l| l.allow).unwrap_or_default();
    let lint_span = source.text.find("[lint]").map(|at| at..at + "[lint]".len());
    check_lint_allow(source, &lint_allow, lint_span.as_ref(), &mut diagnostics);
    let toolset = Toolset {
        name,
        description: file.description,
        instructions: file.instructions,
        source: source.path.clone(),
        variant: None,
        tools,
        lint_allow,
        registry: registry_listing(file.imported.as_ref()),
    };
    Loaded::finish(toolset, diagnostics)
}

/// Loads a JSON toolset: `{"tools": [...]}` or a JSON-RPC response whose `result` holds that.
pub fn load_json_toolset(source: &SourceText) -> Loaded<Toolset> {
    let document: Value = match serde_json::from_str(&source.text) {
        Ok(v) => v,
        Err(e) => {
            let message = e.to_string();
            let help = json_error_help(&message);
            return Loaded::failed(
                Diagnostic::error(&source.path, strip_position(&message))
                    .at(e.line(), e.column())
                    .help(help),
            );
        }
    };
    let (container, tools) = match tools_array(&document) {
        Some(found) => found,
        None => {
            return Loaded::failed(
                source
                    .error(None, "expected a tools/list result: an object with a \"tools\" array")
                    .help("save the `result` of a tools/list response, e.g. {\"tools\": [...]}, or the whole JSON-RPC response"),
            );
        }
    };
    let mut diagnostics = Vec::new();
    const KNOWN_KEYS: [&str; 12] = [
        "format",
        "name",
        "description",
        "instructions",
        // `{"allow": [...]}`: lint rules allowed for this toolset.
        "lint",
        // Where `mcpick import` took the tools from and the MCP version it spoke.
        "imported",
        "tools",
        "nextCursor",
        "_meta",
        "jsonrpc",
        "id",
        "result",
    ];
    for key in container
        .keys()
        .chain(document.as_object().into_iter().flat_map(|o| o.keys()))
    {
        if !KNOWN_KEYS.contains(&key.as_str()) {
            let span = find_json_key(&source.text, key, 0);
            // A result a server sent may carry keys of its own; they say nothing about the tools.
            diagnostics.push(
                source
                    .warning(
                        span.as_ref(),
                        format!("unknown key `{key}` in a JSON toolset is ignored"),
                    )
                    .help(format!(
                        "the top-level keys read: {}; remove it or fix its spelling",
                        KNOWN_KEYS.join(", ")
                    )),
            );
        }
    }
    if let Some(format) = container.get("format").or_else(|| document.get("format"))
        && format.as_u64() != Some(u64::from(FORMAT_VERSION))
    {
        {
            let span = find_json_key(&source.text, "format", 0);
            diagnostics.push(
                source
                    .error(span.as_ref(), format!("unsupported format {format}"))
                    .help(format!("use \"format\": {FORMAT_VERSION} or leave it out")),
            );
        }
    }
    let name = match container.get("name").or_else(|| document.get("name")) {
        Some(Value::String(name)) => name.clone(),
        _ => file_stem(source),
    };
    let description = container
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut checker = ToolChecker::new(source);
    let mut seen_names: HashMap<&str, usize> = HashMap::new();
    let mut result_tools = Vec::new();
    for (index, raw) in tools.iter().enumerate() {
        // JSON keeps no positions: find this tool's `"name": "..."` in the text (the n-th one for repeats).
        let written_name = raw.get("name").and_then(Value::as_str).unwrap_or("");
        let nth = seen_names
            .entry(written_name)
            .and_modify(|n| *n += 1)
            .or_insert(0);
        let span = find_json_name(&source.text, written_name, *nth)
            .or_else(|| find_json_key(&source.text, "tools", 0));
        // A plain `tools/list` result has no `behavior`: a tool that must answer with structured
        // content gets what `import` would have given it, with a warning.
        let raw = &without_missing_behavior(raw, span.as_ref(), source, &mut diagnostics);
        match serde_json::from_value::<ToolSpec>(raw.clone()) {
            Ok(spec) => result_tools.extend(checker.tool(spec, span, &mut diagnostics)),
            Err(e) => {
                let message = format!(
                    "tool #{} {}: {}",
                    index + 1,
                    quoted_or_unnamed(written_name),
                    e
                );
                let help = json_error_help(&e.to_string());
                diagnostics.push(source.error(span.as_ref(), message).help(help));
            }
        }
    }
    let instructions = container
        .get("instructions")
        .and_then(Value::as_str)
        .map(str::to_string);
    let lint_span = find_json_key(&source.text, "lint", 0);
    let lint_allow = match container
        .get("lint")
        .map(|l| serde_json::from_value::<LintAllow>(l.clone()))
    {
        None => Vec::new(),
        Some(Ok(lint)) => lint.allow,
        Some(Err(e)) => {
            diagnostics.push(
                source
                    .error(
                        lint_span.as_ref(),
                        format!("`lint`: {}", strip_position(&e.to_string())),
                    )
                    .help("write `\"lint\": {\"allow\": [\"RULE\", \"TOOL:RULE\"]}`"),
            );
            Vec::new()
        }
    };
    check_lint_allow(source, &lint_allow, lint_span.as_ref(), &mut diagnostics);
    let toolset = Toolset {
        name,
        description,
        instructions,
        source: source.path.clone(),
        variant: None,
        tools: result_tools,
        lint_allow,
        registry: registry_listing(container.get("imported")),
    };
    Loaded::finish(toolset, diagnostics)
}

/// What an imported toolset keeps of the server's registry entry (`imported.registry`), if it
/// came from a `server.json`; one that does not read is left out (lint has nothing to check).
fn registry_listing(imported: Option<&Value>) -> Option<RegistryListing> {
    serde_json::from_value(imported?.get("registry")?.clone()).ok()
}

/// `raw` with a simulated `behavior` when it declares an `outputSchema` and has none — what
/// `import` gives it — and a warning saying so: reported, not ignored, and not a reason to refuse a
/// plain `tools/list` result.
fn without_missing_behavior(
    raw: &Value,
    span: Option<&Range<usize>>,
    source: &SourceText,
    diagnostics: &mut Vec<Diagnostic>,
) -> Value {
    if raw.get("outputSchema").is_none() || raw.get("behavior").is_some() {
        return raw.clone();
    }
    let name = raw.get("name").and_then(Value::as_str).unwrap_or("");
    diagnostics.push(
        source
            .warning(
                span,
                format!("tool {name:?} declares an outputSchema but has no behavior: it answers with structured output built from the schema, as `mcpick import` gives it"),
            )
            .help("add `behavior` with `structured` content to the tool to answer as the server does"),
    );
    crate::simulated_answer::with_simulated_answer(raw.clone(), &mut Vec::new())
}

/// Each `lint.allow` entry must name a lint rule (a tool it names need not exist: an allowance
/// left over from a removed tool is harmless, and a toolset no run uses must not stop one).
fn check_lint_allow(
    source: &SourceText,
    allow: &[String],
    span: Option<&Range<usize>>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for entry in allow {
        if let Err(message) = Allowance::parse(entry) {
            diagnostics.push(
                source
                    .error(span, format!("`lint.allow`: {message}"))
                    .help("write each entry as `RULE` (every tool) or `TOOL:RULE` (one tool)"),
            );
        }
    }
}

fn tools_array(document: &Value) -> Option<(&Map<String, Value>, &Vec<Value>)> {
    let object = document.as_object()?;
    if let Some(Value::Array(tools)) = object.get("tools") {
        return Some((object, tools));
    }
    let result = object.get("result")?.as_object()?;
    match result.get("tools") {
        Some(Value::Array(tools)) => Some((result, tools)),
        _ => None,
    }
}

fn file_stem(source: &SourceText) -> String {
    source
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn quoted_or_unnamed(name: &str) -> String {
    if name.is_empty() {
        "(unnamed)".to_string()
    } else {
        format!("{name:?}")
    }
}

/// serde_json appends " at line L column C"; positions are reported separately.
pub fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Byte span of the n-th `"name": "<name>"` in JSON text.
fn find_json_name(text: &str, name: &str, nth: usize) -> Option<Range<usize>> {
    if name.is_empty() {
        return None;
    }
    let needle = serde_json::to_string(name).ok()?;
    let mut count = 0;
    let mut from = 0;
    while let Some(key) = find_json_key(text, "name", from) {
        let after = text[key.end..].trim_start();
        let after = after.strip_prefix(':').map(str::trim_start).unwrap_or("");
        if after.starts_with(&needle) {
            if count == nth {
                return Some(key);
            }
            count += 1;
        }
        from = key.end;
    }
    None
}

/// Byte span of the first `"key"` followed by `:` at or after `from`.
fn find_json_key(text: &str, key: &str, from: usize) -> Option<Range<usize>> {
    let needle = format!("\"{key}\"");
    let mut start = from;
    while let Some(i) = text.get(start..)?.find(&needle) {
        let at = start + i;
        let end = at + needle.len();
        if text[end..].trim_start().starts_with(':') {
            return Some(at..end);
        }
        start = end;
    }
    None
}
