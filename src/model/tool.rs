//! Tools and toolsets: an MCP tool definition (what `tools/list` shows) plus its simulated behaviour
//! (what `tools/call` answers), and the source position it was read from.

use super::matcher::{ArgMatcher, arguments_match};
/// Annotations are kept as the toolset file spells them: MCP shows them to clients unchanged.
pub use crate::spec::ToolAnnotations;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A named, ordered list of tools read from one file (and possibly overlaid by a variant).
#[derive(Debug, Clone)]
pub struct Toolset {
    pub name: String,
    pub description: Option<String>,
    /// What the server asks hosts to tell the model (MCP's `instructions`), if the file says.
    pub instructions: Option<String>,
    pub source: PathBuf,
    /// The variant overlaid on the base toolset, if any.
    pub variant: Option<String>,
    pub tools: Vec<Tool>,
    /// The lint rules the toolset file allows (`RULE` or `TOOL:RULE`), checked when it was read.
    pub lint_allow: Vec<String>,
    /// What the MCP registry's `server.json` says of the server, when it was imported from one.
    pub registry: Option<RegistryListing>,
}

/// A server's registry entry as `server.json` gives it: name, version, and the description the
/// registry shows (at most 100 characters there).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RegistryListing {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Toolset {
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// One tool. Serialises to exactly the MCP `Tool` object (behaviour and source are not part of it).
#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    #[serde(rename = "outputSchema", skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys the toolset file had beyond MCP's own (`ToolSpec::extra`), served as they came.
    #[serde(flatten, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
    #[serde(skip)]
    pub behavior: Behavior,
    /// 1-based line of the tool's definition in its file, when known.
    #[serde(skip)]
    pub line: Option<usize>,
}

impl Tool {
    /// A tool defined in code (a conformance fixture, the search tool): a name, a description and
    /// an input schema, with no simulated behaviour and no source line.
    pub fn in_code(name: &str, description: String, input_schema: Value) -> Tool {
        Tool {
            name: name.to_string(),
            title: None,
            description: Some(description),
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            extra: Map::new(),
            behavior: Behavior::default(),
            line: None,
        }
    }

    /// The `properties` of the input schema, in written order.
    pub fn parameters(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.input_schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
    }

    /// Names listed in the input schema's `required`.
    pub fn required_parameters(&self) -> Vec<&str> {
        let required = self.input_schema.get("required").and_then(Value::as_array);
        required
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }
}

/// What the simulated tool answers.
#[derive(Debug, Clone)]
pub struct Behavior {
    pub default: Response,
    pub latency_ms: u64,
    pub rules: Vec<ResponseRule>,
}

impl Default for Behavior {
    fn default() -> Self {
        Behavior {
            default: Response::Echo,
            latency_ms: 0,
            rules: Vec::new(),
        }
    }
}

/// A rule answering calls whose arguments match `when`.
#[derive(Debug, Clone)]
pub struct ResponseRule {
    pub when: BTreeMap<String, ArgMatcher>,
    pub response: Response,
    pub latency_ms: Option<u64>,
}

/// One simulated answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// Text with `{param}` placeholders, and structured content when the tool has an output schema.
    Text {
        template: String,
        structured: Option<Value>,
    },
    /// Structured content only; its JSON is also sent as text.
    Structured(Value),
    /// An `isError: true` result with an actionable message (a template, like `Text`).
    Error(String),
    /// The call's arguments as JSON text.
    Echo,
}

impl Behavior {
    /// The response and latency for a call with these arguments: the first matching rule, else the default.
    pub fn respond(&self, arguments: &Map<String, Value>) -> (&Response, u64) {
        match self.rule_for(arguments) {
            Some(rule) => (&rule.response, rule.latency_ms.unwrap_or(self.latency_ms)),
            None => (&self.default, self.latency_ms),
        }
    }

    /// The rule that answers a call with these arguments (`None`: the default answers).
    pub fn rule_for(&self, arguments: &Map<String, Value>) -> Option<&ResponseRule> {
        self.rules
            .iter()
            .find(|rule| arguments_match(&rule.when, arguments))
    }

    /// Every response this behaviour can give, default first.
    pub fn responses(&self) -> impl Iterator<Item = &Response> {
        std::iter::once(&self.default).chain(self.rules.iter().map(|r| &r.response))
    }
}

impl Response {
    /// The structured content this response carries, if any.
    pub fn structured(&self) -> Option<&Value> {
        match self {
            Response::Text { structured, .. } => structured.as_ref(),
            Response::Structured(value) => Some(value),
            Response::Error(_) | Response::Echo => None,
        }
    }
}

/// Fills `{param}` placeholders from the arguments (strings as written, other values as compact JSON,
/// absent ones from `defaults`, else empty). `{{` and `}}` stand for literal braces.
pub fn fill_template(
    template: &str,
    arguments: &Map<String, Value>,
    defaults: &Map<String, Value>,
) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
        } else if let Some(close) = tail.find('}').filter(|_| tail.starts_with('{')) {
            let name = &tail[1..close];
            match arguments.get(name).or_else(|| defaults.get(name)) {
                Some(Value::String(s)) => out.push_str(s),
                Some(other) => out.push_str(&other.to_string()),
                None => {}
            }
            rest = &tail[close + 1..];
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The placeholder names a template uses, in order.
pub fn template_placeholders(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        let tail = &rest[open..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            rest = &tail[2..];
        } else if let Some(close) = tail.find('}').filter(|_| tail.starts_with('{')) {
            names.push(&tail[1..close]);
            rest = &tail[close + 1..];
        } else {
            rest = &tail[1..];
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn templates_fill_from_arguments_then_defaults() {
        let args = object(json!({"city": "Paris", "days": 3}));
        let defaults = object(json!({"units": "metric"}));
        assert_eq!(
            fill_template("{city} in {days} days ({units}){missing}", &args, &defaults),
            "Paris in 3 days (metric)"
        );
        assert_eq!(
            fill_template("{{literal}} {city}", &args, &defaults),
            "{literal} Paris"
        );
        assert_eq!(template_placeholders("{a} {{b}} {c}"), vec!["a", "c"]);
    }

    #[test]
    fn first_matching_rule_answers() {
        let behavior = Behavior {
            default: Response::Text {
                template: "ok".into(),
                structured: None,
            },
            latency_ms: 5,
            rules: vec![ResponseRule {
                when: [(
                    "city".to_string(),
                    ArgMatcher::parse(&json!(["Atlantis"])).unwrap(),
                )]
                .into(),
                response: Response::Error("unknown city".into()),
                latency_ms: Some(1),
            }],
        };
        assert_eq!(
            behavior.respond(&object(json!({"city": "Atlantis"}))),
            (&Response::Error("unknown city".into()), 1)
        );
        assert_eq!(behavior.respond(&object(json!({"city": "Paris"}))).1, 5);
    }
}
