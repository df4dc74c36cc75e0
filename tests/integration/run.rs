//! `mcpick run` end to end on a shipped suite with the offline baselines: the oracle proves every
//! expectation reachable, bm25 beats random, and the run folder holds one flushed line per trial.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[test]
fn oracle_is_perfect_bm25_beats_random_and_every_trial_is_recorded() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(root)
        .args([
            "run",
            "tasks/travel.toml",
            "--backend",
            "bm25",
            "--backend",
            "random",
            "--backend",
            "oracle",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let lines: Vec<Value> = std::fs::read_to_string(out.path().join("trials.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tasks = lines.iter().filter(|l| l["backend"] == "oracle").count();
    assert!(tasks >= 36, "{tasks}");
    assert_eq!(lines.len(), tasks * 3, "one line per trial");
    for line in &lines {
        assert!(
            line["outcome"].is_string() && line["transcript"].is_array(),
            "{line}"
        );
    }

    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let cell = |backend: &str| {
        summary["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["backend"] == backend && c["suite"] == "(all)")
            .unwrap()
            .clone()
    };
    assert_eq!(
        cell("oracle")["accuracy"]["estimate"],
        1.0,
        "{:#}",
        cell("oracle")
    );
    let selection = |backend: &str| {
        cell(backend)["selection_accuracy"]["estimate"]
            .as_f64()
            .unwrap()
    };
    assert!(
        selection("bm25") > selection("random") + 0.2,
        "bm25 {} vs random {}",
        selection("bm25"),
        selection("random")
    );
    assert!(out.path().join("summary.md").exists() && out.path().join("manifest.json").exists());
    let csv = std::fs::read_to_string(out.path().join("trials.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        lines.len() + 1,
        "a header and one row per trial"
    );
}

#[test]
fn report_rebuilds_every_output_from_trials_jsonl_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let mcpick = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .current_dir(root)
            .args(args)
            .arg(out.path())
            .output()
            .unwrap()
    };
    let ran = mcpick(&[
        "run",
        "tasks/finance.toml",
        "--backend",
        "oracle",
        "--backend",
        "random:3",
        "--out",
    ]);
    assert_eq!(ran.status.code(), Some(0));
    let summary = std::fs::read_to_string(out.path().join("summary.json")).unwrap();
    let derived = [
        "summary.json",
        "summary.md",
        "trials.csv",
        "trials.parquet",
        "report.html",
    ];
    for file in derived {
        std::fs::remove_file(out.path().join(file)).unwrap();
    }
    let rebuilt = mcpick(&["report"]);
    assert_eq!(
        rebuilt.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rebuilt.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("summary.json")).unwrap(),
        summary,
        "identical to the run's own"
    );
    assert!(derived.iter().all(|file| out.path().join(file).exists()));

    // A crash can cut the last line short: it is skipped and counted, never fatal.
    let mut trials = std::fs::OpenOptions::new()
        .append(true)
        .open(out.path().join("trials.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut trials, b"{\"suite\": \"finance\", \"task\": \"cut-sh").unwrap();
    let rebuilt = mcpick(&["report"]);
    assert_eq!(rebuilt.status.code(), Some(0));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["unreadable_lines"], 1);
}

#[test]
fn an_unknown_backend_is_refused_before_anything_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(root)
        .args(["run", "--backend", "gpt-9"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stdout).contains("unknown backend \"gpt-9\""));
}
