//! Tool search end to end: the `search-tool` exposure (mcpick's `search_tools` tool, the tools it
//! finds joining the listing in the same trial) driven by the hosted backends against the local
//! wire-format servers, and `native-search` — Anthropic's tool search tool and OpenAI's Responses
//! `tool_search` — against servers speaking those formats (`common/native_search_provider.rs`). A search that finds
//! nothing ends the trial as `no_call`, never as an error; what was searched for is recorded and
//! never scored as a pick.

use crate::common;

use common::hosted_run::{backend_spec, by_task, mcpick, workspace_with};
use common::mock_provider::{Dialect, MockProvider};
use common::native_search_provider::NativeSearchProvider;
use common::read_trials;
use std::time::Duration;

const SEARCH_SUITE: &str = r#"
format = 1
suite = "wire"
toolset = "weather"

[[task]]
id = "finds-nothing"
prompt = "search-nothing: what is the weather in Oslo?"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "finds-weather"
prompt = "search-weather: what is the weather in Oslo?"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]
"#;

fn search_tool_trials(dialect: Dialect) {
    let provider = MockProvider::start(dialect, false, Duration::ZERO);
    let dir = workspace_with(SEARCH_SUITE);
    let output = mcpick(
        dir.path(),
        &[
            "run",
            "--backend",
            backend_spec(dialect),
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--exposure",
            "search-tool",
            "--no-cache",
            "--out",
            "run",
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(provider.violations(), Vec::<String>::new());
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(lines.len(), 2);

    // The search found nothing, the model said so: no call, not an error, the search recorded.
    let nothing = by_task(&lines, "finds-nothing");
    assert_eq!(nothing["outcome"], "no_call", "{nothing}");
    assert!(nothing["backend_error"].is_null());
    assert_eq!(nothing["exposure"], "search-tool:bm25:5");
    assert_eq!(nothing["searches"][0]["query"], "zzzz qqqq");
    assert_eq!(nothing["searches"][0]["found"], serde_json::json!([]));
    assert_eq!(
        nothing["calls"],
        serde_json::json!([]),
        "a search is not a pick"
    );
    assert_eq!(nothing["tools_shown"], serde_json::json!(["search_tools"]));

    // The search found the weather tool, which the next turn listed and the model called.
    let found = by_task(&lines, "finds-weather");
    assert_eq!(found["outcome"], "correct", "{found}");
    assert_eq!(found["searches"][0]["query"], "weather");
    assert_eq!(
        found["searches"][0]["found"],
        serde_json::json!(["weather.get"])
    );
    assert_eq!(found["calls"][0]["tool"], "weather.get");
    assert_eq!(found["calls"].as_array().unwrap().len(), 1);
    assert_eq!(found["turns"], 3);

    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("run/summary.json")).unwrap(),
    )
    .unwrap();
    let split = &summary["experiments"]["exposure_splits"][0];
    assert_eq!(split["exposure"], "search-tool:bm25:5", "{summary}");
    assert_eq!(split["search_found_gold"]["successes"], 1);
    assert_eq!(split["search_found_gold"]["trials"], 2);
    assert_eq!(split["searches_per_trial"], 1.0);
}

#[test]
fn openai_search_tool_trials_find_nothing_as_no_call_and_something_as_a_pick() {
    search_tool_trials(Dialect::OpenAi);
}

#[test]
fn anthropic_search_tool_trials_find_nothing_as_no_call_and_something_as_a_pick() {
    search_tool_trials(Dialect::Anthropic);
}

const NATIVE_SUITE: &str = r#"
format = 1
suite = "wire"
toolset = "weather"

[[task]]
id = "finds-nothing"
prompt = "native-nothing: what is the weather in Oslo?"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "finds-weather"
prompt = "native-weather: what is the weather in Oslo?"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]
"#;

fn native_search_trials(dialect: Dialect) {
    let provider = NativeSearchProvider::start(dialect);
    let dir = workspace_with(NATIVE_SUITE);
    let output = mcpick(
        dir.path(),
        &[
            "run",
            "--backend",
            backend_spec(dialect),
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--exposure",
            "native-search",
            "--no-cache",
            "--out",
            "run",
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(provider.violations(), Vec::<String>::new());
    let lines = read_trials(&dir.path().join("run"));
    let native: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["exposure"] == "native-search")
        .collect();
    assert_eq!(native.len(), 2, "{lines:?}");
    let by = |task: &str| *native.iter().find(|l| l["task"] == task).unwrap();

    let nothing = by("finds-nothing");
    assert_eq!(nothing["outcome"], "no_call", "{nothing}");
    assert_eq!(nothing["searches"][0]["query"], "zzzz");
    assert_eq!(nothing["searches"][0]["native"], true);
    assert_eq!(nothing["searches"][0]["found"], serde_json::json!([]));

    let found = by("finds-weather");
    assert_eq!(found["outcome"], "correct", "{found}");
    assert_eq!(
        found["searches"][0]["found"],
        serde_json::json!(["weather.get"])
    );
    assert_eq!(found["calls"][0]["tool"], "weather.get");
    // The second turn sent the search back with the call (the provider checked it was there).
    assert_eq!(found["turns"], 2);
    assert_eq!(found["input_tokens"], 120);
}

#[test]
fn anthropic_native_tool_search_is_recorded_and_sent_back() {
    native_search_trials(Dialect::Anthropic);
}

#[test]
fn openai_responses_tool_search_is_recorded_and_sent_back() {
    native_search_trials(Dialect::OpenAi);
}

#[test]
fn native_search_with_a_backend_that_has_none_is_refused_up_front() {
    let dir = workspace_with(NATIVE_SUITE);
    let output = mcpick(
        dir.path(),
        &[
            "run",
            "--backend",
            "bm25",
            "--exposure",
            "flat,native-search",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        said.contains("--exposure native-search: bm25 has no tool search of its own"),
        "{said}"
    );
    assert!(
        !dir.path().join("reports").exists()
            || std::fs::read_dir(dir.path().join("reports"))
                .unwrap()
                .next()
                .is_none()
    );
}
