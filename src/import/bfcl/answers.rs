//! BFCL's possible answers as mcpick expectations: one expected call per answer entry, each list
//! of acceptable values as a matcher, and the answer values the translated schema rejects handed
//! to `functions::widen`.
//!
//! Answers map onto mcpick's matchers with BFCL's checker semantics: a list of acceptable values,
//! `""` = may be omitted, a dict holds lists again (an object matcher), a list of dicts is expanded
//! into its acceptable lists, and a parameter the answer leaves out must be omitted (BFCL rejects
//! unexpected parameters). Java and JavaScript answers that are typed values (`true`, `42`,
//! `[101, 202]`) are matched as the source text BFCL's type converters read them from (`"true"`,
//! `"42L"` for a long, `"new ArrayList<>(Arrays.asList(101, 202))"`; see `source_text`), since the
//! parameters are strings.

use super::functions::widen;
use super::source_text::{SourceLanguage, answer_pattern};
use crate::registry::compile_schema;
use crate::score::bfcl::Language;
use serde_json::{Map, Value, json};

/// The most acceptable lists a list-of-dicts answer may expand into before it is reported instead.
const MAX_EXPANSION: usize = 256;

/// The expected calls of a BFCL answer, one per `{TOOL: {param: [values]}}` entry.
pub fn expected_calls(
    truth: &Value,
    tools: &mut [Value],
    functions: &[Value],
    language: Language,
    notes: &mut Vec<String>,
) -> Result<Vec<Value>, String> {
    let entries = match truth {
        Value::Array(entries) => entries.as_slice(),
        single => std::slice::from_ref(single),
    };
    if entries.is_empty() {
        return Err("the possible answer lists no call".into());
    }
    let mut calls = Vec::with_capacity(entries.len());
    for entry in entries {
        let (tool, params) = match entry.as_object().map(|o| o.iter().collect::<Vec<_>>()) {
            Some(pairs) if pairs.len() == 1 => pairs[0],
            _ => return Err(format!("an answer entry is not {{TOOL: {{...}}}}: {entry}")),
        };
        let schema = &mut tools
            .iter_mut()
            .find(|t| t["name"] == tool.as_str())
            .ok_or_else(|| format!("the answer calls {tool:?}, which the record does not offer"))?
            ["inputSchema"];
        let params = params
            .as_object()
            .ok_or_else(|| format!("the answer's arguments for {tool} are not an object"))?;
        let required: Vec<&str> = functions
            .iter()
            .find(|f| f["name"] == tool.as_str())
            .and_then(|f| f["parameters"]["required"].as_array())
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut args = Map::new();
        for (param, acceptable) in params {
            if schema["properties"].get(param).is_none() {
                if contains_omission(acceptable) {
                    // BFCL rejects any value for it, and it may be left out: that is the answer.
                    notes.push(
                        "answer argument the function does not declare, marked optional: left out"
                            .into(),
                    );
                    continue;
                }
                return Err(format!(
                    "the answer gives {tool} an argument {param:?}, which the function does not declare (BFCL's checker rejects it as an unexpected parameter, so it passes no call either)"
                ));
            }
            let at = format!("{tool}.{param}");
            let mut acceptable = acceptable.clone();
            if required.contains(&param.as_str()) && contains_omission(&acceptable) {
                // BFCL checks required parameters before the answer's `""`: leaving one out fails.
                if let Value::Array(values) = &mut acceptable {
                    values.retain(|v| v != "");
                }
                notes.push("`\"\"` (may be omitted) on a required parameter: dropped, as BFCL's checker requires the parameter".into());
                if acceptable.as_array().is_some_and(Vec::is_empty) {
                    return Err(format!(
                        "{at}: required, but the answer only allows leaving it out (BFCL's checker passes no call either)"
                    ));
                }
            }
            let declared = functions
                .iter()
                .find(|f| f["name"] == tool.as_str())
                .map_or(&Value::Null, |f| &f["parameters"]["properties"][param]);
            let parameter = Parameter {
                schema: &schema["properties"][param],
                declared,
                language,
            };
            let (matcher, outside) =
                acceptable_values(&acceptable, &parameter).map_err(|e| format!("{at}: {e}"))?;
            if !outside.is_empty() {
                widen(&mut schema["properties"][param], &outside, &at, notes);
            }
            args.insert(param.clone(), matcher);
        }
        // BFCL rejects a parameter its answer does not list: it must be left out.
        for param in schema["properties"].as_object().into_iter().flatten() {
            if !args.contains_key(param.0) {
                args.insert(param.0.clone(), json!(""));
            }
        }
        calls.push(json!({"tool": tool, "args": args}));
    }
    Ok(calls)
}

