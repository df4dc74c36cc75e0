//! The `openai` and `anthropic` backends end to end: `mcpick run` against a local server speaking
//! each provider's wire format (`common/mock_provider.rs`), which checks every request. Covered: a
//! tool call with a sanitised name mapped back, parallel calls, a text-only reply, malformed
//! arguments, 429 with Retry-After, 500, a hung connection, a body that is not JSON, a rejected key
//! naming its variable, and the response cache making a rerun free. No finished trial is lost.
//! What hostile providers do is in `hostile_providers.rs`.

use crate::common;

use common::hosted_run::{backend_spec, by_task, mcpick, workspace_with};
use common::mock_provider::{Dialect, MockProvider, TEST_KEY};
use common::read_trials;
use serde_json::Value;
use std::time::{Duration, Instant};

const WIRE_SUITE: &str = r#"
format = 1
suite = "wire"
toolset = "weather"

[[task]]
id = "call"
prompt = "What is the weather in Oslo?"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "parallel"
prompt = "parallel: weather in Oslo and in Bergen"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }, { tool = "weather.get", args = { city = "Bergen" } }]

[[task]]
id = "text"
prompt = "Say hello to me"
expect_no_call = true

[[task]]
id = "malformed"
prompt = "malformed: weather in Oslo"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "ratelimit"
prompt = "ratelimit: Oslo please"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "flaky"
prompt = "flaky: Oslo please"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "hang"
prompt = "hang on, Oslo please"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "garbage"
prompt = "garbage: Oslo please"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "loop"
prompt = "loop: weather in Oslo, again and again"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]
"#;

fn workspace() -> tempfile::TempDir {
    workspace_with(WIRE_SUITE)
}

