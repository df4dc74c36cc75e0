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
//!
//! Every search is bounded by a `SearchBudget` (`budget`): a parameter offers at most
//! `MOST_CANDIDATES` values, each schema is compiled once per search, and every value built,
//! checked or compared costs steps. A search that runs out says it cannot tell (`Undecided`), and
//! only a search that finished says no call exists (`NoCall::Impossible`).

pub mod budget;
mod formats;
mod instances;
mod strings;

pub use budget::{SearchBudget, Undecided};
pub use formats::format_pattern;
pub use instances::{bounded_instance, example_instance, shortest_match};
pub use strings::{StringConstraints, Unsatisfiable, satisfying_strings};

use crate::model::{Alternative, ArgMatcher, ExpectedCall, Response, Tool};
use crate::registry::{compile_schema, property_schema};
use budget::check_cost;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Values one parameter offers the search: its matcher's first few are what a call needs.
const MOST_CANDIDATES: usize = 24;

/// Why no gold call was found.
#[derive(Debug, Clone, PartialEq)]
pub enum NoCall {
    /// The search finished: no call meets the expectation.
    Impossible(String),
    /// The search stopped before it could tell.
    Undecided(String),
}

impl std::fmt::Display for NoCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoCall::Impossible(why) => f.write_str(why),
            NoCall::Undecided(why) => write!(f, "cannot tell whether a call meets it: {why}"),
        }
    }
}

/// A schema compiled once for the checks of one search; one that does not compile alone accepts
/// everything here (the whole call is still checked against the tool's schema).
struct SchemaCheck {
    validator: Option<jsonschema::Validator>,
}

impl SchemaCheck {
    fn new(schema: &Value, budget: &mut SearchBudget) -> Result<SchemaCheck, Undecided> {
        budget.spend(strings::COMPILE_STEPS + 4 * check_cost(schema))?;
        Ok(SchemaCheck {
            validator: compile_schema(schema).ok(),
        })
    }

    fn accepts(&self, value: &Value, budget: &mut SearchBudget) -> Result<bool, Undecided> {
        budget.spend(check_cost(value))?;
        Ok(self.validator.as_ref().is_none_or(|v| v.is_valid(value)))
    }
}

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
/// error (or, for a call expected to be refused, answers either way); otherwise why none was
/// found. Searched within a budget of its own.
pub fn gold_call(call: &ExpectedCall, tool: &Tool) -> Result<Map<String, Value>, NoCall> {
    gold_call_within(call, tool, &mut SearchBudget::for_call())
}

