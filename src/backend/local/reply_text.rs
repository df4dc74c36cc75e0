//! Reading a model's written reply into tool calls, the way servers that host these models do:
//! `<tool_call>{"name": …, "arguments": …}</tool_call>` blocks (Qwen, Hermes and their kin; several
//! blocks are parallel calls, and the last may be cut off by the token limit), else a fenced JSON
//! block, else a bare JSON object or array of calls. Text with none of these is an answer — the
//! model abstained. Something that was meant as a call but does not parse is a malformed call with
//! its raw text, never an abstention. `{"name": "none"}` is the instructed format's way to decline.

use crate::backend::hosted::parse_arguments;
use crate::backend::{Reply, ToolCallRequest};
use crate::score::CallArguments;
use serde_json::Value;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

/// The calls (or the answer) in `text`.
pub fn parse_reply(text: &str) -> Reply {
    let trimmed = text.trim();
    let calls = if trimmed.contains(OPEN) {
        tagged_blocks(trimmed)
            .into_iter()
            .flat_map(|block| calls_in(block, true))
            .collect()
    } else if let Some(block) = fenced_block(trimmed) {
        calls_in(block, true)
    } else if let Some(start) = trimmed.find(['{', '[']) {
        let end = trimmed.rfind(['}', ']']).map_or(trimmed.len(), |e| e + 1);
        let candidate = trimmed.get(start..end.max(start)).unwrap_or_default();
        // Prose that merely contains a brace is an answer; a reply that opens with JSON, or JSON
        // that names a tool, was meant as a call.
        calls_in(candidate, start == 0 || mentions_a_call(candidate))
    } else {
        Vec::new()
    };
    let declined = calls.iter().all(|c: &ToolCallRequest| c.tool == "none");
    if calls.is_empty() || declined {
        return Reply {
            text: Some(trimmed.to_string()),
            ..Reply::default()
        };
    }
    Reply {
        calls: calls
            .into_iter()
            .filter(|c| c.tool != "none")
            .enumerate()
            .map(|(i, call)| ToolCallRequest {
                id: format!("call_{}", i + 1),
                ..call
            })
            .collect(),
        ..Reply::default()
    }
}

/// The contents of each `<tool_call>` block; an unclosed last block runs to the end.
fn tagged_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        match after.find(CLOSE) {
            Some(end) => {
                blocks.push(after[..end].trim());
                rest = &after[end + CLOSE.len()..];
            }
            None => {
                blocks.push(after.trim());
                break;
            }
        }
    }
    blocks
}

/// The body of the first ``` fence (with or without a language tag) that holds JSON.
fn fenced_block(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    let body_start = after.find('\n').map_or(0, |n| n + 1);
    let tag = after[..body_start].trim();
    if !(tag.is_empty() || tag.eq_ignore_ascii_case("json")) {
        return None;
    }
    let body = &after[body_start..];
    let body = body.find("```").map_or(body, |end| &body[..end]).trim();
    body.starts_with(['{', '[']).then_some(body)
}

fn mentions_a_call(text: &str) -> bool {
    text.contains("\"name\"") || text.contains("\"arguments\"")
}

/// The calls one JSON text holds: an object, or an array of objects. `intended` says the text was
/// meant as a call, so a failure to parse is a malformed call rather than prose.
fn calls_in(text: &str, intended: bool) -> Vec<ToolCallRequest> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) if !items.is_empty() => items.iter().map(call_from).collect(),
        Ok(value @ Value::Object(_)) => vec![call_from(&value)],
        Ok(_) | Err(_) if !intended => Vec::new(),
        Ok(other) => vec![malformed(text, "", format!("a JSON {other} is not a call"))],
        Err(e) => {
            // The tool's name may still be readable in a broken object.
            let name = regex::Regex::new(r#""name"\s*:\s*"([^"]*)""#)
                .ok()
                .and_then(|r| r.captures(text).map(|c| c[1].to_string()))
                .unwrap_or_default();
            vec![malformed(text, &name, format!("not JSON: {e}"))]
        }
    }
}

/// One call object: `{"name", "arguments"}`, with `parameters` for `arguments` (Llama's templates)
/// and an OpenAI-style `{"function": {…}}` wrapper accepted.
fn call_from(value: &Value) -> ToolCallRequest {
    let object = value.get("function").filter(|f| f.is_object()).unwrap_or(value);
    let raw = value.to_string();
    let Some(name) = object.get("name").and_then(Value::as_str) else {
        return malformed(&raw, "", "no \"name\" string in the call".into());
    };
    let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
        Some(arguments) => parse_arguments(arguments),
        None => CallArguments::Malformed {
            raw,
            reason: "no \"arguments\" field".into(),
        },
    };
    ToolCallRequest {
        id: String::new(),
        tool: name.to_string(),
        arguments,
    }
}

