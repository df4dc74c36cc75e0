//! The curves: accuracy against toolset size on a logarithmic x axis, mean prompt tokens against
//! it, and accuracy by the gold tool's position on a linear one share one drawing function, which draws each series as
//! a line with dots over its shaded interval band and counts the points it could not place.

use super::escape;
use super::svg::{DASHES, PALETTE, coord, open_chart, percent, text_width, tick_label, truncate};
use crate::document::{Curve, CurveKind};
use std::fmt::Write as _;

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

/// What the y axis measures: a proportion (drawn 0–100%) or a mean token count (drawn from 0 to a
/// round number above the largest).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum YScale {
    Proportion,
    Tokens,
}

struct CurveAxis {
    kind: &'static str,
    title: &'static str,
    x_title: &'static str,
    y_title: &'static str,
    caption: &'static str,
    scale: XScale,
    y: YScale,
}

const PICK_TITLE: &str = "accuracy (first call is the gold tool)";

const SIZE_AXIS: CurveAxis = CurveAxis {
    kind: "size",
    title: "Accuracy vs toolset size",
    x_title: "toolset size N (log scale)",
    y_title: PICK_TITLE,
    caption: "Line and dots: share of trials whose first call was the gold tool, per toolset \
              size. Shaded band: the interval reported for each point. Hover a dot for its \
              numbers.",
    scale: XScale::Log,
    y: YScale::Proportion,
};

const TOKENS_AXIS: CurveAxis = CurveAxis {
    kind: "tokens",
    title: "Prompt tokens vs toolset size",
    x_title: "toolset size N (log scale)",
    y_title: "mean prompt tokens per trial",
    caption: "Line and dots: mean prompt (input) tokens a trial sent, per toolset size, as the \
              backend reported them (offline baselines report none). With exposure strategies, \
              one line each: what retrieval or search saves against flat.",
    scale: XScale::Log,
    y: YScale::Tokens,
};

const POSITION_AXIS: CurveAxis = CurveAxis {
    kind: "position",
    title: "Accuracy by gold position",
    x_title: "position of the gold tool in the list (1 = first)",
    y_title: PICK_TITLE,
    caption: "Line and dots: share of trials whose first call was the gold tool, by where the \
              gold tool stood in the tool list. Shaded band: the interval reported for each \
              point.",
    scale: XScale::Linear,
    y: YScale::Proportion,
};

struct PlottedPoint {
    axis_x: f64,
    x: f64,
    estimate: f64,
    low: f64,
    high: f64,
    trials: u64,
}

/// The axes a curve chart of `kind` is drawn on.
fn axis(kind: CurveKind) -> &'static CurveAxis {
    match kind {
        CurveKind::Size => &SIZE_AXIS,
        CurveKind::Tokens => &TOKENS_AXIS,
        CurveKind::Position => &POSITION_AXIS,
    }
}

pub fn curve_section(curves: &[Curve], kind: CurveKind) -> String {
    let axis = axis(kind);
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
fn curve_chart(curves: &[Curve], axis: &CurveAxis) -> (String, usize) {
    const WIDTH: f64 = 900.0;
    const LEFT: f64 = 64.0;
    const RIGHT: f64 = 880.0;
    const TOP: f64 = 14.0;
    const PLOT_HEIGHT: f64 = 300.0;
    const LEGEND_ROW: f64 = 20.0;
    let bottom = TOP + PLOT_HEIGHT;

    // Token counts are drawn as shares of a round top value, so one drawing serves both scales.
    let y_max = match axis.y {
        YScale::Proportion => 1.0,
        YScale::Tokens => round_top(
            curves
                .iter()
                .flat_map(|c| &c.points)
                .map(|p| p.estimate.max(p.high))
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max),
        ),
    };
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
            let estimate = (point.estimate / y_max).clamp(0.0, 1.0);
            // A missing bound collapses the band onto the estimate instead of dropping the point.
            let low = if point.low.is_finite() {
                (point.low / y_max).clamp(0.0, 1.0)
            } else {
                estimate
            };
            let high = if point.high.is_finite() {
                (point.high / y_max).clamp(0.0, 1.0)
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

    // Horizontal grid and y ticks every fifth of the axis.
    for step in 0..=5 {
        let proportion = step as f64 / 5.0;
        let y = coord(py(proportion));
        put!(
            out,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#e6e6e6\"/>\
             <text class=\"tick\" x=\"{}\" y=\"{y}\" dy=\"4\" text-anchor=\"end\">{}</text>\n",
            coord(LEFT),
            coord(RIGHT),
            coord(LEFT - 8.0),
            y_value(axis.y, proportion * y_max)
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
         <text transform=\"translate(16 {ym}) rotate(-90)\" text-anchor=\"middle\">{y_title}</text>\n",
        l = coord(LEFT),
        r = coord(RIGHT),
        t = coord(TOP),
        b = coord(bottom),
        mid = coord((LEFT + RIGHT) / 2.0),
        xt = coord(bottom + 40.0),
        ym = coord(TOP + PLOT_HEIGHT / 2.0),
        x_title = axis.x_title,
        y_title = axis.y_title
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
                y_value(axis.y, p.estimate * y_max),
                y_value(axis.y, p.low * y_max),
                y_value(axis.y, p.high * y_max),
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

/// A y value as its axis writes it.
fn y_value(scale: YScale, value: f64) -> String {
    match scale {
        YScale::Proportion => percent(value),
        YScale::Tokens => tick_label(value.round()),
    }
}

/// The smallest of 1, 2 or 5 times a power of ten that is at least `largest` (1 for nothing).
fn round_top(largest: f64) -> f64 {
    if largest.is_nan() || largest <= 0.0 || !largest.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(largest.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|top| *top >= largest)
        .unwrap_or(10.0 * power)
}
