//! Arguments that satisfy an expected call. `gold_call` finds a call of the tool that the
//! expectation's matchers accept, the tool's schema validates and its simulated behaviour does not
//! refuse (unless the author expects the refusal) — or says why there is none: per parameter it
//! lists candidate values (each listed value; for a regex, the shortest readable strings that also
//! satisfy the parameter's `pattern`, `format` and length bounds, from `strings`; for a tolerance,
//! its centre; the values a parameter the expectation leaves open may take), then searches the
//! combinations, changing first the parameters a refusing rule names. The `oracle` backend sends
//! these calls and `validate` proves each expectation satisfiable with them. `gold_arguments` is the
//! schema-only first guess importers check their translations with; `instances` builds values from
//! a schema or a pattern alone, and `formats` gives the common formats as patterns.

mod formats;
mod instances;
mod strings;

pub use formats::format_pattern;
pub use instances::{example_instance, shortest_match};
pub use strings::{StringConstraints, Unsatisfiable, satisfying_strings};

use crate::model::{Alternative, ArgMatcher, ExpectedCall, Response, Tool};
use crate::registry::{compile_schema, property_schema};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Arguments for an expected call to a tool with this input schema that the call's matchers accept:
/// each matcher's first alternative, and a minimal instance for each required parameter the
/// expectation leaves open. Neither the schema nor the tool's behaviour is consulted beyond that.
pub fn gold_arguments(
    matchers: &BTreeMap<String, ArgMatcher>,
    schema: &Value,
) -> Map<String, Value> {
    let mut arguments: Map<String, Value> = matchers
        .iter()
        .filter_map(|(name, m)| Some((name.clone(), first_value(m)?)))
        .collect();
    for name in required(schema) {
        if !arguments.contains_key(name) && !matchers.contains_key(name) {
            let property = &schema["properties"][name];
            arguments.insert(name.to_string(), example_instance(property, schema));
        }
    }
    arguments
}

/// Combinations of candidate values `gold_call` tries before it says there is no such call.
const MOST_CALLS_TRIED: usize = 4000;

/// A call of `tool` that `call` accepts, its schema validates and its behaviour answers without an
/// error (or, for a call expected to be refused, answers either way); `Err` says why none exists.
pub fn gold_call(call: &ExpectedCall, tool: &Tool) -> Result<Map<String, Value>, String> {
    let schema = &tool.input_schema;
    let validator = compile_schema(schema).map_err(|e| format!("its schema: {e}"))?;
    let mut parameters: Vec<(String, Vec<Option<Value>>)> = Vec::new();
    for (name, matcher) in &call.args {
        let rules = RulePatterns::of(tool, name);
        let candidates = matcher_candidates(matcher, schema, name, &rules);
        if candidates.is_empty() {
            return Err(format!(
                "no value the matcher for {name:?} accepts satisfies the tool's schema for it"
            ));
        }
        parameters.push((name.clone(), candidates));
    }
    let required = required(schema);
    for (name, property) in properties(schema) {
        if call.args.contains_key(name) {
            continue;
        }
        let mut candidates = open_candidates(property, schema);
        if required.contains(&name.as_str()) {
            candidates.retain(Option::is_some);
        } else {
            candidates.insert(0, None);
        }
        candidates.dedup();
        parameters.push((name.clone(), candidates));
    }
    let build = |choice: &[usize]| -> Map<String, Value> {
        parameters
            .iter()
            .zip(choice)
            .filter_map(|((name, candidates), &k)| {
                Some((name.clone(), candidates.get(k)?.clone()?))
            })
            .collect()
    };
    let mut first_refusal: Option<String> = None;
    let mut first_invalid: Option<String> = None;
    let mut tried = 0;
    // Breadth first over how many parameters leave their first candidate, those a refusing rule
    // names tried first.
    let mut frontier = vec![vec![0usize; parameters.len()]];
    let mut seen = std::collections::HashSet::new();
    while !frontier.is_empty() && tried < MOST_CALLS_TRIED {
        let mut next = Vec::new();
        for choice in frontier {
            if !seen.insert(choice.clone()) {
                continue;
            }
            tried += 1;
            let arguments = build(&choice);
            let instance = Value::Object(arguments.clone());
            let named = match validator.iter_errors(&instance).next() {
                Some(error) => {
                    first_invalid.get_or_insert_with(|| error.to_string());
                    Vec::new()
                }
                None => {
                    let refused = match tool.behavior.respond(&arguments).0 {
                        Response::Error(message) => Some(message.clone()),
                        _ => None,
                    };
                    let Some(message) = refused.filter(|_| !call.refused) else {
                        return Ok(arguments);
                    };
                    first_refusal.get_or_insert(message);
                    refusing_rule_parameters(tool, &arguments)
                }
            };
            let mut order: Vec<usize> = (0..parameters.len()).collect();
            order.sort_by_key(|&p| !named.contains(&parameters[p].0));
            for p in order {
                for k in 1..parameters[p].1.len() {
                    if choice[p] == 0 {
                        let mut changed = choice.clone();
                        changed[p] = k;
                        next.push(changed);
                    }
                }
            }
        }
        frontier = next;
    }
    Err(match (first_refusal, first_invalid) {
        (Some(message), _) => format!(
            "every call its matchers accept that the schema validates is refused by the tool's behaviour (\"{}\")",
            excerpt(&message)
        ),
        (None, Some(error)) => {
            format!("the tool's schema refuses every call its matchers accept ({error})")
        }
        (None, None) => "no call could be built".into(),
    })
}

