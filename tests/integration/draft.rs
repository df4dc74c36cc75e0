//! `mcpick draft` end to end against a scripted drafter that speaks the OpenAI Chat Completions wire
//! format (`common::drafter_provider`): every check (leakage, schema, support, duplicates, the
//! suite's own load checks) drops what it should and says why in DRAFT.md,
//! a kept task is doubtful exactly when no offline picker found its tool, the suite passes
//! `validate` and runs, a run says when its tasks are unreviewed and when the picker drafted them;
//! a drafter that answers garbage or hangs stops the draft with nothing written; a killed draft
//! resumes without asking again; bad toolsets are refused by name.

use crate::common;

use common::drafter_provider::{DrafterProvider, Script};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const TOOLSET: &str = r#"format = 1
name = "mini"
description = "Weather and hotels"

[[tool]]
name = "get_weather"
description = "Current weather conditions for a city as observed now: temperature, sky, wind."
[tool.inputSchema]
type = "object"
required = ["city"]
additionalProperties = false
properties.city = { type = "string", minLength = 1 }
properties.units = { type = "string", enum = ["metric", "imperial"], default = "metric" }
[tool.behavior]
text = "{city}: 14 degrees, light rain"
[[tool.behavior.rule]]
when = { city = "Atlantis" }
error = "City not found."

[[tool]]
name = "get_weather_forecast"
description = "Daily weather forecast for a city for the next 1-16 days."
[tool.inputSchema]
type = "object"
required = ["city"]
additionalProperties = false
properties.city = { type = "string", minLength = 1 }
properties.days = { type = "integer", minimum = 1, maximum = 16, default = 3 }

[[tool]]
name = "book_hotel"
description = "Reserve a hotel room in a city for given check-in and check-out dates."
[tool.inputSchema]
type = "object"
required = ["city", "check_in", "check_out"]
additionalProperties = false
properties.city = { type = "string" }
properties.check_in = { type = "string", format = "date" }
properties.check_out = { type = "string", format = "date" }
"#;

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/models")
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mini.toml"), TOOLSET).unwrap();
    dir
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command
        .current_dir(dir)
        .env("MCPICK_MODEL_DIR", models())
        .env("MCPICK_OFFLINE", "1")
        .env("MCPICK_TEST_KEY", "test-key-123")
        .env_remove("OPENAI_API_KEY")
        .args(args);
    command
}

fn mcpick(dir: &Path, args: &[&str]) -> (Output, String) {
    let output = command(dir, args).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output, text)
}

fn draft_args<'a>(provider: &'a DrafterProvider, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "draft",
        "mini.toml",
        "--drafter",
        "openai:drafter-mock",
        "--base-url",
        &provider.base_url,
        "--api-key-env",
        "MCPICK_TEST_KEY",
        "--no-progress",
        "-o",
        "drafted",
    ];
    args.extend_from_slice(extra);
    args
}

fn scripts() -> HashMap<String, Script> {
    let requests = |items: Value| Script::Requests(items.as_array().unwrap().clone());
    HashMap::from([
        (
            "tool:get_weather".into(),
            requests(json!([
                {"request": "Is it raining in Lisbon right now?", "arguments": {"city": "Lisbon"}},
                {"request": "call get_weather for Oslo", "arguments": {"city": "Oslo"}},
                {"request": "is it raining in lisbon, right now", "arguments": {"city": "Lisbon"}}
            ])),
        ),
        (
            "tool:get_weather_forecast".into(),
            requests(json!([
                {"request": "Will it snow in Reykjavik over the next 5 days?", "arguments": {"city": "Reykjavik", "days": 5}},
                {"request": "What will the sky do in Nice soon?", "arguments": {"city": "Nice", "days": 7}},
                {"request": "Bergen, the coming 99 days please", "arguments": {"city": "Bergen", "days": 99}}
            ])),
        ),
        ("tool:book_hotel".into(), Script::Garbage),
        (
            "pair:get_weather".into(),
            requests(json!([
                {"request": "How hot is it in Atlantis at this very moment?", "arguments": {"city": "Atlantis"}}
            ])),
        ),
        (
            "pair:get_weather_forecast".into(),
            requests(json!([
                {"request": "Should I pack an umbrella for Paris over the next 2 days?", "arguments": {"city": "Paris", "days": 2}}
            ])),
        ),
        (
            "none".into(),
            requests(json!([
                {"request": "Thanks, that's all for today!"},
                {"request": "What is the capital of Australia?"},
                {"request": "get_weather_forecast Sydney"}
            ])),
        ),
    ])
}

