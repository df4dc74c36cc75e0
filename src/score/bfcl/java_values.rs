//! BFCL's `java_type_converter` (`eval_checker/ast_eval/type_convertor/java_type_converter.py`):
//! a Java parameter arrives as source text (`"42L"`, `"new ArrayList<>(Arrays.asList(1, 2))"`) and
//! is read into the value its declared type stands for; text that does not look like that type
//! stays text, as in BFCL. Its quirks are kept: a `char` is never converted (its pattern cannot
//! match), list elements are split at every comma, `HashMap` values are read without their type.

use super::failure::{CheckFailure, exception};
use super::python_text::{float, inner, int, matches_whole, strip};
use super::python_value::float_value;
use regex::Regex;
use serde_json::{Map, Value};
use std::sync::LazyLock;

fn pattern(text: &str) -> Regex {
    Regex::new(text).expect("a valid pattern")
}

static INTEGER: LazyLock<Regex> = LazyLock::new(|| pattern(r"^-?\d+$"));
static FLOAT: LazyLock<Regex> = LazyLock::new(|| pattern(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$"));
static DOUBLE: LazyLock<Regex> = LazyLock::new(|| pattern(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$"));
static LONG: LazyLock<Regex> = LazyLock::new(|| pattern(r"^-?\d+[lL]$"));
static AS_LIST: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)"));
static ADDS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?s)new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}"));
static ADD: LazyLock<Regex> = LazyLock::new(|| pattern(r"add\((.+?)\)"));
static EMPTY_LIST: LazyLock<Regex> = LazyLock::new(|| pattern(r"new\s+ArrayList<\w*>\(\)"));
static ARRAY: LazyLock<Regex> = LazyLock::new(|| pattern(r"new\s+\w+\[\]\s*\{(.*?)\}"));
static HASHMAP: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?s)new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}"));
static PUT: LazyLock<Regex> = LazyLock::new(|| pattern(r#"put\("(.*?)",\s*(.*?)\)"#));
static EMPTY_MAP: LazyLock<Regex> = LazyLock::new(|| pattern(r"new\s+HashMap<.*?>\s*\(\)"));

/// `int(s)`, raising where Python raises.
fn python_int(value: &str) -> Result<Value, CheckFailure> {
    int(value)
        .map(Value::from)
        .ok_or_else(|| exception(format!("ValueError: int({value:?})")))
}

fn python_float(value: &str) -> Result<Value, CheckFailure> {
    float(value)
        .map(float_value)
        .ok_or_else(|| exception(format!("ValueError: float({value:?})")))
}

/// `re.sub(r"[xX]$", "", s)` for a suffix letter: the letter at the end, or before a final newline.
fn drop_suffix(value: &str, letters: [char; 2]) -> String {
    if let Some(rest) = value.strip_suffix(letters) {
        return rest.to_string();
    }
    match value
        .strip_suffix('\n')
        .and_then(|v| v.strip_suffix(letters))
    {
        Some(rest) => format!("{rest}\n"),
        None => value.to_string(),
    }
}

/// `java_type_converter(value, expected_type, nested_type)`.
pub fn java_type_converter(
    value: &str,
    expected: &str,
    nested: Option<&str>,
) -> Result<Value, CheckFailure> {
    match expected {
        "byte" | "short" | "integer" => {
            if matches_whole(&INTEGER, value) {
                python_int(value)
            } else {
                Ok(Value::from(value))
            }
        }
        "float" => {
            if matches_whole(&FLOAT, value) {
                python_float(&drop_suffix(value, ['f', 'F']))
            } else {
                Ok(Value::from(value))
            }
        }
        "double" => {
            if matches_whole(&DOUBLE, value) {
                python_float(value)
            } else {
                Ok(Value::from(value))
            }
        }
        "long" => {
            if matches_whole(&LONG, value) {
                python_int(&drop_suffix(value, ['l', 'L']))
            } else {
                Ok(Value::from(value))
            }
        }
        "boolean" => Ok(match value {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            other => Value::from(other),
        }),
        // BFCL's pattern `^\'.$\'` needs a quote after the end of the text: it never matches.
        "char" | "String" | "any" => Ok(Value::from(value)),
        "ArrayList" => parse_arraylist(value, nested),
        "Array" => parse_array(value, nested),
        "HashMap" => Ok(parse_hashmap(value)),
        "Set" | "Hashtable" | "Queue" | "Stack" => Err(exception(format!(
            "NotImplementedError: {expected} conversion is not implemented"
        ))),
        other => Err(exception(format!("ValueError: Unsupported type: {other}"))),
    }
}

fn element(text: &str, nested: Option<&str>) -> Result<Value, CheckFailure> {
    match nested {
        Some("char") | Some("String") => Ok(Value::String(inner(text))),
        Some(nested) => java_type_converter(text, nested, None),
        None => parse_java_value(text),
    }
}

fn parse_arraylist(value: &str, nested: Option<&str>) -> Result<Value, CheckFailure> {
    if let Some(found) = AS_LIST.captures(value) {
        let elements = found[1]
            .split(',')
            .map(|e| element(strip(e), nested))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Value::Array(elements));
    }
    if let Some(found) = ADDS.captures(value) {
        let elements = ADD
            .captures_iter(&found[1])
            .map(|add| element(strip(&add[1]), nested))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Value::Array(elements));
    }
    if EMPTY_LIST.is_match(value) {
        return Ok(Value::Array(Vec::new()));
    }
    Ok(Value::from(value))
}

