//! A run that dies loses nothing finished: killed with SIGKILL (or stopped with Ctrl-C) halfway, then
//! `--resume`d, its `trials.jsonl` holds every planned trial exactly once. The model is the OpenAI
//! wire-format stand-in with a delay per reply, so the run is slow enough to stop midway.

use crate::common;

use common::mock_provider::{Dialect, MockProvider, TEST_KEY};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TASKS: usize = 60;

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("toolsets")).unwrap();
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    std::fs::write(
        dir.path().join("toolsets/weather.toml"),
        "format = 1\nname = \"weather\"\n[[tool]]\nname = \"weather_get\"\ndescription = \"Current weather for one city.\"\n[tool.inputSchema]\ntype = \"object\"\nproperties.city = { type = \"string\" }\n",
    )
    .unwrap();
    let mut suite = String::from("format = 1\nsuite = \"slow\"\ntoolset = \"weather\"\n");
    for i in 0..TASKS {
        suite.push_str(&format!(
            "[[task]]\nid = \"t{i:03}\"\nprompt = \"What is the weather in Oslo, question {i}?\"\nexpect = [{{ tool = \"weather_get\", args = {{ city = \"Oslo\" }} }}]\n"
        ));
    }
    std::fs::write(dir.path().join("tasks/slow.toml"), suite).unwrap();
    dir
}

