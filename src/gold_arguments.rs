//! Arguments that satisfy an expected call: for each matcher its first acceptable value (for a
//! regex, the shortest string it matches; for a tolerance, the centre), and a minimal schema
//! instance for each required parameter the expectation leaves open. The `oracle` backend sends
//! them; importers check with them that every gold answer they translate stays reachable.

use crate::model::{Alternative, ArgMatcher};
use crate::registry::{example_instance, shortest_match};
use serde_json::{Map, Value, json};

/// Arguments for an expected call to a tool with this input schema that the call's matchers accept.
pub fn gold_arguments(
    matchers: &std::collections::BTreeMap<String, ArgMatcher>,
    schema: &Value,
) -> Map<String, Value> {
    let mut arguments: Map<String, Value> = matchers
        .iter()
        .filter_map(|(name, m)| Some((name.clone(), value_for(m)?)))
        .collect();
    let required = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for name in required {
        if !arguments.contains_key(name) && !matchers.contains_key(name) {
            let property = &schema["properties"][name];
            arguments.insert(name.to_string(), example_instance(property, schema));
        }
    }
    arguments
}

/// A value the matcher accepts, or `None` when it only allows omission.
fn value_for(matcher: &ArgMatcher) -> Option<Value> {
    let alternative = matcher.alternatives.first()?;
    Some(match alternative {
        Alternative::Literal(value) => value.clone(),
        Alternative::Object(fields) => Value::Object(
            fields
                .iter()
                .filter_map(|(k, m)| Some((k.clone(), value_for(m)?)))
                .collect(),
        ),
        Alternative::Regex(regex) => json!(shortest_match(regex.as_str())?),
        Alternative::Approx { approx, .. } => json!(approx),
    })
}
