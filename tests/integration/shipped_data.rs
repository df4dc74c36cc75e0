//! The data we ship must load cleanly and be rich enough for results on it to mean something; the
//! terse and rich variants must differ the way the linter is meant to see.

use mcpick::lint::{Finding, lint};
use mcpick::load::Workspace;
use mcpick::model::Expectation;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn shipped() -> Workspace {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    Workspace::load(&[root.join("toolsets"), root.join("tasks")])
}

#[test]
fn every_shipped_file_validates() {
    let workspace = shipped();
    let problems: Vec<String> = workspace
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .map(|d| d.to_string())
        .collect();
    assert!(
        problems.is_empty(),
        "shipped data has diagnostics:\n{}",
        problems.join("\n")
    );
    assert!(!workspace.files.is_empty());
}

#[test]
fn shipped_data_is_big_and_varied_enough() {
    let workspace = shipped();
    let counts = workspace.counts();
    assert!(counts.toolsets >= 6, "{counts:?}");
    assert!(counts.tools >= 120, "{counts:?}");
    assert!(counts.suites >= 6, "{counts:?}");
    assert!(counts.tasks >= 200, "{counts:?}");
    assert!(
        counts.no_call_tasks * 10 >= counts.tasks,
        "at least 10% no-call: {counts:?}"
    );
    assert!(counts.any_of_tasks >= 6, "{counts:?}");
    assert!(counts.multi_step_tasks >= 6, "{counts:?}");
    assert!(counts.languages.len() >= 3, "{counts:?}");
    assert!(counts.variants >= 2, "{counts:?}");
    let tasks = workspace.suites.iter().flat_map(|s| &s.tasks);
    let with_alternatives = tasks
        .flat_map(|t| t.expectation.calls())
        .flat_map(|c| c.args.values())
        .filter(|m| m.alternatives.len() > 1)
        .count();
    assert!(
        with_alternatives >= 20,
        "argument lists with several acceptable values: {with_alternatives}"
    );
    for suite in &workspace.suites {
        let no_call = suite
            .tasks
            .iter()
            .filter(|t| matches!(t.expectation, Expectation::NoCall))
            .count();
        assert!(no_call > 0, "suite {} has no no-call task", suite.name);
    }
}

fn rules_by_tool(findings: &[Finding]) -> BTreeSet<(String, &'static str)> {
    findings
        .iter()
        .map(|f| (f.tool.clone().unwrap_or_default(), f.rule))
        .collect()
}

#[test]
fn terse_descriptions_draw_findings_the_rich_ones_do_not() {
    let workspace = shipped();
    let terse = workspace
        .variant("travel-terse")
        .expect("variant travel-terse is shipped");
    let rich = workspace
        .variant("travel-rich")
        .expect("variant travel-rich is shipped");
    let (terse_findings, rich_findings) = (lint(&terse.toolset), lint(&rich.toolset));
    let only_terse: Vec<_> = rules_by_tool(&terse_findings)
        .difference(&rules_by_tool(&rich_findings))
        .cloned()
        .collect();
    assert!(
        only_terse.len() >= 10,
        "terse-only findings: {only_terse:?}"
    );
    assert!(
        only_terse
            .iter()
            .any(|(tool, rule)| tool == "get_weather" && *rule == "short-description"),
        "{only_terse:?}"
    );
    let short_in_rich: Vec<_> = rich_findings
        .iter()
        .filter(|f| f.rule == "short-description" || f.rule == "param-description-uninformative")
        .collect();
    assert!(
        short_in_rich.is_empty(),
        "the rich variant should describe everything fully: {short_in_rich:#?}"
    );
}
