//! The failing requests as one table, a group per expected tool (the target of the per-tool table's
//! links): each request's task, its text and what each series picked instead. The columns have
//! fixed shares of the width and long requests wrap (past `PROMPT_CHARS` they are cut, the whole
//! text in the hover), so the table never widens the page.

use super::escape;
use super::header_definition::definition_attribute;
use super::per_tool::breakable;
use super::svg::truncate;
use crate::document::FailingRequestsView;
use std::fmt::Write as _;

/// The column headers (for the glossary).
pub const HEADERS: [&str; 3] = ["task", "request", "picked by series"];

/// A request longer than this is cut on the page; the hover holds all of it.
const PROMPT_CHARS: usize = 400;

pub fn failing_requests_html(view: &FailingRequestsView, glossary: &[(String, String)]) -> String {
    let mut out = String::from(
        "<div class=\"table-wrap\"><table class=\"failing\">\n\
         <colgroup><col class=\"task\"><col class=\"request\"><col class=\"picks\"></colgroup>\n<thead><tr>",
    );
    for header in HEADERS {
        put!(
            out,
            "<th{}>{}</th>",
            definition_attribute(header, glossary),
            escape(header)
        );
    }
    out.push_str("</tr></thead>\n");
    for group in &view.groups {
        let count = group.requests.len();
        put!(
            out,
            "<tbody id=\"{}\"><tr class=\"group\"><th colspan=\"3\">{} — {count} request{}</th></tr>\n",
            escape(&group.anchor),
            escape(&group.heading),
            if count == 1 { "" } else { "s" }
        );
        for request in &group.requests {
            let shown = truncate(&request.prompt, PROMPT_CHARS);
            let hover = if shown == request.prompt {
                String::new()
            } else {
                format!(" title=\"{}\"", escape(&request.prompt))
            };
            put!(
                out,
                "<tr><td class=\"tool\">{}</td><td{hover}>{}</td><td>",
                breakable(&request.task),
                escape(&shown)
            );
            for (i, (series, picked)) in request.picks.iter().enumerate() {
                if i > 0 {
                    out.push_str("<br>");
                }
                put!(
                    out,
                    "<span class=\"series-name\">{}</span>: {}",
                    escape(series),
                    escape(picked)
                );
            }
            out.push_str("</td></tr>\n");
        }
        out.push_str("</tbody>\n");
    }
    out.push_str("</table></div>\n");
    if view.left_out > 0 {
        put!(
            out,
            "<p class=\"note\">{} more failing requests are left off this page; trials.csv has \
             every trial.</p>\n",
            view.left_out
        );
    }
    out
}
