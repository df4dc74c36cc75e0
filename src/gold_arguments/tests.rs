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
    let why = gold_call(&call(json!({"mode": "cool"}), false), &thermostat)
        .unwrap_err()
        .to_string();
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
    assert!(
        matches!(&why, NoCall::Impossible(message) if message.contains("\"code\"")),
        "{why}"
    );
}

/// A tool with one required string parameter `p` of this schema, and an expected call whose
/// matcher for `p` is `matcher` (none: left open).
fn one_parameter(property: Value, matcher: Option<Value>) -> (Tool, ExpectedCall) {
    let tool = tool(
        json!({"type": "object", "required": ["p"], "properties": {"p": property}}),
        &[],
    );
    let args = matcher.map_or(json!({}), |m| json!({ "p": m }));
    (tool, call(args, false))
}

#[test]
fn what_a_schema_claims_is_never_allocated_and_cannot_tell_is_not_impossible() {
    let cases: Vec<(&str, Value, Option<Value>)> = vec![
        (
            "a billion items",
            json!({"type": "array", "minItems": 1_000_000_000u64, "items": {"type": "string"}}),
            None,
        ),
        (
            "items of items",
            json!({"type": "array", "minItems": 100_000, "items": {"type": "array", "minItems": 100_000}}),
            None,
        ),
        (
            "a pattern too large to compile small",
            json!({"type": "string", "pattern": "^\\w{50000}$"}),
            Some(json!({"regex": "^a"})),
        ),
        (
            "a $ref to itself",
            json!({"$ref": "#/properties/p", "required": ["p"]}),
            None,
        ),
    ];
    for (what, property, matcher) in cases {
        let (tool, call) = one_parameter(property, matcher);
        match gold_call(&call, &tool) {
            Err(NoCall::Undecided(_)) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
}

#[test]
fn long_values_are_built_in_linear_time_and_found() {
    // A million characters: a regex padded, an open parameter filled.
    let (tool, call) = one_parameter(
        json!({"type": "string", "minLength": 1_000_000}),
        Some(json!({"regex": "a"})),
    );
    let found = gold_call(&call, &tool).unwrap();
    assert_eq!(found["p"].as_str().unwrap().chars().count(), 1_000_000);
    let (tool, call) = one_parameter(json!({"type": "string", "minLength": 1_000_000}), None);
    assert_eq!(
        gold_call(&call, &tool).unwrap()["p"]
            .as_str()
            .unwrap()
            .len(),
        1_000_000
    );
    // An address both a pattern and a format allow, at least 60 characters long: the search
    // cannot reach that far, a match stretched inside finds it.
    let (tool, call) = one_parameter(
        json!({"type": "string", "pattern": "^[a-z0-9]+@[a-z]+\\.com$", "format": "email", "minLength": 60}),
        Some(
            json!([{"regex": "^user7[a-z]*@example\\.com$"}, {"regex": "^user8[a-z]*@example\\.com$"}]),
        ),
    );
    let found = gold_call(&call, &tool).unwrap();
    let address = found["p"].as_str().unwrap();
    assert!(
        address.len() >= 60 && address.starts_with("user7"),
        "{address}"
    );
}

#[test]
fn many_open_parameters_never_queue_more_calls_than_the_search_tries() {
    // Twenty optional parameters of 24 values each, under a schema no call can meet: the
    // product is astronomically large, the queue is not, and the answer is "cannot tell".
    let properties: Map<String, Value> = (0..20)
        .map(|k| {
            let values: Vec<String> = (0..24).map(|v| format!("v{v}")).collect();
            (format!("p{k}"), json!({"type": "string", "enum": values}))
        })
        .collect();
    let tool = tool(
        json!({"type": "object", "properties": properties, "minProperties": 1000}),
        &[],
    );
    let mut budget = SearchBudget::for_call();
    match gold_call_within(&call(json!({}), false), &tool, &mut budget) {
        Err(NoCall::Undecided(why)) => assert!(why.contains("more remain"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_sampled_parameter_makes_a_refusal_cannot_tell_and_a_listed_one_impossible() {
    // An open integer the schema wants a multiple of 7: its instance is built as one.
    let (tool_, call_) = one_parameter(
        json!({"type": "integer", "minimum": 1, "multipleOf": 7}),
        None,
    );
    assert_eq!(gold_call(&call_, &tool_).unwrap()["p"], 7);
    // A regex's strings are a sample: a behaviour refusing the ones tried is no proof.
    let refusing = tool(
        json!({"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}),
        &[(json!({"city": {"regex": "^[a-z]"}}), "No such city.")],
    );
    match gold_call(&call(json!({"city": {"regex": "o"}}), false), &refusing) {
        Ok(found) => assert!(
            !found["city"]
                .as_str()
                .unwrap()
                .starts_with(|c: char| c.is_ascii_lowercase())
        ),
        Err(NoCall::Undecided(_)) => {}
        Err(other) => panic!("{other:?}"),
    }
    // Listed values are all there is: refused, they prove it.
    match gold_call(&call(json!({"city": ["oslo", "rome"]}), false), &refusing) {
        Err(NoCall::Impossible(why)) => assert!(why.contains("No such city"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_large_enum_is_read_once_and_its_first_matches_offered() {
    let values: Vec<String> = (0..100_000).map(|i| format!("v{i:06}")).collect();
    let (tool, call) = one_parameter(
        json!({"type": "string", "enum": values}),
        Some(json!({"regex": "^v"})),
    );
    assert_eq!(gold_call(&call, &tool).unwrap()["p"], "v000000");
    let (tool, call) = one_parameter(
        json!({"type": "string", "enum": values}),
        Some(json!({"regex": "^w"})),
    );
    assert!(matches!(
        gold_call(&call, &tool),
        Err(NoCall::Impossible(_))
    ));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Whatever the bounds a schema sets and the regex a task expects, the search ends within its
    /// budget, and says "impossible" only where no value exists.
    #[test]
    fn any_bounds_end_within_the_budget(
        min_length in proptest::prop_oneof![0u64..100, 0u64..5_000_000],
        max_length in proptest::option::of(0u64..200),
        repeat in 1u32..100_000,
        prefix in "[a-z]{1,4}",
    ) {
        let mut property = json!({"type": "string", "minLength": min_length, "pattern": format!("^[a-z]{{{repeat},}}")});
        if let Some(max) = max_length {
            property["maxLength"] = json!(max);
        }
        let (tool, call) = one_parameter(property, Some(json!({"regex": format!("^{prefix}")})));
        let mut budget = SearchBudget::new(budget::STEPS_PER_CALL, std::time::Duration::from_secs(600));
        let found = gold_call_within(&call, &tool, &mut budget);
        let least = min_length.max(u64::from(repeat)).max(prefix.len() as u64);
        match found {
            Ok(arguments) => {
                let text = arguments["p"].as_str().unwrap();
                proptest::prop_assert!(text.starts_with(&prefix));
                proptest::prop_assert!(text.len() as u64 >= least);
            }
            Err(NoCall::Impossible(why)) => {
                // Only when the lengths cannot meet.
                proptest::prop_assert!(max_length.is_some_and(|max| max < least), "{why}");
            }
            Err(NoCall::Undecided(_)) => {}
        }
    }
}
