//! JSON values as BFCL's checker sees them after `json.loads`: Python's `type()`, `==`, `in` and
//! BFCL's `standardize_string`. One deliberate difference: a boolean never equals a number (Python
//! has `True == 1` and `1.0 == True`, so BFCL accepts `1` for `true` wherever it compares values
//! without checking their type first, e.g. inside a dict; mcpick does not).

use serde_json::Value;

/// Python's type of a decoded JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyType {
    Int,
    Float,
    Bool,
    Str,
    List,
    Dict,
    NoneType,
}

impl PyType {
    /// `type(value)`: `json.loads` gives an `int` for a number written without a fraction or
    /// exponent and a `float` otherwise, which is the distinction `serde_json` keeps too.
    pub fn of(value: &Value) -> PyType {
        match value {
            Value::Null => PyType::NoneType,
            Value::Bool(_) => PyType::Bool,
            Value::Number(n) if n.is_f64() => PyType::Float,
            Value::Number(_) => PyType::Int,
            Value::String(_) => PyType::Str,
            Value::Array(_) => PyType::List,
            Value::Object(_) => PyType::Dict,
        }
    }

    /// BFCL's `PYTHON_TYPE_MAPPING`; `None` where the checker would raise `KeyError`.
    pub fn from_bfcl(type_name: &str) -> Option<PyType> {
        Some(match type_name {
            "string" | "any" => PyType::Str,
            "integer" => PyType::Int,
            "float" => PyType::Float,
            "boolean" => PyType::Bool,
            "array" | "tuple" => PyType::List,
            "dict" => PyType::Dict,
            _ => return None,
        })
    }

    /// The name Python gives the type (`type(value).__name__`).
    pub fn name(self) -> &'static str {
        match self {
            PyType::Int => "int",
            PyType::Float => "float",
            PyType::Bool => "bool",
            PyType::Str => "str",
            PyType::List => "list",
            PyType::Dict => "dict",
            PyType::NoneType => "NoneType",
        }
    }
}

/// A Python float as JSON (`None` has no float: NaN and the infinities, which JSON lacks, read as
/// `null`).
pub fn float_value(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// Python's `a == b` on decoded JSON, except that booleans and numbers never compare equal.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| py_eq(p, q)))
        }
        _ => a == b,
    }
}

/// Python compares an `int` with a `float` exactly, not after rounding the int to a float.
fn numbers_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    match (exact_integer(x), exact_integer(y)) {
        (Some(i), Some(j)) => i == j,
        _ => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) if p == q => {
                // Equal as floats; an int side must also be exactly that float's value.
                [x, y].iter().all(|n| match exact_integer(n) {
                    Some(i) => p.fract() == 0.0 && p.abs() < 1.8e19 && (p as i128) == i,
                    None => true,
                })
            }
            _ => false,
        },
    }
}

fn exact_integer(n: &serde_json::Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Python's `needle in haystack` for a list.
pub fn py_in(needle: &Value, haystack: &[Value]) -> bool {
    haystack.iter().any(|item| py_eq(needle, item))
}

/// BFCL's `standardize_string`: the characters ` ,./-_*^` removed, then `str.lower()`, then `'` as `"`.
pub fn standardize(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .collect();
    // `str::to_lowercase` on the whole string, like Python's `str.lower()` (final sigma included).
    kept.to_lowercase().replace('\'', "\"")
}

/// A value as a Python iterable of values, for the places BFCL iterates what it expects to be a
/// list: a list gives its items, a string its characters; anything else would raise `TypeError`.
pub fn iterate(value: &Value) -> Option<Vec<Value>> {
    match value {
        Value::Array(items) => Some(items.clone()),
        Value::String(text) => Some(text.chars().map(|c| Value::String(c.into())).collect()),
        Value::Object(map) => Some(map.keys().map(|k| Value::String(k.clone())).collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_equality_on_decoded_json() {
        let cases = [
            (json!(10), json!(10.0), true),
            (json!(10), json!(10.5), false),
            (
                json!(9007199254740993_i64),
                json!(9007199254740992.0),
                false,
            ),
            (json!([1, "a"]), json!([1.0, "a"]), true),
            (json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}), true),
            (json!({"a": 1}), json!({"a": 1, "b": 2}), false),
            (json!(true), json!(1), false),
            (json!(null), json!(null), true),
            (json!("A"), json!("a"), false),
        ];
        for (a, b, want) in cases {
            assert_eq!(py_eq(&a, &b), want, "{a} == {b}");
        }
    }

    #[test]
    fn types_follow_json_loads() {
        assert_eq!(PyType::of(&json!(10)), PyType::Int);
        assert_eq!(PyType::of(&json!(10.0)), PyType::Float);
        assert_eq!(PyType::of(&json!(1e3)), PyType::Float);
        assert_eq!(PyType::of(&json!(true)), PyType::Bool);
        assert_eq!(PyType::from_bfcl("number"), None);
    }

    #[test]
    fn standardize_matches_bfcl() {
        assert_eq!(standardize("New York, NY"), "newyorkny");
        assert_eq!(standardize("It's 3.5^2"), "it\"s352");
        assert_eq!(standardize("ΟΔΟΣ"), "οδος");
        assert_eq!(standardize("ΟΔΟΣ Α"), "οδοσα");
    }
}
