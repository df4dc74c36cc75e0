//! Whether a drafted request supports its expected call, checked by code: the arguments validate
//! against the tool's `inputSchema` (compiled as the MCP server compiles it), and every literal
//! value in them is one the request states — a string found in it (case and spacing aside), a
//! number written in it (in digits, or as an English word up to twenty), a date or time of day
//! written as people write them (`written_forms`: "15th Jan 2023" for 2023-01-15, "3pm" for
//! 15:00) — or one the schema offers
//! (an `enum` or `const` value, a `default`, a boolean), which a request implies without quoting
//! it. An answer the request does not support would make the task wrong, so such a candidate is
//! dropped. Then the expected call's matchers: a value that is the parameter's default and is not
//! in the request may also be omitted (`[value, ""]`). Pure.

use super::written_forms::written_forms;
use crate::registry::compile_object_schema;
use serde_json::{Map, Value, json};

/// Why an expected call is not one the request supports.
#[derive(Debug, Clone, PartialEq)]
pub enum Unsupported {
    /// The arguments break the tool's schema (the validator's first complaint).
    Schema(String),
    /// A value appears nowhere in the request and the schema does not offer it.
    Value { parameter: String, value: String },
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsupported::Schema(why) => write!(f, "the arguments break the schema: {why}"),
            Unsupported::Value { parameter, value } => {
                write!(f, "{parameter} = {value} is not in the request")
            }
        }
    }
}

/// Checks `arguments` against `input_schema` and `request`.
pub fn check_call(
    request: &str,
    input_schema: &Value,
    arguments: &Map<String, Value>,
) -> Result<(), Unsupported> {
    let instance = Value::Object(arguments.clone());
    match compile_object_schema(input_schema) {
        Ok(validator) => {
            if let Some(error) = validator.iter_errors(&instance).next() {
                let at = error.instance_path().to_string();
                let at = if at.is_empty() {
                    String::new()
                } else {
                    format!("{at}: ")
                };
                return Err(Unsupported::Schema(format!("{at}{error}")));
            }
        }
        Err(e) => return Err(Unsupported::Schema(format!("the tool's schema: {e}"))),
    }
    let offered = offered_values(input_schema);
    let text = normalise(request);
    for (parameter, value) in arguments {
        check_value(&text, parameter, value, &offered)?;
    }
    Ok(())
}

/// The expected call's `args`: each drafted value, or `[value, ""]` when it is the parameter's
/// default and the request does not state it (the model may rely on the default).
pub fn expected_args(
    request: &str,
    input_schema: &Value,
    arguments: &Map<String, Value>,
) -> Map<String, Value> {
    let text = normalise(request);
    arguments
        .iter()
        .map(|(name, value)| {
            let default = input_schema["properties"][name].get("default");
            let matcher = if default == Some(value) && !stated(&text, value) {
                json!([value, ""])
            } else if value.is_array() {
                // A bare array in a task means "any of these alternatives"; an array value is
                // written as the one alternative it is.
                json!([value])
            } else {
                value.clone()
            };
            (name.clone(), matcher)
        })
        .collect()
}

fn check_value(
    text: &str,
    parameter: &str,
    value: &Value,
    offered: &[Value],
) -> Result<(), Unsupported> {
    match value {
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| check_value(text, parameter, item, offered)),
        Value::Object(fields) => fields.iter().try_for_each(|(name, item)| {
            check_value(text, &format!("{parameter}.{name}"), item, offered)
        }),
        Value::Null | Value::Bool(_) => Ok(()),
        _ if offered.contains(value) || stated(text, value) => Ok(()),
        _ => Err(Unsupported::Value {
            parameter: parameter.to_string(),
            value: value.to_string(),
        }),
    }
}

/// Whether a string or number is written in the (normalised) request.
fn stated(text: &str, value: &Value) -> bool {
    match value {
        Value::String(s) => {
            let wanted = normalise(s);
            (!wanted.is_empty() && contains_words(text, &wanted))
                || written_forms(s)
                    .iter()
                    .any(|form| contains_words(text, form))
        }
        Value::Number(n) => {
            let Some(x) = n.as_f64() else { return false };
            let mut forms = vec![n.to_string()];
            if x.fract() == 0.0 && x.abs() < 1e15 {
                forms.push(format!("{}", x as i64));
                if let Some(word) = NUMBER_WORDS.get(x as usize).filter(|_| x >= 0.0) {
                    forms.push(word.to_string());
                }
            }
            forms
                .iter()
                .any(|form| contains_words(text, &normalise(form)))
        }
        _ => false,
    }
}

