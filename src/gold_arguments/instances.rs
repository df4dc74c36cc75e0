//! Instances built from a schema or a pattern alone: a small instance of a schema (required
//! properties only, the first enum value, type defaults, strings that satisfy `pattern` and the
//! common formats) and the shortest readable string a regex matches. The oracle, the importers and
//! a snapshotted server's simulated answers start from these. Both are bounded: an instance by
//! `MAX_VALUE_WEIGHT` and `MAX_DEPTH` (a `minItems` of a billion or a `$ref` to itself builds
//! nothing), a shortest match by `MAX_VALUE_WEIGHT` characters.

use super::budget::{MAX_DEPTH, MAX_VALUE_WEIGHT};
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value, json};

/// A small instance of a schema: required properties only, the first enum value, type defaults.
/// One the bounds of `budget` forbid (larger than `MAX_VALUE_WEIGHT`, deeper than `MAX_DEPTH`)
/// comes back as `null`, which the schema then refuses: use `bounded_instance` to tell the two
/// apart.
pub fn example_instance(schema: &Value, root: &Value) -> Value {
    bounded_instance(schema, root).unwrap_or(Value::Null)
}

/// `example_instance`, or `None` when the instance would be larger than `MAX_VALUE_WEIGHT` or
/// deeper than `MAX_DEPTH`: nothing that large is allocated.
pub fn bounded_instance(schema: &Value, root: &Value) -> Option<Value> {
    let mut room = MAX_VALUE_WEIGHT;
    instance(schema, root, 0, &mut room)
}

/// Builds into `room` (weight left), `depth` levels down.
fn instance(schema: &Value, root: &Value, depth: usize, room: &mut u64) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let take = |room: &mut u64, value: Value| -> Option<Value> {
        let weight = super::budget::weight(&value);
        *room = room.checked_sub(weight)?;
        Some(value)
    };
    // A `default` of another type than the schema's (data sets hold `"default": "1"` for integers)
    // is an annotation the schema itself rejects: build an instance instead.
    if let Some(default) = schema.get("default")
        && of_declared_type(default, &schema["type"])
    {
        return take(room, default.clone());
    }
    if let Some(constant) = schema.get("const") {
        return take(room, constant.clone());
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return take(room, first.clone());
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/"))
    {
        let resolved = target.split('/').try_fold(root, |node, key| node.get(key));
        return match resolved {
            Some(s) => instance(s, root, depth + 1, room),
            None => Some(Value::Null),
        };
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
    *room = room.checked_sub(1)?;
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
            let mut object = Map::new();
            for key in required {
                *room = room.checked_sub(key.len() as u64)?;
                let property = properties.and_then(|p| p.get(key)).unwrap_or(&Value::Null);
                object.insert(key.to_string(), instance(property, root, depth + 1, room)?);
            }
            Some(Value::Object(object))
        }
        "array" => {
            let minimum = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            // Every item costs at least one: a count beyond the room is refused before a single
            // item is made.
            if minimum > *room {
                return None;
            }
            let item = match schema.get("items") {
                Some(items) => instance(items, root, depth + 1, room)?,
                None => Value::Null,
            };
            let each = super::budget::weight(&item);
            *room = room.checked_sub(each.checked_mul(minimum.saturating_sub(1))?)?;
            Some(Value::Array(vec![item; minimum as usize]))
        }
        "string" => {
            let minimum = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            if minimum > *room {
                return None;
            }
            take(room, json!(example_string(schema)))
        }
        "integer" => {
            let least = schema
                .get("minimum")
                .and_then(Value::as_i64)
                .or_else(|| {
                    schema
                        .get("exclusiveMinimum")
                        .and_then(Value::as_i64)
                        .and_then(|m| m.checked_add(1))
                })
                .unwrap_or(0);
            // The least multiple of `multipleOf` at or above the least value allowed.
            let step = schema
                .get("multipleOf")
                .and_then(Value::as_i64)
                .filter(|s| *s > 0);
            Some(json!(
                match step.map(|step| (step, least.rem_euclid(step))) {
                    Some((step, remainder)) if remainder != 0 => {
                        least.checked_add(step - remainder).unwrap_or(least)
                    }
                    _ => least,
                }
            ))
        }
        "number" => Some(json!(
            schema
                .get("minimum")
                .and_then(Value::as_f64)
                .or_else(|| schema
                    .get("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .map(|m| m + 1.0))
                .unwrap_or(0.0)
        )),
        "boolean" => Some(json!(false)),
        _ => Some(Value::Null),
    }
}

/// A string its schema accepts: a value its `format` asserts (the validator checks formats) if the
/// `pattern` allows it, else the pattern's shortest match, else `minLength` letters. The padding
/// is linear in the length (a million characters are a million pushes, not a million counts).
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
    let fits_pattern = |text: &str| {
        pattern.is_none_or(|p| {
            regex::RegexBuilder::new(p)
                .size_limit(super::budget::NFA_SIZE_LIMIT)
                .build()
                .is_ok_and(|r| r.is_match(text))
        })
    };
    if (formatted.is_empty() || !fits_pattern(formatted))
        && let Some(text) = pattern.and_then(shortest_match)
    {
        return text;
    }
    let minimum = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let mut text = formatted.to_string();
    let length = text.chars().count();
    text.extend(std::iter::repeat_n('x', minimum.saturating_sub(length)));
    text
}

