//! The checks a candidate passes before any trial is spent on it: the lint finds no error on the
//! reworded tool, the text keeps within a length budget, it neither promotes the tool nor
//! instructs the model in any of the languages `promotion` reads ("always use this tool", "best",
//! "usa siempre", "ignore all previous instructions"), it holds no control or bidirectional
//! characters, it names only parameters the tool has, and it says something new. Each failed
//! check is one reason, in words. Pure.

use super::promotion::promotion;
use super::wording::{Candidate, Wording, apply};
use crate::lint::{LintSeverity, lint};
use crate::model::Toolset;
use std::collections::BTreeMap;

/// The most characters a tool description may have.
pub const DESCRIPTION_BUDGET: usize = 600;
/// The most characters a parameter description may have.
pub const PARAMETER_BUDGET: usize = 240;

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
            reasons.push(format!(
                "{} has no parameter {:?}",
                tool.name,
                crate::untrusted_text::shown(param, 80)
            ));
        }
        let length = text.chars().count();
        if length > PARAMETER_BUDGET {
            reasons.push(format!(
                "parameter {:?}'s description is {length} characters, over the budget of {PARAMETER_BUDGET}",
                crate::untrusted_text::shown(param, 80)
            ));
        }
    }
    if !reasons.is_empty() {
        // Over its budget or naming parameters the tool lacks, it is turned away already; the
        // checks that read every word are not spent on what may be megabytes.
        return reasons;
    }
    let texts = || {
        std::iter::once(wording.description.as_str())
            .chain(wording.params.values().map(String::as_str))
    };
    let mut promoted: Vec<String> = Vec::new();
    for phrase in texts().flat_map(promotion) {
        if !promoted.contains(&phrase) {
            promoted.push(phrase);
        }
    }
    if !promoted.is_empty() {
        reasons.push(format!(
            "it promotes the tool or instructs the model: {}",
            quoted(&promoted)
        ));
    }
    let hidden: Vec<char> = texts()
        .flat_map(crate::untrusted_text::hidden_characters)
        .collect();
    if !hidden.is_empty() {
        reasons.push(format!(
            "it holds control or bidirectional characters ({})",
            hidden
                .iter()
                .take(5)
                .map(|c| format!("U+{:04X}", *c as u32))
                .collect::<Vec<_>>()
                .join(", ")
        ));
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

fn quoted(phrases: &[String]) -> String {
    phrases
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every proposal screened, in order, each against the toolset and the ones before it; a wording
/// turned away keeps only an excerpt, so the journal and IMPROVE.md hold a bounded copy however
/// much the rewriter wrote.
pub fn screen_all(proposed: Vec<Candidate>, toolset: &Toolset) -> Vec<Candidate> {
    let mut screened: Vec<Candidate> = Vec::new();
    for mut candidate in proposed {
        candidate.rejected = screen(&candidate, toolset, &screened);
        if !candidate.rejected.is_empty() {
            candidate.wording = candidate.wording.excerpt();
        }
        screened.push(candidate);
    }
    screened
}
