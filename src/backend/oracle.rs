//! `oracle`: the ceiling. It reads the task's expectation and makes exactly the expected calls — one
//! step per turn for ordered tasks, the first alternative for any-of tasks, every call at once for
//! all-of (parallel) tasks, nothing for no-call tasks — with the arguments `gold_arguments` builds
//! from the task's matchers. If the oracle misses, the task's expectation cannot be met. Under a
//! `search-tool` exposure it first searches for an expected tool that is not listed yet, by name.
//!
//! It is the one backend that knows the answers: the plan hands it every arm's expectations
//! (`OracleAnswers`) when it builds the lanes, and a turn carries only what a model may see plus
//! the trial's label, by which the oracle looks its answer up.

use super::{ChatMessage, Reply, ToolCallRequest, TrialLabel, Turn};
use crate::gold_arguments::gold_arguments;
use crate::model::{Expectation, ExpectedCall, Task};
use crate::observation::CallArguments;
use crate::tool_exposure::SEARCH_TOOL_NAME;
use serde_json::Value;
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
        // Searches find tools; they are not steps of the expected answer.
        let made = turn
            .messages
            .iter()
            .filter(|m| {
                matches!(m, ChatMessage::Assistant { calls, .. }
                    if calls.iter().any(|c| c.tool != SEARCH_TOOL_NAME))
            })
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
        // Under `search-tool` the expected tool may not be listed yet: the oracle searches for it by
        // its name, as a model that knew what it wanted would.
        let listed = |name: &str| turn.tools.iter().any(|t| t["name"] == name);
        let missing: Vec<&ExpectedCall> = next.iter().filter(|c| !listed(&c.tool)).collect();
        if !missing.is_empty() && listed(SEARCH_TOOL_NAME) {
            let searched = turn.messages.len();
            return Reply {
                calls: missing
                    .iter()
                    .enumerate()
                    .map(|(i, expected)| {
                        let mut query = serde_json::Map::new();
                        query.insert(
                            "query".into(),
                            Value::from(expected.tool.replace(['_', '-', '.'], " ")),
                        );
                        ToolCallRequest {
                            id: format!("search_{}_{}", searched, i + 1),
                            tool: SEARCH_TOOL_NAME.into(),
                            arguments: CallArguments::Parsed(query),
                        }
                    })
                    .collect(),
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
                    arguments: CallArguments::Parsed(gold_arguments(&expected.args, &schema)),
                }
            })
            .collect();
        Reply {
            calls,
            ..Reply::default()
        }
    }
}
