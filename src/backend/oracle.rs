//! `oracle`: the ceiling. It reads the task's expectation and makes exactly the expected calls — one
//! step per turn for ordered tasks, the first alternative for any-of tasks, every call at once for
//! all-of (parallel) tasks, nothing for no-call tasks —
//! with argument values built from the task's matchers (the first acceptable value; for a regex, the
//! shortest string it matches; for a tolerance, the centre) and minimal schema instances for required
//! parameters the task leaves open. If the oracle misses, the task's expectation cannot be met.

use super::{ChatMessage, Reply, ToolCallRequest, Turn};
use crate::model::{Alternative, ArgMatcher, Expectation, ExpectedCall};
use crate::registry::{example_instance, shortest_match};
use crate::score::CallArguments;
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
        let next: &[ExpectedCall] = match &turn.task.expectation {
            Expectation::NoCall => &[],
            Expectation::Calls(steps) => steps
                .get(made)
                .map(std::slice::from_ref)
                .unwrap_or_default(),
            Expectation::AnyOf(alternatives) if made == 0 => &alternatives[..1],
            // Parallel calls: all of them in one reply, as a model answering in parallel does.
            Expectation::AllOf(calls) if made == 0 => calls,
            Expectation::AnyOf(_) | Expectation::AllOf(_) => &[],
        };
        if next.is_empty() {
            return Reply {
                text: Some("Done.".into()),
                ..Reply::default()
            };
        }
        let calls = next
            .iter()
            .enumerate()
            .map(|(i, expected)| {
                let schema = turn
                    .tools
                    .iter()
                    .find(|t| t["name"] == expected.tool.as_str())
                    .map(|t| t["inputSchema"].clone())
                    .unwrap_or(Value::Null);
                ToolCallRequest {
                    id: format!("call_{}", made + i + 1),
                    tool: expected.tool.clone(),
                    arguments: CallArguments::Parsed(oracle_arguments(&expected.args, &schema)),
                }
            })
            .collect();
        Reply {
            calls,
            ..Reply::default()
        }
    }
}

/// The arguments the oracle sends for an expected call to a tool with this input schema (importers
/// check with it that every gold answer stays reachable).
pub fn oracle_arguments(
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
