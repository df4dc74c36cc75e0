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

use std::fmt::Write as _;

/// Everything one report page shows; built by the caller from a finished run.
pub struct ReportPage {
    /// Page heading, e.g. "mcpick run 20261201T002437Z-dd692d5d".
    pub title: String,
    /// Rendered as HTML tables, in order.
    pub summary_tables: Vec<Table>,
    /// Accuracy against toolset size, drawn on a logarithmic x axis; empty → section omitted.
    pub size_curves: Vec<SizeCurve>,
    /// Accuracy by the gold tool's 1-based position in the list, drawn on a linear x axis.
    pub position_curves: Vec<SizeCurve>,
    /// A/B arm differences, drawn as a forest plot; empty → section omitted.
    pub ab_comparisons: Vec<AbComparison>,
    /// One heat map per backend; empty → section omitted.
    pub confusions: Vec<Confusion>,
    /// One box plot row per backend; empty → section omitted.
    pub latencies: Vec<LatencySeries>,
    /// Pretty-printed run manifest, shown folded away at the end; empty → section omitted.
    pub manifest_json: String,
}

pub struct Table {
    pub caption: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One line on an accuracy chart. `series` is a backend name or "backend / variant".
pub struct SizeCurve {
    pub series: String,
    pub points: Vec<CurvePoint>,
}

/// `estimate`, `low` and `high` are proportions in [0, 1]; `x` is the toolset size or the
/// gold position, depending on the chart.
pub struct CurvePoint {
    pub x: f64,
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    pub trials: u64,
}

/// `difference`, `low` and `high` are differences of proportions (0.05 = 5 percentage
/// points), in whichever direction the caller computed them.
pub struct AbComparison {
    pub backend: String,
    pub arm_a: String,
    pub arm_b: String,
    pub difference: f64,
    pub low: f64,
    pub high: f64,
    pub p_value: f64,
    pub verdict: String,
}

/// `counts[i][j]` = how often `expected[i]` was the gold tool and `picked[j]` was called
/// first. `picked` may include "(none)". Ragged or short rows count as zeros.
pub struct Confusion {
    pub backend: String,
    pub expected: Vec<String>,
    pub picked: Vec<String>,
    pub counts: Vec<Vec<u64>>,
}

pub struct LatencySeries {
    pub series: String,
    pub latencies_ms: Vec<f64>,
}

/// Okabe–Ito colours, which stay apart under the common kinds of colour blindness. Its
/// yellow is left out because a thin yellow line all but vanishes on white.
const PALETTE: [&str; 7] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000",
];

/// Once the palette has been used up, later series repeat a colour with another dash
/// pattern so that two lines never look identical.
const DASHES: [&str; 3] = ["", "7 4", "2 3"];

/// A heat map with more rows or columns than this stops being readable; the rest is
/// reported as a count on the page instead of being drawn.
const MAX_CONFUSION_TOOLS: usize = 25;

/// Latency axes are clamped to these powers of ten (1 µs to about 2.8 hours) so that an
/// absurd value cannot make the tick loop run for thousands of decades.
const MIN_LATENCY_DECADE: f64 = -3.0;
const MAX_LATENCY_DECADE: f64 = 7.0;

const NO_VALUE: &str = "–";

/// Writes into a `String`; formatting into a `String` cannot fail, so the result is dropped.
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

/// Renders the whole page. Sections with no data are left out, and so are their links.
pub fn render(page: &ReportPage) -> String {
    let title = if page.title.trim().is_empty() {
        "mcpick report"
    } else {
        page.title.as_str()
    };

    let mut sections: Vec<Section> = Vec::new();
    if !page.summary_tables.is_empty() {
        sections.push(Section {
            id: "summary",
            heading: "Summary",
            body: summary_section(&page.summary_tables),
        });
    }
    if !page.ab_comparisons.is_empty() {
        sections.push(Section {
            id: "ab",
            heading: "A/B comparisons",
            body: ab_section(&page.ab_comparisons),
        });
    }
    if !page.size_curves.is_empty() {
        sections.push(Section {
            id: "size",
            heading: "Accuracy vs toolset size",
            body: curve_section(&page.size_curves, &SIZE_AXIS),
        });
    }
    if !page.position_curves.is_empty() {
        sections.push(Section {
            id: "position",
            heading: "Accuracy by gold position",
            body: curve_section(&page.position_curves, &POSITION_AXIS),
        });
    }
    if !page.confusions.is_empty() {
        sections.push(Section {
            id: "confusion",
            heading: "Confusion",
            body: confusion_section(&page.confusions),
        });
    }
    if !page.latencies.is_empty() {
        sections.push(Section {
            id: "latency",
            heading: "Latency",
            body: latency_section(&page.latencies),
        });
    }
    if !page.manifest_json.trim().is_empty() {
        sections.push(Section {
            id: "manifest",
            heading: "Manifest",
            body: format!(
                "<details><summary>Run manifest (JSON)</summary><pre>{}</pre></details>\n",
                escape(&page.manifest_json)
            ),
        });
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
        for section in &sections {
            put!(out, "<a href=\"#{}\">{}</a>", section.id, section.heading);
        }
        out.push_str("</nav>\n");
    }
    for section in &sections {
        put!(
            out,
            "<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n",
            section.id,
            section.heading,
            section.body
        );
    }
    // Filled by the script below; a headless browser reads it to check the charts drew.
    out.push_str("<pre id=\"render-check\" hidden></pre>\n</main>\n");
    put!(
        out,
        "<script>{RENDER_CHECK_SCRIPT}</script>\n</body>\n</html>\n"
    );
    out
}

struct Section {
    id: &'static str,
    heading: &'static str,
    body: String,
}

const STYLE: &str = r#"
:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #1a1a1a; line-height: 1.45;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 20px 48px; }
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
"#;

/// After load, measure every chart and every series element and publish what was drawn,
/// so `chromium --headless --dump-dom` can prove the SVG really rendered. The page does
/// not depend on it.
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
  var check = document.getElementById("render-check");
  if (check) { check.textContent = JSON.stringify(charts); }
});
"#;

// ---------------------------------------------------------------------------------------
// Text and number formatting

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

/// Shortens a label to `max_chars` characters (not bytes, so multi-byte text is safe).
fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut short: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// SVG coordinate: one decimal is far below a pixel, and a non-finite value (only possible
/// from absurd inputs) becomes 0 rather than an attribute the browser rejects.
fn coord(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.1}")
    } else {
        "0".to_string()
    }
}

fn percent(proportion: f64) -> String {
    if proportion.is_finite() {
        format!("{:.1}%", proportion * 100.0)
    } else {
        NO_VALUE.to_string()
    }
}

/// A signed value with a real minus sign, e.g. "+5.0" or "−2.5".
fn signed(value: f64) -> String {
    if !value.is_finite() {
        return NO_VALUE.to_string();
    }
    let rounded = format!("{:.1}", value.abs());
    if rounded == "0.0" {
        rounded
    } else if value > 0.0 {
        format!("+{rounded}")
    } else {
        format!("−{rounded}")
    }
}

/// A signed axis label without needless decimals, e.g. "+2", "0", "−2.5".
fn signed_tick(value: f64) -> String {
    let magnitude = tick_label(value.abs());
    if !value.is_finite() || magnitude == "0" {
        magnitude
    } else if value > 0.0 {
        format!("+{magnitude}")
    } else {
        format!("−{magnitude}")
    }
}

fn p_value_text(p: f64) -> String {
    if !p.is_finite() {
        format!("p = {NO_VALUE}")
    } else if p < 0.001 {
        "p < 0.001".to_string()
    } else {
        format!("p = {p:.3}")
    }
}

