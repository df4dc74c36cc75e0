//! `openai:MODEL`: the Chat Completions API with native `tools`, through async-openai, against
//! api.openai.com or any OpenAI-compatible server (`--base-url`: vLLM, llama.cpp, Ollama, LM Studio,
//! OpenRouter). Requests and replies are plain JSON (async-openai's bring-your-own-types calls), so a
//! server that adds or omits fields still decodes. The HTTP layer is our own tower service: it does
//! not retry (the runner does, visibly) and it keeps the `Retry-After` a 429 carries.
//!
//! Real servers' quirks handled here: tools only reach llama.cpp's prompt when a system message is
//! present (one is always sent); `tool_choice: "required"` fails there, so `"auto"` is sent; replies
//! are not streamed; only `tool_calls` is read, never the legacy `function_call`; an assistant
//! message that made calls carries `content: ""`, since a null content is rejected there.
//!
//! Under `native-search` a turn goes to the Responses API instead (`openai_responses`), whose
//! `tool_search` is OpenAI's own.

use super::batch_api::{BatchApi, BatchRequest, OpenAiBatches};
use super::hosted::{
    DEFAULT_SYSTEM_PROMPT, HostedConfig, arguments_text, body_excerpt, error_for_status, json_kind,
    parse_arguments, retry_after, send_json,
};
use super::openai_responses;
use super::provider_names::ToolNameMap;
use super::{BackendError, ChatMessage, Reply, ToolCallRequest, Turn};
use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use serde_json::{Value, json};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";

/// An HTTP failure as our service reports it, with what async-openai would drop (Retry-After, and
/// bodies that are not OpenAI error objects, such as a proxy's HTML page).
#[derive(Debug, thiserror::Error)]
#[error("HTTP {status}")]
struct HttpFailure {
    status: u16,
    retry_after: Option<std::time::Duration>,
    body: String,
}

#[derive(Clone)]
pub struct OpenAiBackend {
    pub config: HostedConfig,
    client: Client<OpenAIConfig>,
    /// For the Responses API (`native-search`), which the async-openai features built here lack.
    http: reqwest::Client,
}

