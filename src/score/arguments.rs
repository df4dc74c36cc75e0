//! BFCL-style argument matching against a task's matchers (see the module documentation of `score`).

use crate::model::{Alternative, ArgMatcher};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Why arguments did not match: which argument, and what was wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArgumentMismatch {
    pub argument: String,
    pub problem: String,
}

/// Every expected argument present and acceptable, or absent and allowed to be; unmentioned
/// arguments are not judged. Returns the mismatches (empty when the arguments match).
pub fn match_arguments(
    expected: &BTreeMap<String, ArgMatcher>,
    actual: &Map<String, Value>,
) -> Vec<ArgumentMismatch> {
    let mut mismatches = Vec::new();
    for (name, matcher) in expected {
        let problem = match actual.get(name) {
            None if matcher.allows_omission() => continue,
            None => "missing".to_string(),
            Some(value) if matcher_accepts(matcher, value) => continue,
            Some(value) => format!("{value} is not acceptable"),
        };
        mismatches.push(ArgumentMismatch {
            argument: name.clone(),
            problem,
        });
    }
    mismatches
}

fn matcher_accepts(matcher: &ArgMatcher, value: &Value) -> bool {
    matcher
        .alternatives
        .iter()
        .any(|alternative| alternative_accepts(alternative, value))
}

fn alternative_accepts(alternative: &Alternative, value: &Value) -> bool {
    match alternative {
        Alternative::Literal(expected) => loosely_equal(expected, value),
        // Inside an argument, a key the matcher does not mention is wrong (BFCL's `dict_checker`
        // says so too); only the top level leaves unmentioned arguments to the schema.
        Alternative::Object(fields) => value.as_object().is_some_and(|object| {
            object.keys().all(|k| fields.contains_key(k))
                && match_arguments(fields, object).is_empty()
        }),
        // Regex and tolerance matchers need no normalising: they already say what is acceptable.
        pattern_or_tolerance => pattern_or_tolerance.accepts(value),
    }
}

/// BFCL's notion of equality: normalised strings, numbers by value, lists in order, objects by key.
fn loosely_equal(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::String(a), Value::String(b)) => normalise(a) == normalise(b),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| loosely_equal(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| loosely_equal(x, y)))
        }
        _ => expected == actual,
    }
}

/// Lowercase, without spaces and the punctuation BFCL ignores, with single quotes as double.
fn normalise(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .map(|c| if c == '\'' { '"' } else { c })
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expected(v: Value) -> BTreeMap<String, ArgMatcher> {
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), ArgMatcher::parse(v).unwrap()))
            .collect()
    }

    fn actual(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn table_of_matcher_cases() {
        let cases: Vec<(&str, Value, Value, bool)> = vec![
            (
                "listed string",
                json!({"city": ["Paris", "Paris, France"]}),
                json!({"city": "Paris, France"}),
                true,
            ),
            (
                "normalised case, spaces, punctuation",
                json!({"city": ["New York"]}),
                json!({"city": "new-york"}),
                true,
            ),
            (
                "different string",
                json!({"city": ["Paris"]}),
                json!({"city": "Lyon"}),
                false,
            ),
            (
                "integer accepted as float",
                json!({"amount": [12.0]}),
                json!({"amount": 12}),
                true,
            ),
            (
                "string is not a number",
                json!({"days": [3]}),
                json!({"days": "3"}),
                false,
            ),
            (
                "may be omitted",
                json!({"units": ["metric", ""]}),
                json!({}),
                true,
            ),
            (
                "required but missing",
                json!({"units": ["metric"]}),
                json!({}),
                false,
            ),
            (
                "must be omitted",
                json!({"amount": ""}),
                json!({"amount": 5}),
                false,
            ),
            (
                "unmentioned arguments are not judged",
                json!({"city": ["Paris"]}),
                json!({"city": "Paris", "extra": 1}),
                true,
            ),
            (
                "list in order",
                json!({"rooms": [["kitchen", "hall"]]}),
                json!({"rooms": ["Kitchen", "hall"]}),
                true,
            ),
            (
                "list out of order",
                json!({"rooms": [["kitchen", "hall"]]}),
                json!({"rooms": ["hall", "kitchen"]}),
                false,
            ),
            (
                "nested object",
                json!({"where": [{"lat": [48.85], "lon": [2.35]}]}),
                json!({"where": {"lat": 48.85, "lon": 2.35}}),
                true,
            ),
            (
                "nested object, a key it does not mention",
                json!({"where": [{"lat": [48.85]}]}),
                json!({"where": {"lat": 48.85, "lon": 2.35}}),
                false,
            ),
            (
                "nested object, wrong field",
                json!({"where": [{"lat": [48.85]}]}),
                json!({"where": {"lat": 40.0}}),
                false,
            ),
            (
                "regex",
                json!({"date": {"regex": "^2026-03-1[0-9]$"}}),
                json!({"date": "2026-03-14"}),
                true,
            ),
            (
                "regex miss",
                json!({"date": {"regex": "^2026-03-1[0-9]$"}}),
                json!({"date": "2026-03-24"}),
                false,
            ),
            (
                "tolerance",
                json!({"amount": {"approx": 921.40, "tolerance": 0.01}}),
                json!({"amount": 921.405}),
                true,
            ),
            (
                "tolerance miss",
                json!({"amount": {"approx": 921.40, "tolerance": 0.01}}),
                json!({"amount": 921.5}),
                false,
            ),
            (
                "boolean exact",
                json!({"all_day": [true]}),
                json!({"all_day": false}),
                false,
            ),
        ];
        for (name, want, got, ok) in cases {
            let mismatches = match_arguments(&expected(want), &actual(got));
            assert_eq!(mismatches.is_empty(), ok, "{name}: {mismatches:?}");
        }
    }

    #[test]
    fn mismatches_name_the_argument_and_the_problem() {
        let mismatches = match_arguments(
            &expected(json!({"city": ["Paris"], "units": ["metric"]})),
            &actual(json!({"city": "Lyon"})),
        );
        assert_eq!(
            mismatches,
            vec![
                ArgumentMismatch {
                    argument: "city".into(),
                    problem: "\"Lyon\" is not acceptable".into()
                },
                ArgumentMismatch {
                    argument: "units".into(),
                    problem: "missing".into()
                },
            ]
        );
    }
}