/// Axis tick label: whole numbers without decimals, others with at most three.
fn tick_label(value: f64) -> String {
    if !value.is_finite() {
        return NO_VALUE.to_string();
    }
    if (value - value.round()).abs() < 1e-9 && value.abs() < 1e15 {
        return format!("{}", value.round() as i64);
    }
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn milliseconds(value: f64) -> String {
    if !value.is_finite() {
        NO_VALUE.to_string()
    } else if value.abs() >= 100.0 {
        format!("{value:.0}")
    } else if value.abs() >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// Rough rendered width of a label, used only to keep labels from overlapping; the exact
/// width depends on the reader's font, so layouts leave some slack.
fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars().count() as f64 * font_px * 0.6
}

/// Whether a table cell reads as a number (so it is right-aligned): it starts like a
/// number and any letters in it are unit-like ("ms", "pp", "x", an exponent).
fn looks_numeric(cell: &str) -> bool {
    let trimmed = cell.trim();
    let mut chars = trimmed.chars();
    let starts_like_number = match chars.next() {
        Some(c) if c.is_ascii_digit() => true,
        Some('+' | '-' | '−' | '.' | '±') => chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    };
    starts_like_number
        && trimmed
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(|c| matches!(c, 'e' | 'E' | 'm' | 's' | 'p' | 'x'))
}

/// About `target` evenly spaced round ticks covering `low..high`; returns the ticks and the
/// range widened to the outermost ticks.
fn nice_ticks(low: f64, high: f64, target: usize) -> (Vec<f64>, f64, f64) {
    let (low, high) = match (low.is_finite(), high.is_finite()) {
        (true, true) if high > low => (low, high),
        (true, _) => (low - 1.0, low + 1.0),
        _ => (0.0, 1.0),
    };
    let raw_step = (high - low) / target.max(1) as f64;
    let magnitude = 10f64.powf(raw_step.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw_step)
        .unwrap_or(10.0 * magnitude);
    if !(step.is_finite() && step > 0.0) {
        return (vec![low, high], low, high);
    }
    let start = (low / step).floor() * step;
    let end = (high / step).ceil() * step;
    let mut ticks = Vec::new();
    for i in 0..=100 {
        // Rounding to the step removes drift like 0.30000000000000004; adding 0.0 turns -0 into 0.
        let tick = ((start + i as f64 * step) / step).round() * step + 0.0;
        if tick > end + step * 1e-9 {
            break;
        }
        ticks.push(tick);
    }
    (ticks, start, end)
}

/// Opens a chart `<svg>` carrying the hooks the render check and browser tests look for.
/// `max-width` keeps the drawing at its designed size on wide screens, so text stays 12px.
fn open_chart(out: &mut String, kind: &str, width: f64, height: f64, title: &str) {
    put!(
        out,
        "<svg class=\"chart\" data-chart=\"{kind}\" viewBox=\"0 0 {w} {h}\" width=\"100%\" \
         style=\"max-width:{w}px\" role=\"img\"><title>{title}</title>\n",
        w = coord(width),
        h = coord(height),
        title = escape(title)
    );
}

// ---------------------------------------------------------------------------------------
// Summary tables

fn summary_section(tables: &[Table]) -> String {
    let mut out = String::new();
    for table in tables {
        out.push_str(&table_html(table));
    }
    out
}

fn table_html(table: &Table) -> String {
    let columns = table
        .rows
        .iter()
        .map(Vec::len)
        .chain(std::iter::once(table.header.len()))
        .max()
        .unwrap_or(0);
    // A column is aligned as a whole, so that its header sits over its numbers.
    let numeric: Vec<bool> = (0..columns)
        .map(|col| {
            let mut cells = table
                .rows
                .iter()
                .filter_map(|row| row.get(col))
                .filter(|cell| !cell.trim().is_empty())
                .peekable();
            cells.peek().is_some() && cells.all(|cell| looks_numeric(cell))
        })
        .collect();
    let class = |col: usize| {
        if numeric.get(col).copied().unwrap_or(false) {
            " class=\"num\""
        } else {
            ""
        }
    };

    let mut out = String::from("<div class=\"table-wrap\"><table>\n");
    if !table.caption.trim().is_empty() {
        put!(out, "<caption>{}</caption>\n", escape(&table.caption));
    }
    if !table.header.is_empty() {
        out.push_str("<thead><tr>");
        for col in 0..columns {
            let text = table.header.get(col).map(String::as_str).unwrap_or("");
            put!(out, "<th{}>{}</th>", class(col), escape(text));
        }
        out.push_str("</tr></thead>\n");
    }
    out.push_str("<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for col in 0..columns {
            let text = row.get(col).map(String::as_str).unwrap_or("");
            put!(out, "<td{}>{}</td>", class(col), escape(text));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

// ---------------------------------------------------------------------------------------
// Accuracy curves (toolset size and gold position share one drawing function)

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum XScale {
    Log,
    Linear,
}

impl XScale {
    /// Where a data x lands on the axis before scaling to pixels; `None` when it cannot be
    /// drawn on this scale (missing, or not positive on a log axis).
    fn position(self, x: f64) -> Option<f64> {
        match self {
            XScale::Log if x.is_finite() && x > 0.0 => Some(x.log10()),
            XScale::Linear if x.is_finite() => Some(x),
            _ => None,
        }
    }
}

struct CurveAxis {
    kind: &'static str,
    title: &'static str,
    x_title: &'static str,
    caption: &'static str,
    scale: XScale,
}

const SIZE_AXIS: CurveAxis = CurveAxis {
    kind: "size",
    title: "Accuracy vs toolset size",
    x_title: "toolset size N (log scale)",
    caption: "Line and dots: share of trials whose first call was the gold tool, per toolset \
              size. Shaded band: the interval reported for each point. Hover a dot for its \
              numbers.",
    scale: XScale::Log,
};

const POSITION_AXIS: CurveAxis = CurveAxis {
    kind: "position",
    title: "Accuracy by gold position",
    x_title: "position of the gold tool in the list (1 = first)",
    caption: "Line and dots: share of trials whose first call was the gold tool, by where the \
              gold tool stood in the tool list. Shaded band: the interval reported for each \
              point.",
    scale: XScale::Linear,
};

struct PlottedPoint {
    axis_x: f64,
    x: f64,
    estimate: f64,
    low: f64,
    high: f64,
    trials: u64,
}

fn curve_section(curves: &[SizeCurve], axis: &CurveAxis) -> String {
    let (svg, skipped) = curve_chart(curves, axis);
    let mut out = String::from("<figure>\n");
    out.push_str(&svg);
    put!(out, "<figcaption>{}", axis.caption);
    if skipped > 0 {
        put!(
            out,
            " {skipped} point{} with a missing value (or a size that is not positive on the \
             log axis) {} left out.",
            if skipped == 1 { "" } else { "s" },
            if skipped == 1 { "was" } else { "were" }
        );
    }
    out.push_str("</figcaption>\n</figure>\n");
    out
}

/// Draws accuracy curves with bands; returns the SVG and how many points could not be drawn.
fn curve_chart(curves: &[SizeCurve], axis: &CurveAxis) -> (String, usize) {
    const WIDTH: f64 = 900.0;
    const LEFT: f64 = 64.0;
    const RIGHT: f64 = 880.0;
    const TOP: f64 = 14.0;
    const PLOT_HEIGHT: f64 = 300.0;
    const LEGEND_ROW: f64 = 20.0;
    let bottom = TOP + PLOT_HEIGHT;

    let mut skipped = 0usize;
    let mut plotted: Vec<Vec<PlottedPoint>> = Vec::with_capacity(curves.len());
    for curve in curves {
        let mut points = Vec::with_capacity(curve.points.len());
        for point in &curve.points {
            let Some(axis_x) = axis.scale.position(point.x) else {
                skipped += 1;
                continue;
            };
            if !point.estimate.is_finite() {
                skipped += 1;
                continue;
            }
            let estimate = point.estimate.clamp(0.0, 1.0);
            // A missing bound collapses the band onto the estimate instead of dropping the point.
            let low = if point.low.is_finite() {
                point.low.clamp(0.0, 1.0)
            } else {
                estimate
            };
            let high = if point.high.is_finite() {
                point.high.clamp(0.0, 1.0)
            } else {
                estimate
            };
            points.push(PlottedPoint {
                axis_x,
                x: point.x,
                estimate,
                low: low.min(high),
                high: low.max(high),
                trials: point.trials,
            });
        }
        points.sort_by(|a, b| a.axis_x.total_cmp(&b.axis_x));
        plotted.push(points);
    }

    let mut lowest = f64::INFINITY;
    let mut highest = f64::NEG_INFINITY;
    for point in plotted.iter().flatten() {
        lowest = lowest.min(point.axis_x);
        highest = highest.max(point.axis_x);
    }
    if !(lowest.is_finite() && highest.is_finite()) {
        lowest = 0.0;
        highest = 1.0;
    }
    // Pad so that the outermost markers do not sit on the axes; a single x gets a fixed span.
    if highest - lowest < 1e-9 {
        lowest -= 0.5;
        highest += 0.5;
    } else {
        let pad = (highest - lowest) * 0.05;
        lowest -= pad;
        highest += pad;
    }
    let span = highest - lowest;
    let px = |axis_x: f64| LEFT + (axis_x - lowest) / span * (RIGHT - LEFT);
    let py = |proportion: f64| bottom - proportion * PLOT_HEIGHT;

    // Legend below the plot, in as many equal columns as the longest name allows.
    let labels: Vec<String> = curves.iter().map(|c| truncate(&c.series, 48)).collect();
    let widest = labels
        .iter()
        .map(|l| text_width(l, 12.0))
        .fold(0.0, f64::max);
    let column_width = (widest + 44.0).clamp(120.0, RIGHT - LEFT);
    let columns = (((RIGHT - LEFT) / column_width).floor() as usize).max(1);
    let legend_rows = labels.len().div_ceil(columns);
    let legend_top = bottom + 60.0;
    let height = legend_top + legend_rows as f64 * LEGEND_ROW + 6.0;

    let mut out = String::new();
    open_chart(&mut out, axis.kind, WIDTH, height, axis.title);

    // Horizontal grid and y ticks every 20%.
    for step in 0..=5 {
        let proportion = step as f64 / 5.0;
        let y = coord(py(proportion));
        put!(
            out,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#e6e6e6\"/>\
             <text class=\"tick\" x=\"{}\" y=\"{y}\" dy=\"4\" text-anchor=\"end\">{}%</text>\n",
            coord(LEFT),
            coord(RIGHT),
            coord(LEFT - 8.0),
            step * 20
        );
    }

    // X ticks at the data's own x values, thinned where labels would collide.
    let mut tick_xs: Vec<(f64, f64)> = plotted.iter().flatten().map(|p| (p.axis_x, p.x)).collect();
    tick_xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last_tick: Option<(f64, f64)> = None;
    for (axis_x, x) in tick_xs {
        let label = tick_label(x);
        let half_width = text_width(&label, 11.0) / 2.0;
        let at = px(axis_x);
        if let Some((last_at, last_half)) = last_tick
            && at - last_at < last_half + half_width + 10.0
        {
            continue;
        }
        last_tick = Some((at, half_width));
        put!(
            out,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#f0f0f0\"/>\
             <line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#333\"/>\
             <text class=\"tick\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            coord(TOP),
            coord(bottom),
            coord(bottom),
            coord(bottom + 5.0),
            coord(bottom + 18.0),
            escape(&label),
            x = coord(at)
        );
    }

    // Axes and their titles.
    put!(
        out,
        "<line x1=\"{l}\" x2=\"{l}\" y1=\"{t}\" y2=\"{b}\" stroke=\"#333\"/>\
         <line x1=\"{l}\" x2=\"{r}\" y1=\"{b}\" y2=\"{b}\" stroke=\"#333\"/>\n\
         <text x=\"{mid}\" y=\"{xt}\" text-anchor=\"middle\">{x_title}</text>\n\
         <text transform=\"translate(16 {ym}) rotate(-90)\" text-anchor=\"middle\">accuracy \
         (first call is the gold tool)</text>\n",
        l = coord(LEFT),
        r = coord(RIGHT),
        t = coord(TOP),
        b = coord(bottom),
        mid = coord((LEFT + RIGHT) / 2.0),
        xt = coord(bottom + 40.0),
        ym = coord(TOP + PLOT_HEIGHT / 2.0),
        x_title = axis.x_title
    );

    if plotted.iter().all(Vec::is_empty) {
        put!(
            out,
            "<text class=\"small\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">no plottable \
             points</text>\n",
            coord((LEFT + RIGHT) / 2.0),
            coord(TOP + PLOT_HEIGHT / 2.0)
        );
    }

    // Bands first, so that no band covers another series' line. Overlapping translucent
    // bands add up, so with many series each gets fainter to keep the lines readable.
    let band_opacity = (0.45 / curves.len() as f64).clamp(0.06, 0.15);
    for (index, (curve, points)) in curves.iter().zip(&plotted).enumerate() {
        if points.is_empty() {
            continue;
        }
        let colour = PALETTE[index % PALETTE.len()];
        let mut outline = String::new();
        if points.len() == 1 {
            // One point has no width to span; a narrow bar keeps its interval visible.
            let p = &points[0];
            let x = px(p.axis_x);
            for (bx, by) in [
                (x - 5.0, p.low),
                (x + 5.0, p.low),
                (x + 5.0, p.high),
                (x - 5.0, p.high),
            ] {
                put!(outline, "{},{} ", coord(bx), coord(py(by)));
            }
        } else {
            for p in points {
                put!(outline, "{},{} ", coord(px(p.axis_x)), coord(py(p.low)));
            }
            for p in points.iter().rev() {
                put!(outline, "{},{} ", coord(px(p.axis_x)), coord(py(p.high)));
            }
        }
        put!(
            out,
            "<polygon data-series=\"{}\" points=\"{}\" fill=\"{colour}\" fill-opacity=\"{}\" \
             stroke=\"none\"/>\n",
            escape(&curve.series),
            outline.trim_end(),
            format!("{band_opacity:.3}")
        );
    }

    for (index, (curve, points)) in curves.iter().zip(&plotted).enumerate() {
        if points.is_empty() {
            continue;
        }
        let colour = PALETTE[index % PALETTE.len()];
        let dash = DASHES[(index / PALETTE.len()) % DASHES.len()];
        let name = escape(&curve.series);
        if points.len() > 1 {
            let line: Vec<String> = points
                .iter()
                .map(|p| format!("{},{}", coord(px(p.axis_x)), coord(py(p.estimate))))
                .collect();
            put!(
                out,
                "<polyline data-series=\"{name}\" points=\"{}\" fill=\"none\" stroke=\"{colour}\" \
                 stroke-width=\"2\" stroke-linejoin=\"round\"",
                line.join(" ")
            );
            if !dash.is_empty() {
                put!(out, " stroke-dasharray=\"{dash}\"");
            }
            out.push_str("/>\n");
        }
        put!(
            out,
            "<g data-series=\"{name}\" fill=\"{colour}\" stroke=\"#fff\" stroke-width=\"1\">"
        );
        for p in points {
            put!(
                out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"4\"><title>{name}, {} = {}: {} (interval {} to \
                 {}), {} trials</title></circle>",
                coord(px(p.axis_x)),
                coord(py(p.estimate)),
                if axis.scale == XScale::Log {
                    "N"
                } else {
                    "position"
                },
                escape(&tick_label(p.x)),
                percent(p.estimate),
                percent(p.low),
                percent(p.high),
                p.trials
            );
        }
        out.push_str("</g>\n");
    }

    for (index, label) in labels.iter().enumerate() {
        let x = LEFT + (index % columns) as f64 * column_width;
        let y = legend_top + (index / columns) as f64 * LEGEND_ROW;
        let colour = PALETTE[index % PALETTE.len()];
        let dash = DASHES[(index / PALETTE.len()) % DASHES.len()];
        put!(
            out,
            "<g><line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"{colour}\" \
             stroke-width=\"2\"{}/><circle cx=\"{}\" cy=\"{y}\" r=\"4\" fill=\"{colour}\"/>\
             <text x=\"{}\" y=\"{y}\" dy=\"4\">{}<title>{}</title></text></g>\n",
            coord(x),
            coord(x + 24.0),
            if dash.is_empty() {
                String::new()
            } else {
                format!(" stroke-dasharray=\"{dash}\"")
            },
            coord(x + 12.0),
            coord(x + 32.0),
            escape(label),
            escape(&curves[index].series),
            y = coord(y)
        );
    }

    out.push_str("</svg>\n");
    (out, skipped)
}

// ---------------------------------------------------------------------------------------
// A/B forest plot

fn ab_section(comparisons: &[AbComparison]) -> String {
    let mut out = String::from("<figure>\n");
    out.push_str(&forest_plot(comparisons));
    out.push_str(
        "<figcaption>One row per comparison: the diamond is the difference in accuracy between \
         the two arms in percentage points, the line its interval; the dashed line marks no \
         difference. The verdict and p-value are the run's own.</figcaption>\n</figure>\n",
    );
    out
}

fn forest_plot(comparisons: &[AbComparison]) -> String {
    const WIDTH: f64 = 900.0;
    const LABEL_X: f64 = 10.0;
    const PLOT_LEFT: f64 = 290.0;
    const PLOT_RIGHT: f64 = 640.0;
    const NOTE_X: f64 = 656.0;
    const TOP: f64 = 10.0;
    const ROW: f64 = 40.0;
    let plot_bottom = TOP + comparisons.len() as f64 * ROW;
    let height = plot_bottom + 78.0;

    // The range covers every finite value and zero, so the no-difference line always shows.
    let mut lowest = 0.0f64;
    let mut highest = 0.0f64;
    for c in comparisons {
        for value in [c.difference, c.low, c.high] {
            let points = value * 100.0;
            if points.is_finite() {
                lowest = lowest.min(points);
                highest = highest.max(points);
            }
        }
    }
    if highest - lowest < 1e-9 {
        lowest -= 1.0;
        highest += 1.0;
    }
    let (ticks, lowest, highest) = nice_ticks(lowest, highest, 6);
    let span = if highest > lowest {
        highest - lowest
    } else {
        1.0
    };
    let px = |points: f64| PLOT_LEFT + (points - lowest) / span * (PLOT_RIGHT - PLOT_LEFT);

    let mut out = String::new();
    open_chart(&mut out, "ab", WIDTH, height, "A/B differences in accuracy");

    for (row, _) in comparisons.iter().enumerate() {
        if row % 2 == 1 {
            put!(
                out,
                "<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f5f6f8\"/>\n",
                coord(TOP + row as f64 * ROW),
                coord(WIDTH),
                coord(ROW)
            );
        }
    }
    for tick in &ticks {
        let x = coord(px(*tick));
        put!(
            out,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#e6e6e6\"/>\
             <line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#333\"/>\
             <text class=\"tick\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            coord(TOP),
            coord(plot_bottom),
            coord(plot_bottom),
            coord(plot_bottom + 5.0),
            coord(plot_bottom + 18.0),
            signed_tick(*tick)
        );
    }
    let zero = coord(px(0.0));
    put!(
        out,
        "<line x1=\"{zero}\" x2=\"{zero}\" y1=\"{}\" y2=\"{}\" stroke=\"#555\" \
         stroke-dasharray=\"5 4\"/>\n\
         <line x1=\"{}\" x2=\"{}\" y1=\"{b}\" y2=\"{b}\" stroke=\"#333\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">difference in accuracy (percentage \
         points)</text>\n",
        coord(TOP),
        coord(plot_bottom),
        coord(PLOT_LEFT),
        coord(PLOT_RIGHT),
        coord((PLOT_LEFT + PLOT_RIGHT) / 2.0),
        coord(plot_bottom + 40.0),
        b = coord(plot_bottom)
    );

    for (row, c) in comparisons.iter().enumerate() {
        let middle = TOP + row as f64 * ROW + ROW / 2.0;
        let difference = c.difference * 100.0;
        let low = c.low * 100.0;
        let high = c.high * 100.0;
        let arms = format!("{} vs {}", c.arm_a, c.arm_b);
        let numbers = if !difference.is_finite() {
            "no estimate".to_string()
        } else if low.is_finite() && high.is_finite() {
            format!(
                "{} pp [{}, {}]",
                signed(difference),
                signed(low.min(high)),
                signed(low.max(high))
            )
        } else {
            format!("{} pp", signed(difference))
        };
        let judgement = format!("{} · {}", c.verdict, p_value_text(c.p_value));

        // Labels sit outside the series group so that its measured box is the drawing alone.
        put!(
            out,
            "<text class=\"strong\" x=\"{x}\" y=\"{}\">{}</text>\
             <text class=\"small\" x=\"{x}\" y=\"{}\">{}</text>\n\
             <text x=\"{n}\" y=\"{}\">{}</text>\
             <text class=\"small\" x=\"{n}\" y=\"{}\">{}</text>\n",
            coord(middle - 3.0),
            escape(&truncate(&c.backend, 40)),
            coord(middle + 12.0),
            escape(&truncate(&arms, 44)),
            coord(middle - 3.0),
            escape(&numbers),
            coord(middle + 12.0),
            escape(&truncate(&judgement, 38)),
            x = coord(LABEL_X),
            n = coord(NOTE_X)
        );

        put!(
            out,
            "<g data-series=\"{}\"><title>{}: {} — {}, {}</title>",
            escape(&c.backend),
            escape(&c.backend),
            escape(&arms),
            escape(&numbers),
            escape(&judgement)
        );
        if low.is_finite() && high.is_finite() {
            let (from, to) = (px(low.min(high)), px(low.max(high)));
            put!(
                out,
                "<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#0072B2\" \
                 stroke-width=\"2\"/><line x1=\"{f}\" x2=\"{f}\" y1=\"{}\" y2=\"{}\" \
                 stroke=\"#0072B2\" stroke-width=\"2\"/><line x1=\"{t}\" x2=\"{t}\" y1=\"{}\" \
                 y2=\"{}\" stroke=\"#0072B2\" stroke-width=\"2\"/>",
                coord(from),
                coord(to),
                coord(middle - 5.0),
                coord(middle + 5.0),
                coord(middle - 5.0),
                coord(middle + 5.0),
                y = coord(middle),
                f = coord(from),
                t = coord(to)
            );
        }
        if difference.is_finite() {
            let x = px(difference);
            put!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"#0072B2\" \
                 stroke=\"#fff\" transform=\"rotate(45 {} {})\"/>",
                coord(x - 5.0),
                coord(middle - 5.0),
                coord(x),
                coord(middle)
            );
        }
        out.push_str("</g>\n");
    }

    // Key: what the diamond, the bar and the dashed line mean.
    let key = plot_bottom + 64.0;
    put!(
        out,
        "<g><rect x=\"{}\" y=\"{}\" width=\"9\" height=\"9\" fill=\"#0072B2\" \
         transform=\"rotate(45 {} {k})\"/><text class=\"small\" x=\"{}\" y=\"{}\">difference</text>\
         <line x1=\"{}\" x2=\"{}\" y1=\"{k}\" y2=\"{k}\" stroke=\"#0072B2\" stroke-width=\"2\"/>\
         <text class=\"small\" x=\"{}\" y=\"{}\">interval</text>\
         <line x1=\"{d}\" x2=\"{d}\" y1=\"{}\" y2=\"{}\" stroke=\"#555\" stroke-dasharray=\"5 4\"/>\
         <text class=\"small\" x=\"{}\" y=\"{}\">no difference</text></g>\n",
        coord(PLOT_LEFT - 4.5),
        coord(key - 4.5),
        coord(PLOT_LEFT),
        coord(PLOT_LEFT + 12.0),
        coord(key + 4.0),
        coord(PLOT_LEFT + 100.0),
        coord(PLOT_LEFT + 130.0),
        coord(PLOT_LEFT + 138.0),
        coord(key + 4.0),
        coord(key - 7.0),
        coord(key + 7.0),
        coord(PLOT_LEFT + 206.0),
        coord(key + 4.0),
        k = coord(key),
        d = coord(PLOT_LEFT + 198.0)
    );
    out.push_str("</svg>\n");
    out
}

// ---------------------------------------------------------------------------------------
// Confusion heat maps

fn confusion_section(confusions: &[Confusion]) -> String {
    let mut out = String::new();
    for confusion in confusions {
        let drawn = heat_map(confusion);
        put!(
            out,
            "<h3>{}</h3>\n<figure>\n{}",
            escape(&confusion.backend),
            drawn.svg
        );
        out.push_str(
            "<figcaption>Rows: the gold tool; columns: the tool called first. Shade: share of \
             the row's trials (white = none, dark blue = all); outlined cells are correct \
             picks. Hover a cell for its count.",
        );
        if drawn.rows_shown < drawn.rows_total || drawn.columns_shown < drawn.columns_total {
            put!(
                out,
                " Only the {} most frequent of {} expected tools and the {} most frequent of {} \
                 picked tools are drawn; {} of {} trials fall outside the cells shown.",
                drawn.rows_shown,
                drawn.rows_total,
                drawn.columns_shown,
                drawn.columns_total,
                drawn.hidden_trials,
                drawn.all_trials
            );
        }
        out.push_str("</figcaption>\n</figure>\n");
    }
    out
}

struct HeatMap {
    svg: String,
    rows_shown: usize,
    rows_total: usize,
    columns_shown: usize,
    columns_total: usize,
    hidden_trials: u64,
    all_trials: u64,
}

/// Indices of the `cap` largest totals, ties going to the earlier index, in original order.
fn most_frequent(totals: &[u64], cap: usize) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..totals.len()).collect();
    indices.sort_by(|&a, &b| totals[b].cmp(&totals[a]).then(a.cmp(&b)));
    indices.truncate(cap);
    indices.sort_unstable();
    indices
}

