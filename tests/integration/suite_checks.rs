//! What `validate` proves of a suite before anything runs: one finding for each impossible or dead
//! expectation (a value that must be omitted but is required, a `""` that can never apply, a
//! tolerance on a string, a regex no value of the parameter's format or enum matches, a listed
//! value the schema refuses beside others it accepts, a call the tool always refuses), every error
//! of a file reported at once (unknown keys included), and the oracle at 100% on every shipped
//! suite. Also: what the scoring's per-parameter comparison makes of paths and free text, and a
//! task id that would start a spreadsheet formula coming out of `trials.csv` as text.

use mcpick::load::{Diagnostic, Severity, Workspace};
use std::path::Path;
use std::process::Command;

const TOOLSET: &str = r#"format = 1
name = "home"

[[tool]]
name = "set_reminder"
description = "Remind the user of something at a given time. Not for calendar events."
[tool.inputSchema]
type = "object"
required = ["message", "at"]
properties.message = { type = "string", minLength = 3, description = "What to remind of" }
properties.at = { type = "string", format = "date-time", description = "When, RFC 3339 with offset" }
properties.channel = { type = "string", enum = ["push", "sms"], description = "How to notify" }
properties.snooze = { type = "integer", description = "Minutes to snooze, 0 for none" }

[[tool]]
name = "set_mode"
description = "Set the thermostat mode. There is no air conditioning in this home."
[tool.inputSchema]
type = "object"
required = ["mode"]
properties.mode = { type = "string", enum = ["heat", "cool", "off"], description = "The mode" }
[[tool.behavior.rule]]
when = { mode = "cool" }
error = "No air conditioning here."
"#;

/// One task per kind of impossible or dead expectation, each with the finding it must draw.
const TASKS: &[(&str, &str, Severity, &str)] = &[
    (
        "omit-required",
        r#"expect = [{ tool = "set_reminder", args = { message = "call mum", at = "" } }]"#,
        Severity::Error,
        "must be omitted",
    ),
    (
        "dead-omission",
        r#"expect = [{ tool = "set_reminder", args = { message = ["call mum", ""], at = { regex = "^2026-03-13T08:00" } } }]"#,
        Severity::Warning,
        "\"\" (may be omitted) is a dead alternative",
    ),
    (
        "tolerance-on-text",
        r#"expect = [{ tool = "set_reminder", args = { message = { approx = 3, tolerance = 1 }, at = { regex = "^2026" } } }]"#,
        Severity::Error,
        "its matcher is a tolerance",
    ),
    (
        "regex-against-format",
        r#"expect = [{ tool = "set_reminder", args = { message = "call mum", at = { regex = "^tomorrow" } } }]"#,
        Severity::Error,
        "the regex \"^tomorrow\" can never be right",
    ),
    (
        "regex-against-enum",
        r#"expect = [{ tool = "set_reminder", args = { message = "call mum", at = { regex = "^2026" }, channel = { regex = "(?i)email" } } }]"#,
        Severity::Error,
        "the regex \"(?i)email\" can never be right",
    ),
    (
        "dead-literal",
        r#"expect = [{ tool = "set_reminder", args = { message = "call mum", at = { regex = "^2026" }, channel = ["sms", "email"] } }]"#,
        Severity::Warning,
        "the value \"email\" is a dead alternative",
    ),
    (
        "always-refused",
        r#"expect = [{ tool = "set_mode", args = { mode = "cool" } }]"#,
        Severity::Error,
        "refused by the tool's behaviour",
    ),
];

fn findings_for(dir: &Path, id: &str, expectation: &str) -> Vec<Diagnostic> {
    let suite = format!(
        "format = 1\nsuite = \"{id}\"\ntoolset = \"home\"\n\n[[task]]\nid = \"{id}\"\nprompt = \"do it\"\n{expectation}\n"
    );
    let path = dir.join(format!("{id}.toml"));
    std::fs::write(&path, suite).unwrap();
    let workspace = Workspace::load(&[dir.join("home.toml"), path.clone()]);
    workspace
        .files
        .iter()
        .filter(|f| f.path == path)
        .flat_map(|f| f.diagnostics.clone())
        .collect()
}