fn tasks(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_check_drops_what_it_should_and_the_suite_runs() {
    let provider = DrafterProvider::start(scripts(), Duration::ZERO);
    let dir = workspace();
    let (output, text) = mcpick(
        dir.path(),
        &draft_args(&provider, &["--per-tool", "3", "--pairs", "--no-call", "3"]),
    );
    assert!(output.status.success(), "{text}");
    assert!(
        provider.violations().is_empty(),
        "{:?}",
        provider.violations()
    );
    assert!(
        text.contains("drafted 11 requests") && text.contains("kept 5"),
        "{text}"
    );
    let drafted = dir.path().join("drafted");
    // suite.toml and tasks.jsonl, and the candidates' own pair the agreement run read
    // (.draft/candidates/), each as its `spec` type writes it.
    assert_eq!(
        common::written_files::assert_reads_back_as_written(&drafted),
        4
    );
    let report = std::fs::read_to_string(drafted.join("DRAFT.md")).unwrap();
    // written, kept, dropped: form, leakage, schema, unsupported, duplicate, invalid (the
    // tool's simulated behaviour refuses every call the task would accept).
    let all = report.lines().find(|l| l.starts_with("| all |")).unwrap();
    let cells: Vec<&str> = all.split('|').map(str::trim).collect();
    assert_eq!(
        (
            cells[2], cells[3], cells[5], cells[6], cells[7], cells[8], cells[9], cells[10]
        ),
        ("11", "5", "0", "2", "1", "1", "1", "1"),
        "{report}"
    );
    assert!(
        report.contains("is refused by the tool's behaviour"),
        "{report}"
    );
    assert!(report.contains("names get_weather"), "{report}");
    // A request for no tool that names one is about that tool.
    assert!(
        report
            .lines()
            .any(|l| l.contains("get_weather_forecast Sydney") && l.contains("| leakage |")),
        "{report}"
    );
    assert!(
        report.contains("days = 7 is not in the request"),
        "{report}"
    );
    assert!(report.contains("same as get_weather-1"), "{report}");
    assert!(
        report.contains("`tool:book_hotel`: the drafter answered without calling submit_requests"),
        "{report}"
    );
    // Kept tasks: doubtful exactly when no picker chose the intended action; provenance names the
    // drafter; no kept request leaks its tool's name.
    let tasks = tasks(&drafted);
    assert_eq!(tasks.len(), 5);
    for task in &tasks {
        let intended = task["expect"][0]["tool"].as_str().unwrap_or("none");
        let picks = task["provenance"]["picks"].as_object().unwrap();
        assert_eq!(picks.len(), 3, "{task}");
        let found = picks.values().any(|p| p == intended);
        let review = if found { "draft" } else { "doubtful" };
        assert_eq!(task["review"], review, "{task}");
        assert_eq!(task["provenance"]["drafted_by"], "openai:drafter-mock");
        let prompt = task["prompt"].as_str().unwrap().to_lowercase();
        assert!(!prompt.contains("get_weather") && !prompt.contains("book_hotel"));
    }
    let forecast = tasks
        .iter()
        .find(|t| t["id"] == "get_weather_forecast-1")
        .unwrap();
    assert_eq!(
        forecast["expect"][0]["args"],
        json!({"city": "Reykjavik", "days": 5})
    );
    assert_eq!(forecast["lang"], "en");
    let suite = std::fs::read_to_string(drafted.join("suite.toml")).unwrap();
    assert!(
        suite.contains("[drafted_by]") && suite.contains("toolset = \"../mini.toml\""),
        "{suite}"
    );

    let (output, text) = mcpick(dir.path(), &["validate", "drafted"]);
    assert!(output.status.success(), "{text}");
    // A run by the drafter's own model says it grades its own homework; a run of unreviewed
    // drafts says how many.
    let (output, text) = mcpick(
        dir.path(),
        &[
            "run",
            "drafted",
            "--backend",
            "openai:drafter-mock",
            "--backend",
            "bm25",
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--no-progress",
            "--no-cache",
            "--out",
            "run",
        ],
    );
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("5 of its 5 tasks are unreviewed drafts"),
        "{text}"
    );
    assert!(
        text.contains("backend openai:drafter-mock is the model that drafted suite mini-draft"),
        "{text}"
    );
    assert!(!text.contains("backend bm25 is the model"), "{text}");
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("run/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["suites"][0]["unreviewed"], 5);
    assert_eq!(
        manifest["suites"][0]["drafted_by"]["drafter"],
        "openai:drafter-mock"
    );
}

#[test]
fn a_drafter_that_answers_garbage_or_hangs_stops_the_draft_with_nothing_written() {
    for (script, timeout) in [(Script::Garbage, "30"), (Script::Hang, "1")] {
        let scripts = HashMap::from([
            ("tool:get_weather".to_string(), script.clone()),
            ("tool:get_weather_forecast".to_string(), script.clone()),
            ("tool:book_hotel".to_string(), script),
        ]);
        let provider = DrafterProvider::start(scripts, Duration::ZERO);
        let dir = workspace();
        let (output, text) = mcpick(
            dir.path(),
            &draft_args(&provider, &["--per-tool", "1", "--timeout", timeout]),
        );
        assert_eq!(output.status.code(), Some(2), "{text}");
        assert!(
            text.contains("the drafter failed 3 asks in a row"),
            "{text}"
        );
        let drafted = dir.path().join("drafted");
        assert!(!drafted.join("suite.toml").exists() && !drafted.join("tasks.jsonl").exists());
    }
}

#[test]
fn a_toolset_named_through_another_path_is_drafted_for_to_the_end() {
    // From inside a workspace whose `toolsets/` holds the toolset, named by a path through its
    // parent: one file, one toolset, through every step to the suite written and loaded.
    let provider = DrafterProvider::start(scripts(), Duration::ZERO);
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir_all(ws.join("toolsets")).unwrap();
    std::fs::write(ws.join("toolsets/mini.toml"), TOOLSET).unwrap();
    let mut args = draft_args(&provider, &["--per-tool", "3", "--pairs", "--no-call", "3"]);
    args[1] = "../ws/toolsets/mini.toml";
    let (output, text) = mcpick(&ws, &args);
    assert!(output.status.success(), "{text}");
    assert!(!text.contains("already used by"), "{text}");
    let (output, text) = mcpick(&ws, &["validate", "drafted/suite.toml"]);
    assert!(output.status.success(), "{text}");
}

#[test]
fn a_draft_stopped_by_failing_asks_resumes_with_the_others_first() {
    // The three tools' asks fail; the pairs' and the no-call asks answer.
    let mut scripts = scripts();
    for tool in ["get_weather", "get_weather_forecast", "book_hotel"] {
        scripts.insert(format!("tool:{tool}"), Script::Garbage);
    }
    let provider = DrafterProvider::start(scripts, Duration::ZERO);
    let dir = workspace();
    let args = draft_args(&provider, &["--per-tool", "1", "--no-call", "3"]);
    let (output, text) = mcpick(dir.path(), &args);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("the drafter failed 3 asks in a row"),
        "{text}"
    );
    // Again: the asks never asked go first, the failed ones are retried last and, failing again,
    // do not stop it.
    let (output, text) = mcpick(dir.path(), &args);
    assert!(output.status.success(), "{text}");
    let asks = provider.asks();
    assert_eq!(asks["tool:get_weather"], 2, "{asks:?}");
    assert_eq!(asks["none"], 1, "{asks:?}");
    assert!(!tasks(&dir.path().join("drafted")).is_empty());
}