/// White at 0, the palette's dark blue (#08306B) at 1.
fn blue_shade(share: f64) -> String {
    let t = if share.is_finite() {
        share.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let channel = |to: f64| (255.0 + (to - 255.0) * t).round().clamp(0.0, 255.0) as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        channel(8.0),
        channel(48.0),
        channel(107.0)
    )
}

fn heat_map(confusion: &Confusion) -> HeatMap {
    const CELL: f64 = 28.0;
    const LABEL_CHARS: usize = 36;
    let expected = &confusion.expected;
    let picked = &confusion.picked;
    let count = |i: usize, j: usize| {
        confusion
            .counts
            .get(i)
            .and_then(|row| row.get(j))
            .copied()
            .unwrap_or(0)
    };

    let mut row_totals = vec![0u64; expected.len()];
    let mut column_totals = vec![0u64; picked.len()];
    for (i, row_total) in row_totals.iter_mut().enumerate() {
        for (j, column_total) in column_totals.iter_mut().enumerate() {
            let n = count(i, j);
            *row_total = row_total.saturating_add(n);
            *column_total = column_total.saturating_add(n);
        }
    }
    let all_trials = row_totals
        .iter()
        .fold(0u64, |sum, n| sum.saturating_add(*n));

    let rows = most_frequent(&row_totals, MAX_CONFUSION_TOOLS);
    let mut remaining = most_frequent(&column_totals, MAX_CONFUSION_TOOLS);
    // Columns follow the row order where names match, so correct picks run down the diagonal.
    let mut columns = Vec::with_capacity(remaining.len());
    for &i in &rows {
        if let Some(at) = remaining.iter().position(|&j| picked[j] == expected[i]) {
            columns.push(remaining.remove(at));
        }
    }
    columns.extend(remaining);

    let mut shown_trials = 0u64;
    for &i in &rows {
        for &j in &columns {
            shown_trials = shown_trials.saturating_add(count(i, j));
        }
    }

    let row_labels: Vec<String> = rows
        .iter()
        .map(|&i| truncate(&expected[i], LABEL_CHARS))
        .collect();
    let column_labels: Vec<String> = columns
        .iter()
        .map(|&j| truncate(&picked[j], LABEL_CHARS))
        .collect();
    let widest_row = row_labels
        .iter()
        .map(|l| text_width(l, 11.0))
        .fold(0.0, f64::max);
    let widest_column = column_labels
        .iter()
        .map(|l| text_width(l, 11.0))
        .fold(0.0, f64::max);
    // Column labels are turned 60° up; their height and rightward reach follow from that.
    let (sin, cos) = (60f64.to_radians().sin(), 60f64.to_radians().cos());
    let left = 30.0 + widest_row + 10.0;
    let top = 26.0 + widest_column * sin + 12.0;
    let grid_width = columns.len() as f64 * CELL;
    let grid_height = rows.len() as f64 * CELL;
    let legend_top = top + grid_height.max(CELL) + 18.0;
    let width = (left + grid_width + widest_column * cos + 24.0)
        .max(left + 360.0)
        .max(390.0);
    let height = legend_top + 44.0;

    let mut out = String::new();
    let title = format!("Confusion of first calls: {}", confusion.backend);
    open_chart(&mut out, "confusion", width, height, &title);

    put!(
        out,
        "<text x=\"{}\" y=\"16\" text-anchor=\"middle\">picked (first call)</text>\n\
         <text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">expected \
         (gold tool)</text>\n",
        coord(left + grid_width.max(CELL * 4.0) / 2.0),
        coord(top + grid_height.max(CELL) / 2.0)
    );

    if rows.is_empty() || columns.is_empty() {
        put!(
            out,
            "<text class=\"small\" x=\"{}\" y=\"{}\">no trials recorded</text>\n",
            coord(left),
            coord(top + CELL / 2.0 + 4.0)
        );
    }

    let backend = escape(&confusion.backend);
    for (r, (&i, label)) in rows.iter().zip(&row_labels).enumerate() {
        let y = top + r as f64 * CELL;
        put!(
            out,
            "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}<title>{}</title></text>\n",
            coord(left - 6.0),
            coord(y + CELL / 2.0 + 4.0),
            escape(label),
            escape(&expected[i])
        );
        for (c, &j) in columns.iter().enumerate() {
            let x = left + c as f64 * CELL;
            let n = count(i, j);
            let share = if row_totals[i] > 0 {
                n as f64 / row_totals[i] as f64
            } else {
                0.0
            };
            put!(
                out,
                "<rect data-series=\"{backend}\" x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{w}\" \
                 fill=\"{}\" stroke=\"#e2e2e2\"><title>expected {}, picked {}: {n}</title></rect>",
                coord(x),
                coord(y),
                blue_shade(share),
                escape(&expected[i]),
                escape(&picked[j]),
                w = coord(CELL)
            );
            if n > 0 {
                let text = n.to_string();
                // Long counts shrink to stay inside their cell.
                let size = (CELL * 0.9 / (text.len() as f64 * 0.6)).min(10.0);
                put!(
                    out,
                    "<text class=\"{}\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" \
                     style=\"font-size:{}px\" pointer-events=\"none\">{text}</text>",
                    // The page's text colour is set in CSS, which outranks a fill attribute.
                    if share > 0.5 { "cell on-dark" } else { "cell" },
                    coord(x + CELL / 2.0),
                    coord(y + CELL / 2.0 + size * 0.35),
                    coord(size)
                );
            }
        }
        out.push('\n');
    }

    for (c, (&j, label)) in columns.iter().zip(&column_labels).enumerate() {
        let x = left + c as f64 * CELL + CELL / 2.0;
        put!(
            out,
            "<text class=\"tick\" transform=\"translate({} {}) rotate(-60)\">{}<title>{}</title></text>\n",
            coord(x),
            coord(top - 6.0),
            escape(label),
            escape(&picked[j])
        );
    }

    // Correct picks are outlined wherever they ended up, including outside the diagonal
    // when a name appears among the columns only.
    for (r, &i) in rows.iter().enumerate() {
        for (c, &j) in columns.iter().enumerate() {
            if expected[i] == picked[j] {
                put!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{w}\" fill=\"none\" \
                     stroke=\"#D55E00\" stroke-width=\"2\" pointer-events=\"none\"/>",
                    coord(left + c as f64 * CELL + 1.0),
                    coord(top + r as f64 * CELL + 1.0),
                    w = coord(CELL - 2.0)
                );
            }
        }
    }
    out.push('\n');

    // Colour key: ten steps from an empty to a full row.
    put!(
        out,
        "<text class=\"small\" x=\"{}\" y=\"{}\">share of the row's trials</text>\n",
        coord(left),
        coord(legend_top + 10.0)
    );
    for step in 0..10 {
        put!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"12\" fill=\"{}\" stroke=\"#ccc\"/>",
            coord(left + 150.0 + step as f64 * 18.0),
            coord(legend_top),
            blue_shade((step as f64 + 0.5) / 10.0)
        );
    }
    put!(
        out,
        "\n<text class=\"tick\" x=\"{}\" y=\"{y}\" text-anchor=\"middle\">0%</text>\
         <text class=\"tick\" x=\"{}\" y=\"{y}\" text-anchor=\"middle\">100%</text>\n",
        coord(left + 150.0),
        coord(left + 330.0),
        y = coord(legend_top + 26.0)
    );
    out.push_str("</svg>\n");

    HeatMap {
        svg: out,
        rows_shown: rows.len(),
        rows_total: expected.len(),
        columns_shown: columns.len(),
        columns_total: picked.len(),
        hidden_trials: all_trials.saturating_sub(shown_trials),
        all_trials,
    }
}

