//! `mcpick compare BASE_DIR NEW_DIR`: the regression gate. Both runs' trials are read, paired and
//! judged (`analysis::run_comparison`); this prints one line per backend, and a line on its graded
//! measure, and picks the exit code:
//! 0 when NEW holds up, 1 when it is worse by a one-sided test (on picks or the graded measure,
//! adjusted over the backends), errs more often, is not shown within `--margin`, or is below
//! `--min-selection`, 2 when the runs
//! cannot be compared — a folder that does not read or holds a line that is not its plan's trial, a
//! backend without one pair that has a verdict, or NEW lacking more of BASE's trials than
//! `--allow-missing` says: a gate never passes without evidence. With `--format json` the same
//! verdict is one JSON object on stdout, for a CI step that reads it instead of scraping the
//! table: rates and differences as fractions (0.491, not 49.1), `verdict` `pass`, `fail` or
//! `cannot_compare` as the exit code is 0, 1 or 2. With `--format markdown` it is a pull-request
//! comment (`report::pull_request_comment`), and `--junit FILE` writes it as JUnit XML as well —
//! also when the gate fails or the comparison is refused; both from one `report::ComparisonVerdict`.

use super::ExitStatus;
use crate::analysis::run_comparison::{GateFailure, GateSettings, RunComparison, compare_runs};
use crate::cli::OutputFormat;
use crate::record::{StoredTrials, read_run};
use crate::report::{
    ComparisonVerdict, VerdictKind, compare_verdict, gate_words as gate, pull_request_comment,
};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

/// Where the verdict goes besides the exit code: the format of stdout, and the JUnit file.
pub struct CompareOutput<'a> {
    pub format: OutputFormat,
    pub junit: Option<&'a Path>,
}