/// The value a matcher lists first, made concrete.
fn first_value(matcher: &ArgMatcher) -> Option<Value> {
    let alternative = matcher.alternatives.first()?;
    Some(match alternative {
        Alternative::Literal(value) => value.clone(),
        Alternative::Object(fields) => Value::Object(
            fields
                .iter()
                .filter_map(|(k, m)| Some((k.clone(), first_value(m)?)))
                .collect(),
        ),
        Alternative::Regex(regex) => json!(shortest_match(regex.as_str())?),
        Alternative::Approx { approx, .. } => json!(approx),
        Alternative::Exact(text) => json!(text),
        Alternative::Unordered(items) | Alternative::Contains(items) => {
            Value::Array(items.iter().filter_map(first_value).collect())
        }
    })
}

/// What a tool's behaviour rules say of one parameter: the patterns and values of the rules that
/// refuse, and of those that answer when everything else is refused (a default that is an error).
#[derive(Default)]
struct RulePatterns {
    refusing: Vec<String>,
    answering: Vec<String>,
    values: Vec<Value>,
}

impl RulePatterns {
    fn of(tool: &Tool, name: &str) -> RulePatterns {
        let default_refuses = matches!(tool.behavior.default, Response::Error(_));
        let mut rules = RulePatterns::default();
        for rule in &tool.behavior.rules {
            let Some(matcher) = rule.when.get(name) else {
                continue;
            };
            let refuses = matches!(rule.response, Response::Error(_));
            for alternative in &matcher.alternatives {
                match alternative {
                    Alternative::Regex(regex) if refuses => {
                        rules.refusing.push(regex.as_str().to_string())
                    }
                    Alternative::Regex(regex) if default_refuses => {
                        rules.answering.push(regex.as_str().to_string())
                    }
                    Alternative::Literal(value) => rules.values.push(value.clone()),
                    _ => {}
                }
            }
        }
        rules
    }
}

/// Candidate values for a parameter the matcher judges, best first; `None` stands for leaving it
/// out. Each is accepted by the matcher and (when the parameter has a schema) by the parameter's
/// schema. Beside the matcher's own values come those a behaviour rule names, and strings that
/// avoid the rules that refuse (or meet one that answers, where everything else is refused).
fn matcher_candidates(
    matcher: &ArgMatcher,
    root: &Value,
    name: &str,
    rules: &RulePatterns,
) -> Vec<Option<Value>> {
    let property = property_schema(root, name).unwrap_or(Value::Bool(true));
    let mut candidates: Vec<Option<Value>> = Vec::new();
    for alternative in &matcher.alternatives {
        let mut values = alternative_values(alternative, &property, &rules.refusing);
        if let Alternative::Regex(regex) = alternative {
            for answering in &rules.answering {
                let mut constraints = string_constraints(&property);
                constraints.must_match.push(regex.as_str().to_string());
                constraints.must_match.push(answering.clone());
                values.extend(
                    satisfying_strings(&constraints, 1)
                        .unwrap_or_default()
                        .into_iter()
                        .map(Value::from),
                );
            }
        }
        values.extend(rules.values.iter().cloned());
        for value in values {
            if schema_accepts(&property, &value) && matcher.accepts(&value) {
                candidates.push(Some(value));
            }
        }
    }
    if matcher.may_omit {
        candidates.push(None);
    }
    let mut unique = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        if !unique.contains(&candidate) {
            unique.push(candidate);
        }
    }
    unique
}

/// Values one alternative accepts that the parameter's schema (context-completed, as
/// `property_schema` gives it) also accepts; empty when there is none: a dead alternative.
pub fn acceptable_values(alternative: &Alternative, property: &Value) -> Vec<Value> {
    alternative_values(alternative, property, &[])
        .into_iter()
        .filter(|value| schema_accepts(property, value))
        .collect()
}