// ---------------------------------------------------------------------------------------
// Latency box plots

fn latency_section(series: &[LatencySeries]) -> String {
    let mut out = String::from("<figure>\n");
    out.push_str(&latency_chart(series));
    out.push_str(
        "<figcaption>Latency per backend, log scale. Box: 25th to 75th percentile; thick \
         line: median; whiskers: minimum to 95th percentile; hollow dot: maximum. Hover a row \
         for the numbers.</figcaption>\n</figure>\n",
    );
    out
}

struct Spread {
    count: usize,
    min: f64,
    p25: f64,
    median: f64,
    p75: f64,
    p95: f64,
    max: f64,
}

/// Linear-interpolated quantile of already sorted values; `None` when there are none.
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let at = q.clamp(0.0, 1.0) * last as f64;
    let below = at.floor() as usize;
    let above = (at.ceil() as usize).min(last);
    let fraction = at - below as f64;
    Some(sorted[below] + (sorted[above] - sorted[below]) * fraction)
}

fn spread(latencies: &[f64]) -> Option<Spread> {
    let mut sorted: Vec<f64> = latencies
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    sorted.sort_by(f64::total_cmp);
    Some(Spread {
        count: sorted.len(),
        min: quantile(&sorted, 0.0)?,
        p25: quantile(&sorted, 0.25)?,
        median: quantile(&sorted, 0.5)?,
        p75: quantile(&sorted, 0.75)?,
        p95: quantile(&sorted, 0.95)?,
        max: quantile(&sorted, 1.0)?,
    })
}

