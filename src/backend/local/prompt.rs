//! What the local model is shown, in one of two styles. **Native**: the model's own chat template
//! renders the tools (for Qwen, `<tools>` in the system turn) and the conversation, tool calls and
//! tool responses included, exactly as llama-server or vLLM would, and the model answers in its own
//! call syntax — which is read off the template itself by rendering a probe call. **Instructed**:
//! for templates that know nothing of tools (SmolLM2's), mcpick's own system prompt lists the tools
//! and asks for a JSON object.

use super::chat_template::{ChatTemplate, python_json};
use crate::backend::hosted::arguments_text;
use crate::backend::{ChatMessage, DEFAULT_SYSTEM_PROMPT};
use crate::observation::CallArguments;
use serde_json::{Value, json};

/// How the model's template writes a tool call: the text before the tool's name (for Qwen
/// `<tool_call>\n{"name": "`) and between the name and the arguments object (`", "arguments": `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSyntax {
    pub before_name: String,
    pub after_name: String,
}

/// The probe call that reveals a template's call syntax.
const PROBE_TOOL: &str = "probe_tool_name";

impl CallSyntax {
    /// Renders a conversation ending in a probe call and reads the syntax around it; `None` when
    /// the template does not show tools or calls.
    pub fn of(template: &ChatTemplate) -> Option<CallSyntax> {
        let tools = [json!({"type": "function", "function": {
            "name": PROBE_TOOL, "description": "probe",
            "parameters": {"type": "object", "properties": {"probe_argument": {"type": "string"}}}}})];
        let conversation = [
            json!({"role": "system", "content": "s"}),
            json!({"role": "user", "content": "u"}),
        ];
        let open = template.render(&conversation, Some(&tools), true).ok()?;
        if !open.contains(PROBE_TOOL) {
            return None;
        }
        let arguments = json!({"probe_argument": "probe_value"});
        let mut called = conversation.to_vec();
        called.push(json!({"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "id": "call_1", "function": {"name": PROBE_TOOL, "arguments": arguments}}]}));
        let closed = template.render(&called, Some(&tools), false).ok()?;
        let reply = closed.strip_prefix(open.as_str())?;
        let name_at = reply.find(PROBE_TOOL)?;
        let arguments_at = reply.find(&python_json(&arguments, None))?;
        let after_name = reply.get(name_at + PROBE_TOOL.len()..arguments_at)?;
        Some(CallSyntax {
            before_name: reply[..name_at].to_string(),
            after_name: after_name.to_string(),
        })
    }
}

/// The conversation as OpenAI-shaped messages, the way servers hand them to templates: a system
/// message first (the task's own, else the one hosted models get), calls with their arguments as
/// objects, tool results as `tool` messages.
pub fn native_messages(transcript: &[ChatMessage]) -> Vec<Value> {
    let mut messages = Vec::with_capacity(transcript.len() + 1);
    if !matches!(transcript.first(), Some(ChatMessage::System { .. })) {
        messages.push(json!({"role": "system", "content": DEFAULT_SYSTEM_PROMPT}));
    }
    for message in transcript {
        messages.push(match message {
            ChatMessage::System { content } => json!({"role": "system", "content": content}),
            ChatMessage::User { content } => json!({"role": "user", "content": content}),
            ChatMessage::Assistant { text, calls, .. } if calls.is_empty() => {
                json!({"role": "assistant", "content": text.clone().unwrap_or_default()})
            }
            ChatMessage::Assistant { text, calls, .. } => {
                let calls: Vec<Value> = calls
                    .iter()
                    .map(|call| {
                        let arguments = match &call.arguments {
                            CallArguments::Parsed(map) => Value::Object(map.clone()),
                            malformed => Value::String(arguments_text(malformed)),
                        };
                        json!({"type": "function", "id": call.id,
                            "function": {"name": call.tool, "arguments": arguments}})
                    })
                    .collect();
                json!({"role": "assistant", "content": text.clone().unwrap_or_default(), "tool_calls": calls})
            }
            ChatMessage::Tool {
                call_id,
                tool,
                content,
                ..
            } => json!({"role": "tool", "tool_call_id": call_id, "name": tool, "content": content}),
        });
    }
    messages
}

/// MCP tools as OpenAI function tools, the shape chat templates expect.
pub fn native_tools(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let mut function = serde_json::Map::new();
            function.insert("name".into(), tool["name"].clone());
            if let Some(description) = tool.get("description") {
                function.insert("description".into(), description.clone());
            }
            function.insert("parameters".into(), tool["inputSchema"].clone());
            json!({"type": "function", "function": function})
        })
        .collect()
}

/// The instructed multiple-choice prompt: the tools, one a line, and `none`.
pub fn choice_prompt(tools: &[Value]) -> String {
    let mut prompt =
        String::from("You choose the one tool that fulfils the user's request.\nTools:\n");
    for tool in tools {
        let parameters: Vec<&str> = tool["inputSchema"]["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        prompt.push_str(&format!(
            "- {}: {} (parameters: {})\n",
            tool["name"].as_str().unwrap_or(""),
            one_line(tool["description"].as_str().unwrap_or("")),
            if parameters.is_empty() {
                "none".to_string()
            } else {
                parameters.join(", ")
            }
        ));
    }
    prompt
        .push_str("- none: no tool fits; answer without a tool\nReply with the tool's name only.");
    prompt
}

