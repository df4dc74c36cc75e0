//! "Who steals your picks": for a run beside bystander servers (`--bystanders`), one chart per
//! backend with a horizontal bar per bystander server — the share of the suite's picks its tools
//! took first, with its 95% interval as a whisker — and, beneath each bar and beside it, how many
//! requests that need no tool it drew a call from. The table above it holds the same numbers and the tools.

use super::escape;
use super::svg::{PALETTE, coord, open_chart, truncate};
use crate::document::ThiefBar;
use std::fmt::Write as _;

const WIDTH: f64 = 760.0;
const LABEL: f64 = 190.0;
const BAR_SPACE: f64 = 360.0;
const ROW: f64 = 26.0;
const TOP: f64 = 28.0;

pub fn thieves_section(bars: &[ThiefBar]) -> String {
    let mut out = String::from("<figure>\n");
    let mut backends: Vec<&str> = Vec::new();
    for bar in bars {
        if !backends.contains(&bar.backend.as_str()) {
            backends.push(&bar.backend);
        }
    }
    for (i, backend) in backends.iter().enumerate() {
        let rows: Vec<&ThiefBar> = bars.iter().filter(|b| b.backend == *backend).collect();
        out.push_str(&backend_chart(backend, &rows, PALETTE[i % PALETTE.len()]));
    }
    out.push_str(
        "<figcaption>Who steals your picks: per backend, the share of the suite's requests that \
         need a tool whose first call went to each bystander server's tools (bar; whisker: 95% \
         interval), and beneath it, thin and pale, the share of requests needing no tool it drew \
         a call from. Hover a bar for the counts.</figcaption>\n</figure>\n",
    );
    out
}

fn backend_chart(backend: &str, rows: &[&ThiefBar], colour: &str) -> String {
    let height = TOP + ROW * rows.len() as f64 + 24.0;
    let mut out = String::new();
    open_chart(
        &mut out,
        "thieves",
        WIDTH,
        height,
        &format!("Picks taken by bystander server, {backend}"),
    );
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"16\" font-weight=\"bold\">{}</text>",
        escape(&truncate(backend, 60))
    );
    let x0 = LABEL;
    for (i, row) in rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let share = if row.call_trials == 0 {
            0.0
        } else {
            row.picks_taken as f64 / row.call_trials as f64
        };
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            coord(x0 - 8.0),
            coord(y + 15.0),
            escape(&truncate(&row.server, 28))
        );
        let _ = writeln!(
            out,
            "<rect class=\"thief\" data-server=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\" fill=\"{colour}\"><title>{}: {} of {} picks taken; {} of {} no-call requests drew a call</title></rect>",
            escape(&row.server),
            coord(x0),
            coord(y + 3.0),
            coord(share * BAR_SPACE),
            escape(&row.server),
            row.picks_taken,
            row.call_trials,
            row.false_calls,
            row.no_call_trials
        );
        // Beneath it, thinner and paler: the share of no-call requests it drew a call from.
        let no_call = if row.no_call_trials == 0 {
            0.0
        } else {
            row.false_calls as f64 / row.no_call_trials as f64
        };
        let _ = writeln!(
            out,
            "<rect class=\"thief-no-call\" data-server=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"4\" fill=\"{colour}\" fill-opacity=\"0.45\"/>",
            escape(&row.server),
            coord(x0),
            coord(y + 20.0),
            coord(no_call * BAR_SPACE)
        );
        if let Some((low, high)) = row.interval {
            let _ = writeln!(
                out,
                "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#333\"/>",
                coord(x0 + low * BAR_SPACE),
                coord(x0 + high * BAR_SPACE),
                coord(y + 11.0),
                coord(y + 11.0)
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\">{:.1}% ({} of {}) · no-call {} of {}</text>",
            coord(x0 + BAR_SPACE + 10.0),
            coord(y + 15.0),
            100.0 * share,
            row.picks_taken,
            row.call_trials,
            row.false_calls,
            row.no_call_trials
        );
    }
    // The axis: 0 and 100% of the suite's picks.
    let axis = TOP + ROW * rows.len() as f64 + 4.0;
    let _ = writeln!(
        out,
        "<line x1=\"{x}\" x2=\"{x2}\" y1=\"{axis}\" y2=\"{axis}\" stroke=\"#999\"/>\n\
         <text x=\"{x}\" y=\"{t}\" text-anchor=\"middle\">0%</text>\n\
         <text x=\"{x2}\" y=\"{t}\" text-anchor=\"middle\">100%</text>",
        x = coord(x0),
        x2 = coord(x0 + BAR_SPACE),
        axis = coord(axis),
        t = coord(axis + 16.0)
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(backend: &str, server: &str, taken: u64, calls: u64) -> ThiefBar {
        ThiefBar {
            backend: backend.into(),
            server: server.into(),
            picks_taken: taken,
            call_trials: calls,
            interval: Some((0.02, 0.18)),
            false_calls: 1,
            no_call_trials: 9,
        }
    }

    #[test]
    fn a_bar_per_server_as_long_as_its_share_one_chart_per_backend() {
        let html = thieves_section(&[
            bar("bm25", "git", 3, 44),
            bar("bm25", "time", 0, 44),
            bar("random", "git", 11, 44),
        ]);
        assert_eq!(html.matches("data-chart=\"thieves\"").count(), 2);
        // 3 of 44 of the 360-pixel scale: 24.5 px; none: 0.
        assert!(
            html.contains("data-server=\"git\" x=\"190.0\" y=\"31.0\" width=\"24.5\""),
            "{html}"
        );
        assert!(
            html.contains("data-server=\"time\" x=\"190.0\" y=\"57.0\" width=\"0.0\""),
            "{html}"
        );
        assert!(html.contains("6.8% (3 of 44) · no-call 1 of 9"), "{html}");
        assert!(html.contains("<title>git: 11 of 44 picks taken"), "{html}");
        // One of nine no-call requests: 40 px of the 360.
        assert!(
            html.contains(
                "class=\"thief-no-call\" data-server=\"git\" x=\"190.0\" y=\"48.0\" width=\"40.0\""
            ),
            "{html}"
        );
    }

    #[test]
    fn a_server_name_is_escaped_and_no_trials_draw_no_bar() {
        let html = thieves_section(&[bar("bm25", "<evil>", 0, 0)]);
        assert!(
            html.contains("&lt;evil&gt;") && !html.contains("<evil>"),
            "{html}"
        );
        assert!(html.contains("width=\"0.0\""));
    }
}