/// Whether a BFCL list of acceptable values allows leaving the parameter out (`""`).
fn contains_omission(acceptable: &Value) -> bool {
    acceptable
        .as_array()
        .is_some_and(|values| values.iter().any(|v| v == ""))
}

/// The parameter an answer's values are for.
struct Parameter<'a> {
    /// Its schema as translated (what the server validates).
    schema: &'a Value,
    /// Its schema as BFCL wrote it (the Java or JavaScript type).
    declared: &'a Value,
    language: Language,
}

/// A BFCL list of acceptable values as an mcpick matcher, and the values the parameter's schema
/// rejects (kept in the matcher: the caller widens the schema to accept them). Java and JavaScript
/// answers that are not strings are matched as the source text BFCL's type converters read them
/// from (`source_text`).
fn acceptable_values(
    acceptable: &Value,
    parameter: &Parameter<'_>,
) -> Result<(Value, Vec<Value>), String> {
    let values = match acceptable {
        Value::Array(values) => values.as_slice(),
        single => std::slice::from_ref(single),
    };
    let validator = compile_schema(parameter.schema).map_err(|e| e.to_string())?;
    let source = match parameter.language {
        Language::Python => None,
        Language::Java => Some(SourceLanguage::Java),
        Language::JavaScript => Some(SourceLanguage::JavaScript),
    };
    let mut matcher = Vec::with_capacity(values.len());
    let mut rejected = Vec::new();
    for value in values {
        match (value, source) {
            (Value::String(s), _) if s.is_empty() => matcher.push(json!("")),
            (Value::String(s), Some(SourceLanguage::JavaScript))
                if parameter.declared["type"] == "String" =>
            {
                // BFCL's JavaScript converter takes a string with or without its quotes.
                matcher.push(value.clone());
                matcher.push(json!(format!("\"{s}\"")));
            }
            (Value::String(_), _) => {
                if validator.is_valid(value) {
                    matcher.push(value.clone());
                } else {
                    rejected.push(value.clone());
                }
            }
            (typed, Some(language)) => {
                let pattern = answer_pattern(typed, parameter.declared, language)?;
                matcher.push(json!({ "regex": pattern }));
            }
            (value, None) => match value {
                Value::Object(fields) => {
                    let nested = nested_matcher(fields)?;
                    matcher.push(nested);
                }
                Value::Array(items) if items.iter().any(Value::is_object) => {
                    for expanded in expand_list(items)? {
                        if validator.is_valid(&expanded) {
                            matcher.push(expanded);
                        } else {
                            rejected.push(expanded);
                        }
                    }
                }
                literal => {
                    if validator.is_valid(literal) {
                        matcher.push(literal.clone());
                    } else {
                        rejected.push(literal.clone());
                    }
                }
            },
        }
    }
    if values.is_empty() {
        return Err(
            "the answer lists no acceptable value (no call can be right; BFCL's checker passes none either)"
                .into(),
        );
    }
    matcher.extend(rejected.iter().cloned());
    Ok((Value::Array(matcher), rejected))
}

