//! A tool's fixture behaviour checked against the schemas it answers for: its default response
//! and rules, each `when` naming real parameters with values that can arrive, each response
//! `error`, `text`, `structured` or `echo`, placeholders naming parameters, and `structured`
//! matching the outputSchema.

use super::parameters::{check_literal, parameters_help};
use crate::load::Diagnostic;
use crate::load::source::SourceText;
use crate::model::{ArgMatcher, Behavior, Response, ResponseRule, template_placeholders};
use crate::registry::json_type_name;
use crate::spec::BehaviorSpec;
use serde_json::Value;
use std::ops::Range;

pub struct BehaviorChecks<'a> {
    pub source: &'a SourceText,
    pub tool: &'a str,
    pub properties: &'a [String],
    pub input_schema: &'a Value,
    pub output: Option<&'a jsonschema::Validator>,
    pub fallback: Option<Range<usize>>,
}

impl BehaviorChecks<'_> {
    pub fn behavior(
        &self,
        spec: &BehaviorSpec,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Behavior> {
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