fn malformed(raw: &str, tool: &str, reason: String) -> ToolCallRequest {
    ToolCallRequest {
        id: String::new(),
        tool: tool.to_string(),
        arguments: CallArguments::Malformed {
            raw: raw.to_string(),
            reason,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(reply: &Reply, i: usize) -> &serde_json::Map<String, Value> {
        match &reply.calls[i].arguments {
            CallArguments::Parsed(map) => map,
            other => panic!("not parsed: {other:?}"),
        }
    }

    #[test]
    fn tagged_blocks_are_calls_and_several_are_parallel() {
        let one = parse_reply(
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        );
        assert_eq!(one.calls.len(), 1);
        assert_eq!(one.calls[0].tool, "get_weather");
        assert_eq!(parsed(&one, 0)["city"], "Paris");
        let two = parse_reply(
            "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>",
        );
        assert_eq!(
            two.calls.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(two.calls[1].id, "call_2");
        // Cut off by the token limit: the open block is read to the end.
        let cut = parse_reply("<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": ");
        assert_eq!(cut.calls[0].tool, "a");
        assert!(matches!(
            cut.calls[0].arguments,
            CallArguments::Malformed { .. }
        ));
    }

    #[test]
    fn fenced_and_bare_json_are_calls() {
        let fenced = parse_reply(
            "Here you go:\n```json\n{\"name\": \"search_flights\", \"arguments\": {\"to\": \"LIS\"}}\n```",
        );
        assert_eq!(fenced.calls[0].tool, "search_flights");
        let bare = parse_reply("{\"name\": \"lock_door\", \"parameters\": {\"door\": \"front\"}}");
        assert_eq!(parsed(&bare, 0)["door"], "front");
        let array = parse_reply("[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": \"{}\"}]");
        assert_eq!(array.calls.len(), 2);
        let wrapped = parse_reply("{\"type\": \"function\", \"function\": {\"name\": \"a\", \"arguments\": {}}}");
        assert_eq!(wrapped.calls[0].tool, "a");
        let in_prose = parse_reply("Sure: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}");
        assert_eq!(in_prose.calls[0].tool, "get_weather");
    }

    /// Replies Qwen2.5-Coder wrote in `generate` mode on the travel suite (recorded from runs, with
    /// the tools each one calls): fenced and pretty-printed JSON, bare JSON, prose before a fenced
    /// call, prose answers, and a stray `<tools></tools>`.
    #[test]
    fn real_replies_recorded_from_the_models_are_read_as_they_were_meant() {
        let recorded = concat!(
            include_str!("../../../tests/data/local_replies/qwen2.5-coder-1.5b.jsonl"),
            include_str!("../../../tests/data/local_replies/qwen2.5-coder-0.5b.jsonl")
        );
        let mut seen = 0;
        for line in recorded.lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            let text = record["text"].as_str().unwrap();
            let reply = parse_reply(text);
            let tools: Vec<&str> = reply.calls.iter().map(|c| c.tool.as_str()).collect();
            let expected: Vec<&str> = record["calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            assert_eq!(tools, expected, "{text}");
            for call in &reply.calls {
                assert!(
                    matches!(call.arguments, CallArguments::Parsed(_)),
                    "{text}"
                );
            }
            if expected.is_empty() {
                assert_eq!(reply.text.as_deref(), Some(text.trim()));
            }
            seen += 1;
        }
        assert!(seen >= 20, "{seen} recorded replies");
    }

    #[test]
    fn text_is_an_answer_and_broken_calls_are_malformed_never_answers() {
        let answer = parse_reply("The capital of France is Paris.");
        assert!(answer.calls.is_empty());
        assert_eq!(answer.text.as_deref(), Some("The capital of France is Paris."));
        let prose_with_braces = parse_reply("Use a set like {1, 2} in Python.");
        assert!(prose_with_braces.calls.is_empty());
        let none = parse_reply("{\"name\": \"none\", \"arguments\": {}}");
        assert!(none.calls.is_empty());
        for broken in [
            "{\"name\": \"get_weather\", \"arguments\": {\"city\": ",
            "<tool_call>\nnot json\n</tool_call>",
            "<tool_call>\n{\"arguments\": {}}\n</tool_call>",
            "{\"name\": \"get_weather\"}",
            "```json\n{\"name\": \"x\", \"arguments\": [1]}\n```",
        ] {
            let reply = parse_reply(broken);
            assert_eq!(reply.calls.len(), 1, "{broken}");
            assert!(
                matches!(reply.calls[0].arguments, CallArguments::Malformed { .. }),
                "{broken}"
            );
        }
        assert_eq!(
            parse_reply("{\"name\": \"get_weather\", \"arguments\": {\"city\": ").calls[0].tool,
            "get_weather"
        );
    }
}
