//! Toolset files (TOML, or JSON holding a captured `tools/list`) into `model::Toolset`: tool names,
//! schemas compiled, behaviours checked against the schemas they answer for.

use super::Diagnostic;
use super::source::{SourceText, json_error_help};
use crate::model::{
    ArgMatcher, Behavior, Response, ResponseRule, Tool, Toolset, template_placeholders,
};
use crate::registry::{compile_object_schema, compile_schema, json_type_name};
use crate::spec::{
    BehaviorSpec, FORMAT_VERSION, Located, ToolSpec, ToolsetFile, toml_datetimes_as_strings,
};
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
    let toolset = Toolset {
        name,
        description: file.description,
        source: source.path.clone(),
        variant: None,
        tools,
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
    const KNOWN_KEYS: [&str; 9] = [
        "format",
        "name",
        "description",
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
            diagnostics.push(
                source
                    .error(
                        span.as_ref(),
                        format!("unknown field `{key}` in a JSON toolset"),
                    )
                    .help(format!(
                        "allowed top-level keys: {}; remove it or fix its spelling",
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
    let toolset = Toolset {
        name,
        description,
        source: source.path.clone(),
        variant: None,
        tools: result_tools,
    };
    Loaded::finish(toolset, diagnostics)
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
            behavior: behavior?,
            line: name_span.map(|s| source.line_of(s.start)),
        })
    }
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

struct BehaviorChecks<'a> {
    source: &'a SourceText,
    tool: &'a str,
    properties: &'a [String],
    input_schema: &'a Value,
    output: Option<&'a jsonschema::Validator>,
    fallback: Option<Range<usize>>,
}

impl BehaviorChecks<'_> {
    fn behavior(&self, spec: &BehaviorSpec, diagnostics: &mut Vec<Diagnostic>) -> Option<Behavior> {
        let span = self.fallback.clone();
        let default = self.response(
            ResponseParts {
                text: &spec.text,
                structured: &spec.structured,
                error: &spec.error,
                echo: spec.echo.unwrap_or(false),
            },
            span.as_ref(),
            "behavior",
            diagnostics,
        );
        let mut rules = Vec::with_capacity(spec.rules.len());
        for (index, rule) in spec.rules.iter().enumerate() {
            let rule_span = rule.span.clone().or_else(|| span.clone());
            let what = format!("behavior rule #{}", index + 1);
            let mut when = std::collections::BTreeMap::new();
            for (key, written) in rule.when.iter() {
                if !self.properties.contains(key) {
                    diagnostics.push(self.source.error(rule.when.span.as_ref().or(rule_span.as_ref()), format!(
                        "tool {:?}: {what}: `when` names {key:?}, which is not a parameter of the tool",
                        self.tool
                    )).help(parameters_help(self.properties)));
                    continue;
                }
                match ArgMatcher::parse(written) {
                    Ok(m) => {
                        for literal in m.literals() {
                            if let Err(reason) = check_literal(self.input_schema, key, literal) {
                                diagnostics.push(
                                    self.source
                                        .error(
                                            rule.when.span.as_ref().or(rule_span.as_ref()),
                                            format!("tool {:?}: {what}: `when.{key}` value {literal} can never arrive: {reason}", self.tool),
                                        )
                                        .help("calls are validated against the inputSchema before any rule is tried; fix the value or the schema"),
                                );
                            }
                        }
                        when.insert(key.clone(), m);
                    }
                    Err(e) => diagnostics.push(
                        self.source
                            .error(
                                rule.when.span.as_ref().or(rule_span.as_ref()),
                                format!("tool {:?}: {what}: `when.{key}`: {e}", self.tool),
                            )
                            .help("see the argument matchers in toolsets/README.md"),
                    ),
                }
            }
            if rule.value.text.is_none()
                && rule.value.structured.is_none()
                && rule.value.error.is_none()
            {
                diagnostics.push(
                    self.source
                        .error(
                            rule_span.as_ref(),
                            format!("tool {:?}: {what} has no response", self.tool),
                        )
                        .help("give the rule `text`, `structured` or `error`"),
                );
                continue;
            }
            let parts = ResponseParts {
                text: &rule.value.text,
                structured: &rule.value.structured,
                error: &rule.value.error,
                echo: false,
            };
            if let Some(response) = self.response(parts, rule_span.as_ref(), &what, diagnostics) {
                rules.push(ResponseRule {
                    when,
                    response,
                    latency_ms: rule.value.latency_ms,
                });
            }
        }
        Some(Behavior {
            default: default?,
            latency_ms: spec.latency_ms.unwrap_or(0),
            rules,
        })
    }

    fn response(
        &self,
        parts: ResponseParts<'_>,
        span: Option<&Range<usize>>,
        what: &str,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Response> {
        let tool = self.tool;
        let mut fail = |message: String, help: &str| {
            diagnostics.push(
                self.source
                    .error(span, format!("tool {tool:?}: {what}: {message}"))
                    .help(help.to_string()),
            );
            None
        };
        if parts.error.is_some()
            && (parts.text.is_some() || parts.structured.is_some() || parts.echo)
        {
            return fail(
                "a response is either `error` or `text`/`structured`/`echo`, not both".into(),
                "move the error into its own [[tool.behavior.rule]] with a `when`",
            );
        }
        if parts.echo && (parts.text.is_some() || parts.structured.is_some()) {
            return fail(
                "`echo = true` cannot be combined with `text` or `structured`".into(),
                "remove `echo` or the other keys",
            );
        }
        if parts
            .error
            .as_ref()
            .is_some_and(|message| message.trim().is_empty())
        {
            return fail(
                "`error` is empty".into(),
                "write an actionable message: what was wrong and how to fix the call",
            );
        }
        for template in [parts.error, parts.text].into_iter().flatten() {
            for placeholder in template_placeholders(template) {
                if !self.properties.iter().any(|p| p == placeholder) {
                    return fail(
                        format!("placeholder {{{placeholder}}} names no parameter of the tool"),
                        &parameters_help(self.properties),
                    );
                }
            }
        }
        if let Some(message) = parts.error {
            return Some(Response::Error(message.clone()));
        }
        if let Some(structured) = parts.structured {
            if !structured.is_object() {
                return fail(
                    format!(
                        "`structured` must be a table/object, found {}",
                        json_type_name(structured)
                    ),
                    "MCP structuredContent is a JSON object",
                );
            }
            if let Some(validator) = self.output
                && let Some(error) = validator.iter_errors(structured).next()
            {
                {
                    let at = error.instance_path().to_string();
                    let at = if at.is_empty() {
                        String::new()
                    } else {
                        format!(" at {at}")
                    };
                    return fail(
                        format!("`structured` does not match the outputSchema{at}: {error}"),
                        "change `structured` or the outputSchema so they agree",
                    );
                }
            }
        } else if self.output.is_some() {
            return fail(
                "the tool declares an outputSchema, so this response needs `structured`".into(),
                "add `structured = { ... }` matching the outputSchema (or make this an `error` response)",
            );
        }
        Some(match (parts.text, parts.structured) {
            (Some(template), structured) => Response::Text {
                template: template.clone(),
                structured: structured.clone(),
            },
            (None, Some(structured)) => Response::Structured(structured.clone()),
            (None, None) => Response::Echo,
        })
    }
}

struct ResponseParts<'a> {
    text: &'a Option<String>,
    structured: &'a Option<Value>,
    error: &'a Option<String>,
    echo: bool,
}

