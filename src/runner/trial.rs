//! One trial: a fresh MCP session, the backend's turns, the calls executed through the server (a
//! `search_tools` call recorded as a search, not a pick), how sure the model was of its first pick
//! (when the backend says), the verdict — all written into the stored trial the plan made for it,
//! the one shape a trial's result has.

use super::lane::BackendLane;
use super::sweep_tools::gold_position;
use crate::backend::{BackendError, ChatMessage, TrialLabel, Turn, default_system_prompt};
use crate::mcp::client::{ClientError, McpClient};
use crate::mcp::transport::duplex::connect_in_memory;
use crate::mcp::{McpServer, SEARCH_TOOL_NAME};
use crate::model::{Role, Task, TaskInput};
use crate::observation::{CallArguments, ObservedCall};
use crate::pick_distribution::{ActionProbability, PickDistribution};
use crate::record::StoredTrial;
use crate::score::score_task;
use crate::tool_exposure::ObservedSearch;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A trial that cannot be scored because the backend itself is unusable (a rejected key): it is not
/// recorded, so `--resume` runs it once the key is fixed.
#[derive(Debug, Clone)]
pub struct Halt(pub BackendError);

/// Records, in the trial the plan made, that it could not run because mcpick itself failed (a panic
/// in a backend, a server that could not be built): an `error` trial with the reason, rather than
/// a lost one.
pub fn record_internal_failure(trial: &mut StoredTrial, task: &Task, reason: String) {
    trial.backend_error = Some(format!("internal error: {reason}"));
    trial.transcript = initial_messages(task);
    finish(trial, task);
}

/// What every finished trial gets last: the count and gold position of the tools it was shown,
/// and its verdict.
fn finish(trial: &mut StoredTrial, task: &Task) {
    trial.shown_count = trial.tools_shown.len();
    trial.gold_position = gold_position(&trial.tools_shown, task);
    trial.verdict = score_task(task, &trial.observed());
}

/// The tools a server listed, kept for its later trials. A server's listing is fixed for one
/// generation of its tools (`ServedTools` is immutable; a reload makes a new generation), so the
/// listing parsed once is exactly what each later session's own tools/list would give — and parsing
/// the 20–30 KB listing on every trial was most of the harness's own time per trial (see
/// `benches/README.md`). Each trial still opens its own session and calls through it.
#[derive(Default)]
pub struct ToolListing(Mutex<Option<(u64, Arc<Vec<Value>>)>>);

