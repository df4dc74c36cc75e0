//! Allowing a rule, as clippy's `allow` and eslint's disable comments do: for a whole toolset
//! (`"optional-without-default"`) or for one tool (`"resolve-library-id:name-not-verb-first"`).
//! Allowances come from the toolset file's `lint.allow`, the workspace's `mcpick.toml` and
//! `mcpick lint --allow`; this module parses them and sets the findings they cover apart, so the
//! output can count what was allowed instead of hiding it.

use super::{Finding, Rule};

/// One allowance: a rule allowed for every tool of a toolset, or for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// `None`: every tool, and the toolset-wide findings.
    pub tool: Option<String>,
    pub rule: Rule,
}

impl Allowance {
    /// Reads `RULE` or `TOOL:RULE` (split at the last `:`, since no rule id has one).
    pub fn parse(text: &str) -> Result<Allowance, String> {
        let text = text.trim();
        let (tool, rule_id) = match text.rsplit_once(':') {
            Some((tool, rule)) if !tool.is_empty() => (Some(tool.to_string()), rule),
            Some((_, rule)) => (None, rule),
            None => (None, text),
        };
        let rule = Rule::by_id(rule_id).ok_or_else(|| {
            let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
            format!(
                "{rule_id:?} is not a lint rule (in {text:?}); the rules are: {}",
                ids.join(", ")
            )
        })?;
        Ok(Allowance { tool, rule })
    }

    /// Whether this allowance silences a finding. A pair finding (similar descriptions) is
    /// allowed for either of its tools.
    pub fn covers(&self, finding: &Finding) -> bool {
        if self.rule.id() != finding.rule {
            return false;
        }
        match &self.tool {
            None => true,
            Some(tool) => {
                finding.tool.as_ref() == Some(tool) || finding.other_tool.as_ref() == Some(tool)
            }
        }
    }
}

impl std::fmt::Display for Allowance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.tool {
            Some(tool) => write!(f, "{tool}:{}", self.rule.id()),
            None => write!(f, "{}", self.rule.id()),
        }
    }
}

/// Findings split by whether an allowance covers them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Linted {
    /// What is reported, and what `--fail-on` weighs.
    pub findings: Vec<Finding>,
    /// What an allowance covers: counted in the output, not listed.
    pub allowed: Vec<Finding>,
}

/// Sets apart the findings an allowance covers, keeping the order of both.
pub fn apply_allowances(findings: Vec<Finding>, allowances: &[Allowance]) -> Linted {
    let (allowed, findings) = findings
        .into_iter()
        .partition(|finding| allowances.iter().any(|a| a.covers(finding)));
    Linted { findings, allowed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::LintSeverity;

    fn finding(tool: Option<&str>, rule: Rule) -> Finding {
        Finding {
            tool: tool.map(str::to_string),
            other_tool: None,
            rule: rule.id(),
            severity: LintSeverity::Warning,
            message: String::new(),
            suggestion: String::new(),
            source: rule.source(),
        }
    }

    #[test]
    fn an_allowance_names_a_rule_and_perhaps_a_tool() {
        assert_eq!(
            Allowance::parse("short-description"),
            Ok(Allowance {
                tool: None,
                rule: Rule::ShortDescription
            })
        );
        assert_eq!(
            Allowance::parse("resolve-library-id:name-not-verb-first"),
            Ok(Allowance {
                tool: Some("resolve-library-id".into()),
                rule: Rule::NameNotVerbFirst
            })
        );
        let error = Allowance::parse("get_weather:not-a-rule").unwrap_err();
        assert!(
            error.contains("\"not-a-rule\" is not a lint rule"),
            "{error}"
        );
        assert!(error.contains("short-description"), "{error}");
    }

    #[test]
    fn a_tool_allowance_covers_only_that_tool_and_a_rule_allowance_every_one() {
        let findings = vec![
            finding(Some("a"), Rule::ShortDescription),
            finding(Some("b"), Rule::ShortDescription),
            finding(Some("b"), Rule::NameNotVerbFirst),
            finding(None, Rule::TooManyTools),
        ];
        let by_tool = apply_allowances(
            findings.clone(),
            &[Allowance::parse("b:short-description").unwrap_or_else(|e| panic!("{e}"))],
        );
        assert_eq!(by_tool.allowed, vec![findings[1].clone()]);
        assert_eq!(by_tool.findings.len(), 3);
        let by_rule = apply_allowances(
            findings.clone(),
            &[
                Allowance::parse("short-description").unwrap_or_else(|e| panic!("{e}")),
                Allowance::parse("too-many-tools").unwrap_or_else(|e| panic!("{e}")),
            ],
        );
        assert_eq!(by_rule.findings, vec![findings[2].clone()]);
        assert_eq!(by_rule.allowed.len(), 3);
    }

    #[test]
    fn a_pair_is_allowed_through_either_tool() {
        let mut pair = finding(Some("a"), Rule::SimilarDescriptions);
        pair.other_tool = Some("b".into());
        let allowance =
            Allowance::parse("b:similar-descriptions").unwrap_or_else(|e| panic!("{e}"));
        assert!(allowance.covers(&pair));
    }
}
