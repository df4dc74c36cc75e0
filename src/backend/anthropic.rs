//! `anthropic:MODEL`: the Messages API (`POST /v1/messages`, `anthropic-version: 2023-06-01`) with
//! `tools`; the model answers with `tool_use` blocks and gets `tool_result` blocks back (all results
//! of one turn in one user message, as the API requires), `is_error` set for tool errors.
//!
//! Under `native-search` every tool is sent with `defer_loading: true` beside the BM25 tool search
//! tool (`tool_search_tool_bm25_20251119`, beta `advanced-tool-use-2025-11-20`): the API searches on
//! its side, within the same reply, and answers with `server_tool_use` and
//! `tool_search_tool_result` blocks (the tools found as `tool_reference`s) before the `tool_use`.
//! Those searches are recorded, and sent back in later turns as the API requires.

use super::batch_api::{AnthropicBatches, BatchApi, BatchRequest};
use super::hosted::{DEFAULT_SYSTEM_PROMPT, HostedConfig, send_json};
use super::provider_names::ToolNameMap;
use super::{BackendError, ChatMessage, Reply, ToolCallRequest, Turn};
use crate::observation::CallArguments;
use crate::tool_exposure::ObservedSearch;
use serde_json::{Value, json};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const DEFAULT_API_KEY_ENV: &str = "ANTHROPIC_API_KEY";
const API_VERSION: &str = "2023-06-01";
/// The beta the tool search tool and `defer_loading` need.
pub const TOOL_SEARCH_BETA: &str = "advanced-tool-use-2025-11-20";
const TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
const TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";

#[derive(Debug, Clone)]
pub struct AnthropicBackend {
    pub config: HostedConfig,
    http: reqwest::Client,
}

impl AnthropicBackend {
    pub fn new(config: HostedConfig) -> Result<AnthropicBackend, String> {
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
        Ok(AnthropicBackend { config, http })
    }

