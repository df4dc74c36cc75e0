//! `openai:MODEL` under `native-search`: the Responses API (`POST /responses`), the one OpenAI API
//! with a tool search of its own. Every function is sent with `defer_loading: true` beside
//! `{"type": "tool_search"}` (executed by OpenAI's servers); a reply's `output` holds the search the
//! model ran (`tool_search_call`, its `arguments`), what it loaded (`tool_search_output`, the loaded
//! tool definitions) and then `function_call` items. Later turns send the conversation back as
//! input items — the searches with their results, each call with its `function_call_output` — so
//! the model keeps what it loaded. Only the documented item types are read; a `function_call`
//! without a name, or an `output` that is not an array, is a decode error, never an abstention.

use super::hosted::{DEFAULT_SYSTEM_PROMPT, HostedConfig, arguments_text, parse_arguments};
use super::provider_names::ToolNameMap;
use super::{BackendError, ChatMessage, Reply, ToolCallRequest, Turn};
use crate::tool_exposure::ObservedSearch;
use serde_json::{Value, json};

/// The request body of one turn.
pub fn request_body(config: &HostedConfig, turn: &Turn<'_>, names: &ToolNameMap) -> Value {
    let mut instructions = Vec::new();
    let mut input: Vec<Value> = Vec::new();
    for message in turn.messages {
        match message {
            ChatMessage::System { content } => instructions.push(content.as_str()),
            ChatMessage::User { content } => {
                input.push(json!({"role": "user", "content": content}));
            }
            ChatMessage::Assistant {
                text,
                calls,
                searches,
            } => {
                for (i, search) in searches.iter().enumerate() {
                    let call_id = search.id.clone().unwrap_or_else(|| format!("ts_{}", i + 1));
                    // The tools it loaded, as they are listed now (a search only adds tools).
                    let loaded: Vec<Value> = search
                        .found
                        .iter()
                        .filter_map(|name| turn.tools.iter().find(|t| t["name"] == name.as_str()))
                        .map(|tool| function(tool, names, true))
                        .collect();
                    input.push(json!({"type": "tool_search_call", "call_id": call_id,
                        "execution": "server", "status": "completed",
                        "arguments": {"query": search.query}}));
                    input.push(json!({"type": "tool_search_output", "call_id": call_id,
                        "execution": "server", "status": "completed", "tools": loaded}));
                }
                if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                for call in calls {
                    input.push(json!({"type": "function_call", "call_id": call.id,
                        "name": names.to_provider(&call.tool),
                        "arguments": arguments_text(&call.arguments)}));
                }
            }
            ChatMessage::Tool {
                call_id, content, ..
            } => input.push(json!({"type": "function_call_output", "call_id": call_id,
                "output": content})),
        }
    }
    let instructions = if instructions.is_empty() {
        DEFAULT_SYSTEM_PROMPT.to_string()
    } else {
        instructions.join("\n\n")
    };
    let mut tools = vec![json!({"type": "tool_search"})];
    tools.extend(turn.tools.iter().map(|tool| function(tool, names, true)));
    json!({
        "model": config.model,
        "instructions": instructions,
        "input": input,
        "tools": tools,
        "temperature": config.temperature,
        "max_output_tokens": config.max_tokens,
        "store": false,
    })
}

/// One MCP tool as a Responses function, deferred behind the tool search.
fn function(tool: &Value, names: &ToolNameMap, deferred: bool) -> Value {
    let mut function = json!({
        "type": "function",
        "name": names.to_provider(tool["name"].as_str().unwrap_or_default()),
        "parameters": tool["inputSchema"],
        "strict": false,
    });
    if let Some(description) = tool["description"].as_str() {
        function["description"] = json!(description);
    }
    if deferred {
        function["defer_loading"] = json!(true);
    }
    function
}

