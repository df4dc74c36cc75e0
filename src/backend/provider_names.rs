//! Tool names as a provider accepts them. MCP allows names (dots, slashes, up to 128 characters) that
//! the OpenAI and Anthropic tool APIs reject (`^[a-zA-Z0-9_-]{1,64}$`), so a backend sends a
//! sanitised name and maps the model's answer back. Every rename is listed so the run records it:
//! a model that sees `files_read` instead of `files.read` was shown something different, and the
//! report must say so.

use std::collections::BTreeMap;

/// The longest name both providers accept.
const MAX_PROVIDER_NAME: usize = 64;

/// MCP name ↔ provider name, for the tools of one turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolNameMap {
    to_provider: BTreeMap<String, String>,
    to_mcp: BTreeMap<String, String>,
}

impl ToolNameMap {
    /// Builds the map for these MCP tool names; names already acceptable map to themselves.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> ToolNameMap {
        let names: Vec<&str> = names.into_iter().collect();
        let mut map = ToolNameMap::default();
        // Acceptable names are claimed first, so a sanitised name never takes a real tool's name.
        for name in names.iter().filter(|n| is_acceptable(n)) {
            map.insert(name, name.to_string());
        }
        for name in names.iter().filter(|n| !is_acceptable(n)) {
            let base = sanitise(name);
            let mut candidate = base.clone();
            let mut n = 2;
            while map.to_mcp.contains_key(&candidate) {
                let suffix = format!("_{n}");
                let keep = base.len().min(MAX_PROVIDER_NAME - suffix.len());
                candidate = format!("{}{suffix}", &base[..keep]);
                n += 1;
            }
            map.insert(name, candidate);
        }
        map
    }

    fn insert(&mut self, mcp: &str, provider: String) {
        self.to_mcp.insert(provider.clone(), mcp.to_string());
        self.to_provider.insert(mcp.to_string(), provider);
    }

    /// The name to send for an MCP tool (unknown names pass through, sanitised).
    pub fn to_provider(&self, mcp: &str) -> String {
        self.to_provider
            .get(mcp)
            .cloned()
            .unwrap_or_else(|| sanitise(mcp))
    }

    /// The MCP tool a provider name stands for; a name the model made up is kept as written, so it
    /// is scored as a hallucinated tool rather than silently mapped to something real.
    pub fn to_mcp(&self, provider: &str) -> String {
        self.to_mcp
            .get(provider)
            .cloned()
            .unwrap_or_else(|| provider.to_string())
    }

    /// The tools whose names had to change, as (MCP name, provider name).
    pub fn renamed(&self) -> Vec<(String, String)> {
        self.to_provider
            .iter()
            .filter(|(mcp, provider)| mcp != provider)
            .map(|(m, p)| (m.clone(), p.clone()))
            .collect()
    }
}

fn is_acceptable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_PROVIDER_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn sanitise(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_PROVIDER_NAME)
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptable_names_are_kept_and_others_renamed_without_collisions() {
        let map = ToolNameMap::new(["get_weather", "files.read", "files_read", "a/b"]);
        assert_eq!(map.to_provider("get_weather"), "get_weather");
        // `files_read` is a real tool, so `files.read` must not take its name.
        assert_eq!(map.to_provider("files_read"), "files_read");
        assert_eq!(map.to_provider("files.read"), "files_read_2");
        assert_eq!(map.to_mcp("files_read_2"), "files.read");
        assert_eq!(map.to_mcp("a_b"), "a/b");
        assert_eq!(
            map.renamed(),
            vec![
                ("a/b".to_string(), "a_b".to_string()),
                ("files.read".to_string(), "files_read_2".to_string())
            ]
        );
    }

    #[test]
    fn long_names_are_cut_to_64_and_made_up_names_pass_through() {
        let long = "x".repeat(100);
        let map = ToolNameMap::new([long.as_str()]);
        assert_eq!(map.to_provider(&long).len(), 64);
        assert_eq!(map.to_mcp(&"x".repeat(64)), long);
        assert_eq!(map.to_mcp("invented_tool"), "invented_tool");
    }
}