/// The shortest string a regular expression matches (first branch of each alternation, fewest
/// repetitions, a readable member of each class).
pub fn shortest_match(pattern: &str) -> Option<String> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut out = String::new();
    write_shortest(&hir, &mut out).then_some(out)
}

/// The shortest match with its first unbounded repetition (`*`, `+`, `{n,}`) written enough more
/// times to add at least `extra` characters: a match of a least length, where padding either end
/// would break an anchor.
pub fn stretched_match(pattern: &str, extra: usize) -> Option<String> {
    if extra == 0 || extra as u64 > MAX_VALUE_WEIGHT {
        return None;
    }
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut out = String::new();
    let mut stretch = Some(extra);
    (write_stretched(&hir, &mut out, &mut stretch) && stretch.is_none()).then_some(out)
}

fn write_shortest(hir: &Hir, out: &mut String) -> bool {
    write_stretched(hir, out, &mut None)
}

/// Writes the shortest match, stretching the first unbounded repetition by `stretch` characters
/// (taken, so only one is stretched).
fn write_stretched(hir: &Hir, out: &mut String, stretch: &mut Option<usize>) -> bool {
    if out.len() as u64 > MAX_VALUE_WEIGHT {
        return false;
    }
    if let (HirKind::Repetition(repetition), Some(extra)) = (hir.kind(), *stretch)
        && repetition.max.is_none()
    {
        *stretch = None;
        let before = out.len();
        if !write_shortest(&repetition.sub, out) {
            return false;
        }
        let once = out.len() - before;
        if once == 0 {
            return false;
        }
        let times = u64::from(repetition.min.max(1)) + extra.div_ceil(once) as u64;
        if times.saturating_mul(once as u64) > MAX_VALUE_WEIGHT {
            return false;
        }
        return (1..times).all(|_| write_shortest(&repetition.sub, out));
    }
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
            if u64::from(repetition.min) > MAX_VALUE_WEIGHT {
                return false;
            }
            let before = out.len();
            if repetition.min == 0 {
                return true;
            }
            if !write_shortest(&repetition.sub, out) {
                return false;
            }
            // What writes nothing once writes nothing every time.
            out.len() == before || (1..repetition.min).all(|_| write_shortest(&repetition.sub, out))
        }
        HirKind::Capture(capture) => write_stretched(&capture.sub, out, stretch),
        HirKind::Concat(parts) => parts.iter().all(|p| write_stretched(p, out, stretch)),
        HirKind::Alternation(branches) => branches
            .first()
            .is_some_and(|b| write_stretched(b, out, stretch)),
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
