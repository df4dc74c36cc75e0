//! Tests of the experiment queries on hand-built trials: A/B pairing and discordant pairs, the
//! confusion matrix, and size curves with their fit.

use super::*;
use crate::analysis::statistics::{AbVerdict, Adjustment};
use crate::analysis::trials::frame;
use crate::record::StoredTrial;

fn row(backend: &str, variant: &str, task: &str, right: bool) -> StoredTrial {
    serde_json::from_value(serde_json::json!({
        "suite": "s", "toolset": "t", "task": task, "backend": backend, "variant": variant,
        "gold_position": 1, "expected_tools": ["get_weather"], "shown_tools": 5, "lang": "en",
        "outcome": if right { "correct" } else { "wrong_tool" },
        "selection_correct": right,
        "first_tool": if right { "get_weather" } else { "get_forecast" },
        "saw_tool_error": false, "self_corrected": false, "mismatches": [], "detail": "",
        "calls": [], "turns": 1, "latency_ms": 1.0, "input_tokens": 0, "output_tokens": 0,
        "backend_error": null,
    }))
    .expect("a stored trial")
}

#[test]
fn ab_pairs_trials_by_task_and_counts_discordant_pairs() {
    // 16 tasks: both right on 3, only A on 2, only B on 11, one of which errs → b = 2, c = 10
    // (exact two-sided p = 0.0386).
    let mut rows = Vec::new();
    for i in 0..16 {
        let (a, b) = match i {
            0..3 => (true, true),
            3..5 => (true, false),
            _ => (false, true),
        };
        rows.push(row("m", "terse", &format!("t{i}"), a));
        rows.push(row("m", "rich", &format!("t{i}"), b));
    }
    // An error trial on one side removes that pair.
    let mut broken = row("m", "rich", "t15", false);
    broken.verdict.outcome = crate::score::Outcome::Error;
    rows.retain(|r| !(r.task == "t15" && r.variant.as_deref() == Some("rich")));
    rows.push(broken);
    let df = frame(&rows).unwrap();
    let result = ab_comparisons(
        &df,
        "variant",
        &["terse".into(), "rich".into()],
        Adjustment::Holm,
    )
    .unwrap();
    assert_eq!(result.len(), 1);
    let c = &result[0];
    assert_eq!((c.pairs, c.tasks), (15, 15));
    assert_eq!((c.picks.only_a, c.picks.only_b), (2, 10));
    assert!((c.picks.p_value - 0.038_574_218_75).abs() < 1e-9);
    // A family of one: Holm leaves it as it is.
    assert_eq!(c.picks_p_adjusted, c.picks.p_value);
    assert_eq!(c.only_a, vec!["t3", "t4"]);
    assert!(c.b.estimate > c.a.estimate);
    assert!(matches!(c.verdict, AbVerdict::BBetter), "{:?}", c.verdict);
    let d = c.difference.as_ref().unwrap();
    assert!((d.difference - 8.0 / 15.0).abs() < 1e-9);
    assert!(d.low > 0.0 && d.high <= 1.0);
}

/// Trials of 53 tasks: A right on the first `a_right`, B on the first `b_right`, each task met
/// `repeats` times with the same result (a deterministic backend).
fn repeated(arms: &[(&str, usize)], tasks: usize, repeats: u32) -> Vec<StoredTrial> {
    let mut rows = Vec::new();
    for (arm, right) in arms {
        for i in 0..tasks {
            for repeat in 0..repeats {
                let mut trial = row("m", arm, &format!("t{i:02}"), i < *right);
                trial.repeat = repeat;
                rows.push(trial);
            }
        }
    }
    rows
}

#[test]
fn repeats_that_agree_are_counted_once() {
    let arms = ["a".to_string(), "b".to_string()];
    let once = frame(&repeated(&[("a", 20), ("b", 35)], 53, 1)).unwrap();
    let thrice = frame(&repeated(&[("a", 20), ("b", 35)], 53, 3)).unwrap();
    let one = &ab_comparisons(&once, "variant", &arms, Adjustment::Holm).unwrap()[0];
    let three = &ab_comparisons(&thrice, "variant", &arms, Adjustment::Holm).unwrap()[0];
    assert_eq!((three.pairs, three.tasks), (159, 53));
    assert_eq!(one.picks.p_value, three.picks.p_value);
    assert_eq!(one.difference, three.difference);
    assert_eq!((one.a.low, one.a.high), (three.a.low, three.a.high));
    assert_eq!(one.picks_detectable, three.picks_detectable);
    assert_eq!((three.picks.only_a, three.picks.only_b), (0, 15));
}

