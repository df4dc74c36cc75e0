//! `mcpick explain` end to end against a model swayed by known words (`swayed_provider`, the
//! OpenAI wire format on 127.0.0.1): with no probabilities to read it falls back to right picks
//! over repeats and says so; the sentence holding the deciding word is ranked first, with the
//! effect the provider's rule gives, and every other unit is neutral; the measured tools are shown
//! last; `explain.json` keeps its contract, `EXPLAIN.md` its tables, and `explain.html` draws every
//! unit in headless Chromium; the same command resumes without asking again; baselines and unknown
//! tools are refused before anything runs.

use super::common::mock_provider::TEST_KEY;
use super::common::swayed_provider::{REPEATS, SwayedProvider};
use super::experiments::render_check;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const SKY_TOOLSET: &str = r#"
format = 1
name = "sky"

[[tool]]
name = "pollen"
description = "Pollen counts for a city."
inputSchema = { type = "object", properties = { city = { type = "string", description = "City name" } } }

[[tool]]
name = "current_conditions"
description = "Current conditions for a city. Reports what the sky is doing right now. Covers temperature and wind."
inputSchema = { type = "object", properties = { city = { type = "string", description = "City name" } } }

[[tool]]
name = "air_pressure"
description = "Barometric pressure for a city."
inputSchema = { type = "object", properties = { city = { type = "string", description = "City name" } } }

[[tool]]
name = "outlook"
description = "Outlook for the coming days for a city. Covers temperature and wind."
inputSchema = { type = "object", properties = { city = { type = "string", description = "City name" } } }
"#;

const SKY_SUITE: &str = r#"
format = 1
suite = "sky"
toolset = "sky"

[[task]]
id = "now-oslo"
prompt = "What is it like right now in Oslo?"
expect = [{ tool = "current_conditions" }]

[[task]]
id = "now-lima"
prompt = "Is it windy now in Lima?"
expect = [{ tool = "current_conditions" }]

[[task]]
id = "now-rome"
prompt = "How is the sky over Rome now?"
expect = [{ tool = "current_conditions" }]

[[task]]
id = "days-bergen"
prompt = "Will it rain in Bergen over the coming days?"
expect = [{ tool = "outlook" }]

[[task]]
id = "days-nice"
prompt = "Weather for the coming days in Nice?"
expect = [{ tool = "outlook" }]

[[task]]
id = "days-turin"
prompt = "Forecast for the next days in Turin."
expect = [{ tool = "outlook" }]

[[task]]
id = "thanks"
prompt = "Thanks a lot!"
expect_no_call = true

[[task]]
id = "joke"
prompt = "Tell me a joke."
expect_no_call = true

[[task]]
id = "what-day"
prompt = "What day is it now?"
expect_no_call = true
"#;

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("toolsets")).unwrap();
    std::fs::write(dir.path().join("toolsets/sky.toml"), SKY_TOOLSET).unwrap();
    std::fs::write(dir.path().join("sky.toml"), SKY_SUITE).unwrap();
    dir
}

fn mcpick(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir)
        .env("MCPICK_TEST_KEY", TEST_KEY)
        .env("MCPICK_CACHE_DIR", dir.join("cache"))
        .args(args)
        .arg("--no-progress")
        .output()
        .unwrap()
}

fn explain(dir: &Path, provider: &SwayedProvider, extra: &[&str]) -> Output {
    let repeats = REPEATS.to_string();
    let mut args = vec![
        "explain",
        "sky.toml",
        "--backend",
        "openai:swayed",
        "--base-url",
        &provider.base_url,
        "--api-key-env",
        "MCPICK_TEST_KEY",
        "--repeats",
        &repeats,
        "-o",
        "out",
    ];
    args.extend(extra);
    mcpick(dir, &args)
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn unit<'a>(explained: &'a Value, tool: &str, text: &str) -> &'a Value {
    explained["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["tool"] == tool && u["text"] == text)
        .unwrap_or_else(|| panic!("no unit {tool} {text:?}: {explained}"))
}

fn effect<'a>(unit: &'a Value, on: &str) -> &'a Value {
    unit["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["on"] == on)
        .unwrap_or_else(|| panic!("no effect on {on}: {unit}"))
}

