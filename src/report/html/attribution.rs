//! `explain`'s descriptions, drawn as text: each sentence and each parameter's description a span
//! whose colour says what it does to the picks — green where it earns them, red where it steals
//! them, its strength growing with the size of the effect (full at 0.3), grey where it is too small
//! to act on, dotted where the measurement cannot say — and whose tooltip gives the numbers. Text
//! rather than SVG, so a long description wraps as it would anywhere else.

use super::escape;
use crate::document::{AttributedPiece, AttributedText};

/// The effect at which a colour is at its strongest.
const FULL_AT: f64 = 0.3;

fn piece_html(piece: &AttributedPiece) -> String {
    let strength = piece
        .delta
        .filter(|d| d.is_finite())
        .map_or(0.0, |d| (d.abs() / FULL_AT).min(1.0));
    let alpha = 0.15 + 0.7 * strength;
    let (class, style) = match piece.verdict.as_str() {
        "earns" => (
            "earns",
            format!("background: rgba(34, 160, 80, {alpha:.2})"),
        ),
        "steals" => (
            "steals",
            format!("background: rgba(214, 48, 49, {alpha:.2})"),
        ),
        "neutral" => ("neutral", "background: #ececec".to_string()),
        "cannot say" => ("unsure", String::new()),
        _ => ("unmeasured", String::new()),
    };
    format!(
        "<span class=\"unit {class}\" data-unit=\"{}\" style=\"{style}\" title=\"{}\">{}</span>",
        escape(&piece.label),
        escape(&piece.detail),
        escape(&piece.text)
    )
}

/// The descriptions, one figure each, and the legend.
pub fn attribution_section(texts: &[AttributedText]) -> String {
    let mut out = String::from(
        "<p class=\"note legend\"><span class=\"unit earns\" style=\"background: rgba(34, 160, 80, 0.6)\">earns the picks</span> \
         <span class=\"unit steals\" style=\"background: rgba(214, 48, 49, 0.6)\">steals them</span> \
         <span class=\"unit neutral\" style=\"background: #ececec\">too small to act on</span> \
         <span class=\"unit unsure\">cannot say</span> — hover a piece for its numbers</p>\n",
    );
    for text in texts {
        out.push_str(&format!(
            "<figure class=\"attribution\" data-chart=\"attribution {}\">\n<p class=\"described\"><strong>{}</strong>: ",
            escape(&text.tool),
            escape(&text.tool)
        ));
        let sentences: Vec<String> = text.sentences.iter().map(piece_html).collect();
        out.push_str(&sentences.join(" "));
        out.push_str("</p>\n");
        if !text.params.is_empty() {
            out.push_str("<ul class=\"params\">\n");
            for (param, piece) in &text.params {
                out.push_str(&format!(
                    "<li><code>{}</code>: {}</li>\n",
                    escape(param),
                    piece_html(piece)
                ));
            }
            out.push_str("</ul>\n");
        }
        out.push_str(&format!(
            "<figcaption>{}</figcaption>\n</figure>\n",
            escape(&text.caption)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_coloured_by_verdict_and_escaped() {
        let piece = |verdict: &str, delta: Option<f64>| AttributedPiece {
            label: "s1".into(),
            text: "Use <this> & \"that\"".into(),
            delta,
            verdict: verdict.into(),
            detail: "Δ +0.10".into(),
        };
        let html = attribution_section(&[AttributedText {
            tool: "get_weather".into(),
            caption: "effects on get_weather's tasks".into(),
            sentences: vec![piece("earns", Some(0.3)), piece("steals", Some(f64::NAN))],
            params: vec![("city".into(), piece("cannot say", None))],
        }]);
        assert!(
            html.contains(
                "unit earns\" data-unit=\"s1\" style=\"background: rgba(34, 160, 80, 0.85)"
            )
        );
        assert!(html.contains(
            "unit steals\" data-unit=\"s1\" style=\"background: rgba(214, 48, 49, 0.15)"
        ));
        assert!(html.contains("Use &lt;this&gt; &amp; &quot;that&quot;"));
        assert!(html.contains("<code>city</code>"));
        assert!(!html.contains("NaN"));
    }
}