pub fn run_compare(
    base: &Path,
    new: &Path,
    settings: GateSettings,
    output: CompareOutput<'_>,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let started = SystemTime::now();
    let format = output.format;
    let json = format == OutputFormat::Json;
    // A comment and a JUnit file name the runs BASE and NEW, never by where they lie: the same
    // runs give the same comment wherever CI put them.
    let without_paths = |reason: &str| {
        let reason = name_folder(reason, &base.display().to_string(), "BASE");
        name_folder(&reason, &new.display().to_string(), "NEW")
    };
    let refuse = |out: &mut dyn Write, message: String| -> std::io::Result<ExitStatus> {
        let verdict = ComparisonVerdict::refused(VerdictKind::Compare, without_paths(&message));
        if let Some(path) = output.junit {
            verdict.write_junit(path, started)?;
        }
        match format {
            OutputFormat::Json => writeln!(out, "{}", refused_json(&message))?,
            OutputFormat::Markdown => write!(out, "{}", pull_request_comment(&verdict))?,
            OutputFormat::Text => writeln!(out, "mcpick compare: {message}")?,
        }
        Ok(ExitStatus::InvalidInput)
    };
    if !(settings.alpha > 0.0 && settings.alpha < 1.0) {
        return refuse(
            out,
            format!(
                "--alpha {} is not a significance level (between 0 and 1, e.g. 0.05)",
                settings.alpha
            ),
        );
    }
    if let Some(minimum) = settings.min_selection.filter(|m| !(0.0..=1.0).contains(m)) {
        return refuse(
            out,
            format!("--min-selection {minimum} is not a fraction (0 to 1: 0.8 means 80%)"),
        );
    }
    let (base_stored, new_stored) = match (read_run(base), read_run(new)) {
        (Ok(base), Ok(new)) => (base.stored, new.stored),
        (Err(e), _) | (_, Err(e)) => return refuse(out, e.to_string()),
    };
    let mut without_evidence = unread_lines("BASE", base, &base_stored);
    without_evidence.extend(unread_lines("NEW", new, &new_stored));
    let (base_trials, new_trials) = (base_stored.trials, new_stored.trials);
    let comparison = match compare_runs(&base_trials, &new_trials, settings) {
        Ok(comparison) => comparison,
        Err(e) => return refuse(out, format!("refused: {e}")),
    };
    if comparison.backends.is_empty() {
        return refuse(out, "the runs share no backend, so nothing pairs".into());
    }
    without_evidence.extend(comparison.without_evidence(settings.allow_missing));
    let status = if !without_evidence.is_empty() {
        ExitStatus::InvalidInput
    } else if comparison.passed() {
        ExitStatus::Success
    } else {
        ExitStatus::Findings
    };
    if output.junit.is_some() || format == OutputFormat::Markdown {
        // A backend without a pair is its own row's error; the other reasons stand apart.
        let apart: Vec<String> = without_evidence
            .iter()
            .filter(|reason| {
                !comparison
                    .backends
                    .iter()
                    .any(|b| b.pairs == 0 && reason.starts_with(&format!("backend {} ", b.backend)))
            })
            .map(|reason| without_paths(reason))
            .collect();
        let verdict = compare_verdict(&comparison, &settings, apart, &base_trials, &new_trials);
        if let Some(path) = output.junit {
            verdict.write_junit(path, started)?;
        }
        if format == OutputFormat::Markdown {
            write!(out, "{}", pull_request_comment(&verdict))?;
            return Ok(status);
        }
    }
    if json {
        let gates: Vec<String> = comparison
            .backends
            .iter()
            .map(|b| gate(b, &settings))
            .collect();
        let verdict = verdict_json(&comparison, &settings, &gates, &without_evidence);
        writeln!(out, "{verdict}")?;
        return Ok(status);
    }
    writeln!(
        out,
        "Tasks are the unit: a task's repeats, sizes and seeds are averaged into one rate per run. NEW fails when a one-sided test finds it worse (or erring more) at alpha {} after {} adjustment over the backends{}.",
        settings.alpha,
        settings.adjustment.as_str(),
        settings.margin.map_or(String::new(), |m| format!(
            ", or when the 95% interval on NEW − BASE does not lie above −{:.1} pp (--margin)",
            m * 100.0
        ))
    )?;
    writeln!(
        out,
        "| backend | tasks | errors | BASE only | NEW only | BASE right picks | NEW right picks | NEW − BASE [95% CI] | test | p (worse, one-sided; adjusted) | gate |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|")?;
    for backend in &comparison.backends {
        let difference = backend.picks.as_ref().map_or("—".to_string(), |p| {
            let d = p.difference;
            format!(
                "{:+.1} pp [{:+.1}, {:+.1}]",
                d.difference * 100.0,
                d.low * 100.0,
                d.high * 100.0
            )
        });
        let test = backend.picks.as_ref().map_or("—".to_string(), |p| {
            format!("{}, {} / {} tasks", p.test_name(), p.only_a, p.only_b)
        });
        let gate = gate(backend, &settings);
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.1}% | {:.1}% | {difference} | {test} | {:.4}; {:.4} | {gate} |",
            backend.backend,
            backend.tasks,
            backend.errors,
            backend.missing_in_new,
            backend.only_in_new,
            backend.base_rate * 100.0,
            backend.new_rate * 100.0,
            backend.p_worse,
            backend.p_worse_adjusted
        )?;
        match &backend.graded {
            Some((source, g)) => writeln!(
                out,
                "{}: graded ({}, {} tasks): BASE {:.1}%, NEW {:.1}%, NEW − BASE {:+.1} pp [{:+.1}, {:+.1}], sign-flip p = {:.4}{}; detectable with 80% power: {}; the gate is decided by the graded measure",
                backend.backend,
                source.describe(),
                g.tasks,
                g.mean_a * 100.0,
                g.mean_b * 100.0,
                g.difference * 100.0,
                g.low * 100.0,
                g.high * 100.0,
                g.p_value,
                if g.exact { " (exact)" } else { "" },
                g.minimum_detectable
                    .map_or("–".into(), |d| format!("±{:.1} pp", d * 100.0)),
            )?,
            None => writeln!(
                out,
                "{}: no graded measure (one pick per task and no probabilities: run with --graded or --repeats); the gate is decided by the picks",
                backend.backend
            )?,
        }
        if backend.errors > 0 {
            writeln!(
                out,
                "{}: {} pairs left out, an error on one side (no verdict to compare)",
                backend.backend, backend.errors
            )?;
        }
    }
    if !comparison.unpaired_backends.is_empty() {
        writeln!(
            out,
            "not compared (in one run only): {}",
            comparison.unpaired_backends.join(", ")
        )?;
    }
    for reason in &without_evidence {
        writeln!(out, "cannot compare: {reason}")?;
    }
    Ok(status)
}

/// `text` with the folder `path` named `side` where it stands as a path of its own: after a space,
/// a quote or the start, and before a `/` (a file in it, as every message that names one writes
/// it), a backtick or the end. A folder called `a` thus leaves every word `a` alone.
fn name_folder(text: &str, path: &str, side: &str) -> String {
    if path.is_empty() {
        return text.to_string();
    }
    let opens = |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || "`'\"(".contains(c));
    let closes = |c: Option<char>| c.is_none_or(|c| "/`".contains(c));
    let mut named = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(path) {
        let before = if at > 0 {
            rest[..at].chars().last()
        } else {
            named.chars().last()
        };
        let after = rest[at + path.len()..].chars().next();
        named.push_str(&rest[..at]);
        named.push_str(if opens(before) && closes(after) {
            side
        } else {
            path
        });
        rest = &rest[at + path.len()..];
    }
    named.push_str(rest);
    named
}