fn every_wire_case(dialect: Dialect) {
    let provider = MockProvider::start(dialect, false, Duration::ZERO);
    let dir = workspace();
    let started = Instant::now();
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
            "--timeout",
            "1",
            "--max-retries",
            "1",
            "--no-cache",
            "--out",
            "run",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(provider.violations(), Vec::<String>::new());
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(lines.len(), 9, "every trial recorded once");
    let outcome = |task: &str| {
        by_task(&lines, task)["outcome"]
            .as_str()
            .unwrap()
            .to_string()
    };

    // A call under the provider name `weather_get` is scored as the MCP tool `weather.get`, the
    // result went back to the model, and the rename is recorded.
    assert_eq!(outcome("call"), "correct");
    let call = by_task(&lines, "call");
    assert_eq!(call["calls"][0]["tool"], "weather.get");
    assert_eq!(call["renamed_tools"][0][1], "weather_get");
    assert_eq!(call["turns"], 2);
    assert_eq!(call["input_tokens"], 200);
    assert!(call["transcript"].to_string().contains("18 degrees"));
    assert_eq!(outcome("parallel"), "correct");
    assert_eq!(
        by_task(&lines, "parallel")["calls"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(outcome("text"), "correct_abstain");
    assert_eq!(outcome("malformed"), "malformed_call");
    // Rate limited once: retried after the server's Retry-After of one second.
    assert_eq!(outcome("ratelimit"), "correct");
    assert_eq!(by_task(&lines, "ratelimit")["retries"], 1);
    assert!(by_task(&lines, "ratelimit")["latency_ms"].as_f64().unwrap() >= 1000.0);
    assert_eq!(outcome("flaky"), "correct");
    assert_eq!(by_task(&lines, "flaky")["retries"], 1);
    // A hung connection times out (twice: one retry) and is an error, excluded from accuracy.
    assert_eq!(outcome("hang"), "error");
    assert!(
        by_task(&lines, "hang")["backend_error"]
            .as_str()
            .unwrap()
            .contains("no reply within 1.0 s")
    );
    assert_eq!(by_task(&lines, "hang")["requests"], 2);
    assert_eq!(outcome("garbage"), "error");
    assert!(
        by_task(&lines, "garbage")["backend_error"]
            .as_str()
            .unwrap()
            .contains("decoded")
    );
    // A model repeating a call that already succeeded ends its trial: the repeat is recorded as
    // made but not executed, and no third request is sent.
    let looped = by_task(&lines, "loop");
    assert_eq!(outcome("loop"), "correct");
    assert_eq!(looped["requests"], 2);
    assert_eq!(looped["calls"].as_array().unwrap().len(), 2);
    assert_eq!(looped["calls"][0]["result_is_error"], false);
    assert_eq!(looped["calls"][1]["result_is_error"], Value::Null);
    assert!(started.elapsed() < Duration::from_secs(30));
    // The terminal table counts the two errors apart.
    assert!(stdout.contains("| 9 |"), "{stdout}");

    // The recording replays without the provider: same calls, same outcomes, errors included.
    let requests = provider.requests();
    let output = mcpick(
        dir.path(),
        &["run", "--backend", "replay:run", "--out", "replayed"],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(provider.requests(), requests);
    let replayed = read_trials(&dir.path().join("replayed"));
    assert_eq!(replayed.len(), 9);
    for line in &replayed {
        let original = by_task(&lines, line["task"].as_str().unwrap());
        assert_eq!(line["outcome"], original["outcome"], "{line}");
        assert_eq!(line["calls"], original["calls"], "{line}");
        assert_eq!(line["backend"], format!("replay:{}", backend_spec(dialect)));
    }
}

#[test]
fn openai_backend_survives_every_wire_case() {
    every_wire_case(Dialect::OpenAi);
}

#[test]
fn anthropic_backend_survives_every_wire_case() {
    every_wire_case(Dialect::Anthropic);
}

fn rejected_key_names_the_variable(dialect: Dialect) {
    let provider = MockProvider::start(dialect, true, Duration::ZERO);
    let dir = workspace();
    let output = mcpick(
        dir.path(),
        &[
            "run",
            "--backend",
            backend_spec(dialect),
            "--backend",
            "bm25",
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--no-cache",
            "--concurrency",
            "1",
            "--out",
            "run",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("MCPICK_TEST_KEY"), "{stdout}");
    assert!(stdout.contains("--resume"), "{stdout}");
    assert!(
        !stdout.contains(TEST_KEY),
        "the key itself is never printed"
    );
    // The other backend's trials all finished and were kept; the rejected ones are left to resume.
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(lines.iter().filter(|l| l["backend"] == "bm25").count(), 9);
    assert_eq!(lines.iter().filter(|l| l["backend"] != "bm25").count(), 0);
    // Stopped after the first rejection instead of failing every trial.
    assert_eq!(provider.requests(), 1);
}

#[test]
fn a_rejected_openai_key_stops_that_backend_and_names_the_variable() {
    rejected_key_names_the_variable(Dialect::OpenAi);
}

#[test]
fn a_rejected_anthropic_key_stops_that_backend_and_names_the_variable() {
    rejected_key_names_the_variable(Dialect::Anthropic);
}

#[test]
fn a_missing_key_for_the_real_endpoint_is_refused_before_anything_runs() {
    let dir = workspace();
    let output = mcpick(dir.path(), &["run", "--backend", "openai:gpt-4o-mini"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("OPENAI_API_KEY"), "{stdout}");
    assert!(!dir.path().join("reports").exists());
}

#[test]
fn a_rerun_of_the_same_plan_is_served_from_the_cache() {
    for dialect in [Dialect::OpenAi, Dialect::Anthropic] {
        let provider = MockProvider::start(dialect, false, Duration::ZERO);
        let dir = workspace();
        // Only the cases with a definite answer: errors are never cached.
        let suite = WIRE_SUITE
            .split("[[task]]")
            .filter(|t| !t.contains("hang") && !t.contains("garbage"))
            .collect::<Vec<_>>()
            .join("[[task]]");
        std::fs::write(dir.path().join("tasks/wire.toml"), suite).unwrap();
        let run = |out: &str| {
            mcpick(
                dir.path(),
                &[
                    "run",
                    "--backend",
                    backend_spec(dialect),
                    "--base-url",
                    &provider.base_url,
                    "--api-key-env",
                    "MCPICK_TEST_KEY",
                    "--cache",
                    "cache.sqlite",
                    "--out",
                    out,
                ],
            )
        };
        assert_eq!(run("first").status.code(), Some(0));
        let after_first = provider.requests();
        assert!(after_first >= 10, "{after_first}");
        assert_eq!(run("second").status.code(), Some(0));
        assert_eq!(provider.requests(), after_first, "no request on the rerun");
        let (first, second) = (
            read_trials(&dir.path().join("first")),
            read_trials(&dir.path().join("second")),
        );
        for line in &second {
            assert_eq!(line["requests"], 0, "{line}");
            assert!(line["cached_replies"].as_u64().unwrap() >= 1);
            let before = by_task(&first, line["task"].as_str().unwrap());
            assert_eq!(line["outcome"], before["outcome"]);
        }
    }
}

#[test]
fn a_spent_budget_stops_new_trials_and_resume_with_more_finishes() {
    let provider = MockProvider::start(Dialect::OpenAi, false, Duration::ZERO);
    let dir = workspace();
    // Each reply: 100 tokens in, 10 out; at $1000 per million that is $0.11, so $0.22 a trial.
    let output = mcpick(
        dir.path(),
        &[
            "run",
            "--backend",
            "openai:mock-model",
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--price",
            "openai:mock-model=1000,1000",
            "--budget",
            "0.5",
            "--concurrency",
            "1",
            "--timeout",
            "1",
            "--max-retries",
            "0",
            "--no-cache",
            "--out",
            "run",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("budget of $0.50 is spent"), "{stdout}");
    let lines = read_trials(&dir.path().join("run"));
    // `call` and `parallel` take two replies each ($0.44 so far), `text` one: $0.55 crosses the
    // budget and nothing starts after it.
    assert_eq!(lines.len(), 3, "{stdout}");
    let cost: f64 = lines.iter().map(|l| l["cost_usd"].as_f64().unwrap()).sum();
    assert!((cost - 0.55).abs() < 1e-9, "{cost}");
    let output = mcpick(dir.path(), &["run", "--resume", "run", "--budget", "100"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(read_trials(&dir.path().join("run")).len(), 9);
}

#[test]
fn a_budget_without_a_price_is_refused_up_front() {
    let dir = workspace();
    let output = mcpick(
        dir.path(),
        &[
            "run",
            "--backend",
            "openai:mock-model",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--budget",
            "1",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("--price openai:mock-model=IN,OUT"),
        "{stdout}"
    );
}

#[test]
fn a_config_profile_names_a_backend_and_no_file_holds_the_key() {
    let provider = MockProvider::start(Dialect::Anthropic, false, Duration::ZERO);
    let dir = workspace();
    std::fs::write(
        dir.path().join("mcpick.toml"),
        format!(
            "[backend.claude-local]\nspec = \"anthropic:mock-model\"\nbase_url = \"{}\"\napi_key_env = \"MCPICK_TEST_KEY\"\nconcurrency = 2\nprice_input = 3.0\nprice_output = 15.0\n",
            provider.base_url
        ),
    )
    .unwrap();
    let output = mcpick(
        dir.path(),
        &[
            "run",
            "--backend",
            "claude-local",
            "--timeout",
            "1",
            "--max-retries",
            "1",
            "--cache",
            "cache.sqlite",
            "--out",
            "run",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let lines = read_trials(&dir.path().join("run"));
    assert!(lines.iter().all(|l| l["backend"] == "claude-local"));
    // 100 tokens in and 10 out per reply at $3 / $15 per million.
    let call = by_task(&lines, "call");
    assert!((call["cost_usd"].as_f64().unwrap() - 2.0 * 0.00045).abs() < 1e-12);
    let manifest = std::fs::read_to_string(dir.path().join("run/manifest.json")).unwrap();
    assert!(
        manifest.contains("\"api_key_env\": \"MCPICK_TEST_KEY\""),
        "{manifest}"
    );
    for entry in std::fs::read_dir(dir.path().join("run")).unwrap() {
        let text = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(!String::from_utf8_lossy(&text).contains(TEST_KEY));
    }
    let cache = std::fs::read(dir.path().join("cache.sqlite")).unwrap();
    assert!(!String::from_utf8_lossy(&cache).contains(TEST_KEY));

    std::fs::write(
        dir.path().join("mcpick.toml"),
        "[backend.x]\nspec = \"openai:m\"\nconcurrency = \"two\"\n",
    )
    .unwrap();
    let output = mcpick(dir.path(), &["run", "--backend", "x"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("mcpick.toml:3: error"), "{stdout}");
}
