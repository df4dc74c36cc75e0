//! The drawing primitives every chart shares: the palette and dash patterns that keep series
//! apart, the opening `<svg>` with its render-check hooks, round axis ticks, label width and
//! truncation, and the number formatters for coordinates and labels, none of which ever writes a
//! non-finite value.

use super::escape;
use std::fmt::Write as _;

/// Okabe–Ito colours, which stay apart under the common kinds of colour blindness. Its
/// yellow is left out because a thin yellow line all but vanishes on white.
pub const PALETTE: [&str; 7] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000",
];

/// Once the palette has been used up, later series repeat a colour with another dash
/// pattern so that two lines never look identical.
pub const DASHES: [&str; 3] = ["", "7 4", "2 3"];

const NO_VALUE: &str = "–";

/// Shortens a label to `max_chars` characters (not bytes, so multi-byte text is safe).
pub fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut short: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// SVG coordinate: one decimal is far below a pixel, and a non-finite value (only possible
/// from absurd inputs) becomes 0 rather than an attribute the browser rejects.
pub fn coord(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.1}")
    } else {
        "0".to_string()
    }
}

pub fn percent(proportion: f64) -> String {
    if proportion.is_finite() {
        format!("{:.1}%", proportion * 100.0)
    } else {
        NO_VALUE.to_string()
    }
}

/// A signed value with a real minus sign, e.g. "+5.0" or "−2.5".
pub fn signed(value: f64) -> String {
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
pub fn signed_tick(value: f64) -> String {
    let magnitude = tick_label(value.abs());
    if !value.is_finite() || magnitude == "0" {
        magnitude
    } else if value > 0.0 {
        format!("+{magnitude}")
    } else {
        format!("−{magnitude}")
    }
}

pub fn p_value_text(p: f64) -> String {
    if !p.is_finite() {
        format!("p = {NO_VALUE}")
    } else if p < 0.001 {
        "p < 0.001".to_string()
    } else {
        format!("p = {p:.3}")
    }
}

/// Axis tick label: whole numbers without decimals, others with at most three.
pub fn tick_label(value: f64) -> String {
    if !value.is_finite() {
        return NO_VALUE.to_string();
    }
    if (value - value.round()).abs() < 1e-9 && value.abs() < 1e15 {
        return format!("{}", value.round() as i64);
    }
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

pub fn milliseconds(value: f64) -> String {
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
pub fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars().count() as f64 * font_px * 0.6
}

/// About `target` evenly spaced round ticks covering `low..high`; returns the ticks and the
/// range widened to the outermost ticks.
pub fn nice_ticks(low: f64, high: f64, target: usize) -> (Vec<f64>, f64, f64) {
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
pub fn open_chart(out: &mut String, kind: &str, width: f64, height: f64, title: &str) {
    put!(
        out,
        "<svg class=\"chart\" data-chart=\"{kind}\" viewBox=\"0 0 {w} {h}\" width=\"100%\" \
         style=\"max-width:{w}px\" role=\"img\"><title>{title}</title>\n",
        w = coord(width),
        h = coord(height),
        title = escape(title)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks_cover_the_range() {
        let (ticks, low, high) = nice_ticks(-1.2, 9.4, 6);
        assert!(low <= -1.2 && high >= 9.4);
        assert!(ticks.contains(&0.0));
        assert_eq!(ticks.first().copied(), Some(low));
        let (ticks, _, _) = nice_ticks(f64::NAN, f64::NAN, 6);
        assert!(!ticks.is_empty());
    }
}