/// A dict answer (`{key: [acceptable values]}`) as an object matcher.
fn nested_matcher(fields: &Map<String, Value>) -> Result<Value, String> {
    if (fields.len() == 1 && fields.contains_key("regex")) || fields.contains_key("approx") {
        return Err("a dict answer keyed `regex` or `approx` reads as an mcpick matcher".into());
    }
    let mut nested = Map::new();
    for (key, acceptable) in fields {
        let values = match acceptable {
            Value::Array(values) => values.clone(),
            single => vec![single.clone()],
        };
        let mut alternatives = Vec::with_capacity(values.len());
        for value in values {
            match value {
                Value::Object(inner) => alternatives.push(nested_matcher(&inner)?),
                Value::Array(items) if items.iter().any(Value::is_object) => {
                    alternatives.extend(expand_list(&items)?);
                }
                other => alternatives.push(other),
            }
        }
        nested.insert(key.clone(), Value::Array(alternatives));
    }
    Ok(Value::Object(nested))
}

/// A list answer whose elements are dicts of acceptable values, as every acceptable list it stands
/// for (`""` in a dict: the key may be left out).
fn expand_list(items: &[Value]) -> Result<Vec<Value>, String> {
    let mut lists: Vec<Vec<Value>> = vec![Vec::new()];
    for item in items {
        let forms = match item {
            Value::Object(fields) => expand_dict(fields)?,
            other => vec![other.clone()],
        };
        lists = lists
            .into_iter()
            .flat_map(|list| {
                forms.iter().map(move |form| {
                    let mut list = list.clone();
                    list.push(form.clone());
                    list
                })
            })
            .collect();
        if lists.len() > MAX_EXPANSION {
            return Err(format!(
                "a list of dicts stands for more than {MAX_EXPANSION} acceptable lists"
            ));
        }
    }
    Ok(lists.into_iter().map(Value::Array).collect())
}

