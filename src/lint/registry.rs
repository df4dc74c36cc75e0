//! A toolset imported from a registry `server.json` (`imported.registry`) is checked against what
//! the registry will show of it: the `description` must be 1 to 100 characters (the registry
//! refuses a longer one), and each word it uses to say what the server does should be found in
//! some tool — a description promising "weather forecasts" for a server whose tools only geocode
//! is what a person choosing servers in a registry trips on.

use super::{Finding, LintSeverity, Rule, push};
use crate::model::Toolset;

/// The registry's limit on a server's description, in characters.
pub const REGISTRY_DESCRIPTION_LIMIT: usize = 100;

/// Words every server description may use without a tool to back them.
const GENERIC_WORDS: &[&str] = &[
    "mcp",
    "server",
    "servers",
    "model",
    "context",
    "protocol",
    "tool",
    "tools",
    "provides",
    "provide",
    "providing",
    "access",
    "for",
    "the",
    "and",
    "with",
    "via",
    "using",
    "use",
    "your",
    "you",
    "that",
    "this",
    "from",
    "into",
    "its",
    "their",
    "our",
    "official",
    "simple",
    "fast",
    "easy",
    "powerful",
    "support",
    "supports",
    "integration",
    "integrates",
    "allows",
    "lets",
    "enables",
    "agents",
    "agent",
    "llm",
    "llms",
    "client",
    "clients",
    "based",
    "other",
    "more",
    "all",
    "any",
    "various",
    "capabilities",
    "functionality",
    "features",
    "operations",
    // Qualities, not capabilities: no tool is expected to name them.
    "secure",
    "safe",
    "reliable",
    "robust",
    "lightweight",
    "efficient",
    "seamless",
    "comprehensive",
    "advanced",
    "modern",
    "open",
    "source",
    "free",
    "full",
    "complete",
    "smart",
];

pub(super) fn lint_registry(toolset: &Toolset, findings: &mut Vec<Finding>) {
    let Some(registry) = &toolset.registry else {
        return;
    };
    let description = registry.description.as_deref().unwrap_or("").trim();
    let length = description.chars().count();
    if length == 0 || length > REGISTRY_DESCRIPTION_LIMIT {
        push(
            findings,
            None,
            Rule::RegistryDescription,
            LintSeverity::Error,
            format!(
                "the registry entry {}'s description has {length} characters; the registry takes 1 to {REGISTRY_DESCRIPTION_LIMIT}",
                registry.name
            ),
            "say what the server does in one line of at most 100 characters; the detail belongs in the tools' descriptions".into(),
        );
    }
    let unbacked = unbacked_words(description, toolset);
    if !unbacked.is_empty() {
        push(
            findings,
            None,
            Rule::RegistryPromise,
            LintSeverity::Warning,
            format!(
                "the registry description says {} but no tool's name, title, description or parameters mention {}",
                unbacked
                    .iter()
                    .map(|w| format!("{w:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if unbacked.len() == 1 { "it" } else { "them" }
            ),
            "describe the server by what its tools do, or say it in the tool that does it".into(),
        );
    }
}

/// The description's content words that appear in no tool (a word counts as found when a tool
/// word starts with it or it starts with a tool word of four letters or more, or, six letters or
/// more, it occurs in the tools' text with the spaces taken out: "filesystem" in "file system").
fn unbacked_words(description: &str, toolset: &Toolset) -> Vec<String> {
    let mut text = String::new();
    for tool in &toolset.tools {
        for part in [
            Some(tool.name.as_str()),
            tool.title.as_deref(),
            tool.description.as_deref(),
        ]
        .into_iter()
        .flatten()
        {
            text.push_str(part);
            text.push(' ');
        }
        if let Some(properties) = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
        {
            for (name, property) in properties {
                text.push_str(name);
                text.push(' ');
                if let Some(d) = property.get("description").and_then(|d| d.as_str()) {
                    text.push_str(d);
                    text.push(' ');
                }
            }
        }
    }
    let text = text.to_lowercase();
    let joined: String = text.chars().filter(|c| c.is_alphanumeric()).collect();
    let tool_words: Vec<&str> = words(&text).collect();
    let mut unbacked: Vec<String> = Vec::new();
    for word in words(&description.to_lowercase()) {
        if word.chars().count() < 3
            || GENERIC_WORDS.contains(&word)
            || word.chars().all(|c| c.is_ascii_digit())
        {
            continue;
        }
        // The spaceless match is for compounds ("filesystem", "codebase"): a short word would
        // match by accident across words and tools ("git" in "digits").
        let found = (word.chars().count() >= 6 && joined.contains(word))
            || tool_words
                .iter()
                .any(|t| t.starts_with(word) || (t.chars().count() >= 4 && word.starts_with(t)));
        if !found && !unbacked.iter().any(|w| w == word) {
            unbacked.push(word.to_string());
        }
    }
    unbacked
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RegistryListing;

    fn toolset(description: &str, tools: &[(&str, &str)]) -> Toolset {
        Toolset {
            name: "t".into(),
            description: None,
            instructions: None,
            source: "t.json".into(),
            variant: None,
            tools: tools
                .iter()
                .map(|(name, text)| {
                    crate::model::Tool::in_code(
                        name,
                        text.to_string(),
                        serde_json::json!({"type": "object"}),
                    )
                })
                .collect(),
            lint_allow: Vec::new(),
            registry: Some(RegistryListing {
                name: "io.github.me/weather".into(),
                version: Some("1.0.0".into()),
                description: Some(description.into()),
            }),
        }
    }

    fn rules(toolset: &Toolset) -> Vec<(&'static str, String)> {
        let mut findings = Vec::new();
        lint_registry(toolset, &mut findings);
        findings.into_iter().map(|f| (f.rule, f.message)).collect()
    }

    #[test]
    fn a_description_the_tools_back_passes() {
        let tools = [
            ("get_forecast", "Get the weather forecast for a city."),
            ("list_alerts", "List active weather alerts in a region."),
        ];
        assert!(
            rules(&toolset(
                "MCP server for weather forecasts and alerts",
                &tools
            ))
            .is_empty()
        );
        let files = [("read_file", "Read a file from the file system.")];
        // ...while a short word is not found inside another ("git" in "digits").
        let digits = [("count_digits", "Count the digits of a number.")];
        let found = rules(&toolset("Git history", &digits));
        assert!(
            found.len() == 1 && found[0].1.contains("\"git\""),
            "{found:?}"
        );
        let found = rules(&toolset("Secure filesystem access", &files));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_long_description_and_an_unbacked_promise_are_found() {
        let tools = [("geocode", "Turn a place name into coordinates.")];
        let found = rules(&toolset("Weather forecasts for any place", &tools));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "registry-promise");
        assert!(
            found[0].1.contains("\"weather\"") && found[0].1.contains("\"forecasts\""),
            "{}",
            found[0].1
        );
        assert!(!found[0].1.contains("\"place\""), "{}", found[0].1);
        let long = "Turn place names into coordinates ".repeat(4);
        let found = rules(&toolset(&long, &tools));
        assert_eq!(found[0].0, "registry-description");
        assert!(found[0].1.contains("135 characters"), "{}", found[0].1);
        assert_eq!(rules(&toolset("", &tools))[0].0, "registry-description");
    }
}
