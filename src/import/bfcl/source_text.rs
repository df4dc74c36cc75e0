//! BFCL's Java and JavaScript answers are typed values (`true`, `42`, `[101, 202]`, `{"limit": [50]}`),
//! but the functions take those parameters as source text (BFCL shows them as strings), so a model
//! writes `"true"`, `"42L"` or `"new int[]{101, 202}"`, and BFCL's checker parses that text back with
//! its type converters (`java_type_converter`, `js_type_converter`) before comparing. This module
//! turns one typed answer into a regular expression over the source text those converters accept
//! for it, so mcpick's regex matcher accepts what BFCL's checker accepts: the literal forms of each
//! type (`42L` for a Java long, `1.5f` for a float, `12n` for a JavaScript BigInt), Java arrays,
//! `ArrayList`s (`Arrays.asList` or double-brace `add`) and `HashMap`s (`put`, any order), and
//! JavaScript arrays (`[...]` or `new Array(...)`) and object literals (keys quoted or not, any
//! order). Pure: no I/O.

use serde_json::{Map, Number, Value};

/// The language an answer's source text is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceLanguage {
    Java,
    JavaScript,
}

/// Most entries of a map answer whose orders are all spelled out (4! = 24).
const MAX_KEYS: usize = 4;

/// A regex (anchored) matching the source text of `value` for a parameter BFCL declares as
/// `declared` (its original schema: `type`, and `items.type` for lists), or a reason it cannot.
pub fn answer_pattern(
    value: &Value,
    declared: &Value,
    language: SourceLanguage,
) -> Result<String, String> {
    let declared_type = declared["type"].as_str().unwrap_or("any");
    let element_type = declared["items"]["type"].as_str();
    let body = match language {
        SourceLanguage::Java => java(value, declared_type, element_type)?,
        SourceLanguage::JavaScript => javascript(value, declared_type)?,
    };
    Ok(format!(r"^\s*(?:{body})\s*$"))
}

fn java(value: &Value, declared: &str, element: Option<&str>) -> Result<String, String> {
    Ok(match (declared, value) {
        ("boolean", Value::Bool(b)) => b.to_string(),
        ("integer" | "byte" | "short", Value::Number(n)) if n.is_i64() || n.is_u64() => {
            regex::escape(&n.to_string())
        }
        ("long", Value::Number(n)) if n.is_i64() || n.is_u64() => format!("{}[lL]", n),
        ("float", Value::Number(n)) => format!("{}[fF]", decimal(n)),
        ("double", Value::Number(n)) => decimal(n),
        ("Array", Value::Array(items)) => format!(
            r"new\s+\w+\s*\[\]\s*\{{\s*{}\s*\}}",
            joined(items, |item| java_element(item, element))?
        ),
        ("ArrayList", Value::Array(items)) if items.is_empty() => {
            r"new\s+ArrayList<\w*>\(\)".into()
        }
        ("ArrayList", Value::Array(items)) => {
            let as_list = joined(items, |item| java_element(item, element))?;
            let adds = items
                .iter()
                .map(|item| {
                    Ok(format!(
                        r"add\(\s*{}\s*\);?\s*",
                        java_element(item, element)?
                    ))
                })
                .collect::<Result<Vec<String>, String>>()?
                .concat();
            format!(
                r"new\s+ArrayList<\w*>\(\s*Arrays\.asList\(\s*{as_list}\s*\)\s*\)|new\s+ArrayList<\w*>\(\)\s*\{{\{{\s*{adds}\}}\}}"
            )
        }
        ("HashMap", Value::Object(entries)) => {
            let puts = entries
                .iter()
                .map(|(key, acceptable)| {
                    let values = alternatives(acceptable, |v| java_element(v, None))?;
                    Ok(format!(
                        r#"put\(\s*"{}"\s*,\s*(?:{values})\s*\);?\s*"#,
                        regex::escape(key)
                    ))
                })
                .collect::<Result<Vec<String>, String>>()?;
            format!(
                r"new\s+HashMap<[^>]*>\s*\(\)\s*\{{\s*\{{?\s*(?:{})\}}?\s*\}}",
                any_order(&puts)?
            )
        }
        (_, other) => python_str(other)?,
    })
}

/// One element of a Java collection, as `parse_java_value` (or the element type) reads it.
fn java_element(value: &Value, element: Option<&str>) -> Result<String, String> {
    Ok(match value {
        Value::String(s) if element == Some("char") => format!("'{}'", regex::escape(s)),
        Value::String(s) => format!("\"{}\"", regex::escape(s)),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("{n}[lL]?"),
        Value::Number(n) => format!("{}[fFdD]?", decimal(n)),
        other => return Err(format!("no Java source form for the element {other}")),
    })
}