impl std::fmt::Debug for OpenAiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiBackend")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl OpenAiBackend {
    pub fn new(config: HostedConfig) -> Result<OpenAiBackend, String> {
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
        let responses_http = http.clone();
        let service = tower::service_fn(move |factory: HttpRequestFactory| {
            let http = http.clone();
            async move {
                let request = factory.build().await?;
                let response = http.execute(request).await.map_err(OpenAIError::Reqwest)?;
                let status = response.status().as_u16();
                // Every failure is read here, where the headers still are, so all statuses are
                // classified alike and a 429's Retry-After survives.
                if status >= 400 {
                    let retry_after = retry_after(response.headers());
                    let body = response.text().await.unwrap_or_default();
                    return Err(OpenAIError::Boxed(Box::new(HttpFailure {
                        status,
                        retry_after,
                        body,
                    })));
                }
                Ok::<_, OpenAIError>(response)
            }
        });
        let openai = OpenAIConfig::new()
            .with_api_base(&config.base_url)
            .with_api_key(config.api_key.clone().unwrap_or_default())
            .with_org_id("")
            .with_project_id("");
        let client = Client::with_config(openai).with_http_service(service);
        Ok(OpenAiBackend {
            config,
            client,
            http: responses_http,
        })
    }

    /// The request body for one turn (public so tests can check it without a server).
    pub fn request_body(&self, turn: &Turn<'_>, names: &ToolNameMap) -> Value {
        let mut messages = Vec::new();
        if !turn
            .messages
            .iter()
            .any(|m| matches!(m, ChatMessage::System { .. }))
        {
            messages.push(json!({"role": "system", "content": DEFAULT_SYSTEM_PROMPT}));
        }
        for message in turn.messages {
            messages.push(match message {
                ChatMessage::System { content } => json!({"role": "system", "content": content}),
                ChatMessage::User { content } => json!({"role": "user", "content": content}),
                ChatMessage::Assistant { text, calls, .. } => {
                    // An empty string rather than null: the API allows either beside tool calls,
                    // but llama-cpp-python's server rejects null.
                    let mut m =
                        json!({"role": "assistant", "content": text.as_deref().unwrap_or("")});
                    if !calls.is_empty() {
                        m["tool_calls"] = calls
                            .iter()
                            .map(|c| {
                                json!({"id": c.id, "type": "function", "function": {
                                    "name": names.to_provider(&c.tool),
                                    "arguments": arguments_text(&c.arguments),
                                }})
                            })
                            .collect();
                    }
                    m
                }
                ChatMessage::Tool {
                    call_id, content, ..
                } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
            });
        }
        let tools: Vec<Value> = turn
            .tools
            .iter()
            .map(|tool| {
                let name = tool["name"].as_str().unwrap_or_default();
                let mut function = json!({
                    "name": names.to_provider(name),
                    "parameters": tool["inputSchema"],
                });
                if let Some(description) = tool["description"].as_str() {
                    function["description"] = json!(description);
                }
                json!({"type": "function", "function": function})
            })
            .collect();
        let mut body = json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "stream": false,
        });
        if !tools.is_empty() {
            body["tools"] = json!(tools);
            body["tool_choice"] = json!("auto");
        }
        body
    }

    pub async fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        let names = ToolNameMap::new(turn.tools.iter().filter_map(|t| t["name"].as_str()));
        if turn.deferred_tools {
            return self.complete_with_tool_search(&turn, &names).await;
        }
        let body = self.request_body(&turn, &names);
        let response: Value = self
            .client
            .chat()
            .create_byot(body)
            .await
            .map_err(|e| self.classify(e))?;
        parse_reply(&response, &names)
    }

    /// The provider's Batch API, with this backend's server and key.
    pub fn batch_api(&self) -> BatchApi {
        BatchApi::OpenAi(OpenAiBatches::new(self.config.clone(), self.http.clone()))
    }

    /// One turn as a line of a batch: the body this backend would POST, under the endpoint it
    /// would POST it to (Chat Completions, or the Responses API under `native-search`).
    pub fn batch_request(&self, turn: &Turn<'_>) -> BatchRequest {
        let names = ToolNameMap::new(turn.tools.iter().filter_map(|t| t["name"].as_str()));
        if turn.deferred_tools {
            BatchRequest {
                group: "/v1/responses".into(),
                body: openai_responses::request_body(&self.config, turn, &names),
            }
        } else {
            BatchRequest {
                group: "/v1/chat/completions".into(),
                body: self.request_body(turn, &names),
            }
        }
    }

    /// A batch result's response body, read as the endpoint's own reply.
    pub fn parse_batch_reply(&self, turn: &Turn<'_>, body: &Value) -> Result<Reply, BackendError> {
        let names = ToolNameMap::new(turn.tools.iter().filter_map(|t| t["name"].as_str()));
        if turn.deferred_tools {
            openai_responses::parse_reply(body, &names)
        } else {
            parse_reply(body, &names)
        }
    }

    /// One turn through the Responses API with every tool deferred behind `tool_search`.
    async fn complete_with_tool_search(
        &self,
        turn: &Turn<'_>,
        names: &ToolNameMap,
    ) -> Result<Reply, BackendError> {
        let mut request = self
            .http
            .post(format!("{}/responses", self.config.base_url))
            .json(&openai_responses::request_body(&self.config, turn, names));
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        let value = send_json(request, &self.config.api_key_env).await?;
        openai_responses::parse_reply(&value, names)
    }

    fn classify(&self, error: OpenAIError) -> BackendError {
        let env = &self.config.api_key_env;
        match error {
            OpenAIError::Boxed(boxed) => match boxed.downcast::<HttpFailure>() {
                Ok(failure) => {
                    error_for_status(failure.status, failure.retry_after, &failure.body, env)
                }
                Err(other) => BackendError::Transient(other.to_string()),
            },
            OpenAIError::ApiError(api) => {
                error_for_status(api.status_code.as_u16(), None, &api.api_error.message, env)
            }
            OpenAIError::Reqwest(e) if e.is_decode() => BackendError::Decode(e.to_string()),
            OpenAIError::Reqwest(e) => BackendError::Transient(format!(
                "{}: {e}",
                if e.is_connect() {
                    "cannot connect"
                } else {
                    "HTTP failure"
                }
            )),
            OpenAIError::JSONDeserialize(e, body) => {
                BackendError::Decode(format!("{e}; the body began {:?}", body_excerpt(&body)))
            }
            other => BackendError::BadRequest(other.to_string()),
        }
    }
}

