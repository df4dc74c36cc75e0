//! A comparison's verdict as a pull-request comment (`--format markdown` of `compare` and `ab`):
//! the hidden marker a bot finds its own comment by, the verdict line, the table of rows, why the
//! comparison cannot stand where it cannot, the largest movers, and a footer naming mcpick's
//! version. The body is a function of the verdict alone — no time, no path, every list in a fixed
//! order — so the same runs give the same bytes and a bot that replaces its old comment changes
//! nothing when nothing changed.

use super::verdict_table::{ComparisonVerdict, Overall, RowVerdict, VerdictKind};
use crate::analysis::movers::SidePicks;
use crate::document::Table;
use crate::document::markdown::markdown_table;

/// The first line of every comment body: how the GitHub Action finds the comment it posted before
/// (and replaces it) rather than adding another.
pub const PULL_REQUEST_MARKER: &str = "<!-- mcpick-report -->";

/// Movers listed; the rest are counted.
pub const MOVERS_SHOWN: usize = 10;

/// The whole comment body.
pub fn pull_request_comment(verdict: &ComparisonVerdict) -> String {
    let mut body = format!("{PULL_REQUEST_MARKER}\n{}\n", verdict_line(verdict));
    if !verdict.rows.is_empty() {
        body.push('\n');
        body.push_str(&markdown_table(&Table {
            caption: String::new(),
            header: verdict.header.clone(),
            rows: verdict.rows.iter().map(|r| r.cells.clone()).collect(),
        }));
        body.push_str(&format!("\n{}\n", verdict.method));
    }
    if !verdict.not_compared.is_empty() {
        body.push_str(&format!(
            "\nNot compared (in one run only): {}.\n",
            verdict.not_compared.join(", ")
        ));
    }
    if !verdict.cannot_compare.is_empty() {
        body.push_str("\nCannot compare:\n\n");
        for reason in &verdict.cannot_compare {
            body.push_str(&format!("- {}\n", one_line(reason)));
        }
    }
    body.push_str(&movers_part(verdict));
    body.push_str(&format!(
        "\n<sub>mcpick {}</sub>\n",
        env!("CARGO_PKG_VERSION")
    ));
    body
}

/// ✅, ❌ or ⚠️, then what it means.
fn verdict_line(verdict: &ComparisonVerdict) -> String {
    let failing: Vec<&str> = verdict
        .rows
        .iter()
        .filter(|r| matches!(r.verdict, RowVerdict::Fail(_)))
        .map(|r| r.name.as_str())
        .collect();
    match (verdict.overall(), verdict.kind) {
        (Overall::Pass, VerdictKind::Compare) => "✅ mcpick: no backend picks worse".into(),
        (Overall::Pass, VerdictKind::Ab) => {
            format!("✅ mcpick: no arm picks worse than {}", verdict.reference)
        }
        (Overall::Fail, VerdictKind::Compare) => {
            format!("❌ mcpick: NEW fails the gate on {}", failing.join(", "))
        }
        (Overall::Fail, VerdictKind::Ab) => {
            let reasons: Vec<String> = verdict
                .rows
                .iter()
                .filter_map(|r| match &r.verdict {
                    RowVerdict::Fail(why) => Some(why.clone()),
                    _ => None,
                })
                .collect();
            format!("❌ mcpick: {}", reasons.join("; "))
        }
        (Overall::CannotCompare, _) => {
            "⚠️ mcpick: cannot compare: this is no evidence either way".into()
        }
    }
}

/// The movers as a table, most changed first, at most `MOVERS_SHOWN`.
fn movers_part(verdict: &ComparisonVerdict) -> String {
    if verdict.movers.is_empty() {
        return if verdict.rows.is_empty() {
            String::new()
        } else {
            "\nNo task's first pick moved.\n".into()
        };
    }
    let (before, after) = match verdict.kind {
        VerdictKind::Compare => ("BASE picked", "NEW picked"),
        VerdictKind::Ab => ("A picked", "B picked"),
    };
    let mut header = vec!["backend".to_string()];
    if verdict.kind == VerdictKind::Ab {
        header.push("A → B".into());
    }
    header.extend(["task".into(), before.into(), after.into(), "change".into()]);
    let rows = verdict
        .movers
        .iter()
        .take(MOVERS_SHOWN)
        .map(|(label, m)| {
            let mut cells = vec![m.backend.clone()];
            if verdict.kind == VerdictKind::Ab {
                cells.push(label.clone());
            }
            cells.extend([
                // A task id comes from the pull request's own files: in code, so a `@name` or
                // markup in it is shown, not acted on.
                format!("`{}`", format!("{}/{}", m.suite, m.task).replace('`', "'")),
                picks(&m.before),
                picks(&m.after),
                format!("{:+.0} pp", m.change() * 100.0),
            ]);
            cells
        })
        .collect();
    let shown = verdict.movers.len().min(MOVERS_SHOWN);
    format!(
        "\nLargest movers: tasks whose first pick changed, most changed first ({shown} shown of {}).\n\n{}",
        verdict.movers.len(),
        markdown_table(&Table {
            caption: String::new(),
            header,
            rows,
        })
    )
}

/// What one side picked first: each tool in code, ✓ when right, ✗ when not, with its trials when
/// the task had more than one.
fn picks(side: &SidePicks) -> String {
    let several = side.trials > 1;
    let described: Vec<String> = side
        .picked
        .iter()
        .map(|p| {
            // A backtick in a tool name would end the code span early.
            let label = p.label.replace('`', "'");
            let mark = if p.right { "✓" } else { "✗" };
            if several {
                format!("`{label}` {mark} ×{}", p.trials)
            } else {
                format!("`{label}` {mark}")
            }
        })
        .collect();
    described.join(", ")
}

/// A reason on one list line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_comparison_still_makes_a_comment_that_says_so() {
        let refused = ComparisonVerdict::refused(
            VerdictKind::Compare,
            "BASE does not read:\nno manifest".into(),
        );
        let body = pull_request_comment(&refused);
        assert!(body.starts_with(
            "<!-- mcpick-report -->\n⚠️ mcpick: cannot compare: this is no evidence either way\n"
        ));
        assert!(body.contains("- BASE does not read: no manifest\n"));
        assert!(body.ends_with(&format!(
            "<sub>mcpick {}</sub>\n",
            env!("CARGO_PKG_VERSION")
        )));
    }
}
