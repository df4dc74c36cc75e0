//! The author's view as the report lays it out, first on the page: the per-tool table (each tool
//! the tasks expect, worst first, against each series: right picks with their interval, `p_right`
//! where the backend reports it, what was picked instead, a link to the failing requests) and the
//! failing requests themselves, grouped by the tool they expect. A series whose every pick was right
//! (the oracle) gets a sentence instead of columns, and series come at most `SERIES_PER_TABLE` to a
//! table, so three backends over 25 tools stay one readable table. The numbers are
//! `analysis::per_tool`'s; this only pivots, orders and caps them.

use crate::analysis::RunAnalysis;
use crate::analysis::per_tool::{FailingRequest, ToolPicks};
use crate::document::{
    Chart, FailingGroup, FailingRequestsView, FailingRow, Part, Section, ToolPicksCell,
    ToolPicksRow, ToolPicksView,
};
use std::collections::{BTreeMap, BTreeSet};

/// More series than this side by side and the table no longer fits a laptop screen; the next
/// ones get a table of their own.
const SERIES_PER_TABLE: usize = 3;
/// Failing requests listed on the page; every one is in `trials.csv` anyway.
const FAILING_SHOWN: usize = 300;
/// The row of the tasks where answering without a call is right.
pub const NO_CALL_ROW: &str = "(no call expected)";

fn tool_label(tool: &Option<String>) -> String {
    tool.clone().unwrap_or_else(|| NO_CALL_ROW.to_string())
}

/// Each expected tool with a failing request, and the anchor of its group on the page.
fn failing_anchors(requests: &[FailingRequest]) -> BTreeMap<String, String> {
    let tools: BTreeSet<String> = requests.iter().map(|r| tool_label(&r.tool)).collect();
    tools
        .into_iter()
        .enumerate()
        .map(|(i, tool)| (tool, format!("failing-{i}")))
        .collect()
}

/// The per-tool section: the tables and a sentence for each series that picked every tool right.
pub fn per_tool_section(analysis: &RunAnalysis) -> Option<Section> {
    if analysis.per_tool.is_empty() {
        return None;
    }
    let mut by_series: Vec<(&str, Vec<&ToolPicks>)> = Vec::new();
    for row in &analysis.per_tool {
        match by_series.iter_mut().find(|(s, _)| *s == row.series) {
            Some((_, rows)) => rows.push(row),
            None => by_series.push((&row.series, vec![row])),
        }
    }
    let mut parts = vec![Part::Paragraph(
        "Each tool the tasks expect, worst first: the share of its tasks whose first pick was right \
         (95% interval over tasks), p_right where the backend reports it, and what was picked \
         instead (counted in trials) — its link goes to those requests below."
            .into(),
    )];
    let (perfect, flawed): (Vec<_>, Vec<_>) = by_series
        .into_iter()
        .partition(|(_, rows)| rows.iter().all(|r| r.right.estimate >= 1.0));
    for (series, rows) in &perfect {
        let tasks: u64 = rows.iter().map(|r| r.right.trials).sum();
        parts.push(Part::Paragraph(format!(
            "{series}: every first pick right, on all {} expected tools ({tasks} tasks) — left out \
             of the table.",
            rows.len()
        )));
    }
    let anchors = failing_anchors(&analysis.failing_requests);
    for group in flawed.chunks(SERIES_PER_TABLE) {
        parts.push(Part::Chart(Chart::ToolPicks(view(group, &anchors))));
    }
    Some(Section::new("per-tool", "Per tool", parts))
}

/// One table: the tools any of these series judged, worst first.
fn view(series: &[(&str, Vec<&ToolPicks>)], anchors: &BTreeMap<String, String>) -> ToolPicksView {
    let tools: BTreeSet<String> = series
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|r| tool_label(&r.tool)))
        .collect();
    let mut rows: Vec<(f64, ToolPicksRow)> = tools
        .into_iter()
        .map(|tool| {
            let cells: Vec<Option<ToolPicksCell>> = series
                .iter()
                .map(|(_, picks)| {
                    picks
                        .iter()
                        .find(|r| tool_label(&r.tool) == tool)
                        .map(|r| cell(r))
                })
                .collect();
            // The mean over the series, not the least: a random baseline at 0% on every tool would
            // otherwise tie every row.
            let judged: Vec<f64> = cells.iter().flatten().map(|c| c.right).collect();
            let mean_right = judged.iter().sum::<f64>() / judged.len().max(1) as f64;
            let row = ToolPicksRow {
                tasks: cells.iter().flatten().map(|c| c.tasks).max().unwrap_or(0),
                failing_anchor: anchors.get(&tool).cloned(),
                tool,
                cells,
            };
            (mean_right, row)
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.tool.cmp(&b.1.tool)));
    ToolPicksView {
        series: series.iter().map(|(s, _)| s.to_string()).collect(),
        graded: series
            .iter()
            .map(|(_, rows)| rows.iter().any(|r| r.p_right.is_some()))
            .collect(),
        rows: rows.into_iter().map(|(_, row)| row).collect(),
    }
}