impl ToolListing {
    /// The listing of `server`'s current generation: kept, or listed now through `client`.
    async fn of(
        &self,
        server: &McpServer,
        client: &McpClient,
    ) -> Result<Arc<Vec<Value>>, ClientError> {
        let generation = server.tools().generation;
        if let Some((kept, tools)) = &*self.lock()
            && *kept == generation
        {
            return Ok(Arc::clone(tools));
        }
        let tools = Arc::new(client.list_tools().await?);
        // Kept only if no reload happened while listing.
        if server.tools().generation == generation {
            *self.lock() = Some((generation, Arc::clone(&tools)));
        }
        Ok(tools)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(u64, Arc<Vec<Value>>)>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// How a trial is run, besides its task: its labels, turn limit, seeds and how its tools are given.
#[derive(Debug, Clone, Copy)]
pub struct TrialSetting<'a> {
    pub variant: Option<&'a str>,
    pub suite: &'a str,
    pub max_turns: usize,
    pub seed: u64,
    pub repeat: u32,
    /// `native-search`: the tools go to the provider deferred, behind its own tool search.
    pub deferred_tools: bool,
}

/// Runs one task against one backend on a fresh session of `server` (whose listing `listing` keeps),
/// filling in `trial` — the stored trial the plan made, which holds what the plan says of it — with
/// what happened and the verdict. The listing is read again before each turn: a `search_tools` call
/// changes it, and the model sees the tools it found on its next turn.
pub async fn run_trial(
    server: &Arc<McpServer>,
    listing: &ToolListing,
    lane: &BackendLane,
    setting: TrialSetting<'_>,
    task: &Task,
    trial: &mut StoredTrial,
) -> Result<(), Halt> {
    let started = Instant::now();
    trial.transcript = initial_messages(task);
    let searchable = server.has_tool_search();
    match connect_in_memory(Arc::clone(server)).await {
        Err(e) => trial.backend_error = Some(format!("MCP session failed: {e}")),
        Ok(client) => {
            while trial.turns < setting.max_turns {
                let tools = match listing.of(server, &client).await {
                    Ok(tools) => tools,
                    Err(e) => {
                        trial.backend_error = Some(format!("tools/list failed: {e}"));
                        break;
                    }
                };
                trial.tools_shown = tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_string))
                    .collect();
                for pair in lane.backend.renamed_tools(&tools) {
                    if !trial.renamed_tools.contains(&pair) {
                        trial.renamed_tools.push(pair);
                    }
                }
                trial.turns += 1;
                let reply_index = u32::try_from(trial.turns - 1).unwrap_or(u32::MAX);
                let turn = Turn {
                    messages: &trial.transcript,
                    tools: &tools,
                    trial: TrialLabel {
                        suite: setting.suite,
                        variant: setting.variant,
                        task: &task.id,
                    },
                    seed: setting.seed,
                    repeat: setting.repeat,
                    deferred_tools: setting.deferred_tools,
                };
                let (result, cost) = lane.complete(turn).await;
                trial.requests += cost.requests;
                trial.retries += cost.retries;
                trial.cached_replies += u32::from(cost.cached);
                trial.cost_usd += cost.usd;
                let reply = match result {
                    Ok(reply) => reply,
                    Err(e @ BackendError::Auth { .. }) => return Err(Halt(e)),
                    Err(e) => {
                        trial.backend_error = Some(e.to_string());
                        break;
                    }
                };
                trial.input_tokens += reply.input_tokens;
                trial.output_tokens += reply.output_tokens;
                let searched = searchable && reply.calls.iter().any(|c| c.tool == SEARCH_TOOL_NAME);
                if trial.actions.is_none() && !reply.actions.is_empty() && !searched {
                    keep_first_pick(trial, task, &reply.actions);
                }
                let native_searches: Vec<ObservedSearch> = reply
                    .searches
                    .into_iter()
                    .map(|search| ObservedSearch {
                        reply: reply_index,
                        native: true,
                        ..search
                    })
                    .collect();
                trial.searches.extend(native_searches.iter().cloned());
                let calls = reply.calls.clone();
                trial.transcript.push(ChatMessage::Assistant {
                    text: reply.text,
                    calls: reply.calls,
                    searches: native_searches,
                });
                if calls.is_empty() {
                    break;
                }
                // A reply that only repeats calls which already succeeded in this trial has
                // nothing new to learn from their results: small models loop like this until
                // the turn limit. The repeat is recorded as made, not executed, and ends the
                // trial.
                if only_repeats(&trial.calls, &calls) {
                    trial
                        .calls
                        .extend(calls.into_iter().map(|call| ObservedCall {
                            tool: call.tool,
                            arguments: call.arguments,
                            result_is_error: None,
                            reply: reply_index,
                        }));
                    break;
                }
                for call in calls {
                    let executed = execute(&client, &call.tool, &call.arguments).await;
                    // A search is how the trial's tools are found, not a pick: it is recorded
                    // apart and never scored.
                    if searchable && call.tool == SEARCH_TOOL_NAME {
                        trial.searches.push(ObservedSearch {
                            query: search_query(&call.arguments),
                            found: executed.found.clone(),
                            reply: reply_index,
                            native: false,
                            id: None,
                        });
                    } else {
                        trial.calls.push(ObservedCall {
                            tool: call.tool.clone(),
                            arguments: call.arguments,
                            result_is_error: executed.ran.then_some(executed.is_error),
                            reply: reply_index,
                        });
                    }
                    trial.transcript.push(ChatMessage::Tool {
                        call_id: call.id,
                        tool: call.tool,
                        content: executed.text,
                        is_error: executed.is_error,
                    });
                }
            }
        }
    }
    trial.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    finish(trial, task);
    Ok(())
}

/// Keeps the bounded part of the first pick's distribution, with the tools a right first pick may
/// choose (which the trial's `p_right` is judged by).
fn keep_first_pick(trial: &mut StoredTrial, task: &Task, actions: &[ActionProbability]) {
    if trial.first_pick_tools.is_empty() {
        trial.first_pick_tools = task
            .expectation
            .first_pick_tools()
            .into_iter()
            .map(str::to_string)
            .collect();
    }
    trial.actions = Some(PickDistribution::bounded(
        actions,
        &trial.acceptable_actions(),
    ));
}

/// What a `search_tools` call searched for.
fn search_query(arguments: &CallArguments) -> String {
    match arguments {
        CallArguments::Parsed(map) => map
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        CallArguments::Malformed { raw, .. } => raw.clone(),
    }
}

/// Whether a reply's calls only repeat calls that already succeeded. A written reply that loops
/// runs into the token limit, so its last call may be cut off: a malformed last call of a tool the
/// reply already repeats counts as one more repeat.
fn only_repeats(made: &[ObservedCall], calls: &[crate::backend::ToolCallRequest]) -> bool {
    let Some((last, before)) = calls.split_last() else {
        return false;
    };
    let cut_off_repeat = matches!(last.arguments, CallArguments::Malformed { .. })
        && before.iter().any(|c| c.tool == last.tool);
    before.iter().all(|c| repeats_a_success(made, c))
        && (repeats_a_success(made, last) || cut_off_repeat)
}

/// Whether `call` is, tool and arguments alike, a call made earlier that did not fail.
fn repeats_a_success(made: &[ObservedCall], call: &crate::backend::ToolCallRequest) -> bool {
    made.iter().any(|earlier| {
        earlier.result_is_error == Some(false)
            && earlier.tool == call.tool
            && earlier.arguments == call.arguments
    })
}