#[test]
fn a_killed_draft_resumes_without_asking_again() {
    let provider = DrafterProvider::start(scripts(), Duration::from_millis(700));
    let dir = workspace();
    let args = draft_args(&provider, &["--per-tool", "3", "--no-call", "3"]);
    let mut child = command(dir.path(), &args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.path().join("drafted/.draft/journal.jsonl");
    let started = std::time::Instant::now();
    // The header and one reply are on disk: kill it before the rest.
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no reply journaled"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let (output, text) = mcpick(dir.path(), &args);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("asks were answered by the interrupted draft before"),
        "{text}"
    );
    // Every ask was answered once (the garbage one, which is never journaled, twice).
    let asks = provider.asks();
    assert_eq!(asks["tool:get_weather"], 1, "{asks:?}");
    assert_eq!(asks["none"], 1, "{asks:?}");
    assert_eq!(tasks(&dir.path().join("drafted")).len(), 4);
}

#[test]
fn toolsets_a_drafter_cannot_write_for_are_refused_by_name() {
    let provider = DrafterProvider::start(HashMap::new(), Duration::ZERO);
    let dir = workspace();
    let undescribed = TOOLSET.replace(
        "description = \"Reserve a hotel room in a city for given check-in and check-out dates.\"\n",
        "",
    );
    std::fs::write(dir.path().join("mini.toml"), undescribed).unwrap();
    let (output, text) = mcpick(dir.path(), &draft_args(&provider, &[]));
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("without a description (book_hotel)"),
        "{text}"
    );
    std::fs::write(
        dir.path().join("mini.toml"),
        "format = 1\nname = \"mini\"\n",
    )
    .unwrap();
    let (output, text) = mcpick(dir.path(), &draft_args(&provider, &[]));
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("mini.toml"), "{text}");
    // An offline baseline cannot write.
    std::fs::write(dir.path().join("mini.toml"), TOOLSET).unwrap();
    let (output, text) = mcpick(
        dir.path(),
        &["draft", "mini.toml", "--drafter", "bm25", "-o", "drafted"],
    );
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("cannot write text"), "{text}");
    assert!(provider.asks().is_empty());
}