pub fn parameters_help(properties: &[String]) -> String {
    if properties.is_empty() {
        "the tool takes no parameters".to_string()
    } else {
        format!("the tool's parameters are: {}", properties.join(", "))
    }
}

/// A property schema in the context of its root, so `$ref: "#/$defs/..."` still resolves.
pub fn property_schema(input_schema: &Value, property: &str) -> Option<Value> {
    let mut schema = input_schema.get("properties")?.get(property)?.clone();
    if let Value::Object(object) = &mut schema {
        for defs in ["$defs", "definitions"] {
            if let Some(d) = input_schema.get(defs) {
                object.entry(defs).or_insert_with(|| d.clone());
            }
        }
        if let Some(dialect) = input_schema.get("$schema") {
            object.entry("$schema").or_insert_with(|| dialect.clone());
        }
    }
    Some(schema)
}

/// Validates a literal against a property's schema; `Err` carries the first reason.
pub fn check_literal(input_schema: &Value, property: &str, literal: &Value) -> Result<(), String> {
    let Some(schema) = property_schema(input_schema, property) else {
        return Ok(());
    };
    let validator = compile_schema(&schema).map_err(|e| e.to_string())?;
    match validator.iter_errors(literal).next() {
        None => Ok(()),
        Some(error) => Err(error.to_string()),
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