/// Reads `choices[0].message`: its text and its `tool_calls`, in the documented shapes only. Any
/// other shape — `tool_calls` that is not an array, `content` that is neither text nor text
/// parts, a call without `function.name`, `finish_reason: "tool_calls"` with no calls — is a
/// `Decode` error, never a reply without calls: that would be scored as an abstention.
pub fn parse_reply(response: &Value, names: &ToolNameMap) -> Result<Reply, BackendError> {
    let choice = response.pointer("/choices/0").unwrap_or(&Value::Null);
    let message = choice
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| {
            BackendError::Decode(format!(
                "no choices[0].message in the reply: {}",
                body_excerpt(&response.to_string())
            ))
        })?;
    let text = message_text(&message["content"])?;
    let listed = match &message["tool_calls"] {
        Value::Null => &Vec::new(),
        Value::Array(calls) => calls,
        other => {
            return Err(BackendError::Decode(format!(
                "choices[0].message.tool_calls is a {} where an array was expected: {}",
                json_kind(other),
                body_excerpt(&other.to_string())
            )));
        }
    };
    let mut calls = Vec::new();
    for (i, call) in listed.iter().enumerate() {
        let function = &call["function"];
        let Some(name) = function["name"].as_str() else {
            return Err(BackendError::Decode(format!(
                "tool_calls[{i}] has no function.name: {}",
                body_excerpt(&call.to_string())
            )));
        };
        calls.push(ToolCallRequest {
            id: call["id"]
                .as_str()
                .filter(|id| !id.is_empty())
                .map_or_else(|| format!("call_{}", i + 1), str::to_string),
            tool: names.to_mcp(name),
            arguments: parse_arguments(&function["arguments"]),
        });
    }
    if calls.is_empty() && choice["finish_reason"] == "tool_calls" {
        return Err(BackendError::Decode(
            "finish_reason is \"tool_calls\" but the message holds no tool_calls".to_string(),
        ));
    }
    let usage = &response["usage"];
    Ok(Reply {
        text,
        calls,
        input_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0),
        output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
        searches: Vec::new(),
        // Token log-probabilities, where a server returns them, are of the text it wrote; a call
        // goes back as structured `tool_calls` whose choice they do not cover (`docs/statistics.md`).
        actions: Vec::new(),
    })
}