#[test]
fn a_live_server_is_drafted_for_through_its_own_tools() {
    // The official filesystem server (tests' peers), a server nobody here wrote.
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/node_modules/.bin");
    let server = bin.join("mcp-server-filesystem");
    assert!(
        server.exists(),
        "the filesystem server is not installed: run tests/peers/install.sh"
    );
    let provider = DrafterProvider::start(scripts(), Duration::ZERO);
    let dir = workspace();
    let served = dir.path().join("served");
    std::fs::create_dir_all(&served).unwrap();
    let command = format!(
        "{} {} {}",
        bin.join("node").display(),
        server.display(),
        served.display()
    );
    let (output, text) = mcpick(
        dir.path(),
        &[
            "draft",
            "--stdio",
            &command,
            "--drafter",
            "openai:drafter-mock",
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--per-tool",
            "0",
            "--no-call",
            "3",
            "--no-progress",
            "-o",
            "drafted",
        ],
    );
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("saved the tools of secure-filesystem-server"),
        "{text}"
    );
    let drafted = dir.path().join("drafted");
    let suite = std::fs::read_to_string(drafted.join("suite.toml")).unwrap();
    assert!(
        suite.contains("toolset = \"secure-filesystem-server.json\""),
        "{suite}"
    );
    let tasks = tasks(&drafted);
    assert_eq!(tasks.len(), 3);
    // The agreement run listed the server's own tools to the pickers.
    let (output, text) = mcpick(dir.path(), &["validate", "drafted"]);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("secure-filesystem-server.json"), "{text}");
}

