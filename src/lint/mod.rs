//! Description lints: what the source chapter (shared/seed, chapter 5 of a book on MCP) says makes a
//! tool easy or hard for a model to pick — its six design principles (§5.11) and seven anti-patterns
//! (§5.10) — turned into checks over one toolset, and a tool whose description marks it deprecated
//! (`deprecated`). Each finding names the tool, the rule, where in the chapter it comes from (in
//! English; the chapter's own words in Chinese are the rule's `passage`, for who asks) and a
//! concrete fix. Pure: takes a `Toolset` (and allowances), returns findings, does no I/O.
//!
//! This file holds the finding, the order the checks run in and the description and tool-count
//! checks; `rules` the rules, `names` (with `verbs`, the WordNet verb list) the name checks,
//! `parameters`, `annotations`, `deprecated`, `boilerplate` and `similarity` the others,
//! `registry` the checks of a toolset imported from a registry `server.json` against its entry,
//! and `allow` the allowances that set findings apart.

mod allow;
mod annotations;
mod boilerplate;
mod deprecated;
mod names;
mod parameters;
mod registry;
mod rules;
mod similarity;
mod verbs;

pub use allow::{Allowance, Linted, apply_allowances};
pub use boilerplate::{Boilerplate, boilerplate};
pub use names::{is_action_verb, name_tokens, namespace};
pub use rules::Rule;
pub use similarity::{SIMILARITY_THRESHOLD, similar_description_pairs};

use crate::model::{Tool, Toolset};
use crate::ranking::is_cjk;
use serde::Serialize;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LintSeverity {
    Info,
    Warning,
    Error,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The tool (or first tool of a pair); `None` for toolset-wide findings.
    pub tool: Option<String>,
    /// The second tool of a pair (similar descriptions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_tool: Option<String>,
    pub rule: &'static str,
    pub severity: LintSeverity,
    pub message: String,
    pub suggestion: String,
    pub source: &'static str,
}

/// Lints a toolset; findings are ordered by tool position, then rule; toolset-wide ones last.
/// Every finding, allowed or not: `lint_allowing` sets the allowed ones apart.
pub fn lint(toolset: &Toolset) -> Vec<Finding> {
    let namespace = namespace(toolset);
    let mut findings = Vec::new();
    for tool in &toolset.tools {
        lint_description(tool, &mut findings);
        names::lint_name(tool, &namespace, &mut findings);
        parameters::lint_parameters(tool, &mut findings);
        annotations::lint_annotations(tool, &namespace, &mut findings);
    }
    deprecated::lint_deprecated(toolset, &mut findings);
    lint_tool_count(toolset, &mut findings);
    boilerplate::lint_boilerplate(toolset, &mut findings);
    similarity::lint_similar_descriptions(toolset, &mut findings);
    registry::lint_registry(toolset, &mut findings);
    findings
}

/// Lints a toolset with what its own file allows (`lint.allow`) and the `extra` allowances (the
/// workspace's and the command line's) set apart. The toolset's own entries were checked when it
/// was loaded; one that does not parse is skipped here.
pub fn lint_allowing(toolset: &Toolset, extra: &[Allowance]) -> Linted {
    let mut allowances: Vec<Allowance> = toolset
        .lint_allow
        .iter()
        .filter_map(|text| Allowance::parse(text).ok())
        .collect();
    allowances.extend_from_slice(extra);
    apply_allowances(lint(toolset), &allowances)
}

fn push(
    findings: &mut Vec<Finding>,
    tool: Option<&str>,
    rule: Rule,
    severity: LintSeverity,
    message: String,
    suggestion: String,
) {
    findings.push(Finding {
        tool: tool.map(str::to_string),
        other_tool: None,
        rule: rule.id(),
        severity,
        message,
        suggestion,
        source: rule.source(),
    });
}

/// Words in a text: Latin words count one each; CJK characters about half a word each (two per word).
fn text_weight(text: &str) -> f64 {
    let cjk = text.chars().filter(|c| is_cjk(*c)).count();
    let latin_words = text
        .split(|c: char| !c.is_alphanumeric() || is_cjk(c))
        .filter(|w| !w.is_empty())
        .count();
    latin_words as f64 + cjk as f64 / 2.0
}

/// Descriptions shorter than this many words rarely say what, when, limits and formats.
const SHORT_DESCRIPTION_WORDS: f64 = 8.0;

fn lint_description(tool: &Tool, findings: &mut Vec<Finding>) {
    let name = Some(tool.name.as_str());
    let description = tool.description.as_deref().unwrap_or("").trim();
    if description.is_empty() {
        push(findings, name, Rule::EmptyDescription, LintSeverity::Error, "the tool has no description; a model has only its name to go on".into(),
            "write what it does, when to use it rather than its neighbours, its limits, and its argument formats".into());
        return;
    }
    let weight = text_weight(description);
    if weight < SHORT_DESCRIPTION_WORDS {
        push(findings, name, Rule::ShortDescription, LintSeverity::Warning,
            format!("description {description:?} is only ~{weight:.0} word(s); too short to say what, when, limits and formats"),
            "state what it returns, when to use it (and when not: name the neighbouring tool), its scope or limits, and argument formats with an example".into());
    }
}

fn lint_tool_count(toolset: &Toolset, findings: &mut Vec<Finding>) {
    let n = toolset.tools.len();
    let severity = match n {
        0..=30 => return,
        31..=50 => LintSeverity::Warning,
        _ => LintSeverity::Error,
    };
    push(findings, None, Rule::TooManyTools, severity, format!("the toolset exposes {n} tools; selection accuracy tends to fall past 30 and sharply past 50"),
        "merge near-duplicates into one tool with an enum parameter, split the server by domain, or expose a search tool; measure with `mcpick sweep`".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_text_is_weighed_by_characters() {
        assert!(text_weight("查询天气") < SHORT_DESCRIPTION_WORDS);
        assert!(
            text_weight(
                "查询指定城市的当前（今天）天气。不支持历史天气或未来预报。支持中国大陆、香港、台湾、海外主要城市。"
            ) >= SHORT_DESCRIPTION_WORDS
        );
        assert_eq!(text_weight("Get the weather"), 3.0);
    }
}