/// `message.content`: text, null, or (as some compatible servers send) an array of text parts.
fn message_text(content: &Value) -> Result<Option<String>, BackendError> {
    let text = match content {
        Value::Null => return Ok(None),
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let mut texts = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                match (part["type"].as_str(), part["text"].as_str()) {
                    (Some("text"), Some(text)) => texts.push(text),
                    // A refusal part is text the model chose not to act on.
                    (Some("refusal"), _) => texts.extend(part["refusal"].as_str()),
                    _ => {
                        return Err(BackendError::Decode(format!(
                            "choices[0].message.content[{i}] is not a text part: {}",
                            body_excerpt(&part.to_string())
                        )));
                    }
                }
            }
            texts.join("\n")
        }
        other => {
            return Err(BackendError::Decode(format!(
                "choices[0].message.content is a {} where text was expected",
                json_kind(other)
            )));
        }
    };
    Ok((!text.is_empty()).then_some(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::CallArguments;

    #[test]
    fn replies_map_provider_names_back_and_keep_bad_arguments() {
        let names = ToolNameMap::new(["files.read"]);
        let reply = parse_reply(
            &json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "files_read", "arguments": "{\"path\": \"x\"}"}},
                {"id": "b", "type": "function", "function": {"name": "files_read", "arguments": "{\"path\": "}}
            ]}}], "usage": {"prompt_tokens": 12, "completion_tokens": 5}}),
            &names,
        )
        .unwrap();
        assert_eq!(reply.calls.len(), 2);
        assert_eq!(reply.calls[0].tool, "files.read");
        assert!(matches!(
            reply.calls[1].arguments,
            CallArguments::Malformed { .. }
        ));
        assert_eq!((reply.input_tokens, reply.output_tokens), (12, 5));
        assert!(parse_reply(&json!({"error": "x"}), &names).is_err());
    }

    /// Shapes the documentation does not allow are decode errors: scored as replies without calls,
    /// each would count as an abstention.
    #[test]
    fn undocumented_shapes_are_decode_errors_never_replies_without_calls() {
        let names = ToolNameMap::new(["files.read"]);
        let call = json!({"id": "a", "type": "function", "function": {"name": "files_read", "arguments": "{}"}});
        let messages = [
            json!({"role": "assistant", "tool_calls": "files_read"}),
            json!({"role": "assistant", "tool_calls": {"0": call}}),
            json!({"role": "assistant", "tool_calls": 3}),
            json!({"role": "assistant", "tool_calls": [{"function": "files_read"}]}),
            json!({"role": "assistant", "tool_calls": ["files_read"]}),
            json!({"role": "assistant", "content": 42}),
            json!({"role": "assistant", "content": {"text": "hi"}}),
            json!({"role": "assistant", "content": [{"type": "image_url"}]}),
            json!({"role": "assistant", "content": ["hi"]}),
        ];
        for message in messages {
            let response = json!({"choices": [{"message": message}]});
            let parsed = parse_reply(&response, &names);
            assert!(
                matches!(parsed, Err(BackendError::Decode(_))),
                "{message}: {parsed:?}"
            );
        }
        for response in [
            json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": "ok"}}]}),
            json!({"choices": "x"}),
            json!({"choices": [{"message": "hi"}]}),
            json!([]),
        ] {
            let parsed = parse_reply(&response, &names);
            assert!(
                matches!(parsed, Err(BackendError::Decode(_))),
                "{response}: {parsed:?}"
            );
        }
        // The documented shapes still parse: text parts, null content with calls, no calls.
        let parts = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]});
        assert_eq!(
            parse_reply(&parts, &names).unwrap().text.as_deref(),
            Some("a\nb")
        );
        let called = json!({"choices": [{"finish_reason": "tool_calls", "message": {"content": null, "tool_calls": [call]}}]});
        assert_eq!(parse_reply(&called, &names).unwrap().calls.len(), 1);
        let plain = json!({"choices": [{"message": {"content": "hello", "tool_calls": null}}]});
        assert!(parse_reply(&plain, &names).unwrap().calls.is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Fuzzing: any JSON at all parses or is a decode error, never a panic; and a reply without
        /// calls comes only from a message whose `tool_calls` is absent, null or empty.
        #[test]
        fn any_reply_parses_or_is_a_decode_error(response in crate::json_strategy::any_json()) {
            let names = ToolNameMap::new(["files.read"]);
            match parse_reply(&response, &names) {
                Ok(reply) if reply.calls.is_empty() => {
                    let calls = &response["choices"][0]["message"]["tool_calls"];
                    proptest::prop_assert!(
                        calls.is_null() || calls.as_array().is_some_and(Vec::is_empty),
                        "{response}"
                    );
                }
                Ok(_) | Err(BackendError::Decode(_)) => {}
                Err(other) => proptest::prop_assert!(false, "{other:?}"),
            }
        }
    }
}
