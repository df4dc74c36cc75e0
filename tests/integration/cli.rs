//! The binary as a user runs it: exit codes, the one-line-per-file summary, JSON output.

use std::path::Path;
use std::process::{Command, Output};

fn mcpick(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run mcpick")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn validate_on_the_shipped_data_exits_zero_with_a_summary() {
    let out = mcpick(&["validate"], root());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("toolsets/travel.toml") && stdout.contains("[ok"),
        "{stdout}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.contains("0 errors"), "{last}");
}

#[test]
fn validate_json_reports_counts() {
    let out = mcpick(&["validate", "--format", "json"], root());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(report["valid"], true);
    assert!(report["counts"]["tools"].as_u64().unwrap() >= 120);
}

#[test]
fn a_bad_file_exits_two_and_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.toml"),
        "format = 1\n[[tool]]\nname = \"get_x\"\ndescripton = \"typo\"\n",
    )
    .unwrap();
    let out = mcpick(&["validate", "bad.toml"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("bad.toml:4:1: error: tool \"get_x\": unknown key `descripton`"),
        "{stdout}"
    );
    assert!(stdout.contains("help: "), "{stdout}");
}

#[test]
fn a_missing_path_exits_two() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpick(&["validate", "nowhere"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("nowhere: error: cannot read nowhere: no such file or directory")
    );
}

#[test]
fn lint_reports_and_fail_on_sets_the_exit_code() {
    let out = mcpick(&["lint", "travel", "--variant", "travel-terse"], root());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("short-description") && stdout.contains("suggestion:"),
        "{stdout}"
    );

    let out = mcpick(
        &[
            "lint",
            "travel",
            "--variant",
            "travel-terse",
            "--fail-on",
            "warning",
        ],
        root(),
    );
    assert_eq!(out.status.code(), Some(1));

    let out = mcpick(
        &[
            "lint",
            "toolsets/travel.toml",
            "--variant",
            "toolsets/variants/travel-rich.toml",
            "--format",
            "json",
        ],
        root(),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(report["variant"], "travel-rich");
    assert!(report["findings"].is_array());

    let out = mcpick(&["lint", "no_such_toolset"], root());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn list_shows_what_is_found() {
    let out = mcpick(&["list"], root());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for heading in ["toolsets:", "variants:", "suites:", "travel-terse"] {
        assert!(stdout.contains(heading), "{stdout}");
    }
}

#[test]
fn a_wait_no_duration_holds_is_refused_by_name_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let commands: [&[&str]; 3] = [
        &["draft", "toolsets/travel.toml", "-o", "d"],
        &[
            "improve",
            "tasks/travel.toml",
            "--backend",
            "bm25",
            "-o",
            "i",
        ],
        &[
            "run",
            "tasks/travel.toml",
            "--backend",
            "bm25",
            "--out",
            "r",
        ],
    ];
    for command in commands {
        for wait in ["inf", "1e300", "NaN", "0"] {
            let mut args = command.to_vec();
            args.extend(["--timeout", wait]);
            let out = Command::new(env!("CARGO_BIN_EXE_mcpick"))
                .args(&args)
                .current_dir(root())
                .env("MCPICK_OFFLINE", "1")
                .env("HOME", dir.path())
                .output()
                .unwrap();
            let said = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
            assert!(
                said.contains("--timeout") && !said.contains("panicked"),
                "{args:?}: {said}"
            );
        }
    }
    // Nothing was written for any of them.
    for folder in ["d", "i", "r"] {
        assert!(!root().join(folder).exists());
    }
}
