//! `oracle`: the ceiling. It reads the task's expectation and makes exactly the expected calls — one
//! step per turn for ordered tasks, the first alternative for any-of tasks, nothing for no-call tasks —
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
