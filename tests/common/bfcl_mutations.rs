//! The mutation generator of `tests/integration/bfcl_differential.rs`: from each BFCL record's correct call,
//! replies with one thing changed, each named by its kind (see that test's documentation).

use mcpick::model::BfclRecord;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// A reply: calls as (name, raw arguments text).
pub type Reply = Vec<(String, String)>;

pub struct Case {
    pub kind: &'static str,
    pub id: String,
    pub replies: Vec<Reply>,
}

/// The correct calls: each answer's first acceptable value that is not `""` (omitted if none).
pub fn gold_calls(bfcl: &BfclRecord) -> Vec<(String, Map<String, Value>)> {
    bfcl.ground_truth
        .iter()
        .filter_map(|answer| answer.as_object()?.iter().next())
        .map(|(name, params)| {
            let mut arguments = Map::new();
            for (param, acceptable) in params.as_object().into_iter().flatten() {
                if let Some(value) = first_acceptable(acceptable) {
                    arguments.insert(param.clone(), value);
                }
            }
            (name.clone(), arguments)
        })
        .collect()
}

/// The correct call of a Java or JavaScript record: its parameters are source text, so the gold
/// call is the `oracle` backend's (text the import's matchers accept, e.g. `"42L"` for a long).
pub fn source_text_gold(task: &Value, tools: &[Value]) -> Vec<(String, Map<String, Value>)> {
    let listed = &task["tools"][0];
    let key = listed.get("tool").unwrap_or(listed).as_str().unwrap();
    let schema = &tools.iter().find(|t| t["name"] == key).unwrap()["inputSchema"];
    task["expect"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|call| {
            let matchers = call["args"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), mcpick::model::ArgMatcher::parse(v).unwrap()))
                .collect();
            (
                call["tool"].as_str().unwrap().to_string(),
                mcpick::gold_arguments::gold_arguments(&matchers, schema),
            )
        })
        .collect()
}

/// The first acceptable value of a list that is not `""`, made concrete.
pub fn first_acceptable(acceptable: &Value) -> Option<Value> {
    acceptable
        .as_array()?
        .iter()
        .find(|v| *v != "")
        .map(concrete)
}

