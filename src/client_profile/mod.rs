//! Client profiles (`--client NAME`): how a named MCP client shows a server's tools to its model —
//! the name each tool is shown under, the cap on tools and what happens past it, and the rule that
//! defers tools behind a search — as data, one TOML file a client under `clients/`, embedded in the
//! binary. Each file names its `source` (a documentation page or an observed behaviour) and the
//! date it was `checked`; a field no source settles is written `"unknown"`, and the run applies
//! nothing for it and says so. This module owns the files' shape, their checks and the rules read
//! from them (`rules`: a shown name, the cap, the deferral); the plan applies them. It does no I/O.

mod rules;

pub use rules::{CapRule, ShownName};

use crate::tool_exposure::Exposure;
use serde::{Deserialize, Serialize};

/// The client a run names by default: the server's own tool list, as mcpick has always shown it.
pub const RAW: &str = "raw";

/// Every profile, by name, as shipped in `clients/`.
const EMBEDDED: [(&str, &str); 6] = [
    ("raw", include_str!("../../clients/raw.toml")),
    (
        "claude-code",
        include_str!("../../clients/claude-code.toml"),
    ),
    (
        "claude-desktop",
        include_str!("../../clients/claude-desktop.toml"),
    ),
    ("vscode", include_str!("../../clients/vscode.toml")),
    ("cursor", include_str!("../../clients/cursor.toml")),
    (
        "openai-tool-search",
        include_str!("../../clients/openai-tool-search.toml"),
    ),
];

/// The names `--client` takes.
pub fn names() -> Vec<&'static str> {
    EMBEDDED.iter().map(|(name, _)| *name).collect()
}

/// The profile called `name`, parsed and checked; an unknown name or a profile that does not hold
/// together is an error naming what is wrong.
pub fn profile(name: &str) -> Result<ClientProfile, String> {
    let (_, text) = EMBEDDED
        .iter()
        .find(|(known, _)| *known == name)
        .ok_or_else(|| {
            format!(
                "--client {name:?}: no such client profile (profiles: {})",
                names().join(", ")
            )
        })?;
    ClientProfile::parse(name, text)
}

/// A field's value, or `"unknown"` where no source settles it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Known<T> {
    Unknown(UnknownWord),
    Known(T),
}

impl<T> Known<T> {
    pub fn known(&self) -> Option<&T> {
        match self {
            Known::Known(value) => Some(value),
            Known::Unknown(_) => None,
        }
    }
}

/// The word `"unknown"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnknownWord {
    #[serde(rename = "unknown")]
    Unknown,
}

/// A limit: a number, or `"none"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Limit {
    NoLimit(NoneWord),
    At(u32),
}

/// The word `"none"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoneWord {
    #[serde(rename = "none")]
    None,
}

/// One client's profile, as its file under `clients/` writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientProfile {
    pub format: u32,
    pub name: String,
    pub title: String,
    /// Where each rule comes from: documentation pages, or observed behaviour with where it was seen.
    pub source: Vec<String>,
    /// When the sources were last read (YYYY-MM-DD).
    pub checked: String,
    pub naming: Naming,
    pub server: ServerNaming,
    pub cap: Cap,
    pub deferral: Deferral,
}

/// How a tool's name is shown to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Naming {
    /// The shown name, from `{server}` and `{tool}`: `mcp__{server}__{tool}`; `{tool}` alone keeps
    /// the server's name (the separator is the template's text between the two).
    pub template: Known<String>,
    /// Characters kept in the server part (`A-Za-z0-9_-`, or `any`); any other becomes `_`.
    pub server_characters: Known<String>,
    /// Characters a whole shown name may hold (`any` for every one).
    pub name_characters: Known<String>,
    /// The longest shown name, in characters.
    pub max_length: Known<Limit>,
    /// What a name too long or holding other characters does.
    pub past_limit: Known<PastLimit>,
}

/// What a client does with a tool whose shown name breaks its rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PastLimit {
    /// That tool is not shown; the others are.
    LeaveOut,
    /// The server's tools are refused (none shown): mcpick refuses the run.
    Refuse,
}

/// The server name a toolset's tools are shown under.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerNaming {
    pub name: Known<ServerName>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerName {
    /// The toolset's name (as a user would key the server in the client's configuration).
    Toolset,
}

/// The most tools the client sends, and what happens past it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cap {
    pub max_tools: Known<Limit>,
    pub past_cap: Known<PastCap>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PastCap {
    /// Only the first N tools listed are sent.
    FirstN,
    /// The client refuses the request: mcpick refuses the run.
    Refuse,
    /// The deferral rule takes over.
    Defer,
}

/// When the client defers tools behind a search, and the exposure that stands for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deferral {
    pub when: Known<DeferWhen>,
    /// For `share-of-context`: the share of the context window the definitions may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// For `share-of-context`: the context window assumed, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// For `tool-count`: the most tools shown before deferring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_count: Option<u32>,
    /// The mcpick exposure a deferred trial uses (an `--exposure` label).
    pub exposure: Known<String>,
    /// What the client's search is, and how far the exposure stands for it.
    pub shape: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeferWhen {
    Never,
    Always,
    /// The definitions' estimated tokens pass `share` of `context_window`.
    ShareOfContext,
    /// More than `tool_count` tools.
    ToolCount,
}

