//! A run in CI: stdout is not a terminal, so progress comes as plain lines on stderr, and `run`,
//! `ab` and `compare` with `--format json` print one JSON object on stdout that parses, with the
//! figures the text shows.

use serde_json::Value;
use std::process::Command;

fn mcpick(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn parsed(stdout: &str) -> Value {
    serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {stdout}"))
}

#[test]
fn run_ab_and_compare_print_json_and_progress_lines_outside_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let second = dir.path().join("second");
    let (code, stdout, stderr) = mcpick(&[
        "run",
        "tasks/travel.toml",
        "--backend",
        "bm25",
        "-o",
        first.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let run = parsed(&stdout);
    assert_eq!(run["ran"], true);
    assert_eq!(run["trials_run"], 53);
    assert_eq!(run["done"], run["planned"]);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(
        run["summary"], written,
        "the summary printed is the one written"
    );
    // Progress outside a terminal: the closing line, on stderr; what the run says first, too.
    assert!(
        stderr.contains("mcpick run: 53/53 trials (100%)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("running 53 of 53 planned trials"),
        "{stderr}"
    );

    let (code, stdout, stderr) = mcpick(&[
        "run",
        "tasks/travel.toml",
        "--backend",
        "bm25",
        "-o",
        second.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("| bm25 |"),
        "text stays the default: {stdout}"
    );

    let (code, stdout, _) = mcpick(&[
        "compare",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}");
    let compared = parsed(&stdout);
    assert_eq!(compared["verdict"], "pass");
    let bm25 = &compared["backends"][0];
    assert_eq!(bm25["backend"], "bm25");
    assert_eq!(bm25["tasks"], 53);
    assert_eq!(bm25["base_right_picks"], bm25["new_right_picks"]);
    assert_eq!(bm25["gate"], "pass");

    let missing = dir.path().join("missing");
    let (code, stdout, _) = mcpick(&[
        "compare",
        first.to_str().unwrap(),
        missing.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 2, "{stdout}");
    assert_eq!(parsed(&stdout)["verdict"], "cannot_compare");

    let ab = dir.path().join("ab");
    let (code, stdout, stderr) = mcpick(&[
        "ab",
        "tasks/travel.toml",
        "--variant",
        "travel-terse",
        "--variant",
        "travel-rich",
        "--backend",
        "bm25",
        "-o",
        ab.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let ab = parsed(&stdout);
    assert_eq!(ab["trials_run"], 106);
    assert!(
        ab["summary"]["experiments"].is_array() || ab["summary"]["experiments"].is_object(),
        "{:#}",
        ab["summary"]
    );
}
