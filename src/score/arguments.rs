//! Argument matching against a task's matchers under the `mcp` profile (see the module documentation
//! of `score`): listed values compare as BFCL's checker compares them — numbers by value, lists in
//! order, objects key by key — with strings compared by the parameter's `Comparison` (free text
//! loosely, paths after normalising, the rest exactly); `exact`, `unordered` and `contains`
//! matchers say their own rule.

use crate::model::{Alternative, ArgMatcher, Comparison, distinct_items_match};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use unicode_normalization::UnicodeNormalization;

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
        .any(|alternative| alternative_accepts(alternative, matcher.comparison, value))
}

fn alternative_accepts(alternative: &Alternative, comparison: Comparison, value: &Value) -> bool {
    match alternative {
        Alternative::Literal(expected) => values_compare(expected, value, comparison),
        // Inside an argument, a key the matcher does not mention is wrong (BFCL's `dict_checker`
        // says so too); only the top level leaves unmentioned arguments to the schema.
        Alternative::Object(fields) => value.as_object().is_some_and(|object| {
            object.keys().all(|k| fields.contains_key(k))
                && match_arguments(fields, object).is_empty()
        }),
        Alternative::Unordered(items) => value.as_array().is_some_and(|values| {
            values.len() == items.len() && distinct_items_match(items, values, &matcher_accepts)
        }),
        Alternative::Contains(items) => value
            .as_array()
            .is_some_and(|values| distinct_items_match(items, values, &matcher_accepts)),
        // Regex, tolerance and exact matchers need no normalising: they say what is acceptable.
        pattern_tolerance_or_exact => pattern_tolerance_or_exact.accepts(value),
    }
}

/// Whether a listed value is the sent one: strings by `comparison`, numbers by value (an integer is
/// an acceptable float), lists in order, objects key by key.
fn values_compare(expected: &Value, actual: &Value, comparison: Comparison) -> bool {
    match (expected, actual) {
        (Value::String(a), Value::String(b)) => strings_compare(a, b, comparison),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| values_compare(x, y, comparison))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter().all(|(k, x)| {
                    b.get(k)
                        .is_some_and(|y| values_compare(x, y, Comparison::FreeText))
                })
        }
        _ => expected == actual,
    }
}

/// Two strings under a comparison.
pub fn strings_compare(expected: &str, actual: &str, comparison: Comparison) -> bool {
    match comparison {
        Comparison::FreeText => fold(expected) == fold(actual),
        Comparison::Path => normal_path(expected) == normal_path(actual),
        Comparison::Exact => expected == actual,
    }
}

/// Free text as compared: compatibility-decomposed with accents dropped, lowercase (`ß` as `ss`),
/// without spaces and the punctuation BFCL ignores, single quotes as double.
fn fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for c in text.nfkd() {
        if unicode_normalization::char::is_combining_mark(c)
            || matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^')
        {
            continue;
        }
        let c = if c == '\'' { '"' } else { c };
        for lower in c.to_lowercase() {
            if lower == 'ß' {
                folded.push_str("ss");
            } else {
                folded.push(lower);
            }
        }
    }
    folded
}

/// A path as compared: `.` segments, repeated and trailing `/` dropped; a leading `/` kept, and
/// everything else (case, `..`) as written.
pub fn normal_path(path: &str) -> String {
    let segments: Vec<&str> = path
        .split('/')
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .collect();
    let joined = segments.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
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

    /// Matchers whose strings all compare by `comparison`, items of array matchers included.
    fn with(comparison: Comparison, v: Value) -> BTreeMap<String, ArgMatcher> {
        fn set(m: &mut ArgMatcher, comparison: Comparison) {
            m.comparison = comparison;
            for a in &mut m.alternatives {
                if let Alternative::Unordered(items) | Alternative::Contains(items) = a {
                    items.iter_mut().for_each(|item| set(item, comparison));
                }
            }
        }
        let mut matchers = expected(v);
        matchers.values_mut().for_each(|m| set(m, comparison));
        matchers
    }

    #[test]
    fn strings_compare_by_the_parameters_comparison() {
        let path = with(Comparison::Path, json!({"path": "/srv/files/x"}));
        assert!(match_arguments(&path, &actual(json!({"path": "/srv//files/./x/"}))).is_empty());
        assert!(!match_arguments(&path, &actual(json!({"path": "srv/files/x"}))).is_empty());
        assert!(!match_arguments(&path, &actual(json!({"path": "/srv/Files/x"}))).is_empty());
        let glob = with(Comparison::Exact, json!({"pattern": "**/*.pdf"}));
        assert!(!match_arguments(&glob, &actual(json!({"pattern": "pdf"}))).is_empty());
        let city = with(Comparison::FreeText, json!({"city": "Zürich"}));
        assert!(match_arguments(&city, &actual(json!({"city": "zurich"}))).is_empty());
        assert!(match_arguments(&city, &actual(json!({"city": "ZÜRICH"}))).is_empty());
        let street = with(Comparison::FreeText, json!({"street": "Straße"}));
        assert!(match_arguments(&street, &actual(json!({"street": "STRASSE"}))).is_empty());
        let paths = with(
            Comparison::Path,
            json!({"paths": {"unordered": ["/a/b", "/a/c", "/d"]}}),
        );
        assert!(
            match_arguments(&paths, &actual(json!({"paths": ["/d", "/a/c/", "/a/b"]}))).is_empty()
        );
        assert!(
            !match_arguments(&paths, &actual(json!({"paths": ["/d", "a/c", "/a/b"]}))).is_empty()
        );
        let exact = with(Comparison::FreeText, json!({"note": {"exact": "Hello"}}));
        assert!(!match_arguments(&exact, &actual(json!({"note": "hello"}))).is_empty());
        let edits = with(
            Comparison::FreeText,
            json!({"edits": {"contains": [{"oldText": {"regex": "foo"}, "newText": ["bar"]}]}}),
        );
        assert!(match_arguments(&edits, &actual(json!({"edits": [{"oldText": "x", "newText": "y"}, {"oldText": "a foo", "newText": "Bar"}]}))).is_empty());
        assert!(
            !match_arguments(
                &edits,
                &actual(json!({"edits": [{"oldText": "x", "newText": "y"}]}))
            )
            .is_empty()
        );
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