impl ClientProfile {
    /// Parses and checks the profile file `name` ships as.
    pub fn parse(name: &str, text: &str) -> Result<ClientProfile, String> {
        let profile: ClientProfile =
            toml::from_str(text).map_err(|e| format!("client profile {name}: {e}"))?;
        profile
            .check(name)
            .map_err(|e| format!("client profile {name}: {e}"))?;
        Ok(profile)
    }

    /// What must hold of a profile: its own name, a source and a date, a template with `{tool}`,
    /// character sets that parse, the numbers its deferral rule needs, an exposure mcpick has.
    fn check(&self, name: &str) -> Result<(), String> {
        if self.format != 1 {
            return Err(format!("format {} (this build reads 1)", self.format));
        }
        if self.name != name {
            return Err(format!("names itself {:?}", self.name));
        }
        if self.source.is_empty() || self.source.iter().any(|s| s.trim().is_empty()) {
            return Err("no source".into());
        }
        let date = self.checked.as_bytes();
        let digits = |range: std::ops::Range<usize>| date[range].iter().all(u8::is_ascii_digit);
        if date.len() != 10
            || date[4] != b'-'
            || date[7] != b'-'
            || !digits(0..4)
            || !digits(5..7)
            || !digits(8..10)
        {
            return Err(format!("checked {:?} is not YYYY-MM-DD", self.checked));
        }
        if let Some(template) = self.naming.template.known()
            && !template.contains("{tool}")
        {
            return Err(format!("naming.template {template:?} has no {{tool}}"));
        }
        for set in [&self.naming.server_characters, &self.naming.name_characters] {
            if let Some(set) = set.known() {
                rules::CharacterSet::parse(set)?;
            }
        }
        match self.deferral.when.known() {
            Some(DeferWhen::ShareOfContext) => {
                let share = self.deferral.share.unwrap_or(0.0);
                if !(share > 0.0 && share <= 1.0) || self.deferral.context_window.unwrap_or(0) == 0
                {
                    return Err(
                        "deferral share-of-context needs a share in (0, 1] and a context_window"
                            .into(),
                    );
                }
            }
            Some(DeferWhen::ToolCount) if self.deferral.tool_count.unwrap_or(0) == 0 => {
                return Err("deferral tool-count needs tool_count".into());
            }
            _ => {}
        }
        if let Some(label) = self.deferral.exposure.known() {
            Exposure::parse(label).map_err(|e| format!("deferral.exposure: {e}"))?;
        }
        if self.cap.past_cap.known() == Some(&PastCap::Defer)
            && matches!(self.deferral.when.known(), None | Some(DeferWhen::Never))
        {
            return Err("cap.past_cap is defer but the deferral rule never defers".into());
        }
        Ok(())
    }

    /// The fields no source settles, by their names in the file.
    pub fn unknown_fields(&self) -> Vec<&'static str> {
        let unknown = [
            ("naming.template", self.naming.template.known().is_none()),
            (
                "naming.server_characters",
                self.naming.server_characters.known().is_none(),
            ),
            (
                "naming.name_characters",
                self.naming.name_characters.known().is_none(),
            ),
            (
                "naming.max_length",
                self.naming.max_length.known().is_none(),
            ),
            (
                "naming.past_limit",
                self.naming.past_limit.known().is_none(),
            ),
            ("server.name", self.server.name.known().is_none()),
            ("cap.max_tools", self.cap.max_tools.known().is_none()),
            ("cap.past_cap", self.cap.past_cap.known().is_none()),
            ("deferral.when", self.deferral.when.known().is_none()),
            (
                "deferral.exposure",
                self.deferral.exposure.known().is_none(),
            ),
        ];
        unknown
            .into_iter()
            .filter(|(_, is)| *is)
            .map(|(field, _)| field)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_profile_parses_with_source_date_and_every_field_set_or_unknown() {
        for name in names() {
            let profile = profile(name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(profile.name, name);
            assert!(!profile.source.is_empty(), "{name}");
            assert_eq!(profile.checked.len(), 10, "{name}");
            // Every field is written: `deny_unknown_fields` and no defaults on the rules mean a
            // missing one fails to parse; here each says a value or "unknown", and says it again
            // when written back.
            let text = toml::to_string(&profile).unwrap();
            assert_eq!(ClientProfile::parse(name, &text).unwrap(), profile);
        }
    }

    #[test]
    fn a_profile_missing_a_field_or_with_a_bad_value_is_refused() {
        let text = EMBEDDED[1].1;
        let without_cap = text.replace("past_cap = \"defer\"", "");
        assert!(ClientProfile::parse("claude-code", &without_cap).is_err());
        let bad = text.replace(
            "exposure = \"search-tool:bm25:5\"",
            "exposure = \"grouped\"",
        );
        let error = ClientProfile::parse("claude-code", &bad).unwrap_err();
        assert!(error.contains("deferral.exposure"), "{error}");
        let undated = text.replace("checked = \"2026-12-08\"", "checked = \"recently\"");
        assert!(ClientProfile::parse("claude-code", &undated).is_err());
        assert!(profile("netscape").unwrap_err().contains("claude-code"));
    }

    #[test]
    fn unknown_fields_are_named() {
        assert!(profile("raw").unwrap().unknown_fields().is_empty());
        assert!(profile("claude-code").unwrap().unknown_fields() == ["naming.name_characters"]);
        let desktop = profile("claude-desktop").unwrap().unknown_fields();
        assert!(desktop.contains(&"naming.template") && desktop.contains(&"deferral.when"));
    }
}
