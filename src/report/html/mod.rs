//! report.html: the run's tables and charts as one self-contained page with inline SVG;
//! takes plain data, computes no statistics, does no I/O. The caller hands over already
//! computed tables, curves, comparisons, confusion counts and raw latencies, and gets back
//! one HTML string. The only arithmetic here is layout, plus the handful of quantiles a
//! latency box plot is drawn from. The page loads nothing from anywhere (inline CSS,
//! hand-drawn inline SVG, one small inline script), so it opens the same from a CI artifact
//! as from a laptop. Every string that came from the run is escaped before it is inserted,
//! and every number goes through a formatter that never writes a non-finite value, so
//! odd inputs (empty series, missing values, one point, hundreds of tools) give a page,
//! not a panic.
//!
//! This file assembles the page from the report's sections (`report::document`): each section's
//! tables, lines and charts in order, the links to them, the style, the render check, and the
//! escaping every piece of run text goes through. `table` writes the tables, `svg` holds the drawing
//! primitives the charts share, and `curve`, `ab`, `confusion` and `latency` draw one kind of chart
//! each; `per_tool` and `failing_requests` write the author's view, and `glossary` puts each
//! column's definition on its header and the glossary at the end.

use std::fmt::Write as _;

/// Writes into a `String`; formatting into a `String` cannot fail, so the result is dropped.
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

mod ab;
mod attribution;
mod confusion;
mod curve;
mod failing_requests;
mod glossary;
mod header_definition;
mod latency;
#[cfg(test)]
mod page_parts;
mod per_tool;
mod svg;
mod table;
#[cfg(test)]
mod tests;
mod thieves;

use crate::document::{Chart, Part, Section};
use ab::ab_section;
use attribution::attribution_section;
use confusion::confusion_section;
use curve::curve_section;
use failing_requests::failing_requests_html;
use glossary::glossary_body;
use latency::latency_section;
use per_tool::tool_picks_html;
use table::table_html;
use thieves::thieves_section;

/// Everything one report page shows; built by the caller from a finished run.
pub struct ReportPage {
    /// Page heading, e.g. "mcpick run 20261201T002437Z-dd692d5d".
    pub title: String,
    /// In order; a section with no parts is left out, and so is its link.
    pub sections: Vec<Section>,
    /// Pretty-printed run manifest, shown folded away at the end; empty → section omitted.
    pub manifest_json: String,
    /// (column header, what it means): each header cell of that text gets the meaning as a hover,
    /// and the terms the page's headers use are listed before the manifest.
    pub glossary: Vec<(String, String)>,
}

/// Renders the whole page. Sections with no data are left out, and so are their links.
pub fn render(page: &ReportPage) -> String {
    let title = if page.title.trim().is_empty() {
        "mcpick report"
    } else {
        page.title.as_str()
    };

    let mut sections: Vec<(&str, &str, String)> = page
        .sections
        .iter()
        .filter(|section| !section.parts.is_empty())
        .map(|section| {
            (
                section.id,
                section.heading.as_str(),
                section_body(section, &page.glossary),
            )
        })
        .collect();
    if let Some(body) = glossary_body(&page.sections, &page.glossary) {
        sections.push(("glossary", "Glossary", body));
    }
    if !page.manifest_json.trim().is_empty() {
        sections.push((
            "manifest",
            "Manifest",
            format!(
                "<details><summary>Run manifest (JSON)</summary><pre>{}</pre></details>\n",
                escape(&page.manifest_json)
            ),
        ));
    }

    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // The page must never reach the network, even if a future edit slips in a URL.
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n",
    );
    put!(out, "<title>{}</title>\n", escape(title));
    put!(out, "<style>{STYLE}</style>\n</head>\n<body>\n<main>\n");
    put!(out, "<h1>{}</h1>\n", escape(title));
    if sections.is_empty() {
        out.push_str("<p class=\"note\">This run produced no tables or charts.</p>\n");
    } else {
        out.push_str("<nav>");
        for (id, heading, _) in &sections {
            put!(out, "<a href=\"#{id}\">{}</a>", escape(heading));
        }
        out.push_str("</nav>\n");
    }
    for (id, heading, body) in &sections {
        put!(
            out,
            "<section id=\"{id}\">\n<h2>{}</h2>\n{body}</section>\n",
            escape(heading)
        );
    }
    // Filled by the script below; a headless browser reads them to check the charts drew and the
    // page fits its window.
    out.push_str(
        "<pre id=\"render-check\" hidden></pre>\n<pre id=\"layout-check\" hidden></pre>\n</main>\n",
    );
    put!(
        out,
        "<script>{RENDER_CHECK_SCRIPT}</script>\n</body>\n</html>\n"
    );
    out
}

