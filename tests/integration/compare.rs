//! `mcpick compare BASE NEW`, the regression gate, on recorded runs of the shipped travel suite:
//! runs of different descriptions pair by task and backend; a run made worse on 15 trials exits 1
//! naming the backend, while the untouched backend passes; a floor fails a run equal to its base;
//! runs of different tasks, or of two arms at once, are refused with exit 2.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn mcpick(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn record(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        "tasks/travel.toml",
        "--backend",
        "bm25",
        "--backend",
        "oracle",
        "--no-cache",
        "--no-progress",
        "--out",
    ];
    let out = out.display().to_string();
    args.push(&out);
    args.extend_from_slice(extra);
    let output = mcpick(&args);
    assert!(output.status.success(), "{}", text(&output));
}

/// The row of `backend` in compare's table.
fn row<'a>(report: &'a str, backend: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(&format!("| {backend} |")))
        .unwrap_or_else(|| panic!("no row for {backend} in\n{report}"))
}

#[test]
fn the_gate_passes_holds_and_fails_as_the_runs_say() {
    let dir = tempfile::tempdir().unwrap();
    let folder = |name: &str| dir.path().join(name);
    let arg = |name: &str| folder(name).display().to_string();
    record(&folder("base"), &[]);
    record(&folder("terse"), &["--variant", "travel-terse"]);

    // Yesterday's descriptions against today's: paired by task, whatever the variant is called.
    let output = mcpick(&["compare", &arg("base"), &arg("terse")]);
    let report = text(&output);
    assert!(row(&report, "bm25").contains("| 53 |"), "{report}");
    assert!(row(&report, "oracle").contains("| pass |"), "{report}");
    let failed = report.contains("FAIL");
    assert_eq!(output.status.code(), Some(i32::from(failed)), "{report}");

    // The same run is no regression; a floor above it is.
    let same = mcpick(&["compare", &arg("base"), &arg("base")]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));
    assert!(
        row(&text(&same), "bm25").contains("+0.0 pp"),
        "{}",
        text(&same)
    );
    let floor = mcpick(&[
        "compare",
        &arg("base"),
        &arg("base"),
        "--min-selection",
        "0.99",
    ]);
    assert_eq!(floor.status.code(), Some(1), "{}", text(&floor));
    assert!(row(&text(&floor), "bm25").contains("below --min-selection 99.0%"));
    assert!(row(&text(&floor), "oracle").contains("| pass |"));
    // Non-inferiority: the same run is within 10 points of itself on 53 tasks, but the oracle's
    // (53 of 53 right both times: Newcombe's interval on its zero difference is ±6.8 pp) is not
    // shown within 5.
    let margin =
        |points: &str| mcpick(&["compare", &arg("base"), &arg("base"), "--margin", points]);
    assert_eq!(
        margin("10").status.code(),
        Some(0),
        "{}",
        text(&margin("10"))
    );
    let narrow = margin("5");
    assert_eq!(narrow.status.code(), Some(1), "{}", text(&narrow));
    assert!(
        row(&text(&narrow), "oracle").contains("FAIL: not shown within 5.0 pp of BASE (--margin)"),
        "{}",
        text(&narrow)
    );

    // NEW made worse: 15 of bm25's right picks turned wrong. McNemar: 15 to 0, p = 2^-14 two-sided,
    // 2^-15 one-sided; Holm over the two backends doubles it back to 2^-14.
    std::fs::create_dir_all(folder("worse")).unwrap();
    let mut flipped = 0;
    let lines: Vec<String> = std::fs::read_to_string(folder("base/trials.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let mut trial: Value = serde_json::from_str(line).unwrap();
            if flipped < 15 && trial["backend"] == "bm25" && trial["selection_correct"] == true {
                trial["selection_correct"] = Value::Bool(false);
                trial["outcome"] = Value::from("wrong_tool");
                flipped += 1;
            }
            trial.to_string()
        })
        .collect();
    assert_eq!(flipped, 15, "the base run has 15 right picks to spoil");
    std::fs::write(folder("worse/trials.jsonl"), lines.join("\n") + "\n").unwrap();
    let worse = mcpick(&["compare", &arg("base"), &arg("worse")]);
    let report = text(&worse);
    assert_eq!(worse.status.code(), Some(1), "{report}");
    assert!(
        row(&report, "bm25").contains("FAIL: worse (p = 0.0001 < 0.05 one-sided, adjusted)"),
        "{report}"
    );
    assert!(row(&report, "bm25").contains("15 / 0 tasks"), "{report}");
    assert!(
        row(&report, "bm25").contains("| 0.0000; 0.0001 |"),
        "{report}"
    );
    assert!(row(&report, "oracle").contains("| pass |"), "{report}");
    // Looser than the evidence: still failed. Stricter than it: passes.
    let strict = mcpick(&["compare", &arg("base"), &arg("worse"), "--alpha", "0.00001"]);
    assert_eq!(strict.status.code(), Some(0), "{}", text(&strict));
}

#[test]
fn runs_that_cannot_be_paired_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let arg = |name: &str| dir.path().join(name).display().to_string();
    record(&dir.path().join("base"), &[]);
    record(&dir.path().join("time"), &["--tag", "time"]);
    let output = mcpick(&["compare", &arg("base"), &arg("time")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("the runs' tasks differ:") && text(&output).contains("only in BASE"),
        "{}",
        text(&output)
    );

    record(
        &dir.path().join("ab"),
        &["--variant", "base", "--variant", "travel-rich"],
    );
    let output = mcpick(&["compare", &arg("base"), &arg("ab")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("compare runs of one arm and one exposure strategy each"),
        "{}",
        text(&output)
    );
    let base = arg("base");
    for bad in [["--alpha", "5"], ["--min-selection", "80"]] {
        let output = mcpick(&["compare", &base, &base, bad[0], bad[1]]);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output));
        assert!(text(&output).contains(bad[0]), "{}", text(&output));
    }
    let missing = mcpick(&["compare", &arg("base"), &arg("nowhere")]);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    assert!(text(&missing).contains("nowhere/trials.jsonl"));
}