/// What executing one call gave.
struct Executed {
    /// The text the model is sent.
    text: String,
    is_error: bool,
    /// Whether the call reached the tool.
    ran: bool,
    /// The tools a `search_tools` result names (`structuredContent.tools`).
    found: Vec<String>,
}

/// Executes one call through MCP.
async fn execute(client: &McpClient, tool: &str, arguments: &CallArguments) -> Executed {
    let failed = |text: String, ran: bool| Executed {
        text,
        is_error: true,
        ran,
        found: Vec::new(),
    };
    let CallArguments::Parsed(arguments) = arguments else {
        return failed(
            "The tool call's arguments are not a JSON object; send them as valid JSON.".into(),
            false,
        );
    };
    match client
        .call_tool(tool, Value::Object(arguments.clone()))
        .await
    {
        Ok(result) => Executed {
            text: result_text(&result),
            is_error: result["isError"] == true,
            ran: true,
            found: result["structuredContent"]["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect(),
        },
        // Servers answer an unknown tool with a JSON-RPC error or an isError result: both go to the model.
        Err(ClientError::Rpc { message, .. }) => failed(message, true),
        Err(other) => failed(format!("the tool could not be called: {other}"), false),
    }
}

/// The text blocks of a `CallToolResult`, joined; other blocks are named by type.
fn result_text(result: &Value) -> String {
    let blocks = result["content"].as_array().into_iter().flatten();
    let parts: Vec<String> = blocks
        .map(|b| match b["type"].as_str() {
            Some("text") => b["text"].as_str().unwrap_or_default().to_string(),
            Some(other) => format!("[{other} content]"),
            None => String::new(),
        })
        .collect();
    parts.join("\n")
}

/// The conversation a trial starts from: the task's prompt or messages, with the default system
/// prompt before a system message of the task's own (unless the task replaces it), or as one of its
/// own when the suite states a date; otherwise the backends add the default prompt themselves.
fn initial_messages(task: &Task) -> Vec<ChatMessage> {
    let mut messages: Vec<ChatMessage> = match &task.input {
        TaskInput::Prompt(prompt) => vec![ChatMessage::User {
            content: prompt.clone(),
        }],
        TaskInput::Messages(messages) => messages
            .iter()
            .map(|m| match m.role {
                Role::System => ChatMessage::System {
                    content: m.content.clone(),
                },
                Role::User => ChatMessage::User {
                    content: m.content.clone(),
                },
                Role::Assistant => ChatMessage::Assistant {
                    text: Some(m.content.clone()),
                    calls: Vec::new(),
                    searches: Vec::new(),
                },
            })
            .collect(),
    };
    let default = default_system_prompt(task.today.as_deref());
    let own_system = messages.iter_mut().find_map(|m| match m {
        ChatMessage::System { content } => Some(content),
        _ => None,
    });
    match own_system {
        Some(content) if !task.replace_system => *content = format!("{default}\n\n{content}"),
        Some(_) => {}
        None if task.today.is_some() => {
            messages.insert(0, ChatMessage::System { content: default });
        }
        None => {}
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ToolCallRequest;

    fn call(tool: &str, arguments: CallArguments) -> ToolCallRequest {
        ToolCallRequest {
            id: String::new(),
            tool: tool.into(),
            arguments,
        }
    }

    fn parsed(city: &str) -> CallArguments {
        let mut map = serde_json::Map::new();
        map.insert("city".into(), Value::from(city));
        CallArguments::Parsed(map)
    }

    #[test]
    fn a_loop_cut_off_by_the_token_limit_is_still_only_repeats() {
        let made = [ObservedCall {
            tool: "get_weather".into(),
            arguments: parsed("Paris"),
            result_is_error: Some(false),
            reply: 0,
        }];
        let cut = CallArguments::Malformed {
            raw: "{\"name\": \"get_weather\", \"argu".into(),
            reason: "not JSON".into(),
        };
        let again = call("get_weather", parsed("Paris"));
        assert!(only_repeats(&made, std::slice::from_ref(&again)));
        assert!(only_repeats(
            &made,
            &[
                again.clone(),
                again.clone(),
                call("get_weather", cut.clone())
            ]
        ));
        // Something new in the reply, or only a broken call, is not a loop.
        assert!(!only_repeats(
            &made,
            &[again.clone(), call("get_weather", parsed("Rome"))]
        ));
        assert!(!only_repeats(&made, &[call("get_weather", cut.clone())]));
        assert!(!only_repeats(&made, &[again, call("get_time", cut)]));
        assert!(!only_repeats(&made, &[]));
        // A call that failed may be retried.
        let failed = [ObservedCall {
            result_is_error: Some(true),
            ..made[0].clone()
        }];
        assert!(!only_repeats(
            &failed,
            &[call("get_weather", parsed("Paris"))]
        ));
    }
}
