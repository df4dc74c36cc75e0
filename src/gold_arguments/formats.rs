//! JSON Schema string formats as patterns that only valid instances match, strict enough that a
//! string built to match one is a valid instance (dates stop at day 28, times at 23:59:59, `T` and
//! `Z` upper case), for the formats a tool's parameters commonly declare. A format not listed is left to the schema's
//! own validator, which checks every value built.

/// The pattern for a `format`, if it has one here.
pub fn format_pattern(format: &str) -> Option<&'static str> {
    Some(match format {
        "date" => r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])$",
        "date-time" => {
            r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
        }
        "time" => {
            r"^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
        }
        "email" | "idn-email" => r"^[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$",
        "uri" | "iri" | "url" => r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$",
        "uuid" => r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        "ipv4" => {
            r"^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$"
        }
        "hostname" | "idn-hostname" => {
            r"^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Strings of each pattern are valid instances of the format, as the schema validator checks.
    #[test]
    fn patterns_agree_with_the_validator() {
        for (format, good) in [
            ("date", "2026-02-28"),
            ("date-time", "2026-03-13T07:45:00Z"),
            ("date-time", "2026-03-13T07:45:00.5+01:00"),
            ("time", "23:59:59Z"),
            ("email", "a.b@example.com"),
            ("uri", "https://example.com/x"),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
            ("ipv4", "192.168.0.1"),
            ("hostname", "api.example.com"),
        ] {
            let pattern = regex::Regex::new(format_pattern(format).unwrap()).unwrap();
            assert!(pattern.is_match(good), "{format}: {good}");
            let validator =
                crate::registry::compile_schema(&json!({"type": "string", "format": format}))
                    .unwrap();
            assert!(validator.is_valid(&json!(good)), "{format}: {good}");
        }
        assert!(
            format_pattern("date-time")
                .is_some_and(|p| !regex::Regex::new(p).unwrap().is_match("2026-03-13T07:45"))
        );
    }
}
