//! The checks a candidate passes before any trial is spent on it: the lint finds no error on the
//! reworded tool, the text keeps within a length budget, it promotes nothing ("always use this
//! tool", "best", "must be used" — wording that wins picks by pulling them from neighbours, which
//! the graded A/B's pull check then also looks for in the trials), it names only parameters the
//! tool has, and it says something new. Each failed check is one reason, in words. Pure.

use super::wording::{Candidate, Wording, apply};
use crate::lint::{LintSeverity, lint};
use crate::model::Toolset;
use std::collections::BTreeMap;

/// The most characters a tool description may have.
pub const DESCRIPTION_BUDGET: usize = 600;
/// The most characters a parameter description may have.
pub const PARAMETER_BUDGET: usize = 240;

/// Phrases that promote a tool instead of describing it (matched case-insensitively, at word
/// boundaries).
const PROMOTION: &[&str] = &[
    "always use",
    "always call",
    "always choose",
    "always prefer",
    "must be used",
    "must use",
    "must call",
    "you must",
    "best",
    "the only tool",
    "use this tool first",
    "use this first",
    "preferred tool",
    "first choice",
    "most accurate",
    "most reliable",
    "top priority",
    "highest priority",
    "instead of any other",
];

/// Promotional phrases the text contains ("best-effort" and "best effort" describe, not promote).
pub fn promotion(text: &str) -> Vec<&'static str> {
    let lower = text
        .to_lowercase()
        .replace("best-effort", "")
        .replace("best effort", "");
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = format!(" {} ", words.join(" "));
    PROMOTION
        .iter()
        .copied()
        .filter(|phrase| joined.contains(&format!(" {phrase} ")))
        .collect()
}

/// Why `candidate` may not run against `toolset` (the current wording), in words; `earlier` are the
/// round's candidates already screened (a repeat of one is turned away).
pub fn screen(candidate: &Candidate, toolset: &Toolset, earlier: &[Candidate]) -> Vec<String> {
    let mut reasons = Vec::new();
    let Some(tool) = toolset.tool(&candidate.tool) else {
        return vec![format!("the toolset has no tool {:?}", candidate.tool)];
    };
    let wording = &candidate.wording;
    let length = wording.description.chars().count();
    if length > DESCRIPTION_BUDGET {
        reasons.push(format!(
            "the description is {length} characters, over the budget of {DESCRIPTION_BUDGET}"
        ));
    }
    for (param, text) in &wording.params {
        if tool.parameters().all(|(name, _)| name != param) {
            reasons.push(format!("{} has no parameter {param:?}", tool.name));
        }
        let length = text.chars().count();
        if length > PARAMETER_BUDGET {
            reasons.push(format!(
                "parameter {param:?}'s description is {length} characters, over the budget of {PARAMETER_BUDGET}"
            ));
        }
    }
    let promoted: Vec<&str> = std::iter::once(wording.description.as_str())
        .chain(wording.params.values().map(String::as_str))
        .flat_map(promotion)
        .collect();
    if !promoted.is_empty() {
        reasons.push(format!("it promotes the tool: {}", quoted(&promoted)));
    }
    let reworded = apply(
        toolset,
        &BTreeMap::from([(candidate.tool.clone(), wording.clone())]),
    );
    for finding in lint(&reworded) {
        if finding.severity == LintSeverity::Error && finding.tool.as_deref() == Some(&tool.name) {
            reasons.push(format!("lint error {}: {}", finding.rule, finding.message));
        }
    }
    let current = super::wording::wording_of(tool);
    if same_text(wording, &current) {
        reasons.push("it is the current wording".into());
    }
    if let Some(k) = earlier
        .iter()
        .position(|e| e.tool == candidate.tool && same_text(&e.wording, wording))
    {
        reasons.push(format!("it repeats candidate {}", k + 1));
    }
    reasons
}

/// Whether two wordings say the same, a parameter left out reading as unchanged.
fn same_text(a: &Wording, b: &Wording) -> bool {
    a.description.trim() == b.description.trim()
        && a.params
            .iter()
            .all(|(p, t)| b.params.get(p).is_none_or(|u| u.trim() == t.trim()))
}

fn quoted(phrases: &[&str]) -> String {
    phrases
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect::<Vec<_>>()
        .join(", ")
}