#[test]
fn the_deciding_sentence_is_ranked_first_and_everything_is_told() {
    let dir = workspace();
    let provider = SwayedProvider::start();
    let output = explain(
        dir.path(),
        &provider,
        &["--tool", "current_conditions", "--neighbours", "1"],
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.contains("gives no probabilities here"), "{said}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first = stdout
        .lines()
        .skip_while(|l| !l.starts_with("What moves current_conditions's picks most"))
        .nth(1)
        .unwrap_or_else(|| panic!("no ranking: {stdout}"));
    assert!(
        first.contains("Reports what the sky is doing right now."),
        "{stdout}"
    );

    let explained: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/explain.json")).unwrap())
            .unwrap();
    assert_eq!(
        explained["measure"],
        format!("right picks over {REPEATS} repeat(s)")
    );
    assert_eq!(explained["neighbours"], serde_json::json!(["outlook"]));
    assert_eq!(explained["complete"], true);
    // The contract: every unit says what it is and what it does on each group of tasks.
    let units = explained["units"].as_array().unwrap();
    assert_eq!(units.len(), 4 + 3, "{explained}");
    for unit in units {
        assert!(unit["tool"].is_string() && unit["text"].is_string());
        match unit["kind"].as_str().unwrap() {
            "sentence" => assert!(unit.get("param").is_none()),
            "parameter" => assert_eq!(unit["param"], "city"),
            other => panic!("kind {other}"),
        }
        let on: Vec<&str> = unit["effects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["on"].as_str().unwrap())
            .collect();
        assert_eq!(on.len(), 3, "{unit}");
        assert_eq!(on[0], unit["tool"].as_str().unwrap());
        assert_eq!(on[2], "no-call");
        for e in unit["effects"].as_array().unwrap() {
            assert_eq!(e["tasks"], 3);
            for key in ["delta", "low", "high"] {
                assert!(e[key].is_number(), "{e}");
            }
            assert!(
                ["earns", "steals", "neutral", "cannot say"]
                    .contains(&e["verdict"].as_str().unwrap())
            );
        }
    }
    // The deciding sentence: with it, 3 of 4 picks are right on each "now" request (weights 9, 1,
    // 1, 1, drawn at quantiles 1/8, 3/8, 5/8, 7/8); without it the model answers in text. On "What day is it now?" it drew a false call
    // each time, which the other two no-call tasks do not show: too uneven to say.
    let now = unit(
        &explained,
        "current_conditions",
        "Reports what the sky is doing right now.",
    );
    let own = effect(now, "current_conditions");
    assert_eq!(own["delta"], 0.75);
    assert_eq!(
        (own["low"].as_f64(), own["high"].as_f64()),
        (Some(0.75), Some(0.75))
    );
    assert_eq!(own["verdict"], "earns");
    let no_call = effect(now, "no-call");
    assert!(
        (no_call["delta"].as_f64().unwrap() + 1.0 / 3.0).abs() < 1e-9,
        "{no_call}"
    );
    assert_eq!(no_call["verdict"], "cannot say");
    // Every other unit of the tool moves nothing: neutral.
    for filler in [
        "Current conditions for a city.",
        "Covers temperature and wind.",
    ] {
        let own = effect(
            unit(&explained, "current_conditions", filler),
            "current_conditions",
        );
        assert_eq!(
            (own["delta"].as_f64(), own["verdict"].as_str()),
            (Some(0.0), Some("neutral"))
        );
    }
    // The neighbour's own deciding sentence earns its picks, not current_conditions'.
    let coming = unit(
        &explained,
        "outlook",
        "Outlook for the coming days for a city.",
    );
    assert_eq!(effect(coming, "outlook")["verdict"], "earns");
    assert_eq!(effect(coming, "current_conditions")["delta"], 0.0);

    // The measured tools were shown after the others, the explained one first.
    for order in &provider.state.lock().unwrap().orders {
        assert_eq!(order[2..], ["current_conditions", "outlook"], "{order:?}");
    }
    // Every run is a run folder; every leave-one-out wording a variant file.
    for run in ["base", "unit-01", "unit-07"] {
        assert!(
            dir.path()
                .join("out/runs")
                .join(run)
                .join("manifest.json")
                .is_file()
        );
    }
    assert!(dir.path().join("out/variants/sky-without-7.toml").is_file());

    let markdown = std::fs::read_to_string(dir.path().join("out/EXPLAIN.md")).unwrap();
    for heading in [
        "What moves the picks",
        "Δ own",
        "Δ neighbours",
        "Δ no-call",
        "What it cost",
    ] {
        assert!(markdown.contains(heading), "{markdown}");
    }
    let profile = tempfile::tempdir().unwrap();
    let check = render_check(&dir.path().join("out/explain.html"), profile.path());
    let charts: Vec<Value> = serde_json::from_str(&check).unwrap();
    let drawn = charts
        .iter()
        .find(|c| c["chart"] == "attribution current_conditions")
        .unwrap_or_else(|| panic!("{check}"));
    assert!(drawn["width"].as_f64().unwrap() > 100.0, "{check}");
    assert_eq!(
        drawn["series"],
        serde_json::json!(["s1", "s2", "s3", "param city"]),
        "{check}"
    );

    // The same command again: every run folder is complete, nothing is asked twice.
    let asked = provider.requests();
    let again = explain(
        dir.path(),
        &provider,
        &["--tool", "current_conditions", "--neighbours", "1"],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(text(&again).contains("resuming the explain"));
    assert_eq!(provider.requests(), asked);
    let resumed: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/explain.json")).unwrap())
            .unwrap();
    for (a, b) in units.iter().zip(resumed["units"].as_array().unwrap()) {
        assert_eq!(a["effects"], b["effects"]);
    }
    // Other settings in the same folder are another experiment.
    let other = explain(dir.path(), &provider, &["--tool", "outlook"]);
    assert_eq!(other.status.code(), Some(2));
    assert!(text(&other).contains("other settings"), "{}", text(&other));
}

#[test]
fn baselines_and_unknown_tools_are_refused_before_anything_runs() {
    let dir = workspace();
    for backend in ["bm25", "random", "embed"] {
        let output = mcpick(
            dir.path(),
            &["explain", "sky.toml", "--backend", backend, "-o", "out"],
        );
        assert_eq!(output.status.code(), Some(2), "{}", text(&output));
        assert!(text(&output).contains("gives neither"), "{}", text(&output));
        assert!(!dir.path().join("out").exists());
    }
    let provider = SwayedProvider::start();
    let output = explain(dir.path(), &provider, &["--tool", "sunshine"]);
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output);
    assert!(
        said.contains("--tool sunshine") && said.contains("current_conditions"),
        "{said}"
    );
    assert_eq!(provider.requests(), 0);
}
