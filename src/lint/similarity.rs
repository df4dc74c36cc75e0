//! Pairs of tools described so alike (TF-IDF cosine of name and description) that a model will
//! confuse them: what the lint reports, and what `draft --pairs` and `improve` aim at. The text
//! several tools repeat (`boilerplate`) is cut before comparing: it says nothing that tells two
//! tools apart, and pairs every tool that carries it.

use super::boilerplate::distinct_descriptions;
use super::{Finding, LintSeverity, Rule, push};
use crate::model::Toolset;
use crate::ranking::{similar_pairs, terms};

/// Descriptions whose TF-IDF cosine similarity reaches this are reported as a confusable pair.
pub const SIMILARITY_THRESHOLD: f64 = 0.5;

/// The pairs of tools (by position) whose names and descriptions read alike, most alike first:
/// what the lint reports as confusable, and what `mcpick draft --pairs` writes contrasting requests
/// for.
pub fn similar_description_pairs(toolset: &Toolset) -> Vec<(usize, usize, f64)> {
    let documents: Vec<Vec<String>> = toolset
        .tools
        .iter()
        .zip(distinct_descriptions(toolset))
        .map(|(t, description)| {
            terms(&format!(
                "{} {description}",
                t.name.replace(['_', '-', '.'], " "),
            ))
        })
        .collect();
    similar_pairs(&documents, SIMILARITY_THRESHOLD)
}

pub(super) fn lint_similar_descriptions(toolset: &Toolset, findings: &mut Vec<Finding>) {
    for (i, j, similarity) in similar_description_pairs(toolset) {
        let (a, b) = (&toolset.tools[i].name, &toolset.tools[j].name);
        push(
            findings,
            Some(a),
            Rule::SimilarDescriptions,
            LintSeverity::Warning,
            format!(
                "{a:?} and {b:?} are described alike (TF-IDF cosine {similarity:.2}); models will confuse them"
            ),
            format!(
                "say in each when to use it rather than the other (time range, scope, input), e.g. \"{a}: … Not for …; use {b} for …\""
            ),
        );
        if let Some(pair) = findings.last_mut() {
            pair.other_tool = Some(b.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ranking::{similar_pairs, terms};

    #[test]
    fn similar_documents_pair_up_and_different_ones_do_not() {
        let docs: Vec<Vec<String>> = [
            "get weather current weather conditions for a city",
            "get weather forecast weather conditions for a city for the next days",
            "send email to a recipient with subject and body",
        ]
        .iter()
        .map(|t| terms(t))
        .collect();
        let pairs = similar_pairs(&docs, 0.5);
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
    }
}