/// A section's parts, in order.
fn section_body(section: &Section, glossary: &[(String, String)]) -> String {
    let mut body = String::new();
    for part in &section.parts {
        match part {
            Part::Table(table) => body.push_str(&table_html(table, glossary)),
            Part::Lines { caption, lines } => {
                put!(body, "<p class=\"note\">{}:</p>\n<ul>\n", escape(caption));
                for line in lines {
                    put!(body, "<li>{}</li>\n", escape(line));
                }
                body.push_str("</ul>\n");
            }
            Part::Chart(Chart::Curves { kind, curves }) if !curves.is_empty() => {
                body.push_str(&curve_section(curves, *kind));
            }
            Part::Chart(Chart::Forest(rows)) if !rows.is_empty() => {
                body.push_str(&ab_section(rows));
            }
            Part::Chart(Chart::Confusion(maps)) if !maps.is_empty() => {
                body.push_str(&confusion_section(maps, glossary));
            }
            Part::Chart(Chart::Latency(series)) if !series.is_empty() => {
                body.push_str(&latency_section(series));
            }
            Part::Chart(Chart::Attribution(texts)) if !texts.is_empty() => {
                body.push_str(&attribution_section(texts));
            }
            Part::Chart(Chart::ToolPicks(view)) if !view.rows.is_empty() => {
                body.push_str(&tool_picks_html(view, glossary));
            }
            Part::Chart(Chart::FailingRequests(view)) if !view.groups.is_empty() => {
                body.push_str(&failing_requests_html(view, glossary));
            }
            Part::Chart(Chart::Thieves(bars)) if !bars.is_empty() => {
                body.push_str(&thieves_section(bars));
            }
            Part::Chart(_) => {}
            Part::Paragraph(text) => put!(body, "<p>{}</p>\n", escape(text)),
            Part::Subheading(text) => put!(body, "<h3>{}</h3>\n", escape(text)),
            Part::Numbered(items) => {
                body.push_str("<ol>\n");
                for item in items {
                    put!(body, "<li>{}", escape(&item.text));
                    if !item.details.is_empty() {
                        body.push_str("<ul>");
                        for detail in &item.details {
                            put!(body, "<li>{}</li>", escape(detail));
                        }
                        body.push_str("</ul>");
                    }
                    body.push_str("</li>\n");
                }
                body.push_str("</ol>\n");
            }
        }
    }
    body
}

