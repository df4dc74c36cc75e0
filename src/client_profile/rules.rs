//! The rules a profile's fields make: the name a tool is shown under (template, the server part's
//! characters, the length and character limits and what breaking them does), the cap on tools
//! shown, and whether a trial's tools are deferred behind the profile's search — by the
//! definitions' estimated tokens or their count. A field written `"unknown"` applies nothing.

use super::{ClientProfile, DeferWhen, Limit, PastCap, PastLimit, ServerName};
use crate::tool_exposure::Exposure;

/// A set of characters written as ranges and single characters (`A-Za-z0-9_-`; a `-` at either end
/// is itself), or `any`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CharacterSet {
    Any,
    Ranges(Vec<(char, char)>),
}

impl CharacterSet {
    pub(super) fn parse(text: &str) -> Result<CharacterSet, String> {
        if text == "any" {
            return Ok(CharacterSet::Any);
        }
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() {
            return Err("an empty character set".into());
        }
        let mut ranges = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if i + 2 < chars.len() && chars[i + 1] == '-' {
                if chars[i] > chars[i + 2] {
                    return Err(format!("character set {text:?}: a range runs backwards"));
                }
                ranges.push((chars[i], chars[i + 2]));
                i += 3;
            } else {
                ranges.push((chars[i], chars[i]));
                i += 1;
            }
        }
        Ok(CharacterSet::Ranges(ranges))
    }

    fn allows(&self, c: char) -> bool {
        match self {
            CharacterSet::Any => true,
            CharacterSet::Ranges(ranges) => ranges.iter().any(|&(a, b)| (a..=b).contains(&c)),
        }
    }
}

/// The name a tool is shown under, or why it is not shown.
#[derive(Debug, Clone, PartialEq)]
pub enum ShownName {
    Shown(String),
    /// The client leaves this tool out (the reason).
    LeftOut(String),
    /// The client refuses the server's tools (the reason).
    Refused(String),
}

/// The cap a profile puts on tools shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CapRule {
    pub max_tools: u32,
    /// `None`: what happens past it is unknown, and nothing is applied.
    pub past_cap: Option<PastCap>,
}

impl ClientProfile {
    /// The name `tool` of the server `server` (a toolset's name) is shown under. An unknown
    /// template keeps the tool's own name; an unknown limit checks nothing.
    pub fn shown_name(&self, server: &str, tool: &str) -> ShownName {
        let server = match self.server.name.known() {
            Some(ServerName::Toolset) | None => server,
        };
        let keep = self
            .naming
            .server_characters
            .known()
            .and_then(|set| CharacterSet::parse(set).ok())
            .unwrap_or(CharacterSet::Any);
        let server: String = server
            .chars()
            .map(|c| if keep.allows(c) { c } else { '_' })
            .collect();
        let name = match self.naming.template.known() {
            Some(template) => template
                .replace("{server}", &server)
                .replace("{tool}", tool),
            None => tool.to_string(),
        };
        let too_long = match self.naming.max_length.known() {
            Some(Limit::At(most)) => name.chars().count() > *most as usize,
            _ => false,
        };
        let allowed = self
            .naming
            .name_characters
            .known()
            .and_then(|set| CharacterSet::parse(set).ok());
        let bad_char = allowed.and_then(|set| name.chars().find(|&c| !set.allows(c)));
        let why = match (too_long, bad_char) {
            (true, _) => format!(
                "{name:?} is longer than {} characters",
                match self.naming.max_length.known() {
                    Some(Limit::At(most)) => *most,
                    _ => 0,
                }
            ),
            (false, Some(c)) => format!("{name:?} holds {c:?}, which {} does not allow", self.name),
            (false, None) => return ShownName::Shown(name),
        };
        match self.naming.past_limit.known() {
            Some(PastLimit::LeaveOut) => ShownName::LeftOut(why),
            Some(PastLimit::Refuse) => ShownName::Refused(why),
            None => ShownName::Shown(name),
        }
    }

    /// The cap on tools shown, if the profile knows one.
    pub fn cap(&self) -> Option<CapRule> {
        match self.cap.max_tools.known() {
            Some(Limit::At(most)) => Some(CapRule {
                max_tools: *most,
                past_cap: self.cap.past_cap.known().copied(),
            }),
            _ => None,
        }
    }

    /// The estimated tokens of tool definitions past which the profile defers (share-of-context).
    pub fn token_threshold(&self) -> Option<u64> {
        match (self.deferral.when.known(), self.deferral.share) {
            (Some(DeferWhen::ShareOfContext), Some(share)) => self
                .deferral
                .context_window
                .map(|window| (window as f64 * share).round() as u64),
            _ => None,
        }
    }

