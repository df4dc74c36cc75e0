//! `oracle`: the ceiling. It reads the task's expectation and makes exactly the expected calls — one
//! step per turn for ordered tasks, the first alternative for any-of tasks, every call at once for
//! all-of (parallel) tasks, nothing for no-call tasks —
//! with argument values built from the task's matchers (the first acceptable value; for a regex, the
//! shortest string it matches; for a tolerance, the centre) and minimal schema instances for required
//! parameters the task leaves open. If the oracle misses, the task's expectation cannot be met.
//!
//! It is the one backend that knows the answers: the plan hands it every arm's expectations
//! (`OracleAnswers`) when it builds the lanes, and a turn carries only what a model may see plus
//! the trial's label, by which the oracle looks its answer up.

use super::{ChatMessage, Reply, ToolCallRequest, TrialLabel, Turn};
use crate::model::{Alternative, ArgMatcher, Expectation, ExpectedCall, Task};
use crate::registry::{example_instance, shortest_match};
use crate::score::CallArguments;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// Every trial's expectation, by suite, arm and task.
#[derive(Debug, Default)]
pub struct OracleAnswers(HashMap<(String, Option<String>, String), Expectation>);

impl OracleAnswers {
    /// The expectations of the tasks given with their suite and arm.
    pub fn from_arms<'a>(
        tasks: impl Iterator<Item = (&'a str, Option<&'a str>, &'a Task)>,
    ) -> OracleAnswers {
        OracleAnswers(
            tasks
                .map(|(suite, variant, task)| {
                    let key = (
                        suite.to_string(),
                        variant.map(str::to_string),
                        task.id.clone(),
                    );
                    (key, task.expectation.clone())
                })
                .collect(),
        )
    }

    fn of(&self, trial: &TrialLabel<'_>) -> Option<&Expectation> {
        let key = (
            trial.suite.to_string(),
            trial.variant.map(str::to_string),
            trial.task.to_string(),
        );
        self.0.get(&key)
    }
}

#[derive(Debug, Clone, Default)]
pub struct OracleBackend {
    answers: Arc<OracleAnswers>,
}

impl OracleBackend {
    pub fn new(answers: Arc<OracleAnswers>) -> OracleBackend {
        OracleBackend { answers }
    }

    pub fn complete(&self, turn: Turn<'_>) -> Reply {
        let made = turn
            .messages
            .iter()
            .filter(|m| matches!(m, ChatMessage::Assistant { calls, .. } if !calls.is_empty()))
            .count();
        // A trial the plan gave no answer for gets none: the oracle then abstains.
        let next: &[ExpectedCall] =
            match self.answers.of(&turn.trial).unwrap_or(&Expectation::NoCall) {
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
