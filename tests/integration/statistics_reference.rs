//! The reports' statistics recomputed by code nobody here wrote: scipy and statsmodels read the
//! trials of real (cheap, offline) runs and redo each A/B comparison with the task as the unit —
//! Wilson intervals, the exact McNemar test, the exact sign-flip test, Holm's adjustment, the exact
//! test's power at the stated detectable difference (`tests/peers/stats_check.py`). And the two
//! reproductions of issue 49: repeats of a deterministic backend are not new evidence, and a sweep's
//! sizes and seeds are not either.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn mcpick(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(args)
        .arg("--no-progress")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).to_string();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

fn python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/.venv/bin/python");
    assert!(
        python.exists(),
        "the test peers are not installed: run tests/peers/install.sh"
    );
    python
}

/// Runs the reference check on a run folder; returns how many figures it checked.
fn recomputed(folder: &Path) -> u64 {
    let output = Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/stats_check.py"))
        .arg(folder)
        .output()
        .unwrap();
    let said: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(said["failures"], serde_json::json!([]), "{said}");
    assert!(output.status.success());
    said["checked"].as_u64().unwrap()
}

fn comparisons(folder: &Path) -> Vec<Value> {
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("summary.json")).unwrap())
            .unwrap();
    summary["experiments"]["ab"].as_array().unwrap().clone()
}

#[test]
fn repeats_and_three_arms_are_counted_by_task_and_adjusted() {
    let dir = tempfile::tempdir().unwrap();
    let (one, three) = (dir.path().join("one"), dir.path().join("three"));
    let arms = [
        "--variant",
        "base",
        "--variant",
        "travel-terse",
        "--variant",
        "travel-rich",
    ];
    let run = |out: &Path, repeats: &str| {
        let mut args = vec!["ab", "tasks/travel.toml", "--backend", "bm25"];
        args.extend(arms);
        args.extend(["--repeats", repeats, "-o", out.to_str().unwrap()]);
        mcpick(&args)
    };
    run(&one, "1");
    let said = run(&three, "3");
    assert!(said.contains("53 tasks (159 trial pairs)"), "{said}");
    assert!(said.contains("; Holm "), "{said}");
    // bm25 answers the same on every repeat: the picks' p and interval are those of one repeat.
    let (single, repeated) = (comparisons(&one), comparisons(&three));
    assert_eq!(single.len(), 2);
    for (s, r) in single.iter().zip(&repeated) {
        assert_eq!(s["picks_test"]["p_value"], r["picks_test"]["p_value"]);
        assert_eq!(s["picks_test"]["p_adjusted"], r["picks_test"]["p_adjusted"]);
        assert_eq!(s["difference"], r["difference"]);
        assert_eq!(
            (r["tasks"].as_u64(), r["pairs"].as_u64()),
            (Some(53), Some(159))
        );
    }
    assert!(recomputed(&one) >= 8);
    assert!(recomputed(&three) >= 8);
}

#[test]
fn a_sweeps_sizes_and_seeds_are_one_task() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    mcpick(&[
        "sweep",
        "tasks/travel.toml",
        "--variant",
        "travel-terse",
        "--variant",
        "travel-rich",
        "--sizes",
        "5,30",
        "--seeds",
        "2",
        "--backend",
        "bm25",
        "-o",
        out.to_str().unwrap(),
    ]);
    let ab = comparisons(&out);
    assert_eq!(ab[0]["tasks"], 53);
    assert_eq!(ab[0]["pairs"], 212);
    assert_eq!(
        ab[0]["picks_test"]["test"],
        "sign-flip on per-task rates, exact"
    );
    assert!(recomputed(&out) >= 1);
}
