//! Reading a model's written reply into tool calls, the way servers that host these models do:
//! `<tool_call>{"name": …, "arguments": …}</tool_call>` blocks (Qwen, Hermes and their kin; several
//! blocks are parallel calls, and the last may be cut off by the token limit), else a fenced JSON
//! block, else bare JSON: an object, an array of calls, or several objects one after another (small
//! models write calls a line each). Text with none of these is an answer — the
//! model abstained. Something that was meant as a call but does not parse is a malformed call with
//! its raw text, never an abstention. `{"name": "none"}` is the instructed format's way to decline.

use crate::backend::hosted::parse_arguments;
use crate::backend::{Reply, ToolCallRequest};
use crate::observation::CallArguments;
use serde_json::Value;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

/// The calls (or the answer) in `text`.
pub fn parse_reply(text: &str) -> Reply {
    let trimmed = text.trim();
    let calls = if trimmed.contains(OPEN) {
        tagged_blocks(trimmed)
            .into_iter()
            .flat_map(calls_in)
            .collect()
    } else if let Some(block) = fenced_block(trimmed) {
        calls_in(block)
    } else {
        match trimmed.find(['{', '[']) {
            // Prose that merely contains a brace or some JSON is an answer; a reply that opens
            // with JSON, or JSON that names a tool, was meant as a call.
            Some(start) if start == 0 || mentions_a_call(&trimmed[start..]) => {
                calls_in(&trimmed[start..])
            }
            _ => Vec::new(),
        }
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

/// The calls in a text meant as calls: JSON values one after another — objects, or arrays of
/// objects — up to the end or to prose after them. What does not parse (a value cut off by the token
/// limit, a broken object) is a malformed call with its raw text.
fn calls_in(text: &str) -> Vec<ToolCallRequest> {
    let mut calls = Vec::new();
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    loop {
        let rest = text
            .get(values.byte_offset()..)
            .unwrap_or_default()
            .trim_start();
        if rest.is_empty() || (!calls.is_empty() && !rest.starts_with(['{', '['])) {
            break;
        }
        match values.next() {
            Some(Ok(Value::Array(items))) if !items.is_empty() => {
                calls.extend(items.iter().map(call_from))
            }
            Some(Ok(value @ Value::Object(_))) => calls.push(call_from(&value)),
            Some(Ok(other)) => {
                calls.push(malformed(rest, "", format!("a JSON {other} is not a call")));
                break;
            }
            Some(Err(e)) => {
                calls.push(malformed(
                    rest,
                    &readable_name(rest),
                    format!("not JSON: {e}"),
                ));
                break;
            }
            None => break,
        }
    }
    calls
}

/// The tool's name, where a broken call object still shows it.
fn readable_name(text: &str) -> String {
    static NAME: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    NAME.get_or_init(|| regex::Regex::new(r#""name"\s*:\s*"([^"]*)""#).ok())
        .as_ref()
        .and_then(|r| r.captures(text).map(|c| c[1].to_string()))
        .unwrap_or_default()
}

/// One call object: `{"name", "arguments"}`, with `parameters` for `arguments` (Llama's templates)
/// and an OpenAI-style `{"function": {…}}` wrapper accepted.
fn call_from(value: &Value) -> ToolCallRequest {
    let object = value
        .get("function")
        .filter(|f| f.is_object())
        .unwrap_or(value);
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
            two.calls
                .iter()
                .map(|c| c.tool.as_str())
                .collect::<Vec<_>>(),
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
        let array = parse_reply(
            "[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": \"{}\"}]",
        );
        assert_eq!(array.calls.len(), 2);
        let wrapped = parse_reply(
            "{\"type\": \"function\", \"function\": {\"name\": \"a\", \"arguments\": {}}}",
        );
        assert_eq!(wrapped.calls[0].tool, "a");
        let in_prose =
            parse_reply("Sure: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}");
        assert_eq!(in_prose.calls[0].tool, "get_weather");
    }

    /// Replies Qwen2.5-Coder wrote in `generate` mode on the travel suite, recorded from runs with
    /// the calls each one means (`malformed`: the calls that do not parse): fenced and
    /// pretty-printed JSON, bare JSON, calls a line each (some cut off by the token limit), prose
    /// before a fenced call, prose answers, a stray `<tools></tools>`, and the 0.5B's broken
    /// follow-up turns that nest escaped JSON in `arguments`.
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
            let malformed: Vec<u64> = record["malformed"]
                .as_array()
                .map(|m| m.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            for (i, call) in reply.calls.iter().enumerate() {
                let parsed = matches!(call.arguments, CallArguments::Parsed(_));
                assert_eq!(
                    parsed,
                    !malformed.contains(&(i as u64)),
                    "call {i} of {text}"
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
    fn calls_a_line_each_are_parallel_and_prose_after_them_is_dropped() {
        let lines = parse_reply(
            "{\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n{\"name\": \"c\", \"argu",
        );
        let tools: Vec<&str> = lines.calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools, ["a", "b", "c"]);
        assert_eq!(parsed(&lines, 1)["x"], 1);
        assert!(matches!(
            lines.calls[2].arguments,
            CallArguments::Malformed { .. }
        ));
        let then_prose =
            parse_reply("{\"name\": \"a\", \"arguments\": {}}\nI called the tool for you.");
        assert_eq!(then_prose.calls.len(), 1);
        assert_eq!(parsed(&then_prose, 0).len(), 0);
    }

    #[test]
    fn text_is_an_answer_and_broken_calls_are_malformed_never_answers() {
        let answer = parse_reply("The capital of France is Paris.");
        assert!(answer.calls.is_empty());
        assert_eq!(
            answer.text.as_deref(),
            Some("The capital of France is Paris.")
        );
        for prose in [
            "Use a set like {1, 2} in Python.",
            "Example: {\"a\": 1} is a JSON object.",
            "The values [1, 2] are sorted.",
        ] {
            let reply = parse_reply(prose);
            assert!(reply.calls.is_empty(), "{prose}");
            assert_eq!(reply.text.as_deref(), Some(prose));
        }
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        /// Fuzzing: any text is an answer or calls, never a panic; text with a `<tool_call>` block
        /// that holds something is never an answer — it is calls, parsed or malformed.
        #[test]
        fn any_text_is_an_answer_or_calls(
            before in "[ a-z{}\\[\\]\":,\n`]{0,20}",
            inside in "[ a-z{}\\[\\]\":,0-9]{1,30}",
            tagged in proptest::prelude::any::<bool>(),
        ) {
            let text = if tagged {
                format!("{before}<tool_call>{inside}</tool_call>")
            } else {
                format!("{before}{inside}")
            };
            let reply = parse_reply(&text);
            // Exactly one of the two: an answer (text, no calls) or calls (no text).
            proptest::prop_assert_eq!(reply.text.is_some(), reply.calls.is_empty());
            if tagged && !inside.trim().is_empty() && !inside.contains("\"none\"") {
                proptest::prop_assert!(!reply.calls.is_empty(), "{:?} -> {:?}", text, reply);
            }
        }
    }
}
