//! `oracle`: the ceiling. It reads the task's expectation and makes exactly the expected calls — one
//! step per turn for ordered tasks, the first alternative for any-of tasks, every call at once for
//! all-of (parallel) tasks, nothing for no-call tasks — with the arguments `gold_arguments::gold_call`
//! finds: values the matchers accept, the tool's schema validates and its simulated behaviour does
//! not refuse. Where there are none the plan is told which task and why (`validate` says so too),
//! and the oracle sends its best guess. Under a `search-tool` exposure it first searches for an
//! expected tool that is not listed yet, by name.
//!
//! It is the one backend that knows the answers: the plan hands it every arm's expectations
//! (`OracleAnswers`) when it builds the lanes, and a turn carries only what a model may see plus
//! the trial's label, by which the oracle looks its answer up.

use super::{ChatMessage, Reply, ToolCallRequest, TrialLabel, Turn};
use crate::gold_arguments::budget::STEPS_PER_CALL;
use crate::gold_arguments::{SearchBudget, gold_arguments, gold_call_within};
use crate::model::{Expectation, ExpectedCall, Task, Tool};
use crate::observation::CallArguments;
use crate::tool_exposure::SEARCH_TOOL_NAME;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Every trial's expectation and the arguments of each call it names, by suite, arm and task.
#[derive(Debug, Default)]
pub struct OracleAnswers(HashMap<(String, Option<String>, String), Answer>);

#[derive(Debug)]
struct Answer {
    expectation: Expectation,
    /// The arguments of each of `expectation.calls()`, in order.
    arguments: Vec<Map<String, Value>>,
}

impl OracleAnswers {
    /// The answers to the tasks given with their suite, arm and the tools they are shown; and, for
    /// each expected call no arguments can meet, a line naming the task and why.
    pub fn from_arms<'a>(
        tasks: impl Iterator<Item = (&'a str, Option<&'a str>, &'a Task, &'a [Tool])>,
    ) -> (OracleAnswers, Vec<String>) {
        let mut unmet = Vec::new();
        // One budget for the whole plan, as a load has: a suite of hostile schemas costs seconds.
        let mut budget = SearchBudget::for_load();
        let answers = tasks
            .map(|(suite, variant, task, tools)| {
                let arguments = task
                    .expectation
                    .calls()
                    .iter()
                    .map(|call| match tools.iter().find(|t| t.name == call.tool) {
                        Some(tool) => {
                            let mut allotted = budget.allot(STEPS_PER_CALL);
                            let found = gold_call_within(call, tool, &mut allotted);
                            budget.settle(STEPS_PER_CALL, &allotted);
                            found.unwrap_or_else(|why| {
                                // Impossible or undecided alike: the plan is told, and the
                                // oracle sends its best guess.
                                unmet.push(format!(
                                    "task {suite}/{}: no call to {} meets its expectation: {why}",
                                    task.id, call.tool
                                ));
                                gold_arguments(&call.args, &tool.input_schema)
                            })
                        }
                        None => gold_arguments(&call.args, &Value::Null),
                    })
                    .collect();
                let key = (
                    suite.to_string(),
                    variant.map(str::to_string),
                    task.id.clone(),
                );
                let answer = Answer {
                    expectation: task.expectation.clone(),
                    arguments,
                };
                (key, answer)
            })
            .collect();
        unmet.sort();
        unmet.dedup();
        (OracleAnswers(answers), unmet)
    }

    fn of(&self, trial: &TrialLabel<'_>) -> Option<&Answer> {
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
        // A trial the plan gave no answer for gets none: the oracle then abstains. `next` indexes
        // the expectation's calls (and their arguments).
        let answer = self.answers.of(&turn.trial);
        let (calls, next): (&[ExpectedCall], Vec<usize>) = match answer.map(|a| &a.expectation) {
            None | Some(Expectation::NoCall) => (&[], Vec::new()),
            Some(Expectation::Calls(steps)) => (
                steps,
                (made < steps.len()).then_some(made).into_iter().collect(),
            ),
            Some(Expectation::AnyOf(alternatives)) if made == 0 => (alternatives, vec![0]),
            // Parallel calls: all of them in one reply, as a model answering in parallel does.
            Some(Expectation::AllOf(all)) if made == 0 => (all, (0..all.len()).collect()),
            Some(Expectation::AnyOf(_) | Expectation::AllOf(_)) => (&[], Vec::new()),
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
        let missing: Vec<&ExpectedCall> = next
            .iter()
            .map(|&i| &calls[i])
            .filter(|c| !listed(&c.tool))
            .collect();
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
            .filter_map(|(i, &index)| {
                let expected = &calls[index];
                let arguments = answer?.arguments.get(index)?.clone();
                Some(ToolCallRequest {
                    id: format!("call_{}", made + i + 1),
                    tool: expected.tool.clone(),
                    arguments: CallArguments::Parsed(arguments),
                })
            })
            .collect();
        Reply {
            calls,
            ..Reply::default()
        }
    }
}
