//! Arguments that satisfy an expected call. `gold_call` finds a call of the tool that the
//! expectation's matchers accept, the tool's schema validates and its simulated behaviour does not
//! refuse (unless the author expects the refusal) — or says why there is none: per parameter it
//! lists candidate values (`candidates`: each listed value; for a regex, the shortest readable
//! strings that also satisfy the parameter's `pattern`, `format` and length bounds, from `strings`;
//! for a tolerance, its centre; the values a parameter the expectation leaves open may take), then
//! searches the combinations, changing first the parameters a refusing rule names. The `oracle` backend sends
//! these calls and `validate` proves each expectation satisfiable with them. `gold_arguments` is the
//! schema-only first guess importers check their translations with; `instances` builds values from
//! a schema or a pattern alone, and `formats` gives the common formats as patterns.
//!
//! Every search is bounded by a `SearchBudget` (`budget`): a parameter offers at most
//! `MOST_CANDIDATES` values, each schema is compiled once per search, and every value built,
//! checked or compared costs steps. A search that runs out says it cannot tell (`Undecided`), and
//! only a search that finished says no call exists (`NoCall::Impossible`).

pub mod budget;
mod candidates;
mod formats;
mod instances;
mod strings;

pub use budget::{SearchBudget, Undecided};
pub use candidates::{acceptable_values, string_constraints};
pub use formats::format_pattern;
pub use instances::{bounded_instance, example_instance, shortest_match};
pub use strings::{StringConstraints, Unsatisfiable, satisfying_strings};

use crate::model::{Alternative, ArgMatcher, ExpectedCall, Response, Tool};
use crate::registry::compile_schema;
use budget::check_cost;
use candidates::{RulePatterns, matcher_candidates, open_candidates};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

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
    let mut parameters: Vec<Parameter> = Vec::new();
    for (name, matcher) in &call.args {
        let rules = RulePatterns::of(tool, name);
        // Each parameter's values may take half of what is left: trying calls needs the rest.
        let share = budget.left() / 2;
        let mut gathering = budget.allot(share);
        let gathered = matcher_candidates(matcher, schema, name, &rules, &mut gathering);
        budget.settle(share, &gathering);
        if let Some(short) = gathered.cut_short {
            cut_short.get_or_insert(short);
        }
        if gathered.values.is_empty() {
            return Err(match cut_short {
                Some(why) => NoCall::Undecided(why.0),
                None if gathered.complete => NoCall::Impossible(format!(
                    "no value the matcher for {name:?} accepts satisfies the tool's schema for it"
                )),
                None => NoCall::Undecided(format!(
                    "no value built for {name:?} from its matcher satisfies the tool's schema, and those built are a sample of what it accepts"
                )),
            });
        }
        parameters.push(Parameter {
            name: name.clone(),
            candidates: gathered.values,
            complete: gathered.complete,
        });
    }
    let required = required(schema);
    for (name, property) in properties(schema) {
        if call.args.contains_key(name) {
            continue;
        }
        let is_required = required.contains(&name.as_str());
        let (mut candidates, complete) = match open_candidates(property, schema, budget) {
            Ok(open) => open,
            // Left out, an optional parameter needs no value at all.
            Err(_) if !is_required => (Vec::new(), false),
            Err(why) => return Err(undecided(why)),
        };
        if is_required {
            candidates.retain(Option::is_some);
        } else {
            candidates.insert(0, None);
        }
        candidates.dedup();
        parameters.push(Parameter {
            name: name.clone(),
            candidates,
            complete,
        });
    }
    let build = |choice: &[usize]| -> Map<String, Value> {
        parameters
            .iter()
            .zip(choice)
            .filter_map(|(parameter, &k)| {
                Some((
                    parameter.name.clone(),
                    parameter.candidates.get(k)?.clone()?,
                ))
            })
            .collect()
    };
    let mut first_refusal: Option<String> = None;
    let mut first_invalid: Option<String> = None;
    // The parameters the failures were laid to: an invalid value's, a refusing rule's; `""` for
    // an error of the call as a whole (a required key, `minProperties`).
    let mut blamed: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut tried = 0;
    let mut queued = 1;
    let mut truncated = false;
    // Breadth first over how many parameters leave their first candidate, those a refusing rule
    // names tried first. Every choice queued counts toward `MOST_CALLS_TRIED` and costs a step, so
    // many parameters with many values cannot grow the queue past it.
    let mut frontier = vec![vec![0usize; parameters.len()]];
    let mut seen = std::collections::HashSet::new();
    while !frontier.is_empty() {
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
                    let at = error.instance_path().to_string();
                    let parameter = at.trim_start_matches('/').split('/').next().unwrap_or("");
                    blamed.insert(parameter.replace("~1", "/").replace("~0", "~"));
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
                    let named = refusing_rule_parameters(tool, &arguments);
                    if named.is_empty() {
                        blamed.insert(String::new());
                    }
                    blamed.extend(named.iter().cloned());
                    named
                }
            };
            let mut order: Vec<usize> = (0..parameters.len()).collect();
            order.sort_by_key(|&p| !named.contains(&parameters[p].name));
            for p in order {
                for k in 1..parameters[p].candidates.len() {
                    if choice[p] != 0 {
                        continue;
                    }
                    if queued >= MOST_CALLS_TRIED {
                        truncated = true;
                        break;
                    }
                    budget.spend(1).map_err(undecided)?;
                    let mut changed = choice.clone();
                    changed[p] = k;
                    next.push(changed);
                    queued += 1;
                }
            }
        }
        frontier = next;
    }
    if let Some(why) = cut_short {
        return Err(NoCall::Undecided(why.0));
    }
    if truncated {
        return Err(NoCall::Undecided(format!(
            "{tried} calls were tried and refused, and more remain than the search tries"
        )));
    }
    // Only failures laid to parameters whose every acceptable value was tried prove that no call
    // exists; a sampled parameter (a regex's strings, an open string) might have others.
    let sampled: Vec<&str> = parameters
        .iter()
        .filter(|p| !p.complete)
        .map(|p| p.name.as_str())
        .collect();
    let proven = blamed.iter().all(|name| {
        if name.is_empty() {
            sampled.is_empty()
        } else {
            !sampled.contains(&name.as_str())
        }
    });
    let why = match (first_refusal, first_invalid) {
        (Some(message), _) => format!(
            "every call its matchers accept that the schema validates is refused by the tool's behaviour (\"{}\")",
            excerpt(&message)
        ),
        (None, Some(error)) => {
            format!("the tool's schema refuses every call its matchers accept ({error})")
        }
        (None, None) => "no call could be built".into(),
    };
    if proven {
        Err(NoCall::Impossible(why))
    } else {
        Err(NoCall::Undecided(format!(
            "{why}; but the values tried for {} are a sample of what the schema allows",
            sampled.join(", ")
        )))
    }
}

/// One parameter of the call search: the values tried for it, and whether they are all it may
/// take (listed values, an enum, a boolean) or a sample (strings a regex matches, an open
/// string's minimal instance).
struct Parameter {
    name: String,
    candidates: Vec<Option<Value>>,
    complete: bool,
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

/// The parameters the rule that answers these arguments names, when it refuses.
fn refusing_rule_parameters(tool: &Tool, arguments: &Map<String, Value>) -> Vec<String> {
    tool.behavior
        .rule_for(arguments)
        .filter(|rule| matches!(rule.response, Response::Error(_)))
        .map(|rule| rule.when.keys().cloned().collect())
        .unwrap_or_default()
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