fn parse_array(value: &str, nested: Option<&str>) -> Result<Value, CheckFailure> {
    let Some(found) = ARRAY.captures(value) else {
        return Ok(Value::from(value));
    };
    let elements = found[1]
        .split(',')
        .map(strip)
        .filter(|e| !e.is_empty())
        .map(|e| match nested {
            Some(nested) => java_type_converter(e, nested, None),
            None => parse_java_value(e),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Value::Array(elements))
}

fn parse_hashmap(value: &str) -> Value {
    if let Some(found) = HASHMAP.captures(value) {
        let puts = &found[1];
        let mut elements = Map::new();
        if !strip(puts).is_empty() {
            for put in PUT.captures_iter(puts) {
                // Values are read untyped; `parse_java_value` cannot raise on text this short
                // path gives it (a failed number read falls back to text).
                let read =
                    parse_java_value(strip(&put[2])).unwrap_or_else(|_| Value::from(&put[2]));
                elements.insert(put[1].to_string(), read);
            }
        }
        return Value::Object(elements);
    }
    if EMPTY_MAP.is_match(value) {
        return Value::Object(Map::new());
    }
    Value::from(value)
}

/// `parse_java_value`: a value read without knowing its type.
fn parse_java_value(value: &str) -> Result<Value, CheckFailure> {
    if value == "true" {
        return Ok(Value::Bool(true));
    }
    if value == "false" {
        return Ok(Value::Bool(false));
    }
    if value.starts_with('"') && value.ends_with('"') {
        return Ok(Value::String(inner(value)));
    }
    if matches_whole(&LONG, value) {
        // Python drops the last character, which is the newline when `$` matched before one.
        let mut chars = value.chars();
        chars.next_back();
        return python_int(chars.as_str());
    }
    if matches_whole(&FLOAT, value) {
        return python_float(&drop_suffix(value, ['f', 'F']));
    }
    Ok(int(value)
        .map(Value::from)
        .or_else(|| float(value).map(float_value))
        .unwrap_or_else(|| Value::from(value)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The cases of BFCL's own `test_java_type_converter`.
    #[test]
    fn bfcls_own_cases() {
        let cases: Vec<(&str, &str, Option<&str>, Value)> = vec![
            ("true", "boolean", None, json!(true)),
            ("-123", "integer", None, json!(-123)),
            ("2.5f", "float", None, json!(2.5)),
            ("3e-3F", "float", None, json!(3e-3)),
            ("3.14e2", "double", None, json!(314.0)),
            ("-9223372036854775808L", "long", None, json!(i64::MIN)),
            ("a", "char", None, json!("a")),
            ("123", "any", None, json!("123")),
            ("new int[] { 1, 2, 3 }", "Array", None, json!([1, 2, 3])),
            ("new int[]{}", "Array", None, json!([])),
            (
                "new Object[]{1, \"abc\", true}",
                "Array",
                None,
                json!([1, "abc", true]),
            ),
            (
                "new ArrayList<>(Arrays.asList(\"a\", \"b\"))",
                "ArrayList",
                None,
                json!(["a", "b"]),
            ),
            ("new ArrayList<>()", "ArrayList", None, json!([])),
            ("new HashMap<>() {{ }}", "HashMap", None, json!({})),
            (
                "new HashMap<String, Object>() {{ put(\"key1\", 123); put(\"key2\", true); }}",
                "HashMap",
                None,
                json!({"key1": 123, "key2": true}),
            ),
            (
                "new HashMap<String, String>() { { put(\"key\", \"value\"); } }",
                "HashMap",
                None,
                json!({"key": "value"}),
            ),
            (
                "new long[]{1L, 2, 3L}",
                "Array",
                Some("long"),
                json!([1, "2", 3]),
            ),
            (
                "new ArrayList<Float>() {{ add(1.0f); add(2.0f); }}",
                "ArrayList",
                Some("float"),
                json!([1.0, 2.0]),
            ),
            (
                "new ArrayList<Character>() {{ add('a'); add('b'); }}",
                "ArrayList",
                Some("char"),
                json!(["a", "b"]),
            ),
            ("abc", "integer", None, json!("abc")),
        ];
        for (text, expected, nested, want) in cases {
            assert_eq!(
                java_type_converter(text, expected, nested).unwrap(),
                want,
                "{text} as {expected}"
            );
        }
        assert!(java_type_converter("x", "Set", None).is_err());
    }
}