fn cell(picks: &ToolPicks) -> ToolPicksCell {
    ToolPicksCell {
        tasks: picks.right.trials,
        right: picks.right.estimate,
        low: picks.right.low,
        high: picks.right.high,
        p_right: picks.p_right,
        picked_instead: picks.picked_instead.clone(),
        failing_tasks: picks.failing_tasks,
    }
}

/// The failing requests, the tools with most of them first, capped at `FAILING_SHOWN`.
pub fn failing_section(analysis: &RunAnalysis) -> Option<Section> {
    let requests = &analysis.failing_requests;
    if requests.is_empty() {
        return None;
    }
    let anchors = failing_anchors(requests);
    let several_suites = requests
        .iter()
        .map(|r| r.suite.as_str())
        .collect::<BTreeSet<_>>()
        .len()
        > 1;
    let mut groups: Vec<FailingGroup> = Vec::new();
    for request in requests {
        let tool = tool_label(&request.tool);
        let row = FailingRow {
            task: if several_suites {
                format!("{}/{}", request.suite, request.task)
            } else {
                request.task.clone()
            },
            prompt: request.prompt.clone(),
            picks: request
                .misses
                .iter()
                .map(|m| (m.series.clone(), picks_text(&m.picked, m.trials)))
                .collect(),
        };
        let anchor = anchors.get(&tool).cloned().unwrap_or_default();
        match groups.iter_mut().find(|g| g.anchor == anchor) {
            Some(group) => group.requests.push(row),
            None => groups.push(FailingGroup {
                anchor,
                heading: match &request.tool {
                    Some(tool) => format!("expected {tool}"),
                    None => "no call expected".into(),
                },
                requests: vec![row],
            }),
        }
    }
    groups.sort_by(|a, b| {
        b.requests
            .len()
            .cmp(&a.requests.len())
            .then_with(|| a.heading.cmp(&b.heading))
    });
    // Requests failed by most series first within a tool: the ones no backend gets.
    for group in &mut groups {
        group
            .requests
            .sort_by(|a, b| b.picks.len().cmp(&a.picks.len()).then(a.task.cmp(&b.task)));
    }
    let mut room = FAILING_SHOWN;
    for group in &mut groups {
        group.requests.truncate(room);
        room -= group.requests.len();
    }
    groups.retain(|g| !g.requests.is_empty());
    let shown: usize = groups.iter().map(|g| g.requests.len()).sum();
    Some(Section::new(
        "failing",
        "Failing requests",
        vec![
            Part::Paragraph(
                "Requests whose first pick was wrong in at least one series, grouped by the tool \
                 they expect: the request as the model saw it (its last user message) and what \
                 each series picked instead. Every trial is in trials.csv (columns expected_tool, \
                 first_tool, selection_correct, prompt)."
                    .into(),
            ),
            Part::Chart(Chart::FailingRequests(FailingRequestsView {
                groups,
                left_out: requests.len() - shown,
            })),
        ],
    ))
}

/// "search_flights" for one wrong trial of one, else each pick with its count and the trials
/// judged: "search_flights ×2, (none) ×1 of 4".
fn picks_text(picked: &[(String, u64)], trials: u64) -> String {
    if let [(label, 1)] = picked
        && trials == 1
    {
        return label.clone();
    }
    let listed: Vec<String> = picked.iter().map(|(l, n)| format!("{l} ×{n}")).collect();
    format!("{} of {trials}", listed.join(", "))
}

#[cfg(test)]
mod tests {
    use super::picks_text;

    #[test]
    fn a_single_wrong_trial_is_just_its_pick() {
        assert_eq!(picks_text(&[("a".into(), 1)], 1), "a");
        assert_eq!(
            picks_text(&[("a".into(), 2), ("(none)".into(), 1)], 4),
            "a ×2, (none) ×1 of 4"
        );
    }
}
