//! The latency box plots: one row per backend on a logarithmic millisecond axis, drawn from the
//! quantiles (minimum, quartiles, median, 95th percentile, maximum) of the raw latencies.

use super::escape;
use super::svg::{PALETTE, coord, milliseconds, open_chart, tick_label, truncate};
use crate::document::LatencySeries;
use std::fmt::Write as _;

/// Latency axes are clamped to these powers of ten (1 µs to about 2.8 hours) so that an
/// absurd value cannot make the tick loop run for thousands of decades.
const MIN_LATENCY_DECADE: f64 = -3.0;
const MAX_LATENCY_DECADE: f64 = 7.0;

pub fn latency_section(series: &[LatencySeries]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        let sorted = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&sorted, 0.5), Some(3.0));
        assert_eq!(quantile(&sorted, 0.25), Some(2.0));
        assert_eq!(quantile(&sorted, 0.95), Some(4.8));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[7.0], 0.95), Some(7.0));
    }
}
