//! The report's tables, built from the analysis in no format: the exposure split, tools against
//! tokens, the size sweep with its fitted sizes, position bias, and the most confused tool pairs with
//! their lint findings; and how a cell writes a proportion with its interval or a p-value. The A/B
//! tables are `ab_tables`'. Every number comes from `analysis`; `sections` puts the tables where
//! they belong.

use crate::analysis::CONFUSED_PAIRS_SHOWN as CONFUSED_LIMIT;
use crate::analysis::RunAnalysis;
use crate::analysis::experiments::{CountTokenEffect, ExposureSplit, SizeCurve, series_name};
use crate::document::Table;
use crate::score::Interval;

/// A proportion with its interval: `61.4% [46.6, 74.3]`.
pub fn percent(interval: &Interval) -> String {
    // Nothing judged: no rate, rather than "0.0% [0.0, 100.0]".
    if interval.trials == 0 {
        return "– (none judged)".into();
    }
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        interval.estimate * 100.0,
        interval.low * 100.0,
        interval.high * 100.0
    )
}

/// A p-value as people read one: four decimals, or an upper bound when it rounds to zero.
pub fn p_value(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

/// Where each strategy's misses come from, per condition.
pub fn split_table(splits: &[ExposureSplit]) -> Table {
    let mut table = Table {
        caption: "Exposure split, on tasks that expect a call: retrieval recall at K (a tool a right first pick may choose among the K shown) or how often a search surfaced one, right picks given it did, their product; searches per trial; mean prompt tokens against flat's in the same condition".into(),
        header: [
            "series", "N", "tool tasks", "right pick", "recall@K / found", "pick given found",
            "product", "searches / trial", "prompt tokens", "flat's tokens",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    let or_dash = |interval: Option<&Interval>| interval.map_or("–".into(), percent);
    for split in splits {
        table.rows.push(vec![
            series_name(&split.backend, &split.variant, &split.exposure),
            split.size.to_string(),
            split.pick.trials.to_string(),
            percent(&split.pick),
            or_dash(split.recall.as_ref().or(split.found.as_ref())),
            or_dash(split.pick_given_found.as_ref()),
            split
                .product
                .map_or("–".into(), |p| format!("{:.1}%", p * 100.0)),
            format!("{:.2}", split.searches_per_trial),
            format!("{:.0}", split.mean_input_tokens),
            split
                .flat_input_tokens
                .map_or("–".into(), |t| format!("{t:.0}")),
        ]);
    }
    table
}

/// Too many tools or too many tokens: the joint fit per backend and strategy.
pub fn count_tokens_table(effects: &[CountTokenEffect]) -> Table {
    let mut table = Table {
        caption: "Tools or tokens (a sweep with several description arms): logistic fit of right picks on ln(tools shown) and ln(prompt tokens per request) together; each effect as the odds ratio of a right pick when that quantity doubles and the other is held, with a Wald 95% interval and p-value".into(),
        header: ["series", "arms", "trials", "doubling the tools", "p", "doubling the tokens", "p", "r(ln N, ln T)"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    let odds = |slope: f64, se: f64| {
        let ln2 = std::f64::consts::LN_2;
        format!(
            "×{:.2} [{:.2}, {:.2}]",
            (slope * ln2).exp(),
            ((slope - 1.96 * se) * ln2).exp(),
            ((slope + 1.96 * se) * ln2).exp()
        )
    };
    for effect in effects {
        let series = series_name(&effect.backend, "", &effect.exposure);
        table.rows.push(match &effect.fit {
            Some(fit) => vec![
                series,
                effect.arms.to_string(),
                fit.trials.to_string(),
                odds(fit.count_slope, fit.count_se),
                p_value(fit.count_p),
                odds(fit.token_slope, fit.token_se),
                p_value(fit.token_p),
                format!("{:.2}", fit.correlation),
            ],
            None => vec![
                series,
                effect.arms.to_string(),
                "–".into(),
                "cannot be told apart (tokens follow the tool count, or no finite fit)".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ],
        });
    }
    table
}

/// The sweep table: accuracy and prompt size per toolset size.
pub fn size_table(curves: &[SizeCurve]) -> Table {
    let mut table = Table {
        caption: "Toolset-size sweep: right picks and full accuracy (tool + arguments) against the number of tools shown, with Wilson 95% intervals; mean prompt tokens".into(),
        header: ["series", "N", "trials", "right pick", "tool + args", "tools shown", "prompt tokens"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for curve in curves {
        for p in &curve.points {
            table.rows.push(vec![
                curve.series.clone(),
                p.size.to_string(),
                p.pick.trials.to_string(),
                percent(&p.pick),
                percent(&p.correct),
                format!("{:.1}", p.mean_shown),
                format!("{:.0}", p.mean_input_tokens),
            ]);
        }
    }
    table
}

/// One end of an interval on a size: whole, or ∞.
fn bound(n: f64) -> String {
    if n.is_finite() {
        format!("{n:.0}")
    } else {
        "∞".into()
    }
}

/// The fitted sizes per series.
pub fn fit_table(curves: &[SizeCurve]) -> Table {
    let mut table = Table {
        caption: "Logistic fit of right picks in log N: the N where accuracy falls to 90% and to 50% of its value at the smallest N — relative to the fitted accuracy there, not to 100% (extrapolated beyond the largest N measured when marked *). N at 90% has a 95% interval from refitting on tasks resampled whole (∞: too many resamples never fall that far)".into(),
        header: ["series", "fit", "accuracy at smallest N", "N at 90%", "N at 50%"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for curve in curves {
        let largest = curve.points.iter().map(|p| p.size).max().unwrap_or(0);
        let size = |n: Option<f64>| match n {
            None => "not reached (accuracy does not fall)".to_string(),
            Some(n) if n > f64::from(largest) => format!("{n:.0}*"),
            Some(n) => format!("{n:.0}"),
        };
        let row = match &curve.fit {
            Some(fit) => vec![
                curve.series.clone(),
                format!("logit p = {:.2} {:+.2}·ln N", fit.intercept, fit.slope),
                format!(
                    "{:.1}% at N={}",
                    fit.accuracy_at_small_n * 100.0,
                    fit.small_n
                ),
                match (fit.n_at_90_percent, curve.n_at_90_interval) {
                    (Some(n), Some((low, high))) => {
                        format!("{} [{}, {}]", size(Some(n)), bound(low), bound(high))
                    }
                    (n, _) => size(n),
                },
                size(fit.n_at_50_percent),
            ],
            None => vec![
                curve.series.clone(),
                "no fit (fewer than two sizes, or no variation to fit)".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ],
        };
        table.rows.push(row);
    }
    table
}

/// Accuracy by gold position, per series.
pub fn position_table(analysis: &RunAnalysis) -> Table {
    let mut table = Table {
        caption: "Position bias: right picks by the gold tool's 1-based position in the list shown"
            .into(),
        header: ["series", "position", "trials", "right pick"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for curve in &analysis.positions {
        for (_, label, interval) in &curve.buckets {
            table.rows.push(vec![
                curve.series.clone(),
                label.clone(),
                interval.trials.to_string(),
                percent(interval),
            ]);
        }
    }
    table
}

/// The pairs of tools that take each other's selections most, with the lint findings on them.
pub fn confused_table(analysis: &RunAnalysis) -> Table {
    let mut table = Table {
        caption: format!(
            "Most confused tool pairs per backend (expected → picked, both ways; top {CONFUSED_LIMIT}), with lint findings on either tool: the descriptions to fix first"
        ),
        header: ["backend", "tool A", "tool B", "A→B", "B→A", "lint"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for matrix in &analysis.confusions {
        for (a, b, ab, ba) in matrix.confused_pairs.iter().take(CONFUSED_LIMIT) {
            let lint = analysis
                .lint_links
                .get(&(a.clone(), b.clone()))
                .map_or("–".into(), |f| f.join("; "));
            table.rows.push(vec![
                matrix.backend.clone(),
                a.clone(),
                b.clone(),
                ab.to_string(),
                ba.to_string(),
                lint,
            ]);
        }
    }
    table
}