#[test]
fn a_family_of_comparisons_is_adjusted_by_holm() {
    let arms: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let trials = frame(&repeated(&[("a", 20), ("b", 27), ("c", 28)], 53, 1)).unwrap();
    let holm = ab_comparisons(&trials, "variant", &arms, Adjustment::Holm).unwrap();
    let raw = ab_comparisons(&trials, "variant", &arms, Adjustment::None).unwrap();
    let p: Vec<f64> = raw.iter().map(|c| c.picks.p_value).collect();
    // Holm over two: the smaller doubled, the larger at least that.
    let (small, large) = (p[0].min(p[1]), p[0].max(p[1]));
    let adjusted: Vec<f64> = holm.iter().map(|c| c.picks_p_adjusted).collect();
    assert!(adjusted.contains(&(2.0 * small).min(1.0)));
    assert!(adjusted.contains(&large.max((2.0 * small).min(1.0))));
    // 7 and 8 discordant tasks all one way: p 0.0156 and 0.0078 alone, both below 0.05 still
    // after Holm (0.0156 and 0.0156).
    assert!(raw.iter().all(|c| c.picks_verdict == AbVerdict::BBetter));
    assert!(holm.iter().all(|c| c.picks_verdict == AbVerdict::BBetter));
    let weak = frame(&repeated(&[("a", 20), ("b", 25), ("c", 26)], 53, 1)).unwrap();
    let weak_raw = ab_comparisons(&weak, "variant", &arms, Adjustment::None).unwrap();
    let weak_holm = ab_comparisons(&weak, "variant", &arms, Adjustment::Holm).unwrap();
    // 5 one way: p = 2/32 = 0.0625; 6: p = 2/64 = 0.03125, better alone, not after Holm (0.0625).
    assert_eq!(weak_raw[1].picks_verdict, AbVerdict::BBetter);
    assert_eq!(
        weak_holm[1].picks_verdict,
        AbVerdict::NoDetectableDifference
    );
    assert_eq!(weak_holm[1].picks_p_adjusted, 0.0625);
}

#[test]
fn confusion_counts_expected_against_picked() {
    let rows = vec![
        row("m", "", "a", true),
        row("m", "", "b", false),
        row("m", "", "c", false),
    ];
    let df = frame(&rows).unwrap();
    let matrices = confusions(&df).unwrap();
    let m = &matrices[0];
    assert_eq!(m.expected, vec!["get_weather"]);
    assert_eq!(m.picked, vec!["get_weather", "get_forecast"]);
    assert_eq!(m.counts, vec![vec![1, 2]]);
    assert_eq!(
        m.confused_pairs,
        vec![("get_forecast".into(), "get_weather".into(), 0, 2)]
    );
}

#[test]
fn size_curves_group_by_size_and_fit() {
    let mut rows = Vec::new();
    for (size, right_of_20) in [(5u32, 19), (15, 17), (30, 14), (50, 11), (100, 6)] {
        for i in 0..20 {
            let mut r = row("m", "", &format!("t{i}"), i < right_of_20);
            r.size = Some(size);
            r.gold_position = Some(1 + (i as u32 % size) as usize);
            rows.push(r);
        }
    }
    let df = frame(&rows).unwrap();
    let curves = size_curves(&df).unwrap();
    assert_eq!(curves.len(), 1);
    let sizes: Vec<u32> = curves[0].points.iter().map(|p| p.size).collect();
    assert_eq!(sizes, vec![5, 15, 30, 50, 100]);
    assert_eq!(curves[0].points[1].pick.successes, 17);
    let fit = curves[0].fit.as_ref().unwrap();
    assert!(fit.slope < 0.0);
    let half = fit.n_at_50_percent.unwrap();
    assert!(half > 30.0 && half < 200.0, "{half}");
    let positions = position_curves(&df).unwrap();
    let first: Vec<u32> = positions[0].buckets.iter().map(|b| b.0).collect();
    assert_eq!(first, vec![1, 2, 3, 4, 6, 11]);
}

#[test]
fn an_ab_whose_trials_all_erred_cannot_say() {
    let mut rows = repeated(&[("a", 5)], 10, 1);
    for i in 0..10 {
        let mut broken = row("m", "b", &format!("t{i:02}"), false);
        broken.verdict.outcome = crate::score::Outcome::Error;
        rows.push(broken);
    }
    let analysis = crate::analysis::analyse(
        &rows,
        vec!["a".into(), "b".into()],
        Vec::new(),
        &[],
        Adjustment::Holm,
        &[],
    )
    .unwrap();
    assert!(analysis.ab.is_empty());
    assert_eq!(
        analysis.cannot_say,
        vec![
            "backend m: no task was scored under both a and b (a: 10 trials, 0 errors; b: 10 trials, 10 errors)"
        ]
    );
}
