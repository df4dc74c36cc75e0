//! BFCL's `js_type_converter` (`eval_checker/ast_eval/type_convertor/js_type_converter.py`): a
//! JavaScript parameter arrives as source text (`"'GET'"`, `"[1, 2]"`, `"{method: 'GET'}"`) and is
//! read into the value its declared type stands for; text that does not look like that type stays
//! text. Its patterns are BFCL's own, run by `fancy-regex` where one needs look-ahead (Python's `re`
//! backtracks the same way), and its quirks are kept: arrays and objects are split at every comma,
//! an object ends at its first `}`.

use super::failure::{CheckFailure, exception};
use super::python_text::{float, inner, int, matches_whole, strip};
use super::python_value::float_value;
use serde_json::{Map, Value};
use std::sync::LazyLock;

fn pattern(text: &str) -> regex::Regex {
    regex::Regex::new(text).expect("a valid pattern")
}

static INTEGER: LazyLock<regex::Regex> = LazyLock::new(|| pattern(r"^-?\d+$"));
static FLOAT: LazyLock<regex::Regex> = LazyLock::new(|| pattern(r"^-?\d+(\.\d+)?$"));
static BIGINT: LazyLock<regex::Regex> = LazyLock::new(|| pattern(r"^-?\d+n$"));
static ARRAY_2D: LazyLock<regex::Regex> = LazyLock::new(|| {
    pattern(
        r"^(?:\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\))",
    )
});
static INNER_ARRAY: LazyLock<regex::Regex> = LazyLock::new(|| pattern(r"\[(.*?)\]"));
static ARRAY: LazyLock<regex::Regex> =
    LazyLock::new(|| pattern(r"^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))"));
static OBJECT: LazyLock<regex::Regex> = LazyLock::new(|| pattern(r"^\{(.*?)\}"));
static PAIR: LazyLock<fancy_regex::Regex> = LazyLock::new(|| {
    fancy_regex::Regex::new(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)").expect("a valid pattern")
});

fn quoted(value: &str) -> bool {
    (value.starts_with('"') && value.ends_with('"'))
        || (value.starts_with('\'') && value.ends_with('\''))
}

/// `js_type_converter(value, expected_type, nested_type)`.
pub fn js_type_converter(
    value: &str,
    expected: &str,
    nested: Option<&str>,
) -> Result<Value, CheckFailure> {
    let read = |ok: bool, read: Option<Value>, what: &str| -> Result<Value, CheckFailure> {
        if !ok {
            return Ok(Value::from(value));
        }
        read.ok_or_else(|| exception(format!("ValueError: {what}({value:?})")))
    };
    match expected {
        "String" if quoted(value) => Ok(Value::String(inner(value))),
        "String" | "any" => Ok(Value::from(value)),
        "integer" => read(
            matches_whole(&INTEGER, value),
            int(value).map(Value::from),
            "int",
        ),
        "float" => read(
            matches_whole(&FLOAT, value),
            float(value).map(float_value),
            "float",
        ),
        "Bigint" => {
            let mut chars = value.chars();
            chars.next_back();
            read(
                matches_whole(&BIGINT, value),
                int(chars.as_str()).map(Value::from),
                "int",
            )
        }
        "Boolean" => Ok(match value {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            other => Value::from(other),
        }),
        "dict" => Ok(parse_object(strip(value))),
        "array" => Ok(parse_array(strip(value), nested)),
        other => Err(exception(format!("ValueError: Unsupported type: {other}"))),
    }
}

