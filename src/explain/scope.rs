//! What one explanation covers: the tool (named, or the one a run of the suite shows most confused:
//! `most_confused`), its neighbours — the tools that trade picks with it in that run
//! (`trading_partners`), then those whose descriptions read most like its own (TF-IDF similarity
//! over the one document a tool is found by, as the lint's check of confusable descriptions uses)
//! — and the tasks a change to any of their wordings can move,
//! grouped by what they expect: each tool's own tasks (those whose acceptable first pick is it), and
//! the suite's no-call tasks (where a description that draws picks shows as false calls).

use crate::model::{Expectation, Suite, Toolset};
use crate::ranking::{similar_pairs, terms, tool_document};
use crate::record::StoredTrial;
use std::collections::BTreeMap;

/// The label of the no-call group.
pub const NO_CALL: &str = "no-call";

/// The `k` tools of `toolset` most like `tool`, most alike first (none when `tool` is not there).
pub fn similar_tools(toolset: &Toolset, tool: &str, k: usize) -> Vec<String> {
    let Some(at) = toolset.tools.iter().position(|t| t.name == tool) else {
        return Vec::new();
    };
    let documents: Vec<Vec<String>> = toolset
        .tools
        .iter()
        .map(|t| terms(&tool_document(t)))
        .collect();
    let mut partners: Vec<(usize, f64)> = similar_pairs(&documents, 0.0)
        .into_iter()
        .filter_map(|(i, j, similarity)| match (i == at, j == at) {
            (true, _) => Some((j, similarity)),
            (_, true) => Some((i, similarity)),
            _ => None,
        })
        .filter(|(_, similarity)| *similarity > 0.0)
        .collect();
    partners.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    partners
        .into_iter()
        .take(k)
        .map(|(index, _)| toolset.tools[index].name.clone())
        .collect()
}

/// Each wrong first pick of a tool in `trials`: (the tool expected, the tool picked).
fn wrong_picks(trials: &[StoredTrial]) -> impl Iterator<Item = (String, String)> + '_ {
    trials
        .iter()
        .filter(|t| t.scored() && !t.right_pick())
        .filter_map(|t| {
            let picked = t.verdict.first_tool.clone()?;
            let expected = t.acceptable_actions().into_iter().next()?;
            Some((expected, picked))
        })
}

/// The tool of `candidates` that loses and takes the most picks in `trials` (the earliest in
/// `candidates` on a tie); none when no first pick went to a wrong tool.
pub fn most_confused(trials: &[StoredTrial], candidates: &[String]) -> Option<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (expected, picked) in wrong_picks(trials) {
        *counts.entry(expected).or_default() += 1;
        *counts.entry(picked).or_default() += 1;
    }
    let mut best: Option<(&String, usize)> = None;
    for tool in candidates {
        let count = counts.get(tool).copied().unwrap_or(0);
        if count > 0 && best.is_none_or(|(_, c)| count > c) {
            best = Some((tool, count));
        }
    }
    best.map(|(tool, _)| tool.clone())
}

/// The tools that trade picks with `tool` in `trials` (picked on its tasks, or it picked on
/// theirs), most first, then by name.
pub fn trading_partners(trials: &[StoredTrial], tool: &str) -> Vec<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (expected, picked) in wrong_picks(trials) {
        if expected == tool {
            *counts.entry(picked).or_default() += 1;
        } else if picked == tool {
            *counts.entry(expected).or_default() += 1;
        }
    }
    let mut partners: Vec<(String, usize)> = counts.into_iter().collect();
    partners.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    partners.into_iter().map(|(tool, _)| tool).collect()
}

/// The tasks of `suite` each of `tools` (and no-call) can be moved on: per tool, the tasks whose
/// acceptable first pick includes it; then the no-call tasks. Groups without a task are left out.
pub fn task_groups(suite: &Suite, tools: &[String]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = tools
        .iter()
        .map(|tool| {
            let tasks = suite
                .tasks
                .iter()
                .filter(|t| t.expectation.first_pick_tools().contains(&tool.as_str()))
                .map(|t| t.id.clone())
                .collect();
            (tool.clone(), tasks)
        })
        .collect();
    groups.push((
        NO_CALL.to_string(),
        suite
            .tasks
            .iter()
            .filter(|t| matches!(t.expectation, Expectation::NoCall))
            .map(|t| t.id.clone())
            .collect(),
    ));
    groups.retain(|(_, tasks)| !tasks.is_empty());
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Workspace;
    use std::path::PathBuf;

    fn travel() -> Workspace {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        Workspace::load(&[
            root.join("toolsets/travel.toml"),
            root.join("tasks/travel.toml"),
        ])
    }

    #[test]
    fn the_weather_tools_are_each_others_neighbours() {
        let workspace = travel();
        let toolset = workspace.toolset("travel").unwrap();
        let near = similar_tools(toolset, "get_weather", 3);
        assert_eq!(near.len(), 3);
        assert!(
            near.contains(&"get_weather_forecast".to_string()),
            "{near:?}"
        );
        assert!(similar_tools(toolset, "no_such_tool", 3).is_empty());
    }

    #[test]
    fn tasks_are_grouped_by_the_tool_they_expect_and_no_call() {
        let workspace = travel();
        let suite = &workspace.suites[0];
        let groups = task_groups(
            suite,
            &["get_weather".into(), "get_weather_forecast".into()],
        );
        let names: Vec<&str> = groups.iter().map(|(on, _)| on.as_str()).collect();
        assert_eq!(names, ["get_weather", "get_weather_forecast", NO_CALL]);
        assert!(groups.iter().all(|(_, tasks)| !tasks.is_empty()));
        let no_call = &groups[2].1;
        assert!(no_call.iter().all(|id| {
            suite
                .tasks
                .iter()
                .any(|t| &t.id == id && matches!(t.expectation, Expectation::NoCall))
        }));
    }
}
