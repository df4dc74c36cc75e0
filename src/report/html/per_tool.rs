//! The per-tool table, the page's first: one row per expected tool, one group of columns per series
//! — right picks (a bar behind the rate, the interval beneath it), `p_right` where the series has
//! it, what was picked instead with a link to the failing requests. Long tool names break rather
//! than widen the table, so three series over 25 tools fit a 1,400-pixel screen.

use super::escape;
use super::header_definition::definition_attribute;
use crate::document::{ToolPicksCell, ToolPicksView};
use std::fmt::Write as _;

/// The bar behind a rate: the palette's light blue, the same whatever the rate, so its length alone
/// says how many picks were right.
const BAR: &str = "#d6e6f5";

/// The picks listed in a cell before the rest are counted as "+N more" (all of them in its hover).
const PICKS_LISTED: usize = 3;

/// The column headers a view shows (for the glossary).
pub fn headers(view: &ToolPicksView) -> Vec<&'static str> {
    let mut headers = vec!["tool", "tasks", "right picks", "picked instead"];
    if view.graded.iter().any(|g| *g) {
        headers.push("p_right");
    }
    headers
}

pub fn tool_picks_html(view: &ToolPicksView, glossary: &[(String, String)]) -> String {
    let th = |text: &str, attributes: &str| {
        format!(
            "<th{attributes}{}>{}</th>",
            definition_attribute(text, glossary),
            escape(text)
        )
    };
    let mut out = String::from("<div class=\"table-wrap\"><table class=\"per-tool\">\n<thead><tr>");
    out.push_str(&th("tool", " rowspan=\"2\""));
    out.push_str(&th("tasks", " rowspan=\"2\" class=\"num\""));
    for (series, graded) in view.series.iter().zip(&view.graded) {
        let span = if *graded { 3 } else { 2 };
        put!(
            out,
            "<th colspan=\"{span}\" class=\"series\">{}</th>",
            escape(series)
        );
    }
    out.push_str("</tr>\n<tr>");
    for graded in &view.graded {
        out.push_str(&th("right picks", " class=\"num series-start\""));
        if *graded {
            out.push_str(&th("p_right", " class=\"num\""));
        }
        out.push_str(&th("picked instead", ""));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &view.rows {
        put!(
            out,
            "<tr><td class=\"tool\">{}</td><td class=\"num\">{}</td>",
            breakable(&row.tool),
            row.tasks
        );
        for (cell, graded) in row.cells.iter().zip(&view.graded) {
            match cell {
                Some(cell) => {
                    out.push_str(&right_picks(cell));
                    if *graded {
                        match cell.p_right {
                            Some(p) if p.is_finite() => {
                                put!(out, "<td class=\"num\">{:.1}%</td>", p * 100.0)
                            }
                            _ => out.push_str("<td class=\"num\">–</td>"),
                        }
                    }
                    out.push_str(&picked_instead(cell, row.failing_anchor.as_deref()));
                }
                None => {
                    let span = if *graded { 3 } else { 2 };
                    put!(
                        out,
                        "<td colspan=\"{span}\" class=\"note series-start\">no task judged</td>"
                    );
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// A tool or task name, escaped, that may break after `_`, `.`, `-` or `/` rather than anywhere
/// (`check_visa_<wbr>requirements`), so a narrow column wraps it where a reader would.
pub fn breakable(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        out.push_str(&escape(c.encode_utf8(&mut [0; 4])));
        if matches!(c, '_' | '.' | '-' | '/') {
            out.push_str("<wbr>");
        }
    }
    out
}

/// The rate over a bar of its length, the interval and the task count beneath.
fn right_picks(cell: &ToolPicksCell) -> String {
    let finite = |x: f64| {
        if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let (rate, low, high) = (finite(cell.right), finite(cell.low), finite(cell.high));
    format!(
        "<td class=\"num series-start rate\" style=\"background:linear-gradient(90deg,{} {:.1}%,transparent {:.1}%)\">\
         {:.1}%<span class=\"interval\">[{:.1}, {:.1}] of {}</span></td>",
        BAR,
        rate * 100.0,
        rate * 100.0,
        rate * 100.0,
        low * 100.0,
        high * 100.0,
        cell.tasks
    )
}

/// The wrong picks, most first, and the link to the requests they were made on.
fn picked_instead(cell: &ToolPicksCell, anchor: Option<&str>) -> String {
    if cell.picked_instead.is_empty() {
        return "<td class=\"instead\"></td>".into();
    }
    let all: Vec<String> = cell
        .picked_instead
        .iter()
        .map(|(label, n)| format!("{label} ×{n}"))
        .collect();
    let mut out = format!(
        "<td class=\"instead\" title=\"{}\">",
        escape(&all.join(", "))
    );
    for (i, (label, n)) in cell.picked_instead.iter().take(PICKS_LISTED).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        put!(
            out,
            "<span class=\"pick\">{}</span>&nbsp;×{n}",
            breakable(label)
        );
    }
    if cell.picked_instead.len() > PICKS_LISTED {
        put!(out, ", +{} more", cell.picked_instead.len() - PICKS_LISTED);
    }
    if let Some(anchor) = anchor {
        let requests = if cell.failing_tasks == 1 {
            "1 request".to_string()
        } else {
            format!("{} requests", cell.failing_tasks)
        };
        put!(
            out,
            " <a class=\"to-failing\" href=\"#{}\">{requests}&nbsp;↓</a>",
            escape(anchor)
        );
    }
    out.push_str("</td>");
    out
}

#[cfg(test)]
mod tests {
    use crate::document::{
        Chart, FailingGroup, FailingRequestsView, FailingRow, Part, Section, ToolPicksCell,
        ToolPicksRow, ToolPicksView,
    };
    use crate::report::html::tests::assert_clean;
    use crate::report::html::{ReportPage, render};

    /// A page with the per-tool table and the failing requests, and a glossary of two terms.
    fn page() -> String {
        let cell = |right: f64, instead: &[(&str, u64)]| {
            Some(ToolPicksCell {
                tasks: 4,
                right,
                low: (right - 0.3).max(0.0),
                high: (right + 0.2).min(1.0),
                p_right: None,
                picked_instead: instead.iter().map(|(l, n)| (l.to_string(), *n)).collect(),
                failing_tasks: instead.len() as u64,
            })
        };
        let view = ToolPicksView {
            series: vec!["bm25".into(), "qwen <local>".into()],
            graded: vec![false, true],
            rows: vec![ToolPicksRow {
                tool: "check_visa_requirements".into(),
                tasks: 4,
                failing_anchor: Some("failing-0".into()),
                cells: vec![cell(0.5, &[("get_<b>", 2)]), None],
            }],
        };
        let failing = FailingRequestsView {
            groups: vec![FailingGroup {
                anchor: "failing-0".into(),
                heading: "expected check_visa_requirements".into(),
                requests: vec![FailingRow {
                    task: "visa-<1>".into(),
                    prompt: "x".repeat(500),
                    picks: vec![("bm25".into(), "get_<b>".into())],
                }],
            }],
            left_out: 7,
        };
        render(&ReportPage {
            title: "t".into(),
            sections: vec![
                Section::new(
                    "per-tool",
                    "Per tool",
                    vec![Part::Chart(Chart::ToolPicks(view))],
                ),
                Section::new(
                    "failing",
                    "Failing requests",
                    vec![Part::Chart(Chart::FailingRequests(failing))],
                ),
            ],
            manifest_json: String::new(),
            glossary: vec![
                ("right picks".into(), "Share of \"tasks\"".into()),
                ("never shown".into(), "unused".into()),
            ],
        })
    }

    #[test]
    fn tools_link_to_their_failing_requests_and_headers_carry_their_definition() {
        let html = page();
        assert_clean(&html);
        assert!(html.contains("check_<wbr>visa_<wbr>requirements"));
        assert!(html.contains("href=\"#failing-0\">1 request&nbsp;"));
        assert!(html.contains("<tbody id=\"failing-0\">"));
        assert!(html.contains("get_&lt;b&gt;") && !html.contains("get_<b>"));
        assert!(html.contains("qwen &lt;local&gt;"));
        assert!(html.contains("no task judged"), "a series without the tool");
        // A long request is cut on the page and whole in its hover.
        assert!(html.contains(&format!("title=\"{}\"", "x".repeat(500))));
        assert!(html.contains("7 more failing requests"));
        // The definition is on the header and in the glossary; an unused term is not listed.
        assert!(html.contains("title=\"Share of &quot;tasks&quot;\">right picks</th>"));
        assert!(html.contains("<dt>right picks</dt>"));
        assert!(!html.contains("never shown"));
    }
}
