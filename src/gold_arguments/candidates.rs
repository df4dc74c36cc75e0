//! The values one parameter offers the search for a gold call: for a parameter a matcher judges,
//! the values each alternative accepts (listed values, strings a regex matches under the
//! parameter's `pattern`, `format`, `enum` and lengths, objects and arrays built from nested
//! matchers) that the parameter's schema accepts too, with the values a behaviour rule names and
//! strings that avoid its refusals; for one the expectation leaves open, its default, enum values,
//! booleans and a minimal instance. At most `MOST_CANDIDATES` each, every schema compiled once,
//! every value checked against the search's budget.

use super::budget::{self, SearchBudget, Undecided, check_cost};
use super::format_pattern;
use super::instances::{bounded_instance, shortest_match};
use super::required;
use super::strings::{self, StringConstraints, Unsatisfiable, satisfying_strings};
use crate::model::{Alternative, ArgMatcher, Response, Tool};
use crate::registry::{compile_schema, property_schema};
use serde_json::{Map, Value, json};

/// Values one parameter offers the search: its matcher's first few are what a call needs.
pub(super) const MOST_CANDIDATES: usize = 24;

/// A schema compiled once for the checks of one search; one that does not compile alone accepts
/// everything here (the whole call is still checked against the tool's schema).
pub(super) struct SchemaCheck {
    validator: Option<jsonschema::Validator>,
}

impl SchemaCheck {
    pub(super) fn new(schema: &Value, budget: &mut SearchBudget) -> Result<SchemaCheck, Undecided> {
        budget.spend(strings::COMPILE_STEPS + 4 * check_cost(schema))?;
        Ok(SchemaCheck {
            validator: compile_schema(schema).ok(),
        })
    }

    pub(super) fn accepts(
        &self,
        value: &Value,
        budget: &mut SearchBudget,
    ) -> Result<bool, Undecided> {
        budget.spend(check_cost(value))?;
        Ok(self.validator.as_ref().is_none_or(|v| v.is_valid(value)))
    }
}

/// What a tool's behaviour rules say of one parameter: the patterns and values of the rules that
/// refuse, and of those that answer when everything else is refused (a default that is an error).
#[derive(Default)]
pub(super) struct RulePatterns {
    refusing: Vec<String>,
    answering: Vec<String>,
    values: Vec<Value>,
}

impl RulePatterns {
    pub(super) fn of(tool: &Tool, name: &str) -> RulePatterns {
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

/// What a parameter the matcher judges offers the search.
pub(super) struct Gathered {
    /// Best first, at most `MOST_CANDIDATES`; `None` stands for leaving it out.
    pub values: Vec<Option<Value>>,
    /// Why some alternative's values could not all be found, if so.
    pub cut_short: Option<Undecided>,
    /// Whether `values` are every value the matcher accepts that the schema allows (listed
    /// values, an enum's matches), not a sample (strings a regex matches, a tolerance's centre,
    /// objects and arrays built from nested matchers).
    pub complete: bool,
}

/// Candidate values for a parameter the matcher judges, best first. Each is accepted by the
/// matcher and (when the parameter has a schema) by the parameter's schema. Beside the matcher's
/// own values come those a behaviour rule names, and strings that avoid the rules that refuse (or
/// meet one that answers, where everything else is refused). Leaving it out, where the matcher
/// allows that, is always among them.
pub(super) fn matcher_candidates(
    matcher: &ArgMatcher,
    root: &Value,
    name: &str,
    rules: &RulePatterns,
    budget: &mut SearchBudget,
) -> Gathered {
    let property = property_schema(root, name).unwrap_or(Value::Bool(true));
    let mut gathered = Gathered {
        values: Vec::new(),
        cut_short: None,
        complete: true,
    };
    let check = match SchemaCheck::new(&property, budget) {
        Ok(check) => check,
        Err(why) => {
            gathered.cut_short = Some(why);
            return gathered;
        }
    };
    let room = MOST_CANDIDATES - usize::from(matcher.may_omit);
    let mut candidates: Vec<Value> = Vec::new();
    for alternative in &matcher.alternatives {
        if candidates.len() >= room {
            gathered.complete = false;
            break;
        }
        let mut values = match alternative_values(alternative, &property, &rules.refusing, budget) {
            Ok(values) => values,
            Err(why) => {
                gathered.cut_short.get_or_insert(why);
                Vec::new()
            }
        };
        let sampled = match alternative {
            Alternative::Literal(_) | Alternative::Exact(_) => false,
            // The enum's matching values are all of them, unless there were more than offered.
            Alternative::Regex(_) if property.get("enum").is_some() => {
                values.len() >= MOST_CANDIDATES
            }
            Alternative::Regex(_) => !values.is_empty(),
            _ => true,
        };
        gathered.complete &= !sampled;
        if let Alternative::Regex(regex) = alternative {
            for answering in &rules.answering {
                let mut constraints = string_constraints(&property);
                constraints.must_match.push(regex.as_str().to_string());
                constraints.must_match.push(answering.clone());
                match satisfying_strings(&constraints, 1, budget) {
                    Ok(found) => values.extend(found.into_iter().map(Value::from)),
                    Err(cannot) => {
                        if let Some(why) = cannot.undecided() {
                            gathered.cut_short.get_or_insert(Undecided(why));
                        }
                    }
                }
            }
        }
        values.extend(rules.values.iter().cloned());
        for value in values {
            match check.accepts(&value, budget) {
                Ok(true) if matcher.accepts(&value) => candidates.push(value),
                Ok(_) => {}
                Err(why) => {
                    gathered.cut_short.get_or_insert(why);
                    break;
                }
            }
        }
    }
    for candidate in candidates {
        let candidate = Some(candidate);
        if gathered.values.contains(&candidate) {
            continue;
        }
        if gathered.values.len() == room {
            gathered.complete = false;
            break;
        }
        gathered.values.push(candidate);
    }
    if matcher.may_omit {
        gathered.values.push(None);
    }
    gathered
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
pub(super) fn alternative_values(
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
pub(super) fn first_accepted(
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

pub(super) fn too_large() -> Undecided {
    Undecided(format!(
        "a value the schema asks for is larger than the {} characters and items the search builds",
        budget::MAX_VALUE_WEIGHT
    ))
}

/// Strings a regex matches that the parameter's `pattern`, `format` and length bounds allow (or
/// the enum values it matches, the first `MOST_CANDIDATES`), shortest first; then some that also
/// avoid the refusing patterns.
pub(super) fn regex_values(
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
/// default, its first enum values, both booleans, a minimal instance; and whether they are every
/// value it may take (an enum offered whole, a `const`, a boolean) rather than a sample.
pub(super) fn open_candidates(
    property: &Value,
    root: &Value,
    budget: &mut SearchBudget,
) -> Result<(Vec<Option<Value>>, bool), Undecided> {
    let instance = bounded_instance(property, root).ok_or_else(too_large)?;
    budget.spend(check_cost(&instance))?;
    let mut candidates = vec![Some(instance)];
    let mut complete = property.get("const").is_some();
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        candidates.extend(options.iter().take(MOST_CANDIDATES).cloned().map(Some));
        complete |= options.len() <= MOST_CANDIDATES;
    }
    if property.get("type") == Some(&json!("boolean")) {
        candidates.extend([Some(json!(true)), Some(json!(false))]);
        complete = true;
    }
    Ok((candidates, complete))
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
