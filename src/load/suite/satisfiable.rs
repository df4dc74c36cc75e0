//! Whether an expected argument can ever be met, proven when the suite is loaded rather than found
//! by a run: each matcher's kind fits the parameter's type (no tolerance on a string, no regex on a
//! number), omission is allowed only where the schema allows it, and each listed value, regex,
//! tolerance or array matcher has a value the parameter's schema accepts (`gold_arguments` builds
//! it, within the load's search budget). An alternative that can never apply beside others that
//! can is a warning (dead); a matcher none of whose alternatives can apply is an error, reported
//! once; one whose search could not finish is a warning that says the check could not tell —
//! never an error, which only a finished search can prove.

use super::place::Place;
use crate::gold_arguments::{SearchBudget, Undecided, acceptable_values};
use crate::load::Diagnostic;
use crate::load::toolset::check_literal;
use crate::model::{Alternative, ArgMatcher, Tool};
use crate::registry::property_schema;
use serde_json::Value;
use std::ops::Range;

/// Where an expected argument was written.
pub struct ArgumentContext<'a> {
    pub task: &'a str,
    pub tool: &'a Tool,
    pub name: &'a str,
    pub place: &'a Place<'a>,
    pub span: Option<&'a Range<usize>>,
}

/// Whether a matcher can be met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meetable {
    Yes,
    /// Nothing in it can be (an error was said).
    No,
    /// The search could not tell (a warning was said).
    CannotTell,
}

/// Reports what in `matcher` can never be met, searching within `budget`.
pub fn check_matcher(
    context: &ArgumentContext<'_>,
    matcher: &ArgMatcher,
    diagnostics: &mut Vec<Diagnostic>,
    budget: &mut SearchBudget,
) -> Meetable {
    let ArgumentContext {
        task,
        tool,
        name,
        place,
        span,
    } = context;
    let property = property_schema(&tool.input_schema, name).unwrap_or(Value::Bool(true));
    let required = tool.required_parameters().contains(name);
    let fix = format!(
        "a valid call to {:?} cannot carry it; fix the matcher or the parameter's schema",
        tool.name
    );
    for alternative in &matcher.alternatives {
        if let Some(wanted) = wrong_kind(alternative, &property) {
            diagnostics.push(place.error(
                *span,
                format!(
                    "task {task:?}: argument {name:?} is {}, but its matcher is {wanted}: it can never match",
                    declared_types(&property)
                ),
                "use a matcher of the parameter's type (see the argument matchers in tasks/README.md)".into(),
            ));
            return Meetable::No;
        }
    }
    if matcher.alternatives.is_empty() && required {
        diagnostics.push(place.error(
            *span,
            format!(
                "task {task:?}: argument {name:?} must be omitted (\"\"), but tool {:?} requires it",
                tool.name
            ),
            "a call without it is refused by the schema; list the values that are right".into(),
        ));
        return Meetable::No;
    }
    let mut dead: Vec<&Alternative> = Vec::new();
    let mut undecided: Vec<(&Alternative, Undecided)> = Vec::new();
    for alternative in &matcher.alternatives {
        match acceptable_values(alternative, &property, budget) {
            Ok(values) if values.is_empty() => dead.push(alternative),
            Ok(_) => {}
            Err(why) => undecided.push((alternative, why)),
        }
    }
    let live = matcher.alternatives.len() - dead.len() - undecided.len()
        + usize::from(matcher.may_omit && !required);
    if live == 0 && !undecided.is_empty() {
        let (alternative, why) = &undecided[0];
        diagnostics.push(place.warning(
            *span,
            format!(
                "task {task:?}: cannot tell whether any value the matcher for {name:?} accepts satisfies the tool's schema ({}: {why})",
                describe(alternative)
            ),
            "the check stopped before it could decide; if the task is right, nothing needs doing, else simplify the parameter's pattern, enum or lengths".into(),
        ));
        return Meetable::CannotTell;
    }
    if live == 0 {
        let reason = match dead.first() {
            Some(alternative) => format!(
                "{} can never be right ({})",
                describe(alternative),
                dead_reason(alternative, tool, name)
            ),
            None => "nothing is listed".into(),
        };
        diagnostics.push(place.error(
            *span,
            format!("task {task:?}: no value the matcher for {name:?} accepts satisfies the tool's schema: {reason}"),
            fix,
        ));
        return Meetable::No;
    }
    for alternative in dead {
        diagnostics.push(place.warning(
            *span,
            format!(
                "task {task:?}: for {name:?}, {} is a dead alternative: {}",
                describe(alternative),
                dead_reason(alternative, tool, name)
            ),
            "remove it; the other values still apply".into(),
        ));
    }
    if matcher.may_omit && required && !matcher.alternatives.is_empty() {
        diagnostics.push(place.warning(
            *span,
            format!(
                "task {task:?}: for {name:?}, \"\" (may be omitted) is a dead alternative: tool {:?} requires it",
                tool.name
            ),
            "remove the \"\"; the other values still apply".into(),
        ));
    }
    Meetable::Yes
}

/// The kind of matcher an alternative is when the parameter cannot take values of that kind.
fn wrong_kind(alternative: &Alternative, property: &Value) -> Option<&'static str> {
    let allows = |kind: &str| {
        let declared = property.get("type");
        match declared {
            None => true,
            Some(Value::String(t)) => t == kind || (kind == "number" && t == "integer"),
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .any(|t| t == kind || (kind == "number" && t == "integer")),
            Some(_) => true,
        }
    };
    match alternative {
        Alternative::Approx { .. } if !allows("number") => Some("a tolerance ({ approx })"),
        Alternative::Regex(_) if !allows("string") => Some("a regex"),
        Alternative::Exact(_) if !allows("string") => Some("an exact string"),
        Alternative::Unordered(_) if !allows("array") => Some("an unordered array"),
        Alternative::Contains(_) if !allows("array") => Some("a `contains` array"),
        Alternative::Object(_) if !allows("object") => Some("a table of nested matchers"),
        _ => None,
    }
}

fn declared_types(property: &Value) -> String {
    match property.get("type") {
        Some(Value::String(t)) => format!("of type {t}"),
        Some(Value::Array(types)) => format!(
            "of type {}",
            types
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        _ => "untyped".into(),
    }
}

/// Why the schema refuses what an alternative accepts.
fn dead_reason(alternative: &Alternative, tool: &Tool, name: &str) -> String {
    match alternative {
        Alternative::Literal(value) => check_literal(&tool.input_schema, name, value)
            .err()
            .unwrap_or_else(|| "the tool's schema refuses it".into()),
        Alternative::Regex(_) => {
            "no string it matches is one the parameter's enum, pattern, format or length allows"
                .into()
        }
        _ => "the tool's schema refuses every value it accepts".into(),
    }
}

fn describe(alternative: &Alternative) -> String {
    match alternative {
        Alternative::Literal(value) => format!("the value {value}"),
        Alternative::Regex(regex) => format!(
            "the regex {:?}",
            crate::untrusted_text::shown(regex.as_str(), 120)
        ),
        Alternative::Approx { approx, tolerance } => format!("{approx} ± {tolerance}"),
        Alternative::Exact(text) => format!("the exact string {text:?}"),
        Alternative::Unordered(_) => "the unordered array".into(),
        Alternative::Contains(_) => "the `contains` array".into(),
        Alternative::Object(_) => "the nested table".into(),
    }
}
