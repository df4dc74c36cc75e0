//! How a string a task lists is compared with the string a model sent, chosen per parameter from
//! the tool's schema when the task is loaded (the `mcp` profile; `bfcl` keeps BFCL's own rule):
//! a path compares after normalising `.` segments and repeated or trailing `/`; a URI, identifier,
//! date or code compares exactly; free text compares loosely, ignoring case (Unicode case folding),
//! accents, spaces and the punctuation `,./-_*^` as BFCL does. `classify` says which, and why.

use serde_json::Value;

/// How strings compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Comparison {
    /// Loosely: Unicode case folding, accents folded, spaces and `,./-_*^` ignored.
    #[default]
    FreeText,
    /// As paths: `.` segments, repeated and trailing `/` normalised, otherwise exact (case counts).
    Path,
    /// Byte for byte.
    Exact,
}

impl Comparison {
    pub fn as_str(self) -> &'static str {
        match self {
            Comparison::FreeText => "free text",
            Comparison::Path => "path",
            Comparison::Exact => "exact",
        }
    }
}

/// The comparison for a parameter named `name` with this property schema (for an array, its items
/// are compared so), and the reason, for the user: `format` first, then the name's words, then the
/// description's.
pub fn classify(name: &str, property: &Value) -> (Comparison, &'static str) {
    let format = property
        .get("format")
        .or_else(|| property.get("items").and_then(|items| items.get("format")))
        .and_then(Value::as_str);
    match format {
        Some("date" | "date-time" | "time" | "duration") => {
            return (Comparison::Exact, "its format is a date or time");
        }
        Some("uri" | "uri-reference" | "iri" | "iri-reference" | "url" | "uri-template") => {
            return (Comparison::Exact, "its format is a URI");
        }
        Some("email" | "idn-email" | "hostname" | "idn-hostname" | "ipv4" | "ipv6" | "uuid") => {
            return (Comparison::Exact, "its format is an identifier");
        }
        Some("regex" | "json-pointer" | "relative-json-pointer") => {
            return (Comparison::Exact, "its format is code");
        }
        _ => {}
    }
    let words = name_words(name);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(&[
        "path",
        "paths",
        "file",
        "files",
        "filename",
        "filepath",
        "dir",
        "dirs",
        "directory",
        "directories",
        "folder",
        "folders",
    ]) {
        return (Comparison::Path, "its name says it is a path");
    }
    if has(&["url", "urls", "uri", "uris", "href", "link", "endpoint"]) {
        return (Comparison::Exact, "its name says it is a URI");
    }
    if has(&[
        "id", "ids", "uuid", "key", "slug", "sku", "isbn", "iban", "hash", "sha", "token",
    ]) {
        return (Comparison::Exact, "its name says it is an identifier");
    }
    if has(&["date", "dates", "datetime", "time", "timestamp", "deadline"]) {
        return (Comparison::Exact, "its name says it is a date or time");
    }
    if has(&[
        "pattern",
        "glob",
        "regex",
        "regexp",
        "command",
        "script",
        "sql",
        "expression",
        "code",
        "cron",
        "selector",
    ]) {
        return (Comparison::Exact, "its name says it is code or a pattern");
    }
    let description = property
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_lowercase();
    let said = |phrases: &[&str]| phrases.iter().any(|p| description.contains(p));
    if said(&[
        "file path",
        "path to",
        "path of",
        "directory path",
        "absolute path",
        "relative path",
        "folder path",
    ]) {
        return (Comparison::Path, "its description says it is a path");
    }
    if said(&["url", "uri"]) && !said(&["not a url"]) {
        return (Comparison::Exact, "its description says it is a URI");
    }
    if said(&[
        "glob",
        "regular expression",
        "regex",
        "pattern to match",
        "must match exactly",
    ]) {
        return (
            Comparison::Exact,
            "its description says it is matched exactly",
        );
    }
    if said(&["iso 8601", "rfc 3339", "yyyy-mm-dd"]) {
        return (
            Comparison::Exact,
            "its description says it is a date or time",
        );
    }
    (Comparison::FreeText, "free text")
}

/// A parameter name's words, lowercase: `filePath` and `file_path` are `file`, `path`.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parameters_are_classified_by_format_name_and_description() {
        let cases = [
            ("path", json!({"type": "string"}), Comparison::Path),
            (
                "paths",
                json!({"type": "array", "items": {"type": "string"}}),
                Comparison::Path,
            ),
            ("sourceDir", json!({"type": "string"}), Comparison::Path),
            (
                "remind_at",
                json!({"type": "string", "format": "date-time"}),
                Comparison::Exact,
            ),
            (
                "homepage",
                json!({"type": "string", "format": "uri"}),
                Comparison::Exact,
            ),
            ("user_id", json!({"type": "string"}), Comparison::Exact),
            ("pattern", json!({"type": "string"}), Comparison::Exact),
            ("start_date", json!({"type": "string"}), Comparison::Exact),
            (
                "city",
                json!({"type": "string", "description": "City name"}),
                Comparison::FreeText,
            ),
            ("message", json!({"type": "string"}), Comparison::FreeText),
            (
                "target",
                json!({"type": "string", "description": "Absolute path to the file"}),
                Comparison::Path,
            ),
            (
                "oldText",
                json!({"type": "string", "description": "Text to search for - must match exactly"}),
                Comparison::Exact,
            ),
        ];
        for (name, property, expected) in cases {
            assert_eq!(classify(name, &property).0, expected, "{name}");
        }
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(name_words("filePath"), ["file", "path"]);
        assert_eq!(name_words("file_path"), ["file", "path"]);
        assert_eq!(name_words("HTTPEndpoint"), ["httpendpoint"]);
        assert_eq!(name_words("remind_at"), ["remind", "at"]);
    }
}