/// `gold_call` within `budget`.
pub fn gold_call_within(
    call: &ExpectedCall,
    tool: &Tool,
    budget: &mut SearchBudget,
) -> Result<Map<String, Value>, NoCall> {
    let undecided = |u: Undecided| NoCall::Undecided(u.0);
    let schema = &tool.input_schema;
    budget
        .spend(strings::COMPILE_STEPS + 4 * check_cost(schema))
        .map_err(undecided)?;
    let validator =
        compile_schema(schema).map_err(|e| NoCall::Impossible(format!("its schema: {e}")))?;
    // A parameter whose values could not all be found: if no call is found, that is why.
    let mut cut_short: Option<Undecided> = None;
    let mut parameters: Vec<(String, Vec<Option<Value>>)> = Vec::new();
    for (name, matcher) in &call.args {
        let rules = RulePatterns::of(tool, name);
        // Each parameter's values may take half of what is left: trying calls needs the rest.
        let share = budget.left() / 2;
        let mut gathering = budget.allot(share);
        let (candidates, short) = matcher_candidates(matcher, schema, name, &rules, &mut gathering);
        budget.settle(share, &gathering);
        if let Some(short) = short {
            cut_short.get_or_insert(short);
        }
        if candidates.is_empty() {
            return Err(match cut_short {
                Some(why) => NoCall::Undecided(why.0),
                None => NoCall::Impossible(format!(
                    "no value the matcher for {name:?} accepts satisfies the tool's schema for it"
                )),
            });
        }
        parameters.push((name.clone(), candidates));
    }
    let required = required(schema);
    for (name, property) in properties(schema) {
        if call.args.contains_key(name) {
            continue;
        }
        let mut candidates = open_candidates(property, schema, budget).map_err(undecided)?;
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
            // Validating and asking the behaviour both read the whole call.
            budget.spend(2 * check_cost(&instance)).map_err(undecided)?;
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
    if let Some(why) = cut_short {
        return Err(NoCall::Undecided(why.0));
    }
    Err(NoCall::Impossible(match (first_refusal, first_invalid) {
        (Some(message), _) => format!(
            "every call its matchers accept that the schema validates is refused by the tool's behaviour (\"{}\")",
            excerpt(&message)
        ),
        (None, Some(error)) => {
            format!("the tool's schema refuses every call its matchers accept ({error})")
        }
        (None, None) => "no call could be built".into(),
    }))
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

/// Candidate values for a parameter the matcher judges, best first, at most `MOST_CANDIDATES`;
/// `None` stands for leaving it out. Each is accepted by the matcher and (when the parameter has a
/// schema) by the parameter's schema. Beside the matcher's own values come those a behaviour rule
/// names, and strings that avoid the rules that refuse (or meet one that answers, where everything
/// else is refused). With them, why some alternative's values could not all be found, if so.
fn matcher_candidates(
    matcher: &ArgMatcher,
    root: &Value,
    name: &str,
    rules: &RulePatterns,
    budget: &mut SearchBudget,
) -> (Vec<Option<Value>>, Option<Undecided>) {
    let property = property_schema(root, name).unwrap_or(Value::Bool(true));
    let mut cut_short = None;
    let check = match SchemaCheck::new(&property, budget) {
        Ok(check) => check,
        Err(why) => return (Vec::new(), Some(why)),
    };
    let mut candidates: Vec<Option<Value>> = Vec::new();
    for alternative in &matcher.alternatives {
        if candidates.len() >= MOST_CANDIDATES {
            break;
        }
        let mut values = match alternative_values(alternative, &property, &rules.refusing, budget) {
            Ok(values) => values,
            Err(why) => {
                cut_short.get_or_insert(why);
                Vec::new()
            }
        };
        if let Alternative::Regex(regex) = alternative {
            for answering in &rules.answering {
                let mut constraints = string_constraints(&property);
                constraints.must_match.push(regex.as_str().to_string());
                constraints.must_match.push(answering.clone());
                values.extend(
                    satisfying_strings(&constraints, 1, budget)
                        .unwrap_or_default()
                        .into_iter()
                        .map(Value::from),
                );
            }
        }
        values.extend(rules.values.iter().cloned());
        for value in values {
            match check.accepts(&value, budget) {
                Ok(true) if matcher.accepts(&value) => candidates.push(Some(value)),
                Ok(_) => {}
                Err(why) => {
                    cut_short.get_or_insert(why);
                    break;
                }
            }
        }
    }
    if matcher.may_omit {
        candidates.push(None);
    }
    let mut unique = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        if !unique.contains(&candidate) && unique.len() < MOST_CANDIDATES {
            unique.push(candidate);
        }
    }
    (unique, cut_short)
}

/// Values one alternative accepts that the parameter's schema (context-completed, as
/// `property_schema` gives it) also accepts: empty when there is none (a dead alternative), or
/// why the search could not tell.
pub fn acceptable_values(
    alternative: &Alternative,
    property: &Value,
    budget: &mut SearchBudget,
) -> Result<Vec<Value>, Undecided> {
    let check = SchemaCheck::new(property, budget)?;
    let mut accepted = Vec::new();
    for value in alternative_values(alternative, property, &[], budget)? {
        if check.accepts(&value, budget)? {
            accepted.push(value);
        }
    }
    Ok(accepted)
}

/// What one alternative may be, for a parameter with this (context-completed) property schema:
/// at most `MOST_CANDIDATES` values.
fn alternative_values(
    alternative: &Alternative,
    property: &Value,
    refusing: &[String],
    budget: &mut SearchBudget,
) -> Result<Vec<Value>, Undecided> {
    Ok(match alternative {
        Alternative::Literal(value) => vec![value.clone()],
        Alternative::Exact(text) => vec![json!(text)],
        Alternative::Approx { approx, .. } => vec![json!(approx)],
        Alternative::Regex(regex) => regex_values(regex.as_str(), property, refusing, budget)?,
        Alternative::Object(fields) => {
            let mut object = Map::new();
            for (key, m) in fields {
                let nested = property_schema(property, key).unwrap_or(Value::Bool(true));
                if let Some(value) = first_accepted(m, &nested, budget)? {
                    object.insert(key.clone(), value);
                }
            }
            for key in required(property) {
                if !object.contains_key(key) && !fields.contains_key(key) {
                    let nested = &property["properties"][key];
                    let value = bounded_instance(nested, property).ok_or_else(too_large)?;
                    object.insert(key.to_string(), value);
                }
            }
            vec![Value::Object(object)]
        }
        Alternative::Unordered(items) | Alternative::Contains(items) => {
            let item_schema = item_schema(property);
            let mut values = Vec::with_capacity(items.len());
            for m in items {
                match first_accepted(m, &item_schema, budget)? {
                    Some(value) => values.push(value),
                    None => return Ok(Vec::new()),
                }
            }
            vec![Value::Array(values)]
        }
    })
}

/// The first value `matcher` accepts that `schema` accepts too, if any.
fn first_accepted(
    matcher: &ArgMatcher,
    schema: &Value,
    budget: &mut SearchBudget,
) -> Result<Option<Value>, Undecided> {
    let check = SchemaCheck::new(schema, budget)?;
    for alternative in &matcher.alternatives {
        for value in alternative_values(alternative, schema, &[], budget)? {
            if check.accepts(&value, budget)? && matcher.accepts(&value) {
                return Ok(Some(value));
            }
        }
    }
    Ok(None)
}

fn too_large() -> Undecided {
    Undecided(format!(
        "a value the schema asks for is larger than the {} characters and items the search builds",
        budget::MAX_VALUE_WEIGHT
    ))
}

/// Strings a regex matches that the parameter's `pattern`, `format` and length bounds allow (or
/// the enum values it matches, the first `MOST_CANDIDATES`), shortest first; then some that also
/// avoid the refusing patterns.
fn regex_values(
    pattern: &str,
    property: &Value,
    refusing: &[String],
    budget: &mut SearchBudget,
) -> Result<Vec<Value>, Undecided> {
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        budget.spend(strings::COMPILE_STEPS)?;
        let regex = regex::RegexBuilder::new(pattern)
            .size_limit(budget::NFA_SIZE_LIMIT)
            .build()
            .map_err(|e| {
                Undecided(format!(
                    "the regex {pattern:?} cannot be compiled small: {e}"
                ))
            })?;
        let mut matching = Vec::new();
        for option in options {
            budget.spend(check_cost(option))?;
            if option.as_str().is_some_and(|s| regex.is_match(s)) {
                matching.push(option.clone());
                if matching.len() == MOST_CANDIDATES {
                    break;
                }
            }
        }
        return Ok(matching);
    }
    let mut constraints = string_constraints(property);
    constraints.must_match.insert(0, pattern.to_string());
    let mut found = match satisfying_strings(&constraints, 2, budget) {
        Ok(found) => found,
        Err(Unsatisfiable::NoString) => Vec::new(),
        // The search could not tell: its shortest match, if the schema takes it; else nobody
        // can say.
        Err(cannot) => match shortest_match(pattern) {
            Some(text) if SchemaCheck::new(property, budget)?.accepts(&json!(text), budget)? => {
                vec![text]
            }
            _ => return Err(Undecided(cannot.undecided().unwrap_or_default())),
        },
    };
    if !refusing.is_empty() && !found.is_empty() {
        constraints.must_not_match = refusing.to_vec();
        found.extend(satisfying_strings(&constraints, 2, budget).unwrap_or_default());
    }
    Ok(found.into_iter().map(Value::from).collect())
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
/// default, its first enum values, both booleans, a minimal instance.
fn open_candidates(
    property: &Value,
    root: &Value,
    budget: &mut SearchBudget,
) -> Result<Vec<Option<Value>>, Undecided> {
    let instance = bounded_instance(property, root).ok_or_else(too_large)?;
    budget.spend(check_cost(&instance))?;
    let mut candidates = vec![Some(instance)];
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        candidates.extend(options.iter().take(MOST_CANDIDATES).cloned().map(Some));
    }
    if property.get("type") == Some(&json!("boolean")) {
        candidates.extend([Some(json!(true)), Some(json!(false))]);
    }
    Ok(candidates)
}

/// The parameters the rule that answers these arguments names, when it refuses.
fn refusing_rule_parameters(tool: &Tool, arguments: &Map<String, Value>) -> Vec<String> {
    tool.behavior
        .rule_for(arguments)
        .filter(|rule| matches!(rule.response, Response::Error(_)))
        .map(|rule| rule.when.keys().cloned().collect())
        .unwrap_or_default()
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
