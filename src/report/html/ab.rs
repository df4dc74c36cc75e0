//! The A/B forest plot: one row per comparison, the difference between the two arms in
//! percentage points as a diamond on its interval, against a dashed no-difference line, with the
//! run's own verdict and p-value beside it.

use super::escape;
use super::svg::{coord, nice_ticks, open_chart, p_value_text, signed, signed_tick, truncate};
use crate::document::ForestRow;
use std::fmt::Write as _;

pub fn ab_section(comparisons: &[ForestRow]) -> String {
    let mut out = String::from("<figure>\n");
    out.push_str(&forest_plot(comparisons));
    out.push_str(
        "<figcaption>One row per comparison: the diamond is the difference in accuracy between \
         the two arms in percentage points, the line its interval; the dashed line marks no \
         difference. The verdict and p-value are the run's own.</figcaption>\n</figure>\n",
    );
    out
}

fn forest_plot(comparisons: &[ForestRow]) -> String {
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
