//! `compare --format json`: the gate's verdict as one JSON object on stdout, for a CI step that
//! reads it instead of scraping the table. Rates and differences are fractions (0.491, not 49.1);
//! `verdict` is `pass`, `fail` or `cannot_compare`, as the exit code is 0, 1 or 2.

use crate::analysis::run_comparison::{GateFailure, GateSettings, RunComparison};
use serde_json::{Value, json};

/// The comparison, each backend with its gate's words (`gates`, in backend order).
pub fn verdict(
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
pub fn refused(reason: &str) -> Value {
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