/// An acceptable value as a call would give it: a dict answer holds lists of acceptable values
/// again (and a list of dicts, such dicts), so each key takes its first (a key with only `""`
/// left out).
pub fn concrete(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter_map(|(k, v)| first_acceptable(v).map(|v| (k.clone(), v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(concrete).collect()),
        other => other.clone(),
    }
}

pub fn text(arguments: &Map<String, Value>) -> String {
    Value::Object(arguments.clone()).to_string()
}

pub fn reply(calls: &[(String, Map<String, Value>)]) -> Reply {
    calls
        .iter()
        .map(|(name, args)| (name.clone(), text(args)))
        .collect()
}

/// Every reply the generator derives from one record.
pub fn mutations(
    id: &str,
    bfcl: &BfclRecord,
    gold: Vec<(String, Map<String, Value>)>,
    cases: &mut Vec<Case>,
) {
    let mut add = |kind: &'static str, replies: Vec<Reply>| {
        cases.push(Case {
            kind,
            id: id.to_string(),
            replies,
        });
    };
    let function_names: Vec<String> = bfcl
        .function
        .iter()
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect();
    add("no_call", vec![]);
    add("text_then_nothing", vec![vec![]]);
    if bfcl.category.contains("relevance") {
        for name in function_names.iter().take(2) {
            add("relevance_call", vec![vec![(name.clone(), "{}".into())]]);
            add("malformed", vec![vec![(name.clone(), "{\"a\": ".into())]]);
            add(
                "non_object_arguments",
                vec![vec![(name.clone(), "[1]".into())]],
            );
            add(
                "call_in_later_turn",
                vec![vec![], vec![(name.clone(), "{}".into())]],
            );
        }
        add(
            "unknown_function",
            vec![vec![("mcpick_unknown".into(), "{}".into())]],
        );
        return;
    }
    let Some((first_name, first_args)) = gold.first().cloned() else {
        return;
    };
    add("correct", vec![reply(&gold)]);
    let with_first = |args: Map<String, Value>| {
        let mut calls = gold.clone();
        calls[0].1 = args;
        vec![reply(&calls)]
    };
    // Call-level changes.
    let mut extra = gold.clone();
    extra.push(gold[0].clone());
    add("extra_call", vec![reply(&extra)]);
    if gold.len() > 1 {
        add("missing_call", vec![reply(&gold[..gold.len() - 1])]);
        let mut swapped = gold.clone();
        swapped.reverse();
        add("calls_reordered", vec![reply(&swapped)]);
        add(
            "calls_split_over_turns",
            vec![reply(&gold[..1]), reply(&gold[1..])],
        );
    }
    let mut renamed = gold.clone();
    renamed[0].0 = format!("{first_name}_x");
    add("wrong_name", vec![reply(&renamed)]);
    if let Some(other) = function_names.iter().find(|n| **n != first_name) {
        let mut calls = gold.clone();
        calls[0].0 = other.clone();
        add("other_function", vec![reply(&calls)]);
    }
    let mut broken = reply(&gold);
    broken[0].1 = "{\"a\": ".into();
    add("malformed", vec![broken.clone()]);
    let mut non_object = reply(&gold);
    non_object[0].1 = "[1]".into();
    add("non_object_arguments", vec![non_object]);
    add("malformed_then_fixed", vec![broken, reply(&gold)]);
    let mut wrong = first_args.clone();
    wrong.insert("mcpick_extra".into(), json!(1));
    add(
        "later_turn_fix",
        vec![with_first(wrong.clone()).remove(0), reply(&gold)],
    );
    add("undeclared_argument", with_first(wrong));
    let mut reversed = Map::new();
    for (k, v) in first_args.iter().rev() {
        reversed.insert(k.clone(), v.clone());
    }
    add("argument_order", with_first(reversed));
    let duplicate_key = format!(
        "{{\"{}\": \"mcpick\", {}",
        first_args.keys().next().map_or("x", String::as_str),
        &text(&first_args)[1..]
    );
    if !first_args.is_empty() {
        let mut calls = reply(&gold);
        calls[0].1 = duplicate_key;
        add("duplicate_key", vec![calls]);
    }
    let function = bfcl
        .function
        .iter()
        .find(|f| f["name"] == first_name.as_str());
    let declared: Vec<String> = function
        .and_then(|f| f["parameters"]["properties"].as_object())
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let answer = bfcl
        .ground_truth
        .first()
        .and_then(|a| a.as_object()?.values().next())
        .cloned()
        .unwrap_or_default();
    for param in declared
        .iter()
        .filter(|p| answer.get(p.as_str()).is_none())
        .take(2)
    {
        let mut args = first_args.clone();
        args.insert(param.clone(), json!("mcpick"));
        add("declared_unlisted_argument", with_first(args));
    }
    for (param, acceptable) in answer.as_object().into_iter().flatten() {
        if first_args.contains_key(param) {
            let mut args = first_args.clone();
            args.remove(param);
            add("omit_argument", with_first(args));
        } else if let Some(value) =
            function.map(|f| sample_value(&f["parameters"]["properties"][param]))
        {
            let mut args = first_args.clone();
            args.insert(param.clone(), value);
            add("give_omitted_argument", with_first(args));
        }
        for value in acceptable
            .as_array()
            .into_iter()
            .flatten()
            .skip(1)
            .filter(|v| *v != "")
            .take(4)
        {
            let mut args = first_args.clone();
            args.insert(param.clone(), concrete(value));
            add("alternative_value", with_first(args));
        }
    }
    // Value-level changes at every place in the first call's arguments.
    for (kind, place) in value_mutations(&Value::Object(first_args.clone()), Place::Top) {
        if let Value::Object(args) = place {
            add(kind, with_first(args));
        }
    }
}

/// Where a value sits, which decides which BFCL checker compares it.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Top,
    Argument,
    InList,
    InDict,
    Deeper,
}

impl Place {
    fn inside(self, container: &Value) -> Place {
        match (self, container) {
            (Place::Top, _) => Place::Argument,
            (Place::Argument, Value::Array(_)) => Place::InList,
            (Place::Argument, _) => Place::InDict,
            _ => Place::Deeper,
        }
    }
}