/// Reads a Response's `output` items.
pub fn parse_reply(response: &Value, names: &ToolNameMap) -> Result<Reply, BackendError> {
    let items = response["output"].as_array().ok_or_else(|| {
        BackendError::Decode("the response has no `output` array of items".to_string())
    })?;
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut searches: Vec<ObservedSearch> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item["type"].as_str() {
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    if part["type"] == "output_text" {
                        let text = part["text"].as_str().ok_or_else(|| {
                            BackendError::Decode(format!(
                                "output[{i}] has output_text without text"
                            ))
                        })?;
                        texts.push(text.to_string());
                    }
                }
            }
            Some("function_call") => {
                let name = item["name"].as_str().ok_or_else(|| {
                    BackendError::Decode(format!("output[{i}] is a function_call without a name"))
                })?;
                calls.push(ToolCallRequest {
                    id: item["call_id"]
                        .as_str()
                        .map_or_else(|| format!("call_{}", i + 1), str::to_string),
                    tool: names.to_mcp(name),
                    arguments: parse_arguments(&item["arguments"]),
                });
            }
            Some("tool_search_call") => {
                let arguments = &item["arguments"];
                let query = arguments["query"]
                    .as_str()
                    .map_or_else(|| arguments.to_string(), str::to_string);
                searches.push(ObservedSearch {
                    query,
                    found: Vec::new(),
                    reply: 0,
                    native: true,
                    id: item["call_id"]
                        .as_str()
                        .or_else(|| item["id"].as_str())
                        .map(str::to_string),
                });
            }
            Some("tool_search_output") => {
                let id = item["call_id"].as_str();
                // A server-executed output may carry no call id: it answers the search before it.
                let search = searches
                    .iter_mut()
                    .rev()
                    .find(|s| id.is_none() || s.id.as_deref() == id)
                    .ok_or_else(|| {
                        BackendError::Decode(format!(
                            "output[{i}] is a tool_search_output for no tool_search_call before it"
                        ))
                    })?;
                search.found = loaded_names(&item["tools"])
                    .into_iter()
                    .map(|name| names.to_mcp(&name))
                    .collect();
            }
            None => {
                return Err(BackendError::Decode(format!(
                    "output[{i}] is not an item with a type: {}",
                    super::hosted::body_excerpt(&item.to_string())
                )));
            }
            // Reasoning and other items carry nothing to score.
            Some(_) => {}
        }
    }
    let text = texts.join("\n");
    let usage = &response["usage"];
    Ok(Reply {
        text: (!text.is_empty()).then_some(text),
        calls,
        input_tokens: usage["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: usage["output_tokens"].as_u64().unwrap_or(0),
        searches,
        // A hosted API gives no probability of its tool choice (see `pick_distribution`).
        actions: Vec::new(),
    })
}

/// The function names a `tool_search_output` loaded (those of a namespace as `namespace.name`).
fn loaded_names(tools: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for tool in tools.as_array().into_iter().flatten() {
        match tool["type"].as_str() {
            Some("namespace") => {
                let space = tool["name"].as_str().unwrap_or_default();
                for inner in tool["tools"].as_array().into_iter().flatten() {
                    if let Some(name) = inner["name"].as_str() {
                        found.push(format!("{space}.{name}"));
                    }
                }
            }
            _ => found.extend(tool["name"].as_str().map(str::to_string)),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hosted search, what it loaded, and the call after it, as the API documents them.
    #[test]
    fn a_search_its_loaded_tools_and_the_call_after_it_are_read() {
        let names = ToolNameMap::new(["weather.get", "send_email"]);
        let response = json!({
            "id": "resp_1", "object": "response", "status": "completed",
            "output": [
                {"type": "tool_search_call", "id": "tsc_1", "call_id": "call_ts1", "execution": "server",
                 "status": "completed", "arguments": {"query": "weather"}},
                {"type": "tool_search_output", "id": "tso_1", "call_id": "call_ts1", "execution": "server",
                 "status": "completed", "tools": [{"type": "function", "name": "weather_get", "parameters": {"type": "object"}}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather_get",
                 "arguments": "{\"city\":\"Oslo\"}", "status": "completed"}
            ],
            "usage": {"input_tokens": 120, "output_tokens": 12, "total_tokens": 132}
        });
        let reply = parse_reply(&response, &names).unwrap();
        assert_eq!(reply.searches.len(), 1);
        assert_eq!(reply.searches[0].query, "weather");
        assert_eq!(reply.searches[0].found, vec!["weather.get".to_string()]);
        assert_eq!(reply.calls[0].tool, "weather.get");
        assert_eq!((reply.input_tokens, reply.output_tokens), (120, 12));
        // Undocumented shapes are decode errors.
        for bad in [
            json!({"output": "weather_get"}),
            json!({"output": [{"type": "function_call", "arguments": "{}"}]}),
            json!({"output": [{"type": "tool_search_output", "call_id": "x", "tools": []}]}),
            json!({"output": [{"name": "weather_get"}]}),
        ] {
            assert!(
                matches!(parse_reply(&bad, &names), Err(BackendError::Decode(_))),
                "{bad}"
            );
        }
    }
}