    /// The request body for one turn.
    pub fn request_body(&self, turn: &Turn<'_>, names: &ToolNameMap) -> Value {
        let mut system = Vec::new();
        let mut messages: Vec<Value> = Vec::new();
        for message in turn.messages {
            match message {
                ChatMessage::System { content } => system.push(content.as_str()),
                ChatMessage::User { content } => {
                    messages.push(json!({"role": "user", "content": content}));
                }
                ChatMessage::Assistant {
                    text,
                    calls,
                    searches,
                } => {
                    let mut blocks = Vec::new();
                    for (i, search) in searches.iter().enumerate() {
                        let id = search
                            .id
                            .clone()
                            .unwrap_or_else(|| format!("srvtoolu_{}", i + 1));
                        let references: Vec<Value> = search
                            .found
                            .iter()
                            .map(|tool| json!({"type": "tool_reference", "tool_name": names.to_provider(tool)}))
                            .collect();
                        blocks.push(json!({"type": "server_tool_use", "id": id,
                            "name": TOOL_SEARCH_NAME, "input": {"query": search.query}}));
                        blocks.push(json!({"type": "tool_search_tool_result", "tool_use_id": id,
                            "content": {"type": "tool_search_tool_search_result", "tool_references": references}}));
                    }
                    if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
                        blocks.push(json!({"type": "text", "text": text}));
                    }
                    for call in calls {
                        // The API only takes an object here; malformed input was never executed.
                        let input = match &call.arguments {
                            CallArguments::Parsed(map) => Value::Object(map.clone()),
                            CallArguments::Malformed { .. } => json!({}),
                        };
                        blocks.push(json!({"type": "tool_use", "id": call.id,
                            "name": names.to_provider(&call.tool), "input": input}));
                    }
                    if blocks.is_empty() {
                        blocks.push(json!({"type": "text", "text": "(no reply)"}));
                    }
                    messages.push(json!({"role": "assistant", "content": blocks}));
                }
                ChatMessage::Tool {
                    call_id,
                    content,
                    is_error,
                    ..
                } => {
                    let block = json!({"type": "tool_result", "tool_use_id": call_id,
                        "content": content, "is_error": is_error});
                    // Results of one turn share a user message.
                    match messages.last_mut() {
                        Some(last)
                            if last["role"] == "user"
                                && last["content"][0]["type"] == "tool_result" =>
                        {
                            if let Some(blocks) = last["content"].as_array_mut() {
                                blocks.push(block);
                            }
                        }
                        _ => messages.push(json!({"role": "user", "content": [block]})),
                    }
                }
            }
        }
        let system = if system.is_empty() {
            DEFAULT_SYSTEM_PROMPT.to_string()
        } else {
            system.join("\n\n")
        };
        let mut body = json!({
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "temperature": self.config.temperature,
            "system": system,
            "messages": messages,
        });
        let mut tools: Vec<Value> = turn
            .tools
            .iter()
            .map(|tool| {
                let mut t = json!({
                    "name": names.to_provider(tool["name"].as_str().unwrap_or_default()),
                    "input_schema": tool["inputSchema"],
                });
                if let Some(description) = tool["description"].as_str() {
                    t["description"] = json!(description);
                }
                if turn.deferred_tools {
                    t["defer_loading"] = json!(true);
                }
                t
            })
            .collect();
        if turn.deferred_tools {
            tools.insert(
                0,
                json!({"type": TOOL_SEARCH_TYPE, "name": TOOL_SEARCH_NAME}),
            );
        }
        if !tools.is_empty() {
            body["tools"] = json!(tools);
        }
        body
    }

    /// The provider's Message Batches API, with this backend's server and key.
    pub fn batch_api(&self) -> BatchApi {
        BatchApi::Anthropic(AnthropicBatches::new(
            self.config.clone(),
            self.http.clone(),
        ))
    }

    /// One turn as a request of a batch; requests that defer their tools need the tool search
    /// beta, so they go in batches of their own.
    pub fn batch_request(&self, turn: &Turn<'_>) -> BatchRequest {
        let names = ToolNameMap::new(turn.tools.iter().filter_map(|t| t["name"].as_str()));
        BatchRequest {
            group: if turn.deferred_tools {
                TOOL_SEARCH_BETA.into()
            } else {
                String::new()
            },
            body: self.request_body(turn, &names),
        }
    }

    pub async fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        let names = ToolNameMap::new(turn.tools.iter().filter_map(|t| t["name"].as_str()));
        let mut request = self
            .http
            .post(format!("{}/v1/messages", self.config.base_url))
            .header("anthropic-version", API_VERSION)
            .json(&self.request_body(&turn, &names));
        if turn.deferred_tools {
            request = request.header("anthropic-beta", TOOL_SEARCH_BETA);
        }
        if let Some(key) = &self.config.api_key {
            request = request.header("x-api-key", key);
        }
        let value = send_json(request, &self.config.api_key_env).await?;
        parse_reply(&value, &names)
    }
}