/// Each single change of one value somewhere in `value`, as (kind, the whole value changed), at most
/// a few per kind.
fn value_mutations(value: &Value, place: Place) -> Vec<(&'static str, Value)> {
    let mut out: Vec<(&'static str, Value)> = Vec::new();
    if place != Place::Top {
        for (kind, changed) in changes_of(value, place) {
            out.push((kind, changed));
        }
    }
    match value {
        Value::Object(map) => {
            let inner = place.inside(value);
            for (key, item) in map {
                for (kind, changed) in value_mutations(item, inner) {
                    let mut copy = map.clone();
                    copy.insert(key.clone(), changed);
                    out.push((kind, Value::Object(copy)));
                }
            }
        }
        Value::Array(items) => {
            let inner = place.inside(value);
            for (i, item) in items.iter().enumerate().take(3) {
                for (kind, changed) in value_mutations(item, inner) {
                    let mut copy = items.clone();
                    copy[i] = changed;
                    out.push((kind, Value::Array(copy)));
                }
            }
        }
        _ => {}
    }
    // A few of each kind per record keep the run short and every kind present.
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    out.retain(|(kind, _)| {
        let n = seen.entry(kind).or_default();
        *n += 1;
        *n <= 3
    });
    out
}

/// The changes of one value, named by kind (and by place where BFCL treats places differently).
fn changes_of(value: &Value, place: Place) -> Vec<(&'static str, Value)> {
    let nested = matches!(place, Place::InList | Place::InDict | Place::Deeper);
    let mut out = vec![("null_value", Value::Null)];
    match value {
        Value::String(s) => {
            out.push((
                if nested {
                    "case_changed_nested"
                } else {
                    "case_changed"
                },
                json!(s.to_uppercase()),
            ));
            out.push(("punctuation_added", json!(format!(" {s}.-"))));
            out.push(("string_changed", json!(format!("{s}x"))));
            out.push(("unicode_accent", json!(format!("{s}é"))));
            out.push((
                "unicode_fullwidth",
                json!(
                    s.chars()
                        .map(|c| if c.is_ascii_alphanumeric() {
                            char::from_u32(c as u32 + 0xFEE0).unwrap_or(c)
                        } else {
                            c
                        })
                        .collect::<String>()
                ),
            ));
            out.push(("empty_string", json!("")));
            out.push(("single_quote", json!(s.replace('"', "'") + "'")));
            if let Ok(n) = s.parse::<i64>() {
                out.push(("string_as_number", json!(n)));
            }
            // Changes that matter where a string is source text (Java, JavaScript).
            if let Some(cut) = s.strip_suffix(['L', 'l', 'f', 'F', 'n']) {
                out.push(("source_suffix_dropped", json!(cut)));
            }
            out.push((
                "source_quotes_swapped",
                json!(
                    s.chars()
                        .map(|c| match c {
                            '"' => '\'',
                            '\'' => '"',
                            c => c,
                        })
                        .collect::<String>()
                ),
            ));
            out.push(("source_spaces_removed", json!(s.replace(' ', ""))));
            out.push(("source_newline_appended", json!(format!("{s}\n"))));
            out.push(("source_padded", json!(format!("  {s} "))));
        }
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push((
                    if nested {
                        "int_as_float_nested"
                    } else {
                        "int_as_float"
                    },
                    json!(i as f64),
                ));
                out.push(("number_changed", json!(i + 1)));
            } else if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 1e15 {
                    out.push(("float_as_int", json!(f as i64)));
                }
                out.push(("float_perturbed", json!(f + 1e-9)));
            }
            out.push(("number_as_string", json!(n.to_string())));
        }
        Value::Bool(b) => {
            out.push((
                if nested {
                    "bool_as_int_nested"
                } else {
                    "bool_as_int"
                },
                json!(u8::from(*b)),
            ));
            out.push(("bool_flipped", json!(!b)));
            out.push(("bool_as_string", json!(b.to_string())));
        }
        Value::Array(items) => {
            if items.len() > 1 {
                let mut reversed = items.clone();
                reversed.reverse();
                out.push(("list_reordered", Value::Array(reversed)));
            }
            if !items.is_empty() {
                out.push((
                    "list_item_dropped",
                    Value::Array(items[..items.len() - 1].to_vec()),
                ));
                let mut doubled = items.clone();
                doubled.push(items[0].clone());
                out.push(("list_item_duplicated", Value::Array(doubled)));
            }
            out.push(("list_emptied", json!([])));
            out.push(("list_wrapped", json!([value.clone()])));
        }
        Value::Object(map) => {
            let mut extra = map.clone();
            extra.insert("mcpick_extra".into(), json!("x"));
            out.push((
                if place == Place::InList {
                    "dict_extra_key_in_list"
                } else {
                    "dict_extra_key"
                },
                Value::Object(extra),
            ));
            if let Some(key) = map.keys().next() {
                let mut dropped = map.clone();
                dropped.remove(key);
                out.push(("dict_key_dropped", Value::Object(dropped)));
            }
            out.push(("dict_as_string", json!(value.to_string())));
        }
        Value::Null => out.clear(),
    }
    out
}

/// A value of a parameter's declared BFCL type, for an argument the answer leaves out.
fn sample_value(property: &Value) -> Value {
    match property["type"].as_str() {
        Some("integer") => json!(1),
        Some("float") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") | Some("tuple") => json!([]),
        Some("dict") => json!({}),
        _ => json!("mcpick"),
    }
}
