//! `--client` end to end on the shipped travel suite with the offline baselines: Claude Code's
//! names in the trials and transcripts with bm25's picks as under `raw`, the profile in the
//! manifest and summary.json, a sweep whose tool definitions pass Claude Code's threshold switched
//! to the search exposure and saying so, Cursor's first-40 cap, and the profiles a run must refuse.

use crate::common;

use common::read_trials;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

fn mcpick(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .arg("--no-progress")
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn succeeded(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn json_file(folder: &Path, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(folder.join(name)).unwrap()).unwrap()
}

/// Each task's outcome and first pick, the client's prefix taken off the pick.
fn picks(trials: &[Value], prefix: &str) -> BTreeMap<String, (String, String)> {
    trials
        .iter()
        .map(|t| {
            let first = t["first_tool"].as_str().unwrap_or("");
            (
                t["task"].as_str().unwrap().to_string(),
                (
                    t["outcome"].as_str().unwrap().to_string(),
                    first.strip_prefix(prefix).unwrap_or(first).to_string(),
                ),
            )
        })
        .collect()
}

#[test]
fn claude_code_shows_its_names_and_bm25_picks_as_under_raw() {
    let dir = tempfile::tempdir().unwrap();
    let (code, raw) = (dir.path().join("code"), dir.path().join("raw"));
    let base = ["run", "tasks/travel.toml", "--backend", "bm25", "--client"];
    succeeded(&mcpick(&[&base[..], &["claude-code"]].concat(), &code));
    succeeded(&mcpick(&[&base[..], &["raw"]].concat(), &raw));

    let trials = read_trials(&code);
    assert_eq!(trials.len(), 53);
    for trial in &trials {
        let shown = trial["tools_shown"].as_array().unwrap();
        assert_eq!(shown.len(), 25);
        assert!(
            shown
                .iter()
                .all(|n| n.as_str().unwrap().starts_with("mcp__travel__")),
            "{shown:?}"
        );
        for expected in trial["expected_tools"].as_array().unwrap() {
            assert!(expected.as_str().unwrap().starts_with("mcp__travel__"));
        }
        assert!(trial.get("client_exposure").is_none());
    }
    // The model is shown and calls the names Claude Code gives: in the transcript's tool calls.
    let weather = trials
        .iter()
        .find(|t| t["task"] == "weather-now-lisbon")
        .expect("the travel suite's weather-now task");
    let transcript = weather["transcript"].to_string();
    assert!(
        transcript.contains("mcp__travel__get_weather"),
        "{transcript}"
    );
    assert_eq!(weather["outcome"], "correct");

    // bm25 finds a tool by its name, description and parameters: the prefix adds "mcp" and
    // "travel" to every tool of the one server alike, and on this suite no pick moves.
    assert_eq!(
        picks(&trials, "mcp__travel__"),
        picks(&read_trials(&raw), "")
    );

    let manifest = json_file(&code, "manifest.json");
    assert_eq!(manifest["options"]["client"], "claude-code");
    assert_eq!(manifest["client"]["name"], "claude-code");
    assert_eq!(manifest["client"]["checked"].as_str().unwrap().len(), 10);
    assert!(
        manifest["client"]["source"][0]
            .as_str()
            .unwrap()
            .contains("code.claude.com")
    );
    let summary = json_file(&code, "summary.json");
    assert_eq!(summary["client"]["name"], "claude-code");
    assert_eq!(summary["client"]["naming"], "mcp__{server}__{tool}");
    assert_eq!(
        summary["client"]["unknown"],
        serde_json::json!(["naming.name_characters"])
    );
    assert_eq!(summary["client"]["by_size"][0]["trials"], 53);
    // A run without --client writes neither.
    let plain = dir.path().join("plain");
    succeeded(&mcpick(&base[..4], &plain));
    assert!(json_file(&plain, "manifest.json").get("client").is_none());
    assert!(json_file(&plain, "summary.json").get("client").is_none());
    assert!(json_file(&raw, "summary.json")["client"]["name"] == "raw");
}

#[test]
fn a_sweep_past_claude_codes_threshold_defers_to_the_search_tool_and_says_so() {
    let out = tempfile::tempdir().unwrap();
    let output = mcpick(
        &[
            "sweep",
            "tasks/travel.toml",
            "--tag",
            "weather",
            "--sizes",
            "5,100",
            "--backend",
            "oracle",
            "--client",
            "claude-code",
        ],
        out.path(),
    );
    succeeded(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--client claude-code: Claude Code defers tools")
            && stderr.contains("20000 estimated tokens")
            && stderr.contains("N = 100:")
            && !stderr.contains("N = 5:"),
        "{stderr}"
    );
    let trials = read_trials(out.path());
    assert!(!trials.is_empty());
    for trial in &trials {
        let deferred = trial.get("client_exposure").and_then(Value::as_str);
        if trial["size"] == 100 {
            assert_eq!(deferred, Some("search-tool:bm25:5"), "{trial}");
            // The oracle searched (recorded apart from the calls), then called the tool it found.
            if !trial["expected_tools"].as_array().unwrap().is_empty() {
                assert!(!trial["searches"].as_array().unwrap().is_empty(), "{trial}");
                assert_eq!(trial["selection_correct"], true, "{trial}");
            }
        } else {
            assert_eq!(deferred, None, "{trial}");
        }
    }
    let summary = json_file(out.path(), "summary.json");
    let by_size = summary["client"]["by_size"].as_array().unwrap();
    let at = |n: u64| by_size.iter().find(|row| row["size"] == n).unwrap();
    assert_eq!(at(5)["deferred"], serde_json::json!({}));
    assert_eq!(
        at(100)["deferred"]["search-tool:bm25:5"],
        at(100)["trials"],
        "{by_size:?}"
    );
    let report = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    assert!(report.contains("## Client: Claude Code"), "{report}");
}

#[test]
fn cursor_sends_its_first_forty_tools() {
    let out = tempfile::tempdir().unwrap();
    let output = mcpick(
        &[
            "sweep",
            "tasks/travel.toml",
            "--tag",
            "weather",
            "--sizes",
            "5,50",
            "--backend",
            "oracle",
            "--client",
            "cursor",
        ],
        out.path(),
    );
    succeeded(&output);
    assert!(String::from_utf8_lossy(&output.stderr).contains("sends only the first 40 tools"));
    for trial in read_trials(out.path()) {
        let shown = trial["tools_shown"].as_array().unwrap().len();
        assert_eq!(shown, if trial["size"] == 50 { 40 } else { 5 });
    }
}

#[test]
fn a_client_the_run_cannot_honour_is_refused_before_anything_runs() {
    let out = tempfile::tempdir().unwrap();
    for (client, says) in [
        ("netscape", "no such client profile"),
        ("openai-tool-search", "lacks (openai has it)"),
    ] {
        let output = mcpick(
            &[
                "run",
                "tasks/travel.toml",
                "--backend",
                "bm25",
                "--client",
                client,
            ],
            &out.path().join(client),
        );
        assert_ne!(output.status.code(), Some(0));
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(said.contains(says), "{client}: {said}");
        assert!(!out.path().join(client).join("trials.jsonl").exists());
    }
}

const DOTTED_SUITE: &str = r#"
format = 1
suite = "wire"
toolset = "weather"

[[task]]
id = "oslo"
prompt = "What is the weather in Oslo?"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]
"#;

#[test]
fn claude_desktop_refuses_a_dotted_name_that_claude_code_shows_prefixed() {
    use common::hosted_run::{mcpick as mcpick_in, workspace_with};
    let dir = workspace_with(DOTTED_SUITE);
    let run = |client: &str| {
        mcpick_in(
            dir.path(),
            &[
                "run",
                "--backend",
                "oracle",
                "--client",
                client,
                "--no-progress",
                "--out",
                client,
            ],
        )
    };
    let desktop = run("claude-desktop");
    assert_ne!(desktop.status.code(), Some(0));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&desktop.stdout),
        String::from_utf8_lossy(&desktop.stderr)
    );
    assert!(
        said.contains("Claude Desktop refuses the tools of weather")
            && said.contains("\"weather.get\" holds '.'"),
        "{said}"
    );
    let code = run("claude-code");
    succeeded(&code);
    let trials = read_trials(&dir.path().join("claude-code"));
    assert_eq!(trials[0]["expected_tools"][0], "mcp__weather__weather.get");
    assert_eq!(trials[0]["outcome"], "correct", "{}", trials[0]);
}
