//! The report's section on bystander servers (`--bystanders`): per backend and server, the
//! suite's picks its tools took, the false calls it drew on no-call tasks, and the tools that did
//! it — the servers a user installs beside the suite's, named as thieves — and the same as a
//! chart, "who steals your picks" (`html::thieves`). Every number is `analysis::bystander_picks`'.

use super::tables::percent;
use crate::analysis::RunAnalysis;
use crate::analysis::bystander_picks::ALL_BYSTANDERS;
use crate::document::{Chart, Part, Section, Table, ThiefBar};

/// The "picks taken by bystander server" table as a section; none when no bystander was shown.
pub fn bystander_section(analysis: &RunAnalysis) -> Option<Section> {
    if analysis.bystander_takes.is_empty() {
        return None;
    }
    let mut table = Table {
        caption: "Picks taken by bystander server: each server's tools were shown beside the suite's in every trial; of the trials whose task expects a call, those whose first call went to the server's tools (Wilson 95% interval when each task ran once), and its first calls on tasks that expect none; then its tools called first in either kind of task".into(),
        header: [
            "backend",
            "server",
            "tools shown",
            "picks taken",
            "share of picks",
            "false calls (no-call tasks)",
            "its tools called first",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for take in &analysis.bystander_takes {
        let share = match &take.taken_share {
            Some(interval) => percent(interval),
            None if take.call_trials == 0 => "– (none judged)".into(),
            None => format!(
                "{:.1}% (repeats: no interval)",
                100.0 * take.picks_taken as f64 / take.call_trials as f64
            ),
        };
        let tools = if take.tools.is_empty() {
            "–".into()
        } else {
            // The servers together: the five tools that took most.
            let shown = if take.server == ALL_BYSTANDERS {
                5
            } else {
                take.tools.len()
            };
            take.tools
                .iter()
                .take(shown)
                .map(|(tool, n)| format!("{tool} ({n})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        table.rows.push(vec![
            take.backend.clone(),
            take.server.clone(),
            take.tools_shown.to_string(),
            format!("{} of {}", take.picks_taken, take.call_trials),
            share,
            format!("{} of {}", take.false_calls, take.no_call_trials),
            tools,
        ]);
    }
    // The chart shows each server on its own; the servers together are the table's last row.
    let bars = analysis
        .bystander_takes
        .iter()
        .filter(|take| take.server != ALL_BYSTANDERS)
        .map(|take| ThiefBar {
            backend: take.backend.clone(),
            server: take.server.clone(),
            picks_taken: take.picks_taken,
            call_trials: take.call_trials,
            interval: take.taken_share.as_ref().map(|i| (i.low, i.high)),
            false_calls: take.false_calls,
            no_call_trials: take.no_call_trials,
        })
        .collect();
    Some(Section {
        id: "bystanders",
        heading: "Bystander servers".into(),
        parts: vec![Part::Table(table), Part::Chart(Chart::Thieves(bars))],
    })
}