/// A folder's lines that are not its plan's trials, each a reason the runs cannot be compared as
/// they are (the trials they stood for are missing, or something else is in the folder).
fn unread_lines(side: &str, folder: &Path, stored: &StoredTrials) -> Vec<String> {
    let mut reasons: Vec<String> = stored
        .set_aside
        .iter()
        .take(5)
        .map(|line| {
            format!(
                "{side} {}/{} (`mcpick run --resume {}` sets it aside and runs what is missing)",
                folder.display(),
                line.describe(),
                folder.display()
            )
        })
        .collect();
    if stored.set_aside.len() > 5 {
        reasons.push(format!(
            "{side}: {} more line(s) of {} are not its plan's trials",
            stored.set_aside.len() - 5,
            folder.join("trials.jsonl").display()
        ));
    }
    reasons
}

/// The comparison, each backend with its gate's words (`gates`, in backend order).
fn verdict_json(
    comparison: &RunComparison,
    settings: &GateSettings,
    gates: &[String],
    cannot_compare: &[String],
) -> Value {
    let verdict = if !cannot_compare.is_empty() {
        "cannot_compare"
    } else if comparison.passed() {
        "pass"
    } else {
        "fail"
    };
    let backends: Vec<Value> = comparison
        .backends
        .iter()
        .zip(gates)
        .map(|(backend, gate)| {
            json!({
                "backend": backend.backend,
                "tasks": backend.tasks,
                "pairs": backend.pairs,
                "errors": backend.errors,
                "base_only": backend.missing_in_new,
                "new_only": backend.only_in_new,
                "base_right_picks": backend.base_rate,
                "new_right_picks": backend.new_rate,
                "difference": backend.picks.as_ref().map(|p| json!({
                    "estimate": p.difference.difference,
                    "low": p.difference.low,
                    "high": p.difference.high,
                })),
                "test": backend.picks.as_ref().map(|p| p.test_name()),
                "p_worse": finite(backend.p_worse),
                "p_worse_adjusted": finite(backend.p_worse_adjusted),
                "graded": backend.graded.as_ref().map(|(source, g)| json!({
                    "measure": source.describe(),
                    "tasks": g.tasks,
                    "base": g.mean_a,
                    "new": g.mean_b,
                    "difference": g.difference,
                    "low": g.low,
                    "high": g.high,
                    "p": finite(g.p_value),
                })),
                "failures": backend.failures.iter().map(|f| failure_code(*f)).collect::<Vec<_>>(),
                "gate": gate,
            })
        })
        .collect();
    json!({
        "verdict": verdict,
        "alpha": settings.alpha,
        "adjustment": settings.adjustment.as_str(),
        "margin": settings.margin,
        "min_selection": settings.min_selection,
        "backends": backends,
        "not_compared": comparison.unpaired_backends,
        "cannot_compare": cannot_compare,
    })
}

/// A comparison refused before any pairing (a folder that does not read, a bad flag).
fn refused_json(reason: &str) -> Value {
    json!({ "verdict": "cannot_compare", "cannot_compare": [reason] })
}

fn failure_code(failure: GateFailure) -> &'static str {
    match failure {
        GateFailure::SignificantlyWorse => "significantly_worse",
        GateFailure::GradedWorse => "graded_worse",
        GateFailure::MoreErrors => "more_errors",
        GateFailure::NotShownNonInferior => "not_shown_non_inferior",
        GateFailure::BelowMinimum => "below_min_selection",
    }
}

/// JSON has no NaN: a p-value that could not be computed is `null`.
fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::name_folder;

    #[test]
    fn a_folder_is_named_only_where_it_stands_as_a_path() {
        assert_eq!(
            name_folder("cannot read a/trials.jsonl: a file is missing", "a", "BASE"),
            "cannot read BASE/trials.jsonl: a file is missing"
        );
        assert_eq!(
            name_folder(
                "`mcpick run --resume /tmp/x/base` sets it aside",
                "/tmp/x/base",
                "BASE"
            ),
            "`mcpick run --resume BASE` sets it aside"
        );
        assert_eq!(
            name_folder("/tmp/x/base2/trials.jsonl", "/tmp/x/base", "BASE"),
            "/tmp/x/base2/trials.jsonl"
        );
    }
}