/// Reads the `content` blocks of a Messages reply.
pub fn parse_reply(response: &Value, names: &ToolNameMap) -> Result<Reply, BackendError> {
    let blocks = response["content"].as_array().ok_or_else(|| {
        BackendError::Decode("the reply has no `content` array of blocks".to_string())
    })?;
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut searches: Vec<ObservedSearch> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block["type"].as_str() {
            None => {
                return Err(BackendError::Decode(format!(
                    "content[{i}] is not a block with a type: {}",
                    super::hosted::body_excerpt(&block.to_string())
                )));
            }
            Some("text") => {
                let text = block["text"].as_str().ok_or_else(|| {
                    BackendError::Decode(format!("content[{i}] is a text block without text"))
                })?;
                texts.push(text.to_string());
            }
            Some("tool_use") => {
                let name = block["name"].as_str().ok_or_else(|| {
                    BackendError::Decode(format!("content[{i}] is a tool_use without a name"))
                })?;
                let arguments = match &block["input"] {
                    Value::Object(map) => CallArguments::Parsed(map.clone()),
                    other => super::hosted::parse_arguments(other),
                };
                calls.push(ToolCallRequest {
                    id: block["id"]
                        .as_str()
                        .map_or_else(|| format!("toolu_{}", i + 1), str::to_string),
                    tool: names.to_mcp(name),
                    arguments,
                });
            }
            // A search the API ran: its query now, what it found in the result block after it.
            Some("server_tool_use") if block["name"] == TOOL_SEARCH_NAME => {
                let input = &block["input"];
                let query = input["query"]
                    .as_str()
                    .or_else(|| input["pattern"].as_str())
                    .unwrap_or_default();
                searches.push(ObservedSearch {
                    query: query.to_string(),
                    found: Vec::new(),
                    reply: 0,
                    native: true,
                    id: block["id"].as_str().map(str::to_string),
                });
            }
            Some("tool_search_tool_result") => {
                let id = block["tool_use_id"].as_str();
                let search = searches
                    .iter_mut()
                    .rev()
                    .find(|s| s.id.as_deref() == id)
                    .ok_or_else(|| {
                        BackendError::Decode(format!(
                            "content[{i}] is a tool_search_tool_result for no server_tool_use before it"
                        ))
                    })?;
                // An error result (`tool_search_tool_result_error`) found nothing.
                search.found = block["content"]["tool_references"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r["tool_name"].as_str())
                    .map(|name| names.to_mcp(name))
                    .collect();
            }
            // Thinking and other block types carry nothing to score.
            _ => {}
        }
    }
    if calls.is_empty() && response["stop_reason"] == "tool_use" {
        return Err(BackendError::Decode(
            "stop_reason is \"tool_use\" but the content holds no tool_use block".to_string(),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Shapes the Messages API does not document are decode errors, never replies without calls.
    #[test]
    fn undocumented_shapes_are_decode_errors_never_replies_without_calls() {
        let names = ToolNameMap::new(["files.read"]);
        for response in [
            json!({"content": "hello"}),
            json!({"content": {"type": "text", "text": "hi"}}),
            json!({"content": [{"text": "no type"}]}),
            json!({"content": ["hi"]}),
            json!({"content": [{"type": "text", "text": 3}]}),
            json!({"content": [{"type": "tool_use", "id": "t", "input": {}}]}),
            json!({"stop_reason": "tool_use", "content": [{"type": "text", "text": "calling"}]}),
        ] {
            let parsed = parse_reply(&response, &names);
            assert!(
                matches!(parsed, Err(BackendError::Decode(_))),
                "{response}: {parsed:?}"
            );
        }
        let good = json!({"stop_reason": "tool_use", "content": [
            {"type": "thinking", "thinking": "hm"},
            {"type": "text", "text": "Reading it."},
            {"type": "tool_use", "id": "t1", "name": "files_read", "input": {"path": "x"}}
        ], "usage": {"input_tokens": 7, "output_tokens": 2}});
        let reply = parse_reply(&good, &names).unwrap();
        assert_eq!(reply.calls[0].tool, "files.read");
        assert_eq!(reply.text.as_deref(), Some("Reading it."));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Fuzzing: any JSON parses or is a decode error, never a panic; a reply without calls
        /// comes only from content holding no `tool_use` block.
        #[test]
        fn any_reply_parses_or_is_a_decode_error(response in crate::json_strategy::any_json()) {
            let names = ToolNameMap::new(["files.read"]);
            match parse_reply(&response, &names) {
                Ok(reply) if reply.calls.is_empty() => {
                    let blocks = response["content"].as_array().unwrap();
                    proptest::prop_assert!(
                        blocks.iter().all(|b| b["type"] != "tool_use"),
                        "{response}"
                    );
                }
                Ok(_) | Err(BackendError::Decode(_)) => {}
                Err(other) => proptest::prop_assert!(false, "{other:?}"),
            }
        }
    }
}
