//! Argument matchers: how a task says which argument values are acceptable, and how a behaviour rule
//! says which calls it answers. Written as JSON/TOML values — a literal; a list of alternatives, where
//! `""` means "may be omitted"; `{ regex }`; `{ approx, tolerance }`; `{ exact }` (a string byte for
//! byte); `{ unordered = [...] }` (an array holding one item per matcher, in any order);
//! `{ contains = [...] }` (an array holding, among others, a distinct item per matcher); or a table
//! of nested matchers — and parsed once into this type so that matching is a cheap, pure function.
//! A task's matcher also carries how its strings compare (`Comparison`), set from the parameter's
//! schema when the task is loaded.

use super::comparison::{Comparison, classify};
use regex::Regex;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Which values an argument may take: any of the alternatives, or nothing at all if `may_omit`.
#[derive(Debug, Clone)]
pub struct ArgMatcher {
    pub alternatives: Vec<Alternative>,
    pub may_omit: bool,
    /// How listed strings compare with a sent one when a task is scored (`FreeText` until the
    /// loader sets it from the parameter's schema).
    pub comparison: Comparison,
}

/// One acceptable form of a value.
#[derive(Debug, Clone)]
pub enum Alternative {
    /// Exactly this value (numbers compare by value: `3` equals `3.0`).
    Literal(Value),
    /// An object whose listed keys match these matchers; unlisted keys are not checked.
    Object(BTreeMap<String, ArgMatcher>),
    /// A string the regex matches (unanchored unless the pattern anchors itself).
    Regex(Regex),
    /// A number within `tolerance` of `approx`.
    Approx { approx: f64, tolerance: f64 },
    /// This string, byte for byte, whatever the parameter's comparison.
    Exact(String),
    /// An array with one item per matcher, in any order, and nothing else.
    Unordered(Vec<ArgMatcher>),
    /// An array holding a distinct item for each matcher; other items may come too.
    Contains(Vec<ArgMatcher>),
}

/// Why a matcher could not be parsed; the loader adds the file and line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatcherError {
    #[error("invalid regex {pattern:?}: {reason}")]
    BadRegex { pattern: String, reason: String },
    #[error("`regex` must be a string")]
    RegexNotString,
    #[error(
        "`approx` needs a numeric `tolerance` beside it, e.g. {{ approx = 12.5, tolerance = 0.01 }}"
    )]
    MissingTolerance,
    #[error("`approx` and `tolerance` must be numbers, and `tolerance` must not be negative")]
    BadApprox,
    #[error("`exact` must be a string")]
    ExactNotString,
    #[error("`{0}` must be a list of matchers, one per array item")]
    ItemsNotList(&'static str),
}

impl ArgMatcher {
    /// Parses the written form of a matcher.
    pub fn parse(written: &Value) -> Result<ArgMatcher, MatcherError> {
        let items = match written {
            Value::Array(items) => items.as_slice(),
            single => std::slice::from_ref(single),
        };
        let mut alternatives = Vec::with_capacity(items.len());
        let mut may_omit = false;
        for item in items {
            match item {
                Value::String(s) if s.is_empty() => may_omit = true,
                other => alternatives.push(Alternative::parse(other)?),
            }
        }
        Ok(ArgMatcher {
            alternatives,
            may_omit,
            comparison: Comparison::default(),
        })
    }