fn javascript(value: &Value, declared: &str) -> Result<String, String> {
    Ok(match (declared, value) {
        ("Boolean", Value::Bool(b)) => b.to_string(),
        ("integer", Value::Number(n)) if n.is_i64() || n.is_u64() => regex::escape(&n.to_string()),
        ("Bigint", Value::Number(n)) if n.is_i64() || n.is_u64() => format!("{n}n"),
        ("float", Value::Number(n)) => decimal(n),
        ("array", Value::Array(items)) => {
            let elements = joined(items, javascript_element)?;
            format!(r"\[\s*{elements}\s*\]|new\s+Array\(\s*{elements}\s*\)")
        }
        ("dict", Value::Object(entries)) => javascript_object(entries)?,
        (_, other) => python_str(other)?,
    })
}

/// One value inside a JavaScript array or object, as `parse_js_value` reads it.
fn javascript_element(value: &Value) -> Result<String, String> {
    Ok(match value {
        Value::String(s) => format!(r#"["']{}["']"#, regex::escape(s)),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_i64() || n.is_u64() => regex::escape(&n.to_string()),
        Value::Number(n) => decimal(n),
        Value::Array(items) => format!(r"\[\s*{}\s*\]", joined(items, javascript_element)?),
        Value::Object(entries) => javascript_object(entries)?,
        Value::Null => return Err("no JavaScript source form for null".into()),
    })
}

/// An object literal: every key (quoted or not) with one of its acceptable values, in any order.
/// Unquoted string values are accepted too, as `parse_js_collection` strips quotes.
fn javascript_object(entries: &Map<String, Value>) -> Result<String, String> {
    let pairs = entries
        .iter()
        .map(|(key, acceptable)| {
            let values = alternatives(acceptable, |v| match v {
                Value::String(s) => Ok(format!(r#"["']?{}["']?"#, regex::escape(s))),
                other => javascript_element(other),
            })?;
            Ok(format!(
                r#"["']?{}["']?\s*:\s*(?:{values})"#,
                regex::escape(key)
            ))
        })
        .collect::<Result<Vec<String>, String>>()?;
    let orders = permutations(pairs.len())?
        .into_iter()
        .map(|order| {
            order
                .iter()
                .map(|&i| pairs[i].as_str())
                .collect::<Vec<_>>()
                .join(r"\s*,\s*")
        })
        .collect::<Vec<_>>()
        .join("|");
    Ok(format!(r"\{{\s*(?:{orders})\s*,?\s*\}}"))
}

/// A BFCL list of acceptable values (or one value) as a regex alternation.
fn alternatives(
    acceptable: &Value,
    form: impl Fn(&Value) -> Result<String, String>,
) -> Result<String, String> {
    let values = match acceptable {
        Value::Array(values) => values.as_slice(),
        single => std::slice::from_ref(single),
    };
    if values.iter().any(|v| v == "") {
        return Err("an entry that may be left out of a map answer".into());
    }
    Ok(values
        .iter()
        .map(form)
        .collect::<Result<Vec<String>, String>>()?
        .join("|"))
}

fn joined(
    items: &[Value],
    form: impl Fn(&Value) -> Result<String, String>,
) -> Result<String, String> {
    Ok(items
        .iter()
        .map(|item| form(item).map(|f| format!("(?:{f})")))
        .collect::<Result<Vec<String>, String>>()?
        .join(r"\s*,\s*"))
}

/// `put(...)` groups in every order (a map is unordered).
fn any_order(groups: &[String]) -> Result<String, String> {
    Ok(permutations(groups.len())?
        .into_iter()
        .map(|order| {
            order
                .iter()
                .map(|&i| groups[i].as_str())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("|"))
}

fn permutations(n: usize) -> Result<Vec<Vec<usize>>, String> {
    if n > MAX_KEYS {
        return Err(format!(
            "a map answer with {n} entries (more than {MAX_KEYS} would need every order spelled out)"
        ));
    }
    let mut all = vec![Vec::new()];
    for _ in 0..n {
        all = all
            .into_iter()
            .flat_map(|order: Vec<usize>| {
                (0..n)
                    .filter(|i| !order.contains(i))
                    .map(|i| {
                        let mut next = order.clone();
                        next.push(i);
                        next
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    Ok(all)
}

/// A number as decimal source text of the same value: `0.5` also as `0.50`, `30.0` also as `30`.
fn decimal(n: &Number) -> String {
    let text = n.to_string();
    match text.split_once('.') {
        Some((whole, fraction)) if !fraction.contains(['e', 'E']) => {
            let fraction = fraction.trim_end_matches('0');
            if fraction.is_empty() {
                format!(r"{}(?:\.0*)?", regex::escape(whole))
            } else {
                format!(r"{}\.{fraction}0*", regex::escape(whole))
            }
        }
        None if n.is_i64() || n.is_u64() => format!(r"{}(?:\.0*)?", regex::escape(&text)),
        _ => regex::escape(&text),
    }
}

/// What BFCL compares when its converter falls back to `str(value)`: Python's spelling.
fn python_str(value: &Value) -> Result<String, String> {
    Ok(match value {
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => regex::escape(&n.to_string()),
        Value::String(s) => regex::escape(s),
        other => return Err(format!("no source form for {other} here")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;
    use serde_json::json;

    fn accepts(value: Value, declared: Value, language: SourceLanguage, texts: &[&str]) {
        let pattern = answer_pattern(&value, &declared, language).unwrap();
        let re = Regex::new(&pattern).unwrap();
        for text in texts {
            assert!(re.is_match(text), "{pattern} should match {text:?}");
        }
    }

    fn rejects(value: Value, declared: Value, language: SourceLanguage, texts: &[&str]) {
        let pattern = answer_pattern(&value, &declared, language).unwrap();
        let re = Regex::new(&pattern).unwrap();
        for text in texts {
            assert!(!re.is_match(text), "{pattern} should not match {text:?}");
        }
    }

    use SourceLanguage::{Java, JavaScript};

    #[test]
    fn java_scalars_in_the_forms_bfcl_parses() {
        accepts(
            json!(true),
            json!({"type": "boolean"}),
            Java,
            &["true", " true "],
        );
        rejects(
            json!(true),
            json!({"type": "boolean"}),
            Java,
            &["false", "yes"],
        );
        accepts(json!(42), json!({"type": "integer"}), Java, &["42"]);
        rejects(
            json!(42),
            json!({"type": "integer"}),
            Java,
            &["420", "42L", "4"],
        );
        accepts(json!(5), json!({"type": "long"}), Java, &["5L", "5l"]);
        rejects(json!(5), json!({"type": "long"}), Java, &["5"]);
        accepts(
            json!(0.5),
            json!({"type": "double"}),
            Java,
            &["0.5", "0.50"],
        );
        accepts(
            json!(2.0),
            json!({"type": "float"}),
            Java,
            &["2.0f", "2F", "2.00f"],
        );
        rejects(json!(2.0), json!({"type": "float"}), Java, &["2.0", "2.5f"]);
        // Outside the converters, BFCL compares Python's str(): `any` with a float.
        accepts(json!(30.0), json!({"type": "any"}), Java, &["30.0"]);
    }

    #[test]
    fn java_collections() {
        let array = json!({"type": "Array", "items": {"type": "integer"}});
        accepts(
            json!([2, 7, 11]),
            array.clone(),
            Java,
            &["new int[]{2, 7, 11}", "new int[] { 2,7,11 }"],
        );
        rejects(
            json!([2, 7, 11]),
            array,
            Java,
            &["new int[]{2, 11, 7}", "[2, 7, 11]"],
        );
        let list = json!({"type": "ArrayList", "items": {"type": "String"}});
        accepts(
            json!(["a", "b"]),
            list.clone(),
            Java,
            &[
                r#"new ArrayList<>(Arrays.asList("a", "b"))"#,
                r#"new ArrayList<String>() {{ add("a"); add("b"); }}"#,
            ],
        );
        rejects(
            json!(["a", "b"]),
            list.clone(),
            Java,
            &[r#"new ArrayList<>(Arrays.asList("b", "a"))"#],
        );
        accepts(json!([]), list, Java, &["new ArrayList<>()"]);
        let map = json!({"type": "HashMap"});
        accepts(
            json!({"limit": [50], "schema": ["public", "main"]}),
            map.clone(),
            Java,
            &[
                r#"new HashMap<String, Object>() {{ put("limit", 50); put("schema", "public"); }}"#,
                r#"new HashMap<>() {{ put("schema", "main"); put("limit", 50L); }}"#,
            ],
        );
        rejects(
            json!({"limit": [50]}),
            map,
            Java,
            &[r#"new HashMap<>() {{ put("limit", 51); }}"#],
        );
    }

    #[test]
    fn javascript_values() {
        accepts(json!(12), json!({"type": "Bigint"}), JavaScript, &["12n"]);
        accepts(
            json!(1.5),
            json!({"type": "float"}),
            JavaScript,
            &["1.5", "1.50"],
        );
        accepts(
            json!(false),
            json!({"type": "Boolean"}),
            JavaScript,
            &["false"],
        );
        let array = json!({"type": "array", "items": {"type": "String"}});
        accepts(
            json!(["x", "y"]),
            array.clone(),
            JavaScript,
            &[r#"["x", 'y']"#, r#"new Array("x","y")"#],
        );
        rejects(json!(["x", "y"]), array, JavaScript, &[r#"["y", "x"]"#]);
        let object = json!({"type": "dict"});
        accepts(
            json!({"method": ["GET"], "retries": [3]}),
            object.clone(),
            JavaScript,
            &[
                "{method: 'GET', retries: 3}",
                r#"{"retries": 3, "method": "GET"}"#,
            ],
        );
        rejects(
            json!({"method": ["GET"]}),
            object,
            JavaScript,
            &["{method: 'POST'}"],
        );
    }

    #[test]
    fn answers_without_a_source_form_say_so() {
        let big: Map<String, Value> = (0..5).map(|i| (format!("k{i}"), json!([i]))).collect();
        let refused =
            answer_pattern(&Value::Object(big), &json!({"type": "HashMap"}), Java).unwrap_err();
        assert!(refused.contains("5 entries"), "{refused}");
        let refused =
            answer_pattern(&json!([[null]]), &json!({"type": "array"}), JavaScript).unwrap_err();
        assert!(refused.contains("null"), "{refused}");
    }
}
