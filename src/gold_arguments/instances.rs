//! Instances built from a schema or a pattern alone: a small instance of a schema (required
//! properties only, the first enum value, type defaults, strings that satisfy `pattern` and the
//! common formats) and the shortest readable string a regex matches. The oracle, the importers and
//! a snapshotted server's simulated answers start from these.

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value, json};

/// A small instance of a schema: required properties only, the first enum value, type defaults.
pub fn example_instance(schema: &Value, root: &Value) -> Value {
    // A `default` of another type than the schema's (data sets hold `"default": "1"` for integers)
    // is an annotation the schema itself rejects: build an instance instead.
    if let Some(default) = schema.get("default")
        && of_declared_type(default, &schema["type"])
    {
        return default.clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/"))
    {
        let resolved = target.split('/').try_fold(root, |node, key| node.get(key));
        return resolved.map_or(Value::Null, |s| example_instance(s, root));
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "null",
    };
    match kind {
        "object" => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let properties = schema.get("properties").and_then(Value::as_object);
            let object: Map<String, Value> = required
                .into_iter()
                .map(|key| {
                    let property = properties.and_then(|p| p.get(key)).unwrap_or(&Value::Null);
                    (key.to_string(), example_instance(property, root))
                })
                .collect();
            Value::Object(object)
        }
        "array" => {
            let minimum = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let item = schema
                .get("items")
                .map_or(Value::Null, |i| example_instance(i, root));
            Value::Array((0..minimum).map(|_| item.clone()).collect())
        }
        "string" => json!(example_string(schema)),
        "integer" => json!(
            schema
                .get("minimum")
                .and_then(Value::as_i64)
                .or_else(|| schema
                    .get("exclusiveMinimum")
                    .and_then(Value::as_i64)
                    .map(|m| m + 1))
                .unwrap_or(0)
        ),
        "number" => json!(
            schema
                .get("minimum")
                .and_then(Value::as_f64)
                .or_else(|| schema
                    .get("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .map(|m| m + 1.0))
                .unwrap_or(0.0)
        ),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

/// A string its schema accepts: a value its `format` asserts (the validator checks formats) if the
/// `pattern` allows it, else the pattern's shortest match, else `minLength` letters.
fn example_string(schema: &Value) -> String {
    let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
    let formatted = match format {
        "date" => "2026-01-01",
        "date-time" => "2026-01-01T09:00:00Z",
        "time" => "09:00:00Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uri" | "iri" | "uri-reference" | "iri-reference" | "url" => "https://example.com/",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        _ => "",
    };
    let pattern = schema.get("pattern").and_then(Value::as_str);
    let fits_pattern =
        |text: &str| pattern.is_none_or(|p| regex::Regex::new(p).is_ok_and(|r| r.is_match(text)));
    if (formatted.is_empty() || !fits_pattern(formatted))
        && let Some(text) = pattern.and_then(shortest_match)
    {
        return text;
    }
    let minimum = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let mut text = formatted.to_string();
    while text.chars().count() < minimum {
        text.push('x');
    }
    text
}

/// The shortest string a regular expression matches (first branch of each alternation, fewest
/// repetitions, a readable member of each class).
pub fn shortest_match(pattern: &str) -> Option<String> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut out = String::new();
    write_shortest(&hir, &mut out).then_some(out)
}

fn write_shortest(hir: &Hir, out: &mut String) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
            Ok(text) => {
                out.push_str(text);
                true
            }
            Err(_) => false,
        },
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges().iter().map(|r| (r.start(), r.end()));
            readable_member(ranges).map(|c| out.push(c)).is_some()
        }
        HirKind::Class(Class::Bytes(class)) => {
            let ranges = class
                .ranges()
                .iter()
                .map(|r| (char::from(r.start()), char::from(r.end())));
            readable_member(ranges).map(|c| out.push(c)).is_some()
        }
        HirKind::Repetition(repetition) => {
            (0..repetition.min).all(|_| write_shortest(&repetition.sub, out))
        }
        HirKind::Capture(capture) => write_shortest(&capture.sub, out),
        HirKind::Concat(parts) => parts.iter().all(|p| write_shortest(p, out)),
        HirKind::Alternation(branches) => branches.first().is_some_and(|b| write_shortest(b, out)),
    }
}

/// A member of a character class, readable where possible ("a" for `.` or `[^@\s]`, a space for
/// `\s`, not NUL), so a generated value also passes the `format` that often sits beside a `pattern`.
fn readable_member(ranges: impl Iterator<Item = (char, char)>) -> Option<char> {
    let ranges: Vec<(char, char)> = ranges.collect();
    let contains = |c: char| ranges.iter().any(|&(start, end)| start <= c && c <= end);
    ['a', 'A', '0', ' ']
        .into_iter()
        .find(|&c| contains(c))
        .or_else(|| {
            ranges
                .iter()
                .find(|&&(_, end)| end >= '!')
                .map(|&(start, _)| start.max('!'))
        })
        .or_else(|| ranges.first().map(|&(start, _)| start))
}

/// Whether `value` is of the schema's `type` (a name or a list of names; no `type` allows any).
fn of_declared_type(value: &Value, declared: &Value) -> bool {
    let is = |name: &str| match name {
        "integer" => value.as_f64().is_some_and(|x| x.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    };
    match declared {
        Value::String(name) => is(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(is),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::compile_schema;
    use regex::Regex;

    #[test]
    fn shortest_matches_are_matches() {
        for pattern in [
            "(?i)dentist",
            "^2026-03-13T07:45",
            "(?i)holiday|vacation",
            "(?i)^(spam|junk)$",
            r"^[A-Z]{3}\d{2,4}$",
            "^(.{1,5}|.{7,})$",
            r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
        ] {
            let text = shortest_match(pattern).unwrap();
            assert!(
                Regex::new(pattern).unwrap().is_match(&text),
                "{pattern} → {text:?}"
            );
        }
        // Readable characters, not NUL, from open classes.
        assert_eq!(
            shortest_match(r"^[^@\s]+@[^@\s]+\.[^@\s]+$").as_deref(),
            Some("a@a.a")
        );
    }

    #[test]
    fn example_instances_satisfy_their_schema() {
        let schema = json!({
            "type": "object",
            "required": ["sum", "fee", "count", "items", "unit", "meta", "day", "at", "mail", "name", "code", "tickets", "seats"],
            "properties": {
                "tickets": { "type": "integer", "default": "1" },
                "seats": { "type": ["integer", "null"], "default": 2 },
                "sum": { "type": "number", "minimum": 1 },
                "fee": { "type": "number", "exclusiveMinimum": 0 },
                "count": { "type": "integer", "exclusiveMinimum": 2 },
                "day": { "type": "string", "format": "date" },
                "at": { "type": "string", "format": "date-time" },
                "mail": { "type": "string", "format": "email" },
                "name": { "type": "string", "minLength": 3 },
                "code": { "type": "string", "pattern": "^[A-Z]{3}-\\d{2}$" },
                "items": { "type": "array", "minItems": 1, "items": { "type": "string" } },
                "unit": { "enum": ["c", "f"] },
                "meta": { "$ref": "#/$defs/meta" }
            },
            "$defs": { "meta": { "type": "object", "required": ["ok"], "properties": { "ok": { "type": "boolean" } } } }
        });
        let instance = example_instance(&schema, &schema);
        assert!(
            compile_schema(&schema).unwrap().is_valid(&instance),
            "{instance}"
        );
        assert_eq!(instance["seats"], 2, "a default of the right type is used");
    }
}