/// The instructed prompt for a model that writes its own call. Parameters are listed one per line
/// (type, allowed values, required) rather than as JSON Schema: shorter, and easier for a small model.
pub fn generation_prompt(tools: &[Value]) -> String {
    let mut prompt = String::from("You can call these tools:\n");
    for tool in tools {
        prompt.push_str(&format!(
            "- {}: {}\n",
            tool["name"].as_str().unwrap_or(""),
            one_line(tool["description"].as_str().unwrap_or(""))
        ));
        let schema = &tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            let mut line = format!(
                "    {name} ({}{})",
                property["type"].as_str().unwrap_or("any"),
                if required.contains(&name.as_str()) {
                    ", required"
                } else {
                    ""
                }
            );
            if let Some(values) = property["enum"].as_array() {
                let values: Vec<String> = values.iter().map(Value::to_string).collect();
                line.push_str(&format!(" one of {}", values.join(", ")));
            }
            if let Some(description) = property["description"].as_str() {
                line.push_str(&format!(": {}", one_line(description)));
            }
            prompt.push_str(&line);
            prompt.push('\n');
        }
    }
    prompt.push_str("To call a tool, reply with only a JSON object: {\"name\": \"TOOL\", \"arguments\": {...}}. If no tool fits, reply {\"name\": \"none\", \"arguments\": {}} or answer in plain text.");
    prompt
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ToolCallRequest;

    /// Qwen2.5-Coder's chat template, as its GGUF file carries it.
    const QWEN_TEMPLATE: &str =
        include_str!("../../../tests/data/templates/qwen2.5-coder-0.5b.jinja");

    #[test]
    fn the_call_syntax_is_read_off_the_template() {
        // The 1.5B's template differs from the 0.5B's in its instructions (doubled braces), not
        // in how it writes a call.
        let default_model = include_str!("../../../tests/data/templates/qwen2.5-coder-1.5b.jinja");
        for template in [QWEN_TEMPLATE, default_model] {
            let qwen = ChatTemplate::new(template, "", "<|im_end|>").unwrap();
            assert_eq!(
                CallSyntax::of(&qwen),
                Some(CallSyntax {
                    before_name: "<tool_call>\n{\"name\": \"".into(),
                    after_name: "\", \"arguments\": ".into()
                })
            );
        }
        // ChatML without tools (SmolLM2's): instructed.
        let plain = ChatTemplate::new(
            "{% for m in messages %}{{ '<|im_start|>' + m.role + '\n' + m.content + '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}",
            "",
            "",
        )
        .unwrap();
        assert_eq!(CallSyntax::of(&plain), None);
    }

    #[test]
    fn conversations_render_as_servers_render_them() {
        let qwen = ChatTemplate::new(QWEN_TEMPLATE, "", "<|im_end|>").unwrap();
        let mut arguments = serde_json::Map::new();
        arguments.insert("city".into(), json!("Paris"));
        let transcript = vec![
            ChatMessage::User {
                content: "Weather in Paris?".into(),
            },
            ChatMessage::Assistant {
                text: None,
                calls: vec![ToolCallRequest {
                    id: "call_1".into(),
                    tool: "get_weather".into(),
                    arguments: CallArguments::Parsed(arguments),
                }],
                searches: Vec::new(),
            },
            ChatMessage::Tool {
                call_id: "call_1".into(),
                tool: "get_weather".into(),
                content: "18 °C, sunny".into(),
                is_error: false,
            },
        ];
        let tools = native_tools(&[
            json!({"name": "get_weather", "description": "Current weather.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}),
        ]);
        let text = qwen
            .render(&native_messages(&transcript), Some(&tools), true)
            .unwrap();
        // Rendered by Python's jinja2 as Hugging Face renders chat templates.
        let expected = include_str!("../../../tests/data/templates/qwen2.5-coder-0.5b.weather.txt");
        assert_eq!(text, expected);
    }
}
