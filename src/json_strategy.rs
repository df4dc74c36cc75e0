//! Test-only: a proptest strategy for arbitrary JSON values, shared by the property-based fuzz tests
//! of every parser that reads outside JSON (JSON-RPC frames, provider replies). Values lean towards
//! the keys those parsers look for, so the fuzzing reaches past the first check.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// Keys the parsers read, mixed with arbitrary ones.
const KEYS: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "message",
    "choices",
    "message",
    "content",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "type",
    "text",
    "tool_use",
    "input",
    "stop_reason",
    "finish_reason",
    "usage",
    "prompt_tokens",
    "refusal",
];

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(KEYS).prop_map(str::to_string),
        1 => ".{0,8}",
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop_oneof![
            Just("2.0".to_string()),
            Just("text".to_string()),
            Just("tool_use".to_string()),
            Just("tool_calls".to_string()),
            Just("{\"city\": \"Oslo\"}".to_string()),
            ".{0,12}",
        ]
        .prop_map(Value::String),
    ]
}

/// Any JSON value up to a few levels deep.
pub fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}