/// Whether `wanted` occurs in `text` at word boundaries (both normalised).
fn contains_words(text: &str, wanted: &str) -> bool {
    let padded = format!(" {text} ");
    padded.contains(&format!(" {wanted} "))
}

/// Lower case, thousands separators dropped, every run of other characters but letters, digits
/// and the decimal point one space.
fn normalise(text: &str) -> String {
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let mut out = String::with_capacity(lower.len());
    for (k, &c) in chars.iter().enumerate() {
        let between_digits = |c: char| {
            c == ','
                && k > 0
                && chars[k - 1].is_ascii_digit()
                && chars.get(k + 1).is_some_and(char::is_ascii_digit)
        };
        let decimal_point = c == '.'
            && k > 0
            && chars[k - 1].is_ascii_digit()
            && chars.get(k + 1).is_some_and(char::is_ascii_digit);
        if between_digits(c) {
            continue;
        }
        if c.is_alphanumeric() || decimal_point {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_string()
}

/// Every `enum`, `const` and `default` value anywhere in a schema.
fn offered_values(schema: &Value) -> Vec<Value> {
    let mut found = Vec::new();
    collect_offered(schema, &mut found);
    found
}

fn collect_offered(schema: &Value, found: &mut Vec<Value>) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object {
                match key.as_str() {
                    "enum" => found.extend(value.as_array().into_iter().flatten().cloned()),
                    "const" | "default" => found.push(value.clone()),
                    _ => collect_offered(value, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_offered(item, found)),
        _ => {}
    }
}

const NUMBER_WORDS: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "required": ["city"],
            "additionalProperties": false,
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "minimum": 1, "maximum": 16, "default": 3},
                "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
                "amount": {"type": "number"}
            }
        })
    }

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn values_the_request_states_or_the_schema_offers_are_supported() {
        let request = "Weather in Portland, Oregon for the next five days, in fahrenheit please";
        let call = args(json!({"city": "Portland, Oregon", "days": 5, "units": "imperial"}));
        assert_eq!(check_call(request, &schema(), &call), Ok(()));
        let call = args(json!({"city": "portland oregon", "amount": 1500}));
        assert_eq!(
            check_call("portland oregon, about 1,500 dollars", &schema(), &call),
            Ok(())
        );
    }

    #[test]
    fn a_value_the_request_lacks_is_unsupported() {
        let call = args(json!({"city": "Lisbon", "days": 7}));
        assert_eq!(
            check_call("weather in Lisbon next week", &schema(), &call),
            Err(Unsupported::Value {
                parameter: "days".into(),
                value: "7".into()
            })
        );
        // A word inside another is not the word.
        let call = args(json!({"city": "Nice"}));
        assert!(check_call("a nicer place", &schema(), &call).is_err());
    }

    #[test]
    fn arguments_that_break_the_schema_are_named() {
        let call = args(json!({"days": 40}));
        let Err(Unsupported::Schema(why)) = check_call("40 days", &schema(), &call) else {
            panic!("accepted")
        };
        assert!(why.contains("city") || why.contains("days"), "{why}");
        let call = args(json!({"city": "Oslo", "colour": "red"}));
        assert!(matches!(
            check_call("Oslo red", &schema(), &call),
            Err(Unsupported::Schema(_))
        ));
    }

    #[test]
    fn dates_and_times_written_as_people_write_them_are_stated() {
        let schema = json!({"type": "object", "properties": {
            "date": {"type": "string", "format": "date"},
            "time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"}}});
        let call = args(json!({"date": "2023-01-15", "time": "15:00"}));
        assert_eq!(
            check_call(
                "What was the weather on 15th Jan 2023 at 3pm?",
                &schema,
                &call
            ),
            Ok(())
        );
        assert!(
            check_call(
                "What was the weather on 16th Jan 2023 at 3pm?",
                &schema,
                &call
            )
            .is_err()
        );
        assert!(check_call("weather on 15th Jan at 3pm", &schema, &call).is_err());
    }

    #[test]
    fn an_unstated_default_may_be_omitted() {
        let request = "weather in Oslo";
        let call = args(json!({"city": "Oslo", "units": "metric", "days": 3}));
        let expected = expected_args(request, &schema(), &call);
        assert_eq!(expected["city"], json!("Oslo"));
        assert_eq!(expected["units"], json!(["metric", ""]));
        assert_eq!(expected["days"], json!([3, ""]));
        let stated = expected_args("Oslo for 3 days", &schema(), &call);
        assert_eq!(stated["days"], json!(3));
    }
}