/// `parse_js_collection(code, "array", nested_type)`; any failure inside gives the text back.
fn parse_array(code: &str, nested: Option<&str>) -> Value {
    if let Some(found) = ARRAY_2D.find(code) {
        let mut elements = Vec::new();
        for (index, inner_array) in INNER_ARRAY.captures_iter(found.as_str()).enumerate() {
            let mut inner_text = strip(&inner_array[1]);
            if index == 0 && inner_text.starts_with('[') {
                inner_text = &inner_text[1..];
            }
            let items = inner_text
                .split(',')
                .map(|e| parse_js_value(strip(e)))
                .collect();
            elements.push(Value::Array(items));
        }
        return Value::Array(elements);
    }
    let Some(found) = ARRAY.captures(code) else {
        return Value::from(code);
    };
    let listed = found
        .get(1)
        .or_else(|| found.get(2))
        .map_or("", |m| strip(m.as_str()));
    let elements: Vec<&str> = if listed.is_empty() {
        Vec::new()
    } else {
        listed.split(',').collect()
    };
    let converted: Result<Vec<Value>, CheckFailure> = elements
        .iter()
        .map(|e| {
            let e = strip(e);
            match nested {
                Some(nested) if e.starts_with('\'') || e.starts_with('"') => {
                    js_type_converter(e, nested, Some("String"))
                }
                Some(nested) => js_type_converter(e, nested, None),
                None => Ok(parse_js_value(e)),
            }
        })
        .collect();
    // BFCL wraps the array branch in a bare `except`: a failure gives the code back.
    converted.map_or_else(|_| Value::from(code), Value::Array)
}

/// `parse_js_collection(code, "dict")`.
fn parse_object(code: &str) -> Value {
    if code == "{}" {
        return Value::Object(Map::new());
    }
    let Some(found) = OBJECT.captures(code) else {
        return Value::from(code);
    };
    let content = &found[1];
    let mut object = Map::new();
    for pair in PAIR.captures_iter(content) {
        let Ok(pair) = pair else {
            // fancy-regex gave up (backtracking limit): BFCL's `except` gives the code back.
            return Value::from(code);
        };
        let key = strip(&pair[1]).trim_matches(['\'', '"']);
        let value = strip(&pair[2]);
        let read = if value.starts_with('[') && value.ends_with(']') {
            parse_array(value, None)
        } else if value.starts_with('{') && value.ends_with('}') {
            parse_object(value)
        } else {
            parse_js_value(value.trim_matches(['\'', '"']))
        };
        object.insert(key.to_string(), read);
    }
    Value::Object(object)
}

/// `parse_js_value`: a value read without knowing its type.
fn parse_js_value(value: &str) -> Value {
    let value = strip(value);
    match value {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        quoted_text if quoted(quoted_text) => Value::String(inner(quoted_text)),
        other => int(other)
            .map(Value::from)
            .or_else(|| float(other).map(float_value))
            .unwrap_or_else(|| Value::from(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The cases of BFCL's own `test_js_type_converter`.
    #[test]
    fn bfcls_own_cases() {
        let cases: Vec<(&str, &str, Value)> = vec![
            ("true", "Boolean", json!(true)),
            ("123", "integer", json!(123)),
            ("-2.75", "float", json!(-2.75)),
            ("123n", "Bigint", json!(123)),
            ("abc", "String", json!("abc")),
            ("'abc'", "String", json!("abc")),
            ("[1, 2, 3]", "array", json!([1, 2, 3])),
            ("new Array(1, 2, 3)", "array", json!([1, 2, 3])),
            ("[]", "array", json!([])),
            ("[1, 'two', true]", "array", json!([1, "two", true])),
            ("[[1, 2], [3]]", "array", json!([[1, 2], [3]])),
            ("{}", "dict", json!({})),
            ("{'key': 'value'}", "dict", json!({"key": "value"})),
            (
                "{'key1': 123, 'key2': 'value', 'key3': false}",
                "dict",
                json!({"key1": 123, "key2": "value", "key3": false}),
            ),
            ("123.45", "integer", json!("123.45")),
        ];
        for (text, expected, want) in cases {
            assert_eq!(
                js_type_converter(text, expected, None).unwrap(),
                want,
                "{text} as {expected}"
            );
        }
    }
}
