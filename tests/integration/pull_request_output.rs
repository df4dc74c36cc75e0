//! The answers a pull request gets (issue 53): `compare --junit` and `ab --junit` write JUnit XML
//! that a real schema validator accepts (`xmllint` against the Jenkins xUnit plugin's
//! `tests/data/junit/junit-10.xsd`) — with the gate passing, failing and refused — and
//! `--format markdown` prints a comment body that starts with the marker, gives the verdict, the
//! table and the movers, and comes out byte for byte the same when run again. Runs are bm25 on the
//! travel suite under its terse and rich descriptions (53 tasks, a second or two each).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The marker the GitHub Action finds its comment by: the constant the library exposes, and exactly
/// this string (changing it would orphan every comment already posted).
const MARKER: &str = mcpick::report::PULL_REQUEST_MARKER;

#[test]
fn the_marker_is_the_one_the_action_looks_for() {
    assert_eq!(MARKER, "<!-- mcpick-report -->");
}

/// Runs mcpick in the repository; (exit code, stdout, stderr).
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

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A bm25 run of the travel suite under one variant, into `folder`.
fn travel_run(variant: &str, folder: &Path) {
    let (code, stdout, stderr) = mcpick(&[
        "run",
        "tasks/travel.toml",
        "--backend",
        "bm25",
        "--variant",
        variant,
        "--no-progress",
        "-o",
        path(folder),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

/// Validates a JUnit file against the vendored schema with xmllint, failing loudly when the
/// validator is not installed (a skipped check would pass silently in CI).
fn assert_valid_junit(file: &Path) -> String {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/junit/junit-10.xsd");
    let output = Command::new("xmllint")
        .args(["--noout", "--schema", path(&schema), path(file)])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "xmllint could not run ({e}): install it with scripts/setup --tests (Debian package libxml2-utils)"
            )
        });
    let text = std::fs::read_to_string(file).unwrap();
    assert!(
        output.status.success(),
        "{} does not validate against junit-10.xsd:\n{}\n{text}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

/// The `<testsuite …>` line's counts: (tests, failures, errors, skipped).
fn counts(xml: &str) -> (u32, u32, u32, u32) {
    let line = xml
        .lines()
        .find(|l| l.trim_start().starts_with("<testsuite "))
        .unwrap_or_else(|| panic!("no <testsuite>: {xml}"));
    let attribute = |name: &str| -> u32 {
        let start = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        line[start..].split('"').next().unwrap().parse().unwrap()
    };
    (
        attribute("tests"),
        attribute("failures"),
        attribute("errors"),
        attribute("skipped"),
    )
}

struct TwoRuns {
    _dir: tempfile::TempDir,
    terse: PathBuf,
    rich: PathBuf,
    out: PathBuf,
}

fn terse_and_rich() -> TwoRuns {
    let dir = tempfile::tempdir().unwrap();
    let (terse, rich) = (dir.path().join("terse"), dir.path().join("rich"));
    travel_run("travel-terse", &terse);
    travel_run("travel-rich", &rich);
    TwoRuns {
        out: dir.path().to_path_buf(),
        _dir: dir,
        terse,
        rich,
    }
}

#[test]
fn compare_writes_valid_junit_when_the_gate_passes_fails_and_refuses() {
    let runs = terse_and_rich();
    let junit = |name: &str| runs.out.join(name);
    // Terse to rich: rich picks right far more often (32.1% → 67.9%), the gate passes.
    let (code, stdout, _) = mcpick(&[
        "compare",
        path(&runs.terse),
        path(&runs.rich),
        "--junit",
        path(&junit("pass.xml")),
    ]);
    assert_eq!(code, 0, "{stdout}");
    let pass = assert_valid_junit(&junit("pass.xml"));
    assert_eq!(counts(&pass), (1, 0, 0, 0));
    assert!(
        pass.contains("<testcase name=\"bm25\" classname=\"mcpick.compare\">"),
        "{pass}"
    );
    // The other way round, the gate fails: exit 1, and the file says why with the row.
    let (code, stdout, _) = mcpick(&[
        "compare",
        path(&runs.rich),
        path(&runs.terse),
        "--junit",
        path(&junit("fail.xml")),
    ]);
    assert_eq!(code, 1, "{stdout}");
    let fail = assert_valid_junit(&junit("fail.xml"));
    assert_eq!(counts(&fail), (1, 1, 0, 0));
    assert!(
        fail.contains("<failure message=\"backend: bm25; tasks: 53; BASE right picks [95% CI]: 67.9% [54.5, 78.9]; NEW right picks [95% CI]: 32.1% [21.1, 45.5]; NEW − BASE [95% CI]: -35.8 pp [-51.4, -16.9]; p worse (one-sided, adjusted): 0.0003; gate: FAIL: worse (p = 0.0003 &lt; 0.05 one-sided, adjusted)\" type=\"failure\">"),
        "{fail}"
    );
    // Refused (a folder that is no run): exit 2, and one error case saying why, without the path.
    let nowhere = runs.out.join("nowhere");
    let (code, stdout, _) = mcpick(&[
        "compare",
        path(&runs.rich),
        path(&nowhere),
        "--junit",
        path(&junit("refused.xml")),
    ]);
    assert_eq!(code, 2, "{stdout}");
    let refused = assert_valid_junit(&junit("refused.xml"));
    assert_eq!(counts(&refused), (1, 0, 1, 0));
    assert!(
        refused.contains("<testcase name=\"cannot compare\" classname=\"mcpick.compare\">")
            && refused.contains("NEW/trials.jsonl")
            && !refused.contains(path(&nowhere)),
        "{refused}"
    );
}

#[test]
fn compare_markdown_is_a_stable_comment_with_verdict_table_and_movers() {
    let runs = terse_and_rich();
    let comment = |base: &Path, new: &Path| {
        let (code, stdout, stderr) =
            mcpick(&["compare", path(base), path(new), "--format", "markdown"]);
        assert!(stderr.is_empty(), "{stderr}");
        (code, stdout)
    };
    let (code, passing) = comment(&runs.terse, &runs.rich);
    assert_eq!(code, 0, "{passing}");
    assert_eq!(
        comment(&runs.terse, &runs.rich).1,
        passing,
        "the same runs give the same bytes"
    );
    let lines: Vec<&str> = passing.lines().collect();
    assert_eq!(lines[0], MARKER);
    assert_eq!(lines[1], "✅ mcpick: no backend picks worse");
    assert!(
        passing.contains("| bm25 | 53 | 32.1% [21.1, 45.5] | 67.9% [54.5, 78.9] | +35.8 pp [+16.9, +51.4] | 1.0000 | pass |"),
        "{passing}"
    );
    assert!(
        passing.contains(
            "Largest movers: tasks whose first pick changed, most changed first (10 shown of 38)."
        ),
        "{passing}"
    );
    // Losses first among the largest changes: a no-call task rich now answers with a tool.
    assert!(
        passing.contains("| bm25 | `travel/conv-thanks-no-call` | `(none)` ✓ | `check_visa_requirements` ✗ | -100 pp |"),
        "{passing}"
    );
    assert!(
        passing.ends_with(&format!(
            "<sub>mcpick {}</sub>\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{passing}"
    );
    assert!(!passing.contains(path(&runs.out)), "no path: {passing}");
    let (code, failing) = comment(&runs.rich, &runs.terse);
    assert_eq!(code, 1, "{failing}");
    assert!(failing.starts_with(&format!(
        "{MARKER}\n❌ mcpick: NEW fails the gate on bm25\n"
    )));
    assert!(
        failing.contains("| FAIL: worse (p = 0.0003 < 0.05 one-sided, adjusted) |"),
        "{failing}"
    );
    let (code, refused) = comment(&runs.rich, &runs.out.join("nowhere"));
    assert_eq!(code, 2, "{refused}");
    assert!(refused.starts_with(&format!(
        "{MARKER}\n⚠️ mcpick: cannot compare: this is no evidence either way\n"
    )));
}

#[test]
fn ab_writes_valid_junit_and_a_stable_comment_and_a_worse_arm_fails() {
    let dir = tempfile::tempdir().unwrap();
    // Rich first: terse, the arm against it, picks significantly worse.
    let ab = |folder: &str| {
        let junit = dir.path().join(format!("{folder}.xml"));
        let (code, stdout, stderr) = mcpick(&[
            "ab",
            "tasks/travel.toml",
            "--variant",
            "travel-rich",
            "--variant",
            "travel-terse",
            "--backend",
            "bm25",
            "--no-progress",
            "--format",
            "markdown",
            "--junit",
            path(&junit),
            "-o",
            path(&dir.path().join(folder)),
        ]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        (stdout, assert_valid_junit(&junit))
    };
    let (comment, junit) = ab("first");
    assert_eq!(counts(&junit), (1, 1, 0, 0));
    assert!(
        junit.contains(
            "<testcase name=\"bm25: travel-terse vs travel-rich\" classname=\"mcpick.ab\">"
        ),
        "{junit}"
    );
    assert!(comment.starts_with(&format!(
        "{MARKER}\n❌ mcpick: travel-terse picks worse than travel-rich on bm25 (right picks, adjusted p = 0.0005)\n"
    )), "{comment}");
    assert!(
        comment.contains("| bm25 | travel-rich | travel-terse | 53 | 67.9% [54.5, 78.9] | 32.1% [21.1, 45.5] | -35.8 pp [-51.4, -16.9] | 0.0005 (right picks, Holm) | travel-rich better |"),
        "{comment}"
    );
    assert!(
        comment.contains("| backend | A → B | task | A picked | B picked | change |"),
        "{comment}"
    );
    // Another run folder, the same comment: nothing of the folder or the time is in it.
    assert_eq!(ab("second").0, comment);
}

#[test]
fn a_refused_ab_still_writes_its_junit_and_run_and_sweep_refuse_the_comparison_flags() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("refused.xml");
    let (code, stdout, _) = mcpick(&[
        "ab",
        "tasks/travel.toml",
        "--variant",
        "travel-rich",
        "--variant",
        "no-such-variant",
        "--backend",
        "bm25",
        "--no-progress",
        "--junit",
        path(&junit),
        "-o",
        path(&dir.path().join("run")),
    ]);
    assert_eq!(code, 2, "{stdout}");
    let refused = assert_valid_junit(&junit);
    assert_eq!(counts(&refused), (1, 0, 1, 0));
    assert!(refused.contains("no-such-variant"), "{refused}");
    for (command, flag, value, named) in [
        ("run", "--format", "markdown", "--format markdown"),
        ("sweep", "--junit", "x.xml", "--junit"),
    ] {
        let (code, stdout, _) = mcpick(&[
            command,
            "tasks/travel.toml",
            "--backend",
            "bm25",
            flag,
            value,
        ]);
        assert_eq!(code, 2, "{stdout}");
        assert!(
            stdout.contains(&format!("mcpick: {named} is a verdict on a comparison")),
            "{stdout}"
        );
    }
    // Nor do the checking commands compare anything.
    let (code, stdout, _) = mcpick(&["validate", "--format", "markdown"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stdout.starts_with(
            "mcpick validate: --format markdown is a pull-request comment on a comparison"
        ),
        "{stdout}"
    );
}
