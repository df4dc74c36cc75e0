//! Tests of the experiment queries on hand-built trials: A/B pairing and discordant pairs, the
//! confusion matrix, and size curves with their fit.

use super::*;
use crate::analysis::statistics::AbVerdict;
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
    let result = ab_comparisons(&df, "variant", &["terse".into(), "rich".into()]).unwrap();
    assert_eq!(result.len(), 1);
    let c = &result[0];
    assert_eq!(c.pairs, 15);
    assert_eq!((c.mcnemar.only_a, c.mcnemar.only_b), (2, 10));
    assert!((c.mcnemar.p_value - 0.038_574_218_75).abs() < 1e-9);
    assert_eq!(c.only_a, vec!["t3", "t4"]);
    assert!(c.b.estimate > c.a.estimate);
    assert!(matches!(c.verdict, AbVerdict::BBetter), "{:?}", c.verdict);
    let d = c.difference.as_ref().unwrap();
    assert!((d.difference - 8.0 / 15.0).abs() < 1e-9);
    assert!(d.low > 0.0 && d.high <= 1.0);
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
