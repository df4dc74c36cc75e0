//! `oracle`: the ceiling. It reads the task's expectation and makes exactly the expected calls — one
//! step per turn for ordered tasks, the first alternative for any-of tasks, nothing for no-call tasks —
//! with argument values built from the task's matchers (the first acceptable value; for a regex, the
//! shortest string it matches; for a tolerance, the centre) and minimal schema instances for required
//! parameters the task leaves open. If the oracle misses, the task's expectation cannot be met.

use super::{ChatMessage, Reply, ToolCallRequest, Turn};
use crate::model::{Alternative, ArgMatcher, Expectation, ExpectedCall};
use crate::registry::example_instance;
use crate::score::CallArguments;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value, json};

#[derive(Debug, Clone)]
pub struct OracleBackend;

impl OracleBackend {
    pub fn complete(&self, turn: Turn<'_>) -> Reply {
        let made = turn
            .messages
            .iter()
            .filter(|m| matches!(m, ChatMessage::Assistant { calls, .. } if !calls.is_empty()))
            .count();
        let next: Option<&ExpectedCall> = match &turn.task.expectation {
            Expectation::NoCall => None,
            Expectation::Calls(steps) => steps.get(made),
            Expectation::AnyOf(alternatives) => alternatives.first().filter(|_| made == 0),
        };
        let Some(expected) = next else {
            return Reply {
                text: Some("Done.".into()),
                ..Reply::default()
            };
        };
        let schema = turn
            .tools
            .iter()
            .find(|t| t["name"] == expected.tool.as_str())
            .map(|t| t["inputSchema"].clone())
            .unwrap_or(Value::Null);
        let arguments = build_arguments(&expected.args, &schema);
        let call = ToolCallRequest {
            id: format!("call_{}", made + 1),
            tool: expected.tool.clone(),
            arguments: CallArguments::Parsed(arguments),
        };
        Reply {
            calls: vec![call],
            ..Reply::default()
        }
    }
}

fn build_arguments(
    matchers: &std::collections::BTreeMap<String, ArgMatcher>,
    schema: &Value,
) -> Map<String, Value> {
    let mut arguments: Map<String, Value> = matchers
        .iter()
        .filter_map(|(name, m)| Some((name.clone(), value_for(m)?)))
        .collect();
    let required = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for name in required {
        if !arguments.contains_key(name) && !matchers.contains_key(name) {
            let property = &schema["properties"][name];
            arguments.insert(name.to_string(), example_instance(property, schema));
        }
    }
    arguments
}

/// A value the matcher accepts, or `None` when it only allows omission.
fn value_for(matcher: &ArgMatcher) -> Option<Value> {
    let alternative = matcher.alternatives.first()?;
    Some(match alternative {
        Alternative::Literal(value) => value.clone(),
        Alternative::Object(fields) => Value::Object(
            fields
                .iter()
                .filter_map(|(k, m)| Some((k.clone(), value_for(m)?)))
                .collect(),
        ),
        Alternative::Regex(regex) => json!(shortest_match(regex.as_str())?),
        Alternative::Approx { approx, .. } => json!(approx),
    })
}

/// The shortest string a regular expression matches (first branch of each alternation, fewest
/// repetitions, first character of each class).
fn shortest_match(pattern: &str) -> Option<String> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut out = String::new();
    write_shortest(&hir, &mut out).then_some(out)
}

fn write_shortest(hir: &Hir, out: &mut String) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
            Ok(text) => {
                out.push_str(text);
                true
            }
            Err(_) => false,
        },
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .first()
            .map(|r| out.push(r.start()))
            .is_some(),
        HirKind::Class(Class::Bytes(class)) => class
            .ranges()
            .first()
            .map(|r| out.push(char::from(r.start())))
            .is_some(),
        HirKind::Repetition(repetition) => {
            (0..repetition.min).all(|_| write_shortest(&repetition.sub, out))
        }
        HirKind::Capture(capture) => write_shortest(&capture.sub, out),
        HirKind::Concat(parts) => parts.iter().all(|p| write_shortest(p, out)),
        HirKind::Alternation(branches) => branches.first().is_some_and(|b| write_shortest(b, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    #[test]
    fn shortest_matches_are_matches() {
        for pattern in [
            "(?i)dentist",
            "^2026-03-13T07:45",
            "(?i)holiday|vacation",
            "(?i)^(spam|junk)$",
            r"^[A-Z]{3}\d{2,4}$",
            "^(.{1,5}|.{7,})$",
        ] {
            let text = shortest_match(pattern).unwrap();
            assert!(
                Regex::new(pattern).unwrap().is_match(&text),
                "{pattern} → {text:?}"
            );
        }
    }
}