    /// The exposure a trial showing `tools` tools of `tokens` estimated definition tokens gets
    /// from the client, when the client defers them (`None`: shown as they are).
    pub fn deferred_exposure(&self, tools: usize, tokens: u64) -> Option<Exposure> {
        let exposure = Exposure::parse(self.deferral.exposure.known()?).ok()?;
        let defers = match self.deferral.when.known()? {
            DeferWhen::Never => false,
            DeferWhen::Always => true,
            DeferWhen::ShareOfContext => self.token_threshold().is_some_and(|most| tokens > most),
            DeferWhen::ToolCount => self
                .deferral
                .tool_count
                .is_some_and(|most| tools > most as usize),
        };
        (defers && exposure != Exposure::Flat).then_some(exposure)
    }

    /// The rule as a sentence, for notices and reports: what defers, into what.
    pub fn deferral_rule(&self) -> String {
        let exposure = self
            .deferral
            .exposure
            .known()
            .map_or("unknown", String::as_str);
        match self.deferral.when.known() {
            None => "unknown (nothing is deferred)".into(),
            Some(DeferWhen::Never) => "never".into(),
            Some(DeferWhen::Always) => format!("always: every trial uses {exposure}"),
            Some(DeferWhen::ShareOfContext) => format!(
                "tool definitions over {} estimated tokens ({}% of a {}-token context) use {exposure}",
                self.token_threshold().unwrap_or(0),
                self.deferral.share.unwrap_or(0.0) * 100.0,
                self.deferral.context_window.unwrap_or(0)
            ),
            Some(DeferWhen::ToolCount) => format!(
                "more than {} tools use {exposure}",
                self.deferral.tool_count.unwrap_or(0)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::profile;
    use super::*;

    #[test]
    fn claude_code_prefixes_sanitises_the_server_and_leaves_out_long_names() {
        let code = profile("claude-code").unwrap();
        assert_eq!(
            code.shown_name("travel", "get_weather"),
            ShownName::Shown("mcp__travel__get_weather".into())
        );
        assert_eq!(
            code.shown_name("my server.v2", "get"),
            ShownName::Shown("mcp__my_server_v2__get".into())
        );
        assert!(matches!(
            code.shown_name("travel", &"x".repeat(130)),
            ShownName::LeftOut(_)
        ));
    }

    #[test]
    fn claude_desktop_refuses_a_name_it_cannot_take_and_keeps_unknown_naming() {
        let desktop = profile("claude-desktop").unwrap();
        assert_eq!(
            desktop.shown_name("travel", "get_weather"),
            ShownName::Shown("get_weather".into())
        );
        assert!(matches!(
            desktop.shown_name("travel", "graph.list"),
            ShownName::Refused(_)
        ));
        assert!(matches!(
            desktop.shown_name("travel", &"x".repeat(65)),
            ShownName::Refused(_)
        ));
    }

    #[test]
    fn deferral_by_tokens_by_count_always_and_never() {
        let code = profile("claude-code").unwrap();
        assert_eq!(code.token_threshold(), Some(20_000));
        assert_eq!(code.deferred_exposure(100, 20_000), None);
        assert_eq!(
            code.deferred_exposure(100, 20_001).map(Exposure::label),
            Some("search-tool:bm25:5".into())
        );
        let vscode = profile("vscode").unwrap();
        assert_eq!(vscode.deferred_exposure(128, 1_000_000), None);
        assert!(vscode.deferred_exposure(129, 0).is_some());
        let openai = profile("openai-tool-search").unwrap();
        assert_eq!(openai.deferred_exposure(1, 0), Some(Exposure::NativeSearch));
        for never in ["raw", "cursor", "claude-desktop"] {
            assert_eq!(
                profile(never).unwrap().deferred_exposure(10_000, u64::MAX),
                None
            );
        }
        assert_eq!(
            profile("cursor").unwrap().cap(),
            Some(CapRule {
                max_tools: 40,
                past_cap: Some(PastCap::FirstN)
            })
        );
    }

    #[test]
    fn character_sets_read_ranges_and_literal_dashes() {
        let set = CharacterSet::parse("A-Za-z0-9_-").unwrap();
        assert!(set.allows('q') && set.allows('-') && set.allows('_') && !set.allows('.'));
        assert!(CharacterSet::parse("z-a").is_err());
        assert!(CharacterSet::parse("").is_err());
    }
}