#[test]
fn each_impossible_or_dead_expectation_draws_exactly_one_finding() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("home.toml"), TOOLSET).unwrap();
    for (id, expectation, severity, wording) in TASKS {
        let found = findings_for(dir.path(), id, expectation);
        assert_eq!(found.len(), 1, "{id}: {found:#?}");
        assert_eq!(found[0].severity, *severity, "{id}: {}", found[0].message);
        assert!(
            found[0].message.contains(wording),
            "{id}: {}",
            found[0].message
        );
        assert!(found[0].line.is_some() && found[0].column.is_some(), "{id}");
    }
    // The same expectations, written so that they can be met, draw nothing; a refusal the author
    // expects is one.
    for (id, expectation) in [
        (
            "fine",
            r#"expect = [{ tool = "set_reminder", args = { message = { regex = "(?i)mum" }, at = { regex = "^2026-03-13T08:00" }, channel = ["sms", "push", ""] } }]"#,
        ),
        (
            "refusal-expected",
            r#"expect = [{ tool = "set_mode", args = { mode = "cool" }, refused = true }]"#,
        ),
    ] {
        let found = findings_for(dir.path(), id, expectation);
        assert!(found.is_empty(), "{id}: {found:#?}");
    }
}

#[test]
fn a_file_with_six_errors_reports_six() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("home.toml"), TOOLSET).unwrap();
    let suite = r#"format = 1
suite = "six"
toolset = "home"

[[task]]
id = "a"
tag = ["typo"]
prompt = "remind me"
expect = [{ tool = "set_reminder", args = { message = "call mum", at = "" } }]

[[task]]
id = "b"
prompts = "another typo"
prompt = "set it to cool"
expect = [{ tool = "set_mode", args = { mode = "cool" } }]

[[task]]
id = "c"
prompt = "remind me"
expect = [{ tool = "set_reminder", args = { message = "call mum", at = { regex = "^2026" } }, refuse = true }]

[[task]]
id = "d"
prompt = "remind me"
expect = [{ tool = "set_remider", args = {} }]
"#;
    let path = dir.path().join("six.toml");
    std::fs::write(&path, suite).unwrap();
    let workspace = Workspace::load(&[dir.path().join("home.toml"), path.clone()]);
    let errors: Vec<String> = workspace
        .files
        .iter()
        .filter(|f| f.path == path)
        .flat_map(|f| &f.diagnostics)
        .filter(|d| d.is_error())
        .map(|d| {
            format!(
                "{}:{} {}",
                d.line.unwrap_or(0),
                d.column.unwrap_or(0),
                d.message
            )
        })
        .collect();
    assert_eq!(errors.len(), 6, "{errors:#?}");
    for (line, wording) in [
        (7, "unknown key `tag`"),
        (13, "unknown key `prompts`"),
        (20, "unknown key `refuse`"),
        (9, "must be omitted"),
        (15, "refused by the tool's behaviour"),
        (25, "set_remider"),
    ] {
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with(&format!("{line}:")) && e.contains(wording)),
            "no error at line {line} saying {wording:?}: {errors:#?}"
        );
    }
}

#[test]
fn the_oracle_meets_every_shipped_task() {
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args([
            "run",
            "tasks/",
            "--backend",
            "oracle",
            "--no-progress",
            "--out",
        ])
        .arg(out.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let cells = summary["cells"].as_array().unwrap();
    assert!(cells.len() >= 6);
    for cell in cells {
        assert_eq!(cell["accuracy"]["estimate"], 1.0, "{}", cell["suite"]);
    }
}

#[test]
fn a_task_id_that_starts_a_formula_is_text_in_trials_csv() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("home.toml"), TOOLSET).unwrap();
    let suite = "format = 1\nsuite = \"csv\"\ntoolset = \"home\"\n\n[[task]]\nid = \"=cmd|' /C calc'!A0\"\nprompt = \"set the heating on\"\nexpect = [{ tool = \"set_mode\", args = { mode = \"heat\" } }]\n";
    std::fs::write(dir.path().join("csv.toml"), suite).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args([
            "run",
            "csv.toml",
            "home.toml",
            "--backend",
            "bm25",
            "--no-progress",
            "--out",
            "run",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let csv = std::fs::read_to_string(dir.path().join("run/trials.csv")).unwrap();
    let row = csv.lines().nth(1).unwrap();
    assert!(
        row.starts_with("csv,home,'=cmd|' /C calc'!A0,bm25,"),
        "{row}"
    );
}