const STYLE: &str = r#"
:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #1a1a1a; line-height: 1.45;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1280px; margin: 0 auto; padding: 24px 20px 48px; }
p, .note { max-width: 75rem; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.25rem; margin: 2.2rem 0 .7rem; padding-bottom: .25rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
nav { margin: 0 0 1rem; font-size: .95rem; }
nav a { margin-right: 1.1rem; color: #0b5cad; text-decoration: none; }
nav a:hover { text-decoration: underline; }
.table-wrap { overflow-x: auto; margin: 0 0 1.4rem; }
table { border-collapse: collapse; font-size: .9rem; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 0 0 .35rem; }
th, td { padding: .3rem .7rem; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; }
th { background: #f1f3f6; border-bottom: 2px solid #cfd5dd; }
tbody tr:nth-child(even) { background: #f7f8fa; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th[title] { cursor: help; text-decoration: underline dotted #8a8a8a; text-underline-offset: 3px; }
table.per-tool th.series { text-align: center; }
table.per-tool .series-start { border-left: 2px solid #cfd5dd; }
table.per-tool td.tool { overflow-wrap: break-word; min-width: 9rem; }
table.per-tool td.rate .interval { display: block; font-size: .75rem; color: #555; }
table.per-tool td.instead { font-size: .85rem; min-width: 9rem; overflow-wrap: break-word; }
a.to-failing { color: #0b5cad; white-space: nowrap; }
table.failing { width: 100%; table-layout: fixed; }
table.failing col.task { width: 18%; }
table.failing col.request { width: 52%; }
table.failing col.picks { width: 30%; }
table.failing td { overflow-wrap: break-word; }
table.failing tr.group th { background: #e8edf3; text-align: left; }
.series-name { font-weight: 600; }
dl.glossary dt { font-weight: 600; margin-top: .6rem; }
dl.glossary dd { margin: .1rem 0 0 1.5rem; max-width: 75rem; }
figure { margin: 0 0 1.6rem; }
figcaption { font-size: .85rem; color: #555; margin-top: .35rem; }
svg.chart { display: block; width: 100%; height: auto; }
svg.chart text { font-family: inherit; font-size: 12px; fill: #1a1a1a; }
svg.chart text.tick { font-size: 11px; fill: #444; }
svg.chart text.small { font-size: 11px; fill: #555; }
svg.chart text.cell { font-size: 10px; }
svg.chart text.on-dark { fill: #fff; }
svg.chart text.strong { font-weight: 600; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; border-radius: 4px; padding: .8rem;
  overflow: auto; font-size: .8rem; }
details summary { cursor: pointer; font-weight: 600; }
.note { color: #555; font-size: .9rem; }
.attribution { border: 1px solid #e3e3e3; border-radius: 4px; padding: .6rem .9rem; }
.described { margin: 0 0 .4rem; }
.unit { padding: .05rem .15rem; border-radius: 3px; }
.unit.unsure { border-bottom: 2px dotted #999; }
ul.params { margin: .2rem 0 .4rem; font-size: .92rem; }
"#;

/// After load, measure every chart and every series element (and every unit of an attributed
/// description) and publish what was drawn, and how the page fits the window (its scroll width,
/// the tables that scroll sideways, what comes first),
/// so `chromium --headless --dump-dom` can prove the SVG really rendered and the page fits a
/// laptop screen. The page does not depend on it.
const RENDER_CHECK_SCRIPT: &str = r#"
window.addEventListener("load", function () {
  var charts = [];
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var drawn = [];
    svg.querySelectorAll("[data-series]").forEach(function (el) {
      var b = el.getBBox();
      var name = el.getAttribute("data-series");
      if ((b.width > 0 || b.height > 0) && drawn.indexOf(name) < 0) { drawn.push(name); }
    });
    charts.push({ chart: svg.getAttribute("data-chart"), width: Math.round(box.width),
      height: Math.round(box.height), series: drawn });
  });
  document.querySelectorAll("figure.attribution").forEach(function (figure) {
    var box = figure.getBoundingClientRect();
    var drawn = [];
    figure.querySelectorAll("[data-unit]").forEach(function (el) {
      var b = el.getBoundingClientRect();
      var name = el.getAttribute("data-unit");
      if (b.width > 0 && b.height > 0 && drawn.indexOf(name) < 0) { drawn.push(name); }
    });
    charts.push({ chart: figure.getAttribute("data-chart"), width: Math.round(box.width),
      height: Math.round(box.height), series: drawn });
  });
  var check = document.getElementById("render-check");
  if (check) { check.textContent = JSON.stringify(charts); }
  // How the page fits the window: whether it scrolls sideways, which tables do, and what comes
  // first — what a reader on a laptop meets before scrolling.
  var root = document.documentElement;
  var wide = [];
  document.querySelectorAll(".table-wrap").forEach(function (wrap) {
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      var caption = wrap.querySelector("caption");
      wide.push(caption ? caption.textContent.slice(0, 60) : wrap.firstElementChild.className);
    }
  });
  var first = document.querySelector("section");
  var perTool = document.querySelector("table.per-tool");
  var heatMap = Array.prototype.find.call(document.querySelectorAll("svg.chart"),
    function (svg) { return svg.getAttribute("data-chart") === "confusion"; });
  var layout = document.getElementById("layout-check");
  if (layout) {
    layout.textContent = JSON.stringify({ viewport: window.innerWidth,
      scroll_width: root.scrollWidth, client_width: root.clientWidth, wide_tables: wide,
      first_section: first ? first.id : null,
      per_tool_top: perTool ? Math.round(perTool.getBoundingClientRect().top) : null,
      heat_map_top: heatMap ? Math.round(heatMap.getBoundingClientRect().top) : null });
  }
});
"#;

/// Escapes text for use in HTML element content and in quoted attribute values alike.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}