/// What one alternative may be, for a parameter with this (context-completed) property schema.
fn alternative_values(
    alternative: &Alternative,
    property: &Value,
    refusing: &[String],
) -> Vec<Value> {
    match alternative {
        Alternative::Literal(value) => vec![value.clone()],
        Alternative::Exact(text) => vec![json!(text)],
        Alternative::Approx { approx, .. } => vec![json!(approx)],
        Alternative::Regex(regex) => regex_values(regex.as_str(), property, refusing),
        Alternative::Object(fields) => {
            let object: Map<String, Value> = fields
                .iter()
                .filter_map(|(key, m)| {
                    let nested = property_schema(property, key).unwrap_or(Value::Bool(true));
                    let value = m
                        .alternatives
                        .iter()
                        .flat_map(|a| alternative_values(a, &nested, &[]))
                        .find(|v| schema_accepts(&nested, v) && m.accepts(v))?;
                    Some((key.clone(), value))
                })
                .collect();
            let mut object = object;
            for key in required(property) {
                if !object.contains_key(key) && !fields.contains_key(key) {
                    let nested = &property["properties"][key];
                    object.insert(key.to_string(), example_instance(nested, property));
                }
            }
            vec![Value::Object(object)]
        }
        Alternative::Unordered(items) | Alternative::Contains(items) => {
            let item_schema = item_schema(property);
            let values: Option<Vec<Value>> = items
                .iter()
                .map(|m| {
                    m.alternatives
                        .iter()
                        .flat_map(|a| alternative_values(a, &item_schema, &[]))
                        .find(|v| schema_accepts(&item_schema, v) && m.accepts(v))
                })
                .collect();
            values.map(Value::Array).into_iter().collect()
        }
    }
}

/// Strings a regex matches that the parameter's `pattern`, `format` and length bounds allow (or
/// the enum values it matches), shortest first; then some that also avoid the refusing patterns.
fn regex_values(pattern: &str, property: &Value, refusing: &[String]) -> Vec<Value> {
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        let regex = regex::Regex::new(pattern).ok();
        return options
            .iter()
            .filter(|o| {
                o.as_str()
                    .is_some_and(|s| regex.as_ref().is_some_and(|r| r.is_match(s)))
            })
            .cloned()
            .collect();
    }
    let mut constraints = string_constraints(property);
    constraints.must_match.insert(0, pattern.to_string());
    let mut found = match satisfying_strings(&constraints, 2) {
        Ok(found) => found,
        // A pattern the automata cannot search: its shortest match, checked by the schema later.
        Err(Unsatisfiable::Unsearchable(_) | Unsatisfiable::TooLarge) => {
            shortest_match(pattern).into_iter().collect()
        }
        Err(Unsatisfiable::NoString) => Vec::new(),
    };
    if !refusing.is_empty() && !found.is_empty() {
        constraints.must_not_match = refusing.to_vec();
        found.extend(satisfying_strings(&constraints, 2).unwrap_or_default());
    }
    found.into_iter().map(Value::from).collect()
}

/// A string parameter's own constraints: its `pattern`, its `format` as a pattern, its lengths.
pub fn string_constraints(property: &Value) -> StringConstraints {
    let mut constraints = StringConstraints::default();
    if let Some(pattern) = property.get("pattern").and_then(Value::as_str) {
        constraints.must_match.push(pattern.to_string());
    }
    if let Some(pattern) = property
        .get("format")
        .and_then(Value::as_str)
        .and_then(format_pattern)
    {
        constraints.must_match.push(pattern.to_string());
    }
    constraints.min_chars = property
        .get("minLength")
        .and_then(Value::as_u64)
        .map_or(0, |n| n as usize);
    constraints.max_chars = property
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|n| n as usize);
    constraints
}

/// Values a parameter the expectation leaves open may take, best first (`None`: left out): its
/// default, its enum values, both booleans, a minimal instance.
fn open_candidates(property: &Value, root: &Value) -> Vec<Option<Value>> {
    let mut candidates = vec![Some(example_instance(property, root))];
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        candidates.extend(options.iter().cloned().map(Some));
    }
    if property.get("type") == Some(&json!("boolean")) {
        candidates.extend([Some(json!(true)), Some(json!(false))]);
    }
    candidates
}

/// The parameters the rule that answers these arguments names, when it refuses.
fn refusing_rule_parameters(tool: &Tool, arguments: &Map<String, Value>) -> Vec<String> {
    tool.behavior
        .rule_for(arguments)
        .filter(|rule| matches!(rule.response, Response::Error(_)))
        .map(|rule| rule.when.keys().cloned().collect())
        .unwrap_or_default()
}

fn schema_accepts(property: &Value, value: &Value) -> bool {
    compile_schema(property).is_ok_and(|validator| validator.is_valid(value))
}

/// The schema of an array's items, in its context.
fn item_schema(property: &Value) -> Value {
    let mut items = property.get("items").cloned().unwrap_or(Value::Bool(true));
    if let (Value::Object(items), Value::Object(parent)) = (&mut items, property) {
        for key in ["$defs", "definitions", "$schema"] {
            if let Some(value) = parent.get(key) {
                items.entry(key).or_insert_with(|| value.clone());
            }
        }
    }
    items
}

fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn properties(schema: &Value) -> impl Iterator<Item = (&String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests;