fn start_run(dir: &Path, provider: &MockProvider) -> Child {
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir)
        .env("MCPICK_TEST_KEY", TEST_KEY)
        .args([
            "run",
            "--backend",
            "openai:mock-model",
            "--backend",
            "bm25",
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--concurrency",
            "2",
            "--no-cache",
            "--out",
            "run",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("run/trials.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Waits until the model's trials are partly done (some, not all).
fn wait_for_some_trials(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while lines(dir).iter().filter(|l| l.contains("openai:")).count() < 8 {
        assert!(Instant::now() < deadline, "the run made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `mcpick run --resume run` in `dir`.
fn resume_command(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command
        .current_dir(dir)
        .env("MCPICK_TEST_KEY", TEST_KEY)
        .args(["run", "--resume", "run", "--no-progress"]);
    command
}

/// A run killed with SIGKILL once some trials are in, and its provider (kept for the resume).
fn killed_halfway() -> (MockProvider, tempfile::TempDir) {
    let provider = MockProvider::start(Dialect::OpenAi, false, Duration::from_millis(40));
    let dir = workspace();
    let mut child = start_run(dir.path(), &provider);
    wait_for_some_trials(dir.path());
    child.kill().unwrap();
    child.wait().unwrap();
    (provider, dir)
}

fn resume_and_check(dir: &Path, stopped_with: usize) {
    assert!(
        stopped_with < 2 * TASKS,
        "the run finished before it was stopped"
    );
    let output = resume_command(dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    // A run stopped before its first trial finished has nothing done to skip.
    assert_eq!(
        stdout.contains("already done"),
        stopped_with > 0,
        "{stdout}"
    );
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for line in lines(dir) {
        let trial: Value = serde_json::from_str(&line).expect("every line is a whole record");
        *seen
            .entry((
                trial["backend"].as_str().unwrap().to_string(),
                trial["task"].as_str().unwrap().to_string(),
            ))
            .or_default() += 1;
    }
    assert_eq!(seen.len(), 2 * TASKS, "every planned trial is there");
    assert!(seen.values().all(|n| *n == 1), "and only once: {seen:?}");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["resumed"].as_array().unwrap().len(), 1);
}

#[test]
fn a_killed_run_resumes_with_every_trial_exactly_once() {
    let (_provider, dir) = killed_halfway();
    // A kill can land mid-write: make the cut-off line explicit, as a crash leaves it.
    let path = dir.path().join("run/trials.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"suite\": \"slow\", \"task\": \"t0");
    std::fs::write(&path, text).unwrap();
    let stopped_with = lines(dir.path()).len() - 1;
    resume_and_check(dir.path(), stopped_with);
}

/// Ctrl-C, and SIGTERM (what Kubernetes and Slurm send), stop the run cleanly: what finished is
/// kept, the summary is written, and `--resume` finishes the rest.
fn a_signal_stops_cleanly_and_resume_finishes(signal: &str) {
    let provider = MockProvider::start(Dialect::OpenAi, false, Duration::from_millis(40));
    let dir = workspace();
    let child = start_run(dir.path(), &provider);
    wait_for_some_trials(dir.path());
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{signal}: {stdout}");
    assert!(stdout.contains("mcpick run --resume run"), "{stdout}");
    // The summary was written from what finished.
    assert!(dir.path().join("run/summary.md").exists());
    let stopped_with = lines(dir.path()).len();
    resume_and_check(dir.path(), stopped_with);
}

#[test]
fn ctrl_c_stops_cleanly_and_resume_finishes() {
    a_signal_stops_cleanly_and_resume_finishes("-INT");
}

#[test]
fn sigterm_stops_cleanly_and_resume_finishes() {
    a_signal_stops_cleanly_and_resume_finishes("-TERM");
}

/// A Ctrl-C the moment the manifest is written — the run still starting, no trial begun — is held
/// for the run, which stops as cleanly as later (a signal before the listener was installed used
/// to kill the process outright).
#[test]
fn ctrl_c_while_the_run_starts_stops_it_cleanly() {
    let provider = MockProvider::start(Dialect::OpenAi, false, Duration::from_millis(40));
    let dir = workspace();
    let child = start_run(dir.path(), &provider);
    let manifest = dir.path().join("run/manifest.json");
    let started = std::time::Instant::now();
    while !manifest.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run did not start"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("mcpick run --resume run"), "{stdout}");
    let stopped_with = lines(dir.path()).len();
    resume_and_check(dir.path(), stopped_with);
}

/// `kill -9` at any moment of a resume's start — while it rewrites the manifest among others —
/// leaves a manifest the next `--resume` reads (it was once left empty, and the folder refused).
#[test]
fn a_resume_killed_as_it_starts_leaves_a_manifest_to_resume_from() {
    let (_provider, dir) = killed_halfway();
    let manifest = dir.path().join("run/manifest.json");
    for attempt in 0..20u64 {
        let mut resume = resume_command(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Spread the kills over the first 100 ms, where the manifest is rewritten.
        std::thread::sleep(Duration::from_millis(attempt * 5));
        let _ = resume.kill();
        resume.wait().unwrap();
        let text = std::fs::read_to_string(&manifest).unwrap();
        let parsed: Result<Value, _> = serde_json::from_str(&text);
        assert!(parsed.is_ok(), "attempt {attempt}: manifest is {text:?}");
    }
    let leftovers: Vec<String> = std::fs::read_dir(dir.path().join("run"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    // A kill between write and rename can leave a temporary file; it is never read.
    let output = resume_command(dir.path()).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n(temporary files: {leftovers:?})",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// A manifest damaged from outside (cut short) strands no finished trial: `--resume` says the plan
/// is lost and how to finish, naming the command the damaged text still holds; starting that command
/// again with `--out` adopts the finished trials, runs only the missing ones and keeps the damaged
/// manifest beside the new one. Another plan is never started into a folder that holds a run.
#[test]
fn a_damaged_manifest_strands_no_finished_trial() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("run");
    let out_arg = out.to_str().unwrap();
    let mcpick = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    };
    let command = [
        "run",
        "tasks/travel.toml",
        "--backend",
        "bm25",
        "--backend",
        "random",
        "--no-progress",
        "--out",
        out_arg,
    ];
    assert_eq!(mcpick(&command).status.code(), Some(0));
    let trials = std::fs::read_to_string(out.join("trials.jsonl")).unwrap();
    let all: Vec<&str> = trials.lines().collect();
    let kept = all.len() / 3;
    std::fs::write(out.join("trials.jsonl"), all[..kept].join("\n") + "\n").unwrap();
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    let damaged = &manifest[..manifest.len() / 3];
    std::fs::write(out.join("manifest.json"), damaged).unwrap();

    let resume = mcpick(&["run", "--resume", out_arg]);
    let said = String::from_utf8_lossy(&resume.stdout);
    assert_eq!(resume.status.code(), Some(2), "{said}");
    assert!(said.contains("manifest.json is damaged"), "{said}");
    assert!(said.contains(&format!("--out {out_arg}")), "{said}");
    assert!(said.contains("tasks/travel.toml --backend bm25"), "{said}");

    let again = mcpick(&command);
    let said = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{said}");
    assert!(said.contains(&format!("{kept} already done")), "{said}");
    assert!(said.contains("adopting the finished trials"), "{said}");
    let finished = std::fs::read_to_string(out.join("trials.jsonl")).unwrap();
    let keys: std::collections::HashSet<(String, String)> = finished
        .lines()
        .map(|line| {
            let trial: Value = serde_json::from_str(line).unwrap();
            (trial["task"].to_string(), trial["backend"].to_string())
        })
        .collect();
    assert_eq!(finished.lines().count(), all.len());
    assert_eq!(keys.len(), all.len(), "every trial once");
    assert_eq!(
        std::fs::read_to_string(out.join("manifest.json.damaged")).unwrap(),
        damaged
    );
    assert!(
        serde_json::from_str::<Value>(&std::fs::read_to_string(out.join("manifest.json")).unwrap())
            .is_ok()
    );

    let other = mcpick(&[
        "run",
        "tasks/travel.toml",
        "--backend",
        "bm25",
        "--no-progress",
        "--out",
        out_arg,
    ]);
    let said = String::from_utf8_lossy(&other.stdout);
    assert_eq!(other.status.code(), Some(2), "{said}");
    assert!(said.contains("holds a run of another plan"), "{said}");
    // `there` is the folder's plan, `here` this command's.
    assert!(
        said.contains(r#"setting `backends` is ["bm25","random"] there, ["bm25"] here"#),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("trials.jsonl")).unwrap(),
        finished,
        "a refused start changes nothing"
    );
}
