//! `gold_call` on hand-built tools: values that satisfy a regex and the schema's format and lengths,
//! refusals avoided by another listed value, a retry-friendly string, or an optional flag, and the
//! expectations no call can meet said to be so.

use super::*;
use crate::model::{Behavior, ResponseRule};

fn tool(schema: Value, rules: &[(Value, &str)]) -> Tool {
    let mut tool = Tool::in_code("t", "A tool.".into(), schema);
    tool.behavior = Behavior {
        default: Response::Echo,
        latency_ms: 0,
        rules: rules
            .iter()
            .map(|(when, error)| ResponseRule {
                when: when
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), ArgMatcher::parse(v).unwrap()))
                    .collect(),
                response: Response::Error(error.to_string()),
                latency_ms: None,
            })
            .collect(),
    };
    tool
}

fn call(args: Value, refused: bool) -> ExpectedCall {
    ExpectedCall {
        tool: "t".into(),
        args: args
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), ArgMatcher::parse(v).unwrap()))
            .collect(),
        refused,
    }
}

#[test]
fn a_regex_under_a_format_and_a_length_gets_a_value_both_accept() {
    let reminder = tool(
        json!({"type": "object", "required": ["remind_at", "message"], "properties": {
            "remind_at": {"type": "string", "format": "date-time"},
            "message": {"type": "string", "minLength": 5}}}),
        &[],
    );
    let arguments = gold_call(
        &call(
            json!({"remind_at": {"regex": "^2026-03-13T07:45"}, "message": {"regex": "(?i)bank"}}),
            false,
        ),
        &reminder,
    )
    .unwrap();
    assert_eq!(arguments["remind_at"], "2026-03-13T07:45:00Z");
    let message = arguments["message"].as_str().unwrap();
    assert!(
        message.chars().count() >= 5 && message.to_lowercase().contains("bank"),
        "{message}"
    );
}

#[test]
fn refusals_are_avoided_by_another_value_a_string_or_an_optional_flag() {
    let files = tool(
        json!({"type": "object", "required": ["path"], "properties": {
            "path": {"type": "string"}, "recursive": {"type": "boolean"}}}),
        &[
            (json!({"path": "notes/meeting_notes.txt"}), "No such file."),
            (
                json!({"path": "tmp", "recursive": [false, ""]}),
                "Folder is not empty.",
            ),
        ],
    );
    let read = gold_call(
        &call(
            json!({"path": ["notes/meeting_notes.txt", "notes/meeting-notes.txt"]}),
            false,
        ),
        &files,
    )
    .unwrap();
    assert_eq!(read["path"], "notes/meeting-notes.txt");
    let delete = gold_call(&call(json!({"path": "tmp"}), false), &files).unwrap();
    assert_eq!(delete["recursive"], true);
    let commit = tool(
        json!({"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}}),
        &[(
            json!({"message": {"regex": "^[^:()]*$"}}),
            "Use Conventional Commits.",
        )],
    );
    let message = gold_call(
        &call(json!({"message": {"regex": "(?i)wip"}}), false),
        &commit,
    )
    .unwrap();
    let message = message["message"].as_str().unwrap();
    assert!(
        message.to_lowercase().contains("wip") && message.contains([':', '(', ')']),
        "{message}"
    );
}

#[test]
fn impossible_expectations_say_why_and_an_expected_refusal_is_met() {
    let thermostat = tool(
        json!({"type": "object", "required": ["mode"], "properties": {"mode": {"enum": ["heat", "cool", "off"]}}}),
        &[(json!({"mode": "cool"}), "No air conditioning here.")],
    );
    let why = gold_call(&call(json!({"mode": "cool"}), false), &thermostat).unwrap_err();
    assert!(
        why.contains("refused by the tool's behaviour") && why.contains("No air conditioning"),
        "{why}"
    );
    assert_eq!(
        gold_call(&call(json!({"mode": "cool"}), true), &thermostat).unwrap()["mode"],
        "cool"
    );
    let short = tool(
        json!({"type": "object", "properties": {"code": {"type": "string", "maxLength": 2}}}),
        &[],
    );
    let why = gold_call(&call(json!({"code": {"regex": "^abc"}}), false), &short).unwrap_err();
    assert!(why.contains("\"code\""), "{why}");
}