fn latency_chart(series: &[LatencySeries]) -> String {
    const WIDTH: f64 = 900.0;
    const LABEL_X: f64 = 10.0;
    const PLOT_LEFT: f64 = 230.0;
    const PLOT_RIGHT: f64 = 690.0;
    const NOTE_X: f64 = 706.0;
    const TOP: f64 = 10.0;
    const ROW: f64 = 34.0;
    let spreads: Vec<Option<Spread>> = series.iter().map(|s| spread(&s.latencies_ms)).collect();
    let plot_bottom = TOP + series.len() as f64 * ROW;
    let height = plot_bottom + 92.0;

    // Whole decades around the positive values; zero or negative times sit at the left edge.
    let mut smallest = f64::INFINITY;
    let mut largest = f64::NEG_INFINITY;
    for value in series.iter().flat_map(|s| &s.latencies_ms) {
        if value.is_finite() && *value > 0.0 {
            smallest = smallest.min(*value);
            largest = largest.max(*value);
        }
    }
    let (mut first_decade, mut last_decade) = if smallest.is_finite() && largest.is_finite() {
        (smallest.log10().floor(), largest.log10().ceil())
    } else {
        (0.0, 1.0)
    };
    first_decade = first_decade.clamp(MIN_LATENCY_DECADE, MAX_LATENCY_DECADE - 1.0);
    last_decade = last_decade.clamp(first_decade + 1.0, MAX_LATENCY_DECADE);
    let span = last_decade - first_decade;
    let px = |ms: f64| {
        let decade = if ms.is_finite() && ms > 0.0 {
            ms.log10().clamp(first_decade, last_decade)
        } else {
            first_decade
        };
        PLOT_LEFT + (decade - first_decade) / span * (PLOT_RIGHT - PLOT_LEFT)
    };

    let mut out = String::new();
    open_chart(&mut out, "latency", WIDTH, height, "Latency per backend");

    for row in (1..series.len()).step_by(2) {
        put!(
            out,
            "<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f5f6f8\"/>\n",
            coord(TOP + row as f64 * ROW),
            coord(WIDTH),
            coord(ROW)
        );
    }

    // Ticks at each power of ten, plus 2× and 5× when there are few decades to fill.
    let multiples: &[f64] = if span <= 2.0 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut decade = first_decade;
    while decade <= last_decade {
        for multiple in multiples {
            let value = multiple * 10f64.powf(decade);
            if value > 10f64.powf(last_decade) * 1.0001 {
                continue;
            }
            let x = coord(px(value));
            let grid = if *multiple == 1.0 {
                "#e0e0e0"
            } else {
                "#f0f0f0"
            };
            put!(
                out,
                "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"{grid}\"/>\
                 <line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#333\"/>\
                 <text class=\"tick\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                coord(TOP),
                coord(plot_bottom),
                coord(plot_bottom),
                coord(plot_bottom + 5.0),
                coord(plot_bottom + 18.0),
                tick_label(value)
            );
        }
        decade += 1.0;
    }
    put!(
        out,
        "<line x1=\"{}\" x2=\"{}\" y1=\"{b}\" y2=\"{b}\" stroke=\"#333\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">latency (ms, log scale)</text>\n",
        coord(PLOT_LEFT),
        coord(PLOT_RIGHT),
        coord((PLOT_LEFT + PLOT_RIGHT) / 2.0),
        coord(plot_bottom + 40.0),
        b = coord(plot_bottom)
    );

    for (row, (s, stats)) in series.iter().zip(&spreads).enumerate() {
        let middle = TOP + row as f64 * ROW + ROW / 2.0;
        let colour = PALETTE[row % PALETTE.len()];
        put!(
            out,
            "<text x=\"{}\" y=\"{}\">{}<title>{}</title></text>\n",
            coord(LABEL_X),
            coord(middle + 4.0),
            escape(&truncate(&s.series, 32)),
            escape(&s.series)
        );
        let Some(stats) = stats else {
            put!(
                out,
                "<text class=\"small\" x=\"{}\" y=\"{}\">no measurements</text>\n",
                coord(NOTE_X),
                coord(middle + 4.0)
            );
            continue;
        };
        put!(
            out,
            "<text class=\"small\" x=\"{}\" y=\"{}\">n = {} · median {} ms</text>\n",
            coord(NOTE_X),
            coord(middle + 4.0),
            stats.count,
            milliseconds(stats.median)
        );
        let (x_min, x_25, x_50, x_75, x_95, x_max) = (
            px(stats.min),
            px(stats.p25),
            px(stats.median),
            px(stats.p75),
            px(stats.p95),
            px(stats.max),
        );
        put!(
            out,
            "<g data-series=\"{name}\"><title>{name}: n = {}, min {} ms, p25 {} ms, median {} \
             ms, p75 {} ms, p95 {} ms, max {} ms</title>\
             <line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#555\" stroke-width=\"1.5\"/>\
             <line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#555\" stroke-width=\"1.5\"/>\
             <line x1=\"{a}\" x2=\"{a}\" y1=\"{cap_top}\" y2=\"{cap_bottom}\" stroke=\"#555\" stroke-width=\"1.5\"/>\
             <line x1=\"{z}\" x2=\"{z}\" y1=\"{cap_top}\" y2=\"{cap_bottom}\" stroke=\"#555\" stroke-width=\"1.5\"/>\
             <rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{colour}\" fill-opacity=\"0.35\" \
             stroke=\"{colour}\" stroke-width=\"1.5\"/>\
             <line x1=\"{m}\" x2=\"{m}\" y1=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"3\"/>\
             <circle cx=\"{}\" cy=\"{y}\" r=\"3.5\" fill=\"#fff\" stroke=\"#555\" stroke-width=\"1.5\"/></g>\n",
            stats.count,
            milliseconds(stats.min),
            milliseconds(stats.p25),
            milliseconds(stats.median),
            milliseconds(stats.p75),
            milliseconds(stats.p95),
            milliseconds(stats.max),
            coord(x_min),
            coord(x_25),
            coord(x_75),
            coord(x_95),
            coord(x_25),
            coord(middle - 9.0),
            coord((x_75 - x_25).max(1.0)),
            coord(18.0),
            coord(middle - 11.0),
            coord(middle + 11.0),
            coord(x_max),
            name = escape(&s.series),
            y = coord(middle),
            a = coord(x_min),
            z = coord(x_95),
            m = coord(x_50),
            cap_top = coord(middle - 5.0),
            cap_bottom = coord(middle + 5.0)
        );
    }

    // Key: one sample box with each mark named under it.
    let key = plot_bottom + 62.0;
    let at = |offset: f64| coord(PLOT_LEFT + offset);
    put!(
        out,
        "<g><line x1=\"{}\" x2=\"{}\" y1=\"{k}\" y2=\"{k}\" stroke=\"#555\" stroke-width=\"1.5\"/>\
         <line x1=\"{a}\" x2=\"{a}\" y1=\"{}\" y2=\"{}\" stroke=\"#555\" stroke-width=\"1.5\"/>\
         <line x1=\"{z}\" x2=\"{z}\" y1=\"{}\" y2=\"{}\" stroke=\"#555\" stroke-width=\"1.5\"/>\
         <rect x=\"{}\" y=\"{}\" width=\"80\" height=\"14\" fill=\"#999\" fill-opacity=\"0.35\" \
         stroke=\"#777\" stroke-width=\"1.5\"/>\
         <line x1=\"{m}\" x2=\"{m}\" y1=\"{}\" y2=\"{}\" stroke=\"#555\" stroke-width=\"3\"/>\
         <circle cx=\"{}\" cy=\"{k}\" r=\"3.5\" fill=\"#fff\" stroke=\"#555\" stroke-width=\"1.5\"/>",
        at(0.0),
        at(160.0),
        coord(key - 5.0),
        coord(key + 5.0),
        coord(key - 5.0),
        coord(key + 5.0),
        at(40.0),
        coord(key - 7.0),
        coord(key - 9.0),
        coord(key + 9.0),
        at(192.0),
        k = coord(key),
        a = at(0.0),
        z = at(160.0),
        m = at(80.0)
    );
    for (offset, name) in [
        (0.0, "min"),
        (40.0, "p25"),
        (80.0, "median"),
        (120.0, "p75"),
        (160.0, "p95"),
        (192.0, "max"),
    ] {
        put!(
            out,
            "<text class=\"small\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{name}</text>",
            at(offset),
            coord(key + 22.0)
        );
    }
    out.push_str("</g>\n");
    out.push_str("</svg>\n");
    out
}

// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: f64, estimate: f64, trials: u64) -> CurvePoint {
        CurvePoint {
            x,
            estimate,
            low: (estimate - 0.06).max(0.0),
            high: (estimate + 0.05).min(1.0),
            trials,
        }
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn sample_page() -> ReportPage {
        ReportPage {
            title: "mcpick run 20261201T002437Z-dd692d5d".to_string(),
            summary_tables: vec![
                Table {
                    caption: "Accuracy by backend".to_string(),
                    header: strings(&[
                        "backend",
                        "trials",
                        "accuracy",
                        "95% interval",
                        "median ms",
                    ]),
                    rows: vec![
                        strings(&["claude-sonnet", "600", "84.2%", "81.1–86.9%", "912"]),
                        strings(&[
                            "qwen <local> & \"friends\"",
                            "600",
                            "71.0%",
                            "67.3–74.5%",
                            "2 410",
                        ]),
                        strings(&["gpt-4o-mini", "598", "79.9%", "76.5–82.9%", "640"]),
                    ],
                },
                Table {
                    caption: "Prompts that need escaping: <script>alert(1)</script> & \"quotes\""
                        .to_string(),
                    header: strings(&["case", "note"]),
                    rows: vec![
                        strings(&["<script>alert('x')</script>", "A & B < C > D"]),
                        strings(&["it's", "\"quoted\""]),
                        strings(&["short row"]),
                    ],
                },
            ],
            size_curves: vec![
                SizeCurve {
                    series: "claude-sonnet".to_string(),
                    points: vec![
                        point(5.0, 0.95, 200),
                        point(50.0, 0.88, 200),
                        point(500.0, 0.71, 200),
                    ],
                },
                SizeCurve {
                    series: "qwen <local> / \"tuned\"".to_string(),
                    points: vec![
                        point(5.0, 0.9, 200),
                        point(20.0, 0.82, 200),
                        CurvePoint {
                            x: 50.0,
                            estimate: f64::NAN,
                            low: f64::NAN,
                            high: 0.8,
                            trials: 0,
                        },
                        point(200.0, 0.55, 200),
                        point(500.0, 0.41, 200),
                    ],
                },
            ],
            position_curves: vec![SizeCurve {
                series: "claude-sonnet".to_string(),
                points: (1..=10)
                    .map(|p| point(p as f64, 0.92 - p as f64 * 0.02, 60))
                    .collect(),
            }],
            ab_comparisons: vec![AbComparison {
                backend: "claude-sonnet".to_string(),
                arm_a: "plain descriptions".to_string(),
                arm_b: "rewritten descriptions".to_string(),
                difference: 0.052,
                low: 0.011,
                high: 0.094,
                p_value: 0.013,
                verdict: "B better".to_string(),
            }],
            confusions: vec![Confusion {
                backend: "claude-sonnet".to_string(),
                expected: strings(&["read_file", "write_file", "search <code>"]),
                picked: strings(&["read_file", "write_file", "search <code>", "(none)"]),
                counts: vec![vec![40, 3, 1, 2], vec![5, 30, 0, 1], vec![2, 0, 25, 6]],
            }],
            latencies: vec![
                LatencySeries {
                    series: "claude-sonnet".to_string(),
                    latencies_ms: (0..200)
                        .map(|i| 400.0 + (i as f64 * 37.0) % 1900.0)
                        .collect(),
                },
                LatencySeries {
                    series: "qwen <local> / \"tuned\"".to_string(),
                    latencies_ms: (0..150)
                        .map(|i| {
                            if i == 7 {
                                f64::NAN
                            } else {
                                90.0 + (i as f64 * 53.0) % 4000.0
                            }
                        })
                        .collect(),
                },
            ],
            manifest_json:
                "{\n  \"run\": \"20261201T002437Z-dd692d5d\",\n  \"note\": \"<b>&</b>\"\n}"
                    .to_string(),
        }
    }

    fn empty_page() -> ReportPage {
        ReportPage {
            title: String::new(),
            summary_tables: vec![],
            size_curves: vec![],
            position_curves: vec![],
            ab_comparisons: vec![],
            confusions: vec![],
            latencies: vec![],
            manifest_json: String::new(),
        }
    }

    fn assert_clean(html: &str) {
        assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
        assert_eq!(
            html.matches("<g").count(),
            html.matches("</g>").count(),
            "unbalanced <g>"
        );
        for bad in ["NaN", "inf", "Infinity", "<script>alert"] {
            assert!(!html.contains(bad), "output contains {bad:?}");
        }
        assert_eq!(html.matches("<script>").count(), 1);
    }

    #[test]
    fn escape_handles_all_five_special_characters() {
        assert_eq!(
            escape(r#"<a href="x">Tom & Jerry's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
        );
        assert_eq!(escape("plain — ü"), "plain — ü");
    }

    #[test]
    fn sample_page_has_one_chart_per_kind() {
        let html = render(&sample_page());
        for (kind, expected) in [
            ("size", 1),
            ("position", 1),
            ("ab", 1),
            ("confusion", 1),
            ("latency", 1),
        ] {
            let found = html.matches(&format!("data-chart=\"{kind}\"")).count();
            assert_eq!(found, expected, "charts of kind {kind}");
        }
        assert_eq!(html.matches("data-chart=").count(), 5);
        assert_eq!(html.matches("class=\"chart\"").count(), 5);
    }

    #[test]
    fn every_series_name_is_tagged() {
        let page = sample_page();
        let html = render(&page);
        let names = page
            .size_curves
            .iter()
            .chain(&page.position_curves)
            .map(|c| &c.series)
            .chain(page.ab_comparisons.iter().map(|c| &c.backend))
            .chain(page.confusions.iter().map(|c| &c.backend))
            .chain(page.latencies.iter().map(|l| &l.series));
        for name in names {
            let attribute = format!("data-series=\"{}\"", escape(name));
            assert!(html.contains(&attribute), "missing {attribute}");
        }
        // 3×4 cells, each tagged with its backend.
        assert_eq!(
            html.matches("<rect data-series=\"claude-sonnet\"").count(),
            12
        );
        assert!(html.contains("<title>expected read_file, picked write_file: 3</title>"));
        assert!(html.contains("<title>expected search &lt;code&gt;, picked (none): 6</title>"));
    }

    #[test]
    fn untrusted_text_is_escaped() {
        let html = render(&sample_page());
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
        assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
        assert!(html.contains("A &amp; B &lt; C &gt; D"));
        assert!(html.contains("qwen &lt;local&gt; / &quot;tuned&quot;"));
        assert!(html.contains("&quot;note&quot;: &quot;&lt;b&gt;&amp;&lt;/b&gt;&quot;"));
        assert!(!html.contains("<script>alert"));
        assert!(!html.contains("<local>"));
    }

    #[test]
    fn sample_output_is_balanced_and_has_no_non_finite_numbers() {
        let html = render(&sample_page());
        assert_clean(&html);
        // The missing point is reported, and numbers are right-aligned.
        assert!(html.contains("1 point with a missing value"));
        assert!(html.contains("<td class=\"num\">84.2%</td>"));
        assert!(html.contains("<td>claude-sonnet</td>"));
        assert!(html.contains("<pre id=\"render-check\""));
        for id in [
            "summary",
            "ab",
            "size",
            "position",
            "confusion",
            "latency",
            "manifest",
        ] {
            assert!(
                html.contains(&format!("<a href=\"#{id}\">")),
                "nav link {id}"
            );
        }
        // Sections come in the documented order.
        let order: Vec<usize> = [
            "id=\"summary\"",
            "id=\"ab\"",
            "id=\"size\"",
            "id=\"position\"",
            "id=\"confusion\"",
            "id=\"latency\"",
            "id=\"manifest\"",
        ]
        .iter()
        .map(|s| html.find(s).unwrap_or(usize::MAX))
        .collect();
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "section order {order:?}"
        );
    }

    #[test]
    fn empty_page_renders_without_sections() {
        let html = render(&empty_page());
        assert_clean(&html);
        assert!(html.contains("<h1>mcpick report</h1>"));
        assert!(!html.contains("<section"));
        assert!(!html.contains("<nav>"));
        assert!(!html.contains("<svg"));
        assert!(html.ends_with("</html>\n"));
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let mut page = empty_page();
        page.title = "odd".to_string();
        page.summary_tables = vec![Table {
            caption: String::new(),
            header: vec![],
            rows: vec![vec![], strings(&["x", "1"])],
        }];
        page.size_curves = vec![
            SizeCurve {
                series: "empty".to_string(),
                points: vec![],
            },
            SizeCurve {
                series: "one".to_string(),
                points: vec![point(10.0, 0.5, 3)],
            },
            SizeCurve {
                series: "bad".to_string(),
                points: vec![
                    CurvePoint {
                        x: 0.0,
                        estimate: 0.5,
                        low: 0.4,
                        high: 0.6,
                        trials: 1,
                    },
                    CurvePoint {
                        x: -3.0,
                        estimate: 0.5,
                        low: 0.4,
                        high: 0.6,
                        trials: 1,
                    },
                    CurvePoint {
                        x: f64::INFINITY,
                        estimate: 0.5,
                        low: 0.4,
                        high: 0.6,
                        trials: 1,
                    },
                    CurvePoint {
                        x: 10.0,
                        estimate: 7.0,
                        low: f64::NEG_INFINITY,
                        high: -2.0,
                        trials: 1,
                    },
                ],
            },
        ];
        page.position_curves = vec![SizeCurve {
            series: "all missing".to_string(),
            points: vec![CurvePoint {
                x: f64::NAN,
                estimate: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
                trials: 0,
            }],
        }];
        page.ab_comparisons = vec![
            AbComparison {
                backend: "zero".to_string(),
                arm_a: String::new(),
                arm_b: String::new(),
                difference: 0.0,
                low: 0.0,
                high: 0.0,
                p_value: 1.0,
                verdict: String::new(),
            },
            AbComparison {
                backend: "missing".to_string(),
                arm_a: "a".to_string(),
                arm_b: "b".to_string(),
                difference: f64::NAN,
                low: f64::INFINITY,
                high: f64::NAN,
                p_value: f64::NAN,
                verdict: "?".to_string(),
            },
        ];
        page.confusions = vec![
            Confusion {
                backend: "blank".to_string(),
                expected: vec![],
                picked: vec![],
                counts: vec![],
            },
            Confusion {
                backend: "ragged".to_string(),
                expected: strings(&["a", "b", "c"]),
                picked: strings(&["a"]),
                counts: vec![vec![1, 2, 3, 4], vec![], vec![u64::MAX]],
            },
        ];
        page.latencies = vec![
            LatencySeries {
                series: "none".to_string(),
                latencies_ms: vec![],
            },
            LatencySeries {
                series: "nan only".to_string(),
                latencies_ms: vec![f64::NAN, f64::INFINITY],
            },
            LatencySeries {
                series: "single".to_string(),
                latencies_ms: vec![250.0],
            },
            LatencySeries {
                series: "zero and negative".to_string(),
                latencies_ms: vec![0.0, -5.0, 1e-300, 1e300],
            },
        ];
        let html = render(&page);
        assert_clean(&html);
        assert_eq!(html.matches("data-chart=\"confusion\"").count(), 2);
        assert!(html.contains("no plottable points"));
        assert!(html.contains("no trials recorded"));
        assert!(html.contains("no measurements"));

        // Every single-valued range in isolation as well.
        let mut flat = empty_page();
        flat.latencies = vec![LatencySeries {
            series: "same".to_string(),
            latencies_ms: vec![5.0; 4],
        }];
        flat.position_curves = vec![SizeCurve {
            series: "p".to_string(),
            points: vec![point(1.0, 1.0, 1), point(1.0, 0.0, 1)],
        }];
        assert_clean(&render(&flat));
    }

    #[test]
    fn confusion_matrix_is_capped_to_the_most_frequent_tools() {
        let tools: Vec<String> = (0..300).map(|i| format!("tool_{i:03}")).collect();
        let mut picked = tools.clone();
        picked.push("(none)".to_string());
        let counts: Vec<Vec<u64>> = (0..300)
            .map(|i| {
                let mut row = vec![0u64; 301];
                row[i] = (i as u64 % 17) + 1;
                row[(i * 7) % 301] += 1;
                row[300] += (i % 3) as u64;
                row
            })
            .collect();
        let page = ReportPage {
            confusions: vec![Confusion {
                backend: "big".to_string(),
                expected: tools,
                picked,
                counts,
            }],
            ..empty_page()
        };
        let html = render(&page);
        assert_clean(&html);
        let cells = html.matches("<rect data-series=\"big\"").count();
        assert_eq!(cells, MAX_CONFUSION_TOOLS * MAX_CONFUSION_TOOLS);
        assert!(html.contains("Only the 25 most frequent of 300 expected tools and the 25 most frequent of 301 picked tools are drawn"));
    }

    #[test]
    fn nice_ticks_cover_the_range() {
        let (ticks, low, high) = nice_ticks(-1.2, 9.4, 6);
        assert!(low <= -1.2 && high >= 9.4);
        assert!(ticks.contains(&0.0));
        assert_eq!(ticks.first().copied(), Some(low));
        let (ticks, _, _) = nice_ticks(f64::NAN, f64::NAN, 6);
        assert!(!ticks.is_empty());
    }

    #[test]
    fn quantiles_interpolate() {
        let sorted = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&sorted, 0.5), Some(3.0));
        assert_eq!(quantile(&sorted, 0.25), Some(2.0));
        assert_eq!(quantile(&sorted, 0.95), Some(4.8));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[7.0], 0.95), Some(7.0));
    }

    #[test]
    fn sample_page_is_written_for_the_browser_check() {
        // HTML_REPORT_SAMPLE picks the destination; by default it lands in the temp folder
        // rather than in the source tree.
        let path = std::env::var_os("HTML_REPORT_SAMPLE")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::env::temp_dir().join("mcpick-sample-report.html"));
        std::fs::write(&path, render(&sample_page())).expect("write sample report");
    }
}