    /// Sets the comparison of a task's matcher for parameter `name` (with this property schema), and
    /// of every matcher inside it: an object's by its properties, an array's items by the array's own.
    pub fn set_comparisons(&mut self, name: &str, property: &Value) {
        let own = classify(name, property).0;
        self.comparison = own;
        for alternative in &mut self.alternatives {
            match alternative {
                Alternative::Object(fields) => {
                    for (key, nested) in fields.iter_mut() {
                        let schema = property
                            .get("properties")
                            .and_then(|p| p.get(key.as_str()))
                            .unwrap_or(&Value::Null);
                        nested.set_comparisons(key, schema);
                    }
                }
                Alternative::Unordered(items) | Alternative::Contains(items) => {
                    let item_schema = property.get("items").unwrap_or(&Value::Null);
                    for item in items {
                        item.set_comparisons(name, item_schema);
                        // The items of a path list are paths: the array's name says what its items are.
                        if item.comparison == Comparison::FreeText {
                            item.comparison = own;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// True when the argument may be left out of the call.
    pub fn allows_omission(&self) -> bool {
        self.may_omit
    }

    /// Whether `value` is acceptable.
    pub fn accepts(&self, value: &Value) -> bool {
        self.alternatives.iter().any(|a| a.accepts(value))
    }

    /// The literal values this matcher lists (for checking them against a schema).
    pub fn literals(&self) -> impl Iterator<Item = &Value> {
        self.alternatives.iter().filter_map(|a| match a {
            Alternative::Literal(literal) => Some(literal),
            _ => None,
        })
    }
}

impl Alternative {
    fn parse(written: &Value) -> Result<Alternative, MatcherError> {
        let Value::Object(fields) = written else {
            return Ok(Alternative::Literal(written.clone()));
        };
        if fields.len() == 1 {
            if let Some(exact) = fields.get("exact") {
                let text = exact.as_str().ok_or(MatcherError::ExactNotString)?;
                return Ok(Alternative::Exact(text.to_string()));
            }
            for (key, build) in [
                (
                    "unordered",
                    Alternative::Unordered as fn(Vec<ArgMatcher>) -> Alternative,
                ),
                ("contains", Alternative::Contains),
            ] {
                if let Some(items) = fields.get(key) {
                    let items = items.as_array().ok_or(MatcherError::ItemsNotList(key))?;
                    let items = items
                        .iter()
                        .map(ArgMatcher::parse)
                        .collect::<Result<Vec<_>, _>>()?;
                    return Ok(build(items));
                }
            }
        }
        if let (Some(pattern), 1) = (fields.get("regex"), fields.len()) {
            let pattern = pattern.as_str().ok_or(MatcherError::RegexNotString)?;
            return Regex::new(pattern).map(Alternative::Regex).map_err(|e| {
                MatcherError::BadRegex {
                    pattern: pattern.to_string(),
                    reason: e.to_string(),
                }
            });
        }
        if let Some(approx) = fields.get("approx") {
            let tolerance = fields
                .get("tolerance")
                .ok_or(MatcherError::MissingTolerance)?;
            return match (approx.as_f64(), tolerance.as_f64(), fields.len()) {
                (Some(approx), Some(tolerance), 2) if tolerance >= 0.0 => {
                    Ok(Alternative::Approx { approx, tolerance })
                }
                _ => Err(MatcherError::BadApprox),
            };
        }
        let nested = fields
            .iter()
            .map(|(k, v)| Ok((k.clone(), ArgMatcher::parse(v)?)))
            .collect::<Result<_, MatcherError>>()?;
        Ok(Alternative::Object(nested))
    }

    /// Whether `value` is this alternative (exact equality for literals; see `score` for the looser
    /// comparison tasks are judged with).
    pub fn accepts(&self, value: &Value) -> bool {
        match self {
            Alternative::Literal(literal) => values_equal(literal, value),
            Alternative::Object(fields) => value
                .as_object()
                .is_some_and(|object| arguments_match(fields, object)),
            Alternative::Regex(re) => value.as_str().is_some_and(|s| re.is_match(s)),
            Alternative::Approx { approx, tolerance } => value
                .as_f64()
                .is_some_and(|x| (x - approx).abs() <= *tolerance),
            Alternative::Exact(text) => value.as_str() == Some(text),
            Alternative::Unordered(items) => value.as_array().is_some_and(|values| {
                values.len() == items.len()
                    && distinct_items_match(items, values, &|m, v| m.accepts(v))
            }),
            Alternative::Contains(items) => value
                .as_array()
                .is_some_and(|values| distinct_items_match(items, values, &|m, v| m.accepts(v))),
        }
    }
}

/// Whether every matcher can be given an item of its own that it accepts (a bipartite matching of
/// matchers to items, found by augmenting paths): what `unordered` and `contains` ask.
pub fn distinct_items_match(
    matchers: &[ArgMatcher],
    values: &[Value],
    accepts: &dyn Fn(&ArgMatcher, &Value) -> bool,
) -> bool {
    if matchers.len() > values.len() {
        return false;
    }
    let fits: Vec<Vec<usize>> = matchers
        .iter()
        .map(|m| {
            (0..values.len())
                .filter(|&j| accepts(m, &values[j]))
                .collect()
        })
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; values.len()];
    fn assign(
        i: usize,
        fits: &[Vec<usize>],
        owner: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for &j in &fits[i] {
            if seen[j] {
                continue;
            }
            seen[j] = true;
            if owner[j].is_none_or(|k| assign(k, fits, owner, seen)) {
                owner[j] = Some(i);
                return true;
            }
        }
        false
    }
    (0..matchers.len()).all(|i| assign(i, &fits, &mut owner, &mut vec![false; values.len()]))
}

/// Accepts the given arguments against a set of matchers: every matcher's argument is present and
/// accepted, or absent and allowed to be omitted. Arguments without a matcher are not checked.
pub(crate) fn arguments_match(
    matchers: &BTreeMap<String, ArgMatcher>,
    arguments: &Map<String, Value>,
) -> bool {
    matchers
        .iter()
        .all(|(name, matcher)| match arguments.get(name) {
            Some(value) => matcher.accepts(value),
            None => matcher.allows_omission(),
        })
}

fn values_equal(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_equal(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| values_equal(x, y)))
        }
        _ => expected == actual,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn matcher(v: Value) -> ArgMatcher {
        ArgMatcher::parse(&v).unwrap()
    }

    #[test]
    fn lists_accept_any_listed_value_and_empty_string_means_optional() {
        let m = matcher(json!(["Paris", "Paris, France", ""]));
        assert!(m.accepts(&json!("Paris, France")));
        assert!(!m.accepts(&json!("Lyon")));
        assert!(m.allows_omission());
        assert!(!matcher(json!(["Paris"])).allows_omission());
        let must_omit = matcher(json!(""));
        assert!(must_omit.allows_omission() && !must_omit.accepts(&json!("")));
    }

    #[test]
    fn numbers_compare_by_value_and_tolerance() {
        assert!(matcher(json!(3)).accepts(&json!(3.0)));
        assert!(!matcher(json!(3)).accepts(&json!("3")));
        let m = matcher(json!({"approx": 12.5, "tolerance": 0.01}));
        assert!(m.accepts(&json!(12.505)));
        assert!(!m.accepts(&json!(12.52)));
    }

    #[test]
    fn regex_and_nested_objects() {
        assert!(matcher(json!({"regex": "^[0-9]{5}$"})).accepts(&json!("75001")));
        assert!(!matcher(json!({"regex": "^[0-9]{5}$"})).accepts(&json!("7500")));
        let m = matcher(json!([{"lat": [48.85], "lon": [2.35], "alt": [""]}]));
        assert!(m.accepts(&json!({"lat": 48.85, "lon": 2.35})));
        assert!(!m.accepts(&json!({"lat": 48.85})));
    }

    #[test]
    fn matchers_may_be_alternatives_inside_a_list() {
        let m = matcher(json!(["", {"regex": "^inv-[0-9]+$"}, "latest"]));
        assert!(m.accepts(&json!("inv-42")) && m.accepts(&json!("latest")) && m.allows_omission());
        assert!(!m.accepts(&json!("INV-42")));
        let arrays = matcher(json!([["kitchen", "hall"]]));
        assert!(arrays.accepts(&json!(["kitchen", "hall"])) && !arrays.accepts(&json!("kitchen")));
    }

    #[test]
    fn exact_unordered_and_contains() {
        let exact = matcher(json!({"exact": "/srv/files/x"}));
        assert!(exact.accepts(&json!("/srv/files/x")) && !exact.accepts(&json!("srv/files/x")));
        let any_order = matcher(json!({"unordered": ["a", "b", ["c", "C"]]}));
        assert!(any_order.accepts(&json!(["C", "a", "b"])));
        assert!(!any_order.accepts(&json!(["a", "b"])));
        assert!(!any_order.accepts(&json!(["a", "b", "c", "d"])));
        assert!(!any_order.accepts(&json!(["a", "a", "c"])), "one item each");
        let some = matcher(json!({"contains": [{"oldText": "x"}, {"oldText": "y"}]}));
        assert!(some.accepts(
            &json!([{"oldText": "y", "newText": "1"}, {"oldText": "z"}, {"oldText": "x"}])
        ));
        assert!(!some.accepts(&json!([{"oldText": "x"}])));
        // Only a one-key table is a matcher; a parameter named `exact` in an object stays a key.
        assert!(matcher(json!({"exact": "a", "b": 1})).accepts(&json!({"exact": "a", "b": 1})));
    }

    #[test]
    fn malformed_matchers_are_errors_not_panics() {
        assert!(matches!(
            ArgMatcher::parse(&json!({"regex": "("})),
            Err(MatcherError::BadRegex { .. })
        ));
        assert!(matches!(
            ArgMatcher::parse(&json!([{"regex": 5}])),
            Err(MatcherError::RegexNotString)
        ));
        assert_eq!(
            ArgMatcher::parse(&json!({"approx": 1})).unwrap_err(),
            MatcherError::MissingTolerance
        );
        assert_eq!(
            ArgMatcher::parse(&json!({"approx": 1, "tolerance": -1})).unwrap_err(),
            MatcherError::BadApprox
        );
        assert_eq!(
            ArgMatcher::parse(&json!({"exact": 3})).unwrap_err(),
            MatcherError::ExactNotString
        );
        assert_eq!(
            ArgMatcher::parse(&json!({"unordered": "a"})).unwrap_err(),
            MatcherError::ItemsNotList("unordered")
        );
    }
}