fn expand_dict(fields: &Map<String, Value>) -> Result<Vec<Value>, String> {
    let mut forms: Vec<Map<String, Value>> = vec![Map::new()];
    for (key, acceptable) in fields {
        let values = match acceptable {
            Value::Array(values) => values.clone(),
            single => vec![single.clone()],
        };
        // `None`: the key left out.
        let mut options: Vec<Option<Value>> = Vec::new();
        for value in values {
            match value {
                Value::String(s) if s.is_empty() => options.push(None),
                Value::Object(inner) => options.extend(expand_dict(&inner)?.into_iter().map(Some)),
                Value::Array(items) if items.iter().any(Value::is_object) => {
                    options.extend(expand_list(&items)?.into_iter().map(Some));
                }
                other => options.push(Some(other)),
            }
        }
        forms = forms
            .into_iter()
            .flat_map(|form| {
                options.iter().map(move |option| {
                    let mut form = form.clone();
                    if let Some(value) = option {
                        form.insert(key.clone(), value.clone());
                    }
                    form
                })
            })
            .collect();
        if forms.len() > MAX_EXPANSION {
            return Err(format!(
                "a dict answer stands for more than {MAX_EXPANSION} acceptable dicts"
            ));
        }
    }
    Ok(forms.into_iter().map(Value::Object).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::bfcl::tests::{imported, judge, task};
    use crate::score::Outcome;

    #[test]
    fn answers_become_matchers_with_bfcl_semantics() {
        let imported = imported();
        let trip = task(&imported, "simple_python_0");
        let args = &trip["expect"][0]["args"];
        assert_eq!(
            args["tags"], "",
            "a parameter the answer leaves out must be left out"
        );
        assert_eq!(args["note"], json!(["", "quiet hotel"]));
        let right = json!({"city": "paris", "days": 3, "budget": 1200, "stops": ["Louvre", "Orsay"],
            "options": {"pace": "slow", "rooms": 2}});
        // (case, arguments, outcome)
        let cases = [
            (
                "every optional left out, strings normalised, int for float",
                right.clone(),
                Outcome::Correct,
            ),
            (
                "another acceptable value",
                json!({"city": "Paris, France", "days": 3, "budget": 1200.0,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}, "currency": "EUR"}),
                Outcome::Correct,
            ),
            (
                "optional given a listed value",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}, "note": "Quiet hotel"}),
                Outcome::Correct,
            ),
            (
                "an unexpected parameter",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}, "tags": ["art"]}),
                Outcome::WrongArgs,
            ),
            (
                "a required value missing",
                json!({"city": "Paris", "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"rooms": 2}}),
                Outcome::WrongArgs,
            ),
            (
                "a nested value wrong",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Louvre", "Orsay"], "options": {"pace": "fast", "rooms": 2}}),
                Outcome::WrongArgs,
            ),
            (
                "a list out of order",
                json!({"city": "Paris", "days": 3, "budget": 1200,
                "stops": ["Orsay", "Louvre"], "options": {"rooms": 2}}),
                Outcome::WrongArgs,
            ),
        ];
        for (case, arguments, outcome) in cases {
            assert_eq!(
                judge(trip, &[("travel.plan_trip", arguments)]),
                outcome,
                "{case}"
            );
        }
        // A list of dicts: each dict's keys may be omitted where the answer says "".
        let order = task(&imported, "simple_python_3");
        let items = order["expect"][0]["args"]["items"].as_array().unwrap();
        assert_eq!(items.len(), 2, "{items:?}");
        let ordered = |gift: Value| {
            let mut first = json!({"sku": "A1", "quantity": 2});
            if !gift.is_null() {
                first["gift"] = gift;
            }
            json!({"items": [first, {"sku": "B2", "quantity": 1, "gift": true}], "express": true})
        };
        assert_eq!(
            judge(order, &[("shop.place_order", ordered(Value::Null))]),
            Outcome::Correct
        );
        assert_eq!(
            judge(order, &[("shop.place_order", ordered(json!(false)))]),
            Outcome::Correct
        );
        assert_eq!(
            judge(order, &[("shop.place_order", ordered(json!(true)))]),
            Outcome::WrongArgs
        );
    }

    /// Typed Java and JavaScript answers are matched as the source text BFCL's converters parse.
    #[test]
    fn java_and_javascript_answers_match_the_source_text_bfcl_reads() {
        let imported = imported();
        let java = task(&imported, "simple_java_0");
        let sort = |items: &str, ascending: Option<&str>| {
            let mut arguments =
                json!({"items": items, "comparator": "String.CASE_INSENSITIVE_ORDER"});
            if let Some(ascending) = ascending {
                arguments["ascending"] = json!(ascending);
            }
            judge(java, &[("SortUtil.sortList", arguments)])
        };
        let as_list = r#"new ArrayList<>(Arrays.asList("alice", "bob"))"#;
        assert_eq!(sort(as_list, Some("true")), Outcome::Correct);
        assert_eq!(sort(as_list, None), Outcome::Correct);
        assert_eq!(
            sort(
                r#"new ArrayList<String>() {{ add("alice"); add("bob"); }}"#,
                Some("true")
            ),
            Outcome::Correct
        );
        assert_eq!(sort(as_list, Some("false")), Outcome::WrongArgs);
        assert_eq!(
            sort(r#"new ArrayList<>(Arrays.asList("bob", "alice"))"#, None),
            Outcome::WrongArgs
        );
        let js = task(&imported, "simple_javascript_0");
        let fetch = |url: &str, retries: &str| {
            let arguments = json!({"url": url, "options": "{method: 'GET'}", "retries": retries});
            judge(js, &[("fetchData", arguments)])
        };
        assert_eq!(
            fetch("https://example.com/data", "[1, 2]"),
            Outcome::Correct
        );
        assert_eq!(
            fetch("'https://example.com/data'", "new Array(1,2)"),
            Outcome::Correct
        );
        assert_eq!(
            fetch("https://example.com/data", "[2, 1]"),
            Outcome::WrongArgs
        );
    }
}
