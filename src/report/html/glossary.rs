//! The page's glossary: it ends with the terms its headers use, in the glossary's order (each header
//! also carries its term's definition as a hover, `header_definition`, underlined dotted so a
//! reader sees there is one). The definitions come with the page (`ReportPage::glossary`); this
//! only places them.

use super::escape;
use crate::document::{Chart, Part, Section};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Every header text the sections' tables show.
fn headers_shown(sections: &[Section]) -> BTreeSet<&str> {
    let mut shown = BTreeSet::new();
    for part in sections.iter().flat_map(|s| &s.parts) {
        match part {
            Part::Table(table) => shown.extend(table.header.iter().map(String::as_str)),
            Part::Chart(Chart::ToolPicks(view)) => {
                shown.extend(super::per_tool::headers(view));
            }
            Part::Chart(Chart::FailingRequests(_)) => {
                shown.extend(super::failing_requests::HEADERS);
            }
            // The table of confusions a heat map leaves out.
            Part::Chart(Chart::Confusion(_)) => shown.extend(["expected", "picked", "trials"]),
            _ => {}
        }
    }
    shown
}

/// The glossary section's body: the terms the page's headers use; `None` when they use none.
pub fn glossary_body(sections: &[Section], glossary: &[(String, String)]) -> Option<String> {
    let shown = headers_shown(sections);
    let used: Vec<&(String, String)> = glossary
        .iter()
        .filter(|(term, _)| shown.contains(term.as_str()))
        .collect();
    if used.is_empty() {
        return None;
    }
    let mut out = String::from(
        "<p class=\"note\">What each column means (hover a column's header for the same text).</p>\n\
         <dl class=\"glossary\">\n",
    );
    for (term, meaning) in used {
        put!(
            out,
            "<dt>{}</dt><dd>{}</dd>\n",
            escape(term),
            escape(meaning)
        );
    }
    out.push_str("</dl>\n");
    Some(out)
}