#[test]
fn what_no_person_types_never_reaches_the_suite() {
    let huge = "Is it raining in Oslo? ".repeat(50_000_000 / 23);
    let items = json!([
        {"request": "Is it raining in Lisbon right now?", "arguments": {"city": "Lisbon"}},
        // The tool's name disguised: zero-width space, soft hyphen, Cyrillic е, fullwidth,
        // mathematical letters, a word joiner.
        {"request": "call get\u{200b}_weather for Oslo", "arguments": {"city": "Oslo"}},
        {"request": "call get_wea\u{00ad}ther for Rome", "arguments": {"city": "Rome"}},
        {"request": "call g\u{0435}t_weather for Paris", "arguments": {"city": "Paris"}},
        {"request": "call ｇｅｔ＿ｗｅａｔｈｅｒ for Nice", "arguments": {"city": "Nice"}},
        {"request": "call 𝐠𝐞𝐭_𝐰𝐞𝐚𝐭𝐡𝐞𝐫 for Lyon", "arguments": {"city": "Lyon"}},
        // Control and bidirectional characters: ESC, CR, BEL, NUL, RLO.
        {"request": "Rain in Bern?\u{1b}[2J\u{1b}[H", "arguments": {"city": "Bern"}},
        {"request": "Rain in Graz?\rAccept this task [y]", "arguments": {"city": "Graz"}},
        {"request": "Rain in Linz?\u{7}", "arguments": {"city": "Linz"}},
        {"request": "Rain in Ulm?\u{0} now", "arguments": {"city": "Ulm"}},
        {"request": "Rain in \u{202e}nroC?", "arguments": {"city": "Cork"}},
        // 50 MB in one request.
        {"request": huge, "arguments": {"city": "Oslo"}}
    ]);
    let scripts = HashMap::from([(
        "tool:get_weather".to_string(),
        Script::Requests(items.as_array().unwrap().clone()),
    )]);
    let provider = DrafterProvider::start(scripts, Duration::ZERO);
    let dir = workspace();
    let (output, peak) = common::output_with_peak_memory(&mut command(
        dir.path(),
        &draft_args(&provider, &["--per-tool", "12", "--no-call", "0"]),
    ));
    println!(
        "draft with a 50 MB request: peak resident memory {} MB",
        peak >> 20
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}", &text[..text.len().min(4000)]);
    assert!(
        peak < 1 << 30,
        "the draft's memory peaked at {peak} bytes for a 50 MB request"
    );
    let drafted = dir.path().join("drafted");
    let tasks = tasks(&drafted);
    let prompts: Vec<&str> = tasks
        .iter()
        .map(|t| t["prompt"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["Is it raining in Lisbon right now?"]);
    let report = std::fs::read_to_string(drafted.join("DRAFT.md")).unwrap();
    assert!(report.len() < 100_000, "DRAFT.md is {} bytes", report.len());
    let all = report.lines().find(|l| l.starts_with("| all |")).unwrap();
    let cells: Vec<&str> = all.split('|').map(str::trim).collect();
    // written, kept, doubtful, then dropped: form, leakage, …
    assert_eq!(
        (cells[2], cells[3], cells[5], cells[6]),
        ("12", "1", "8", "3"),
        "{report}"
    );
    assert!(report.contains("more than a person types"), "{report}");
    assert!(
        report.contains("U+001B") && report.contains("U+202E"),
        "{report}"
    );
    for file in ["tasks.jsonl", "DRAFT.md", "suite.toml"] {
        let written = std::fs::read_to_string(drafted.join(file)).unwrap();
        assert!(
            !written.chars().any(mcpick::untrusted_text::is_hidden),
            "{file} holds a hidden character"
        );
    }
}

#[test]
fn a_folder_draft_did_not_write_is_refused_and_a_reviewed_one_keeps_its_work() {
    let provider = DrafterProvider::start(scripts(), Duration::ZERO);
    let dir = workspace();
    // A suite written by hand.
    let drafted = dir.path().join("drafted");
    std::fs::create_dir_all(&drafted).unwrap();
    let handwritten =
        "format = 1\nsuite = \"mine\"\ntoolset = \"../mini.toml\"\ntasks_file = \"tasks.jsonl\"\n";
    std::fs::write(drafted.join("suite.toml"), handwritten).unwrap();
    std::fs::write(drafted.join("tasks.jsonl"), "{\"id\": \"mine\"}\n").unwrap();
    let args = draft_args(&provider, &["--per-tool", "3", "--no-call", "3"]);
    let (output, text) = mcpick(dir.path(), &args);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("was not written by `mcpick draft`"), "{text}");
    assert_eq!(
        std::fs::read_to_string(drafted.join("suite.toml")).unwrap(),
        handwritten
    );
    assert_eq!(
        std::fs::read_to_string(drafted.join("tasks.jsonl")).unwrap(),
        "{\"id\": \"mine\"}\n"
    );
    assert!(provider.asks().is_empty(), "nothing was asked");
    // A folder of notes is not draft's either.
    std::fs::remove_dir_all(&drafted).unwrap();
    std::fs::create_dir_all(&drafted).unwrap();
    std::fs::write(drafted.join("notes.md"), "my notes").unwrap();
    let (output, text) = mcpick(dir.path(), &args);
    assert_eq!(output.status.code(), Some(2), "{text}");
    std::fs::remove_dir_all(&drafted).unwrap();

    // A draft, then a review: one task accepted after an edit, one rejected.
    let (output, text) = mcpick(dir.path(), &args);
    assert!(output.status.success(), "{text}");
    let first = tasks(&drafted);
    let mut lines: Vec<String> = first.iter().map(|t| t.to_string()).collect();
    let mut accepted = first[0].clone();
    accepted["prompt"] = json!("Is it raining in Lisbon at this moment?");
    accepted["review"] = json!("accepted");
    lines[0] = accepted.to_string();
    let rejected = lines.remove(1);
    std::fs::write(drafted.join("tasks.jsonl"), lines.join("\n") + "\n").unwrap();
    std::fs::write(drafted.join("rejected.jsonl"), rejected.clone() + "\n").unwrap();
    // Drafting again, with the same settings and with a new seed: every task kept line for line,
    // the rejected request not drafted again.
    for extra in [&[][..], &["--seed", "7"][..]] {
        let mut again = args.clone();
        again.extend_from_slice(extra);
        let (output, text) = mcpick(dir.path(), &again);
        assert!(output.status.success(), "{text}");
        let now = std::fs::read_to_string(drafted.join("tasks.jsonl")).unwrap();
        let now: Vec<&str> = now.lines().collect();
        assert_eq!(&now[..lines.len()], lines.as_slice(), "{text}");
        assert!(!now.iter().any(|l| *l == rejected), "{text}");
        let ids: std::collections::HashSet<String> = now
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].to_string())
            .collect();
        assert_eq!(ids.len(), now.len(), "ids stay unique");
        let (output, text) = mcpick(dir.path(), &["validate", "drafted"]);
        assert!(output.status.success(), "{text}");
    }
}
