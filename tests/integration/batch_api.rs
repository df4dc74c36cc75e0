//! `--batch` end to end, for both providers: `mcpick run` against a local server speaking each
//! provider's batch wire format (`common/batch_provider.rs`). Every trial is answered through
//! batches — multi-turn trials over several rounds — expired and failed items are submitted again
//! and then scored, an invalid item is recorded as an error (not an abstention), a key the provider
//! echoes is stored nowhere, the cost is the
//! batch price, and a run killed with SIGKILL between submitting and collecting resumes by polling
//! its batch: no request is submitted twice, and every trial is recorded exactly once.

use crate::common;

use common::batch_provider::BatchProvider;
use common::hosted_run::{backend_spec, by_task, workspace_with};
use common::mock_provider::{Dialect, TEST_KEY};
use common::read_trials;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SUITE: &str = r#"
format = 1
suite = "wire"
toolset = "weather"

[[task]]
id = "oslo"
prompt = "What is the weather in Oslo?"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "bergen"
prompt = "And the weather in Bergen?"
expect = [{ tool = "weather.get", args = { city = "Bergen" } }]

[[task]]
id = "chain"
prompt = "chain: first Oslo, then Bergen"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }, { tool = "weather.get", args = { city = "Bergen" } }]

[[task]]
id = "hello"
prompt = "Say hello to me"
expect_no_call = true

[[task]]
id = "expire"
prompt = "expire: weather in Oslo"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "flaky"
prompt = "flaky: weather in Oslo"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "echo"
prompt = "echo-key: weather in Oslo"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "invalid"
prompt = "invalid: weather in Oslo"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]
"#;

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command
        .current_dir(dir)
        .env("MCPICK_TEST_KEY", TEST_KEY)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .args(args);
    command
}

fn batch_run_args(provider: &BatchProvider) -> Vec<&str> {
    vec![
        "run",
        "--backend",
        backend_spec(provider.dialect),
        "--base-url",
        &provider.base_url,
        "--api-key-env",
        "MCPICK_TEST_KEY",
        "--batch",
        "--batch-poll",
        "0.05",
        "--price",
        match provider.dialect {
            Dialect::OpenAi => "openai:mock-model=2,8",
            Dialect::Anthropic => "anthropic:mock-model=2,8",
        },
        "--no-cache",
        "--no-progress",
        "--out",
        "run",
    ]
}

/// The outcomes every test expects, each trial exactly once, and the key nowhere in the folder.
fn check_trials(folder: &Path) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(TEST_KEY), "the key is in {}", path.display());
    }
    let lines = &read_trials(folder);
    assert_eq!(by_task(lines, "echo")["outcome"], "error");
    assert!(
        by_task(lines, "echo")["backend_error"]
            .as_str()
            .unwrap()
            .contains("[REDACTED]"),
        "{}",
        by_task(lines, "echo")
    );
    let mut tasks: Vec<&str> = lines.iter().map(|l| l["task"].as_str().unwrap()).collect();
    tasks.sort();
    assert_eq!(
        tasks,
        [
            "bergen", "chain", "echo", "expire", "flaky", "hello", "invalid", "oslo"
        ],
        "every trial exactly once"
    );
    let outcome = |task: &str| {
        by_task(lines, task)["outcome"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for task in ["oslo", "bergen", "chain", "expire", "flaky"] {
        assert_eq!(outcome(task), "correct", "{task}: {}", by_task(lines, task));
    }
    assert_eq!(outcome("hello"), "correct_abstain");
    // Three turns, three batch rounds.
    assert_eq!(by_task(lines, "chain")["turns"], 3);
    // An item the provider refused is an error, with the provider's reason: never an abstention.
    assert_eq!(outcome("invalid"), "error");
    assert!(
        by_task(lines, "invalid")["backend_error"]
            .as_str()
            .unwrap()
            .contains("invalid"),
        "{}",
        by_task(lines, "invalid")
    );
}

#[test]
fn batches_answer_every_trial_and_retry_expired_and_failed_items() {
    for dialect in [Dialect::OpenAi, Dialect::Anthropic] {
        let provider = BatchProvider::start(dialect);
        let dir = workspace_with(SUITE);
        let output = command(dir.path(), &batch_run_args(&provider))
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{dialect:?}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!String::from_utf8_lossy(&output.stderr).contains(TEST_KEY));
        assert!(!String::from_utf8_lossy(&output.stdout).contains(TEST_KEY));
        assert_eq!(provider.violations(), Vec::<String>::new(), "{dialect:?}");
        check_trials(&dir.path().join("run"));
        let lines = read_trials(&dir.path().join("run"));
        // The expired and the failed item were submitted again once, in a later batch.
        assert_eq!(
            by_task(&lines, "expire")["retries"],
            1,
            "{dialect:?}: {}",
            by_task(&lines, "expire")
        );
        assert_eq!(
            by_task(&lines, "flaky")["retries"],
            1,
            "{dialect:?}: {}",
            by_task(&lines, "flaky")
        );
        // Each request went out once, but for those two first turns, which went out twice.
        let submissions = provider.submissions();
        let twice = submissions.values().filter(|n| **n == 2).count();
        assert_eq!(twice, 2, "{dialect:?}: {submissions:?}");
        assert!(submissions.values().all(|n| *n <= 2));
        // The first round held every trial's first turn; the rest came in later rounds.
        let sizes = provider.batch_sizes();
        eprintln!(
            "{dialect:?}: batches of {sizes:?} requests, {} polls",
            provider.polls()
        );
        assert_eq!(sizes[0], 8, "{dialect:?}: {sizes:?}");
        assert!(sizes.len() >= 3, "{dialect:?}: {sizes:?}");
        // Half the list price: 100 input and 10 output tokens a reply at $1 and $4 per million.
        let oslo = by_task(&lines, "oslo");
        assert_eq!(oslo["turns"], 2);
        let cost = oslo["cost_usd"].as_f64().unwrap();
        assert!((cost - 2.0 * 140e-6).abs() < 1e-9, "{dialect:?}: {cost}");
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("run/manifest.json")).unwrap(),
        )
        .unwrap();
        let lane = &manifest["backends"][0];
        assert_eq!(lane["price"]["input_per_mtok"], 1.0, "{lane}");
        assert_eq!(lane["batch"]["size"], 1000, "{lane}");
        // The journal lists every batch the provider created.
        let journal = std::fs::read_to_string(dir.path().join("run/batches.jsonl")).unwrap();
        assert_eq!(
            journal.lines().count(),
            provider.batches_created(),
            "{dialect:?}"
        );
    }
}

/// A batch run against a provider that holds its batches, killed with SIGKILL once its first batch
/// is submitted and in the journal.
fn killed_after_its_first_batch(dialect: Dialect) -> (BatchProvider, tempfile::TempDir) {
    let provider = BatchProvider::start(dialect);
    provider
        .state
        .hold
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let dir = workspace_with(SUITE);
    let mut child = command(dir.path(), &batch_run_args(&provider))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.path().join("run/batches.jsonl");
    let started = Instant::now();
    while !std::fs::read_to_string(&journal).is_ok_and(|t| t.lines().count() == 1) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no batch submitted"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    (provider, dir)
}

/// The provider lets its batches end, and the killed run is resumed.
fn released_and_resumed(provider: &BatchProvider, dir: &tempfile::TempDir) -> std::process::Output {
    provider
        .state
        .hold
        .store(false, std::sync::atomic::Ordering::SeqCst);
    command(dir.path(), &["run", "--resume", "run", "--no-progress"])
        .output()
        .unwrap()
}

#[test]
fn a_run_killed_between_submit_and_collect_resumes_by_polling() {
    for dialect in [Dialect::OpenAi, Dialect::Anthropic] {
        let (provider, dir) = killed_after_its_first_batch(dialect);
        assert_eq!(provider.batches_created(), 1, "{dialect:?}");
        let recorded =
            std::fs::read_to_string(dir.path().join("run/trials.jsonl")).unwrap_or_default();
        assert_eq!(
            recorded.lines().count(),
            0,
            "nothing was collected before the kill"
        );

        // The provider finishes the batch while nobody is watching; the resumed run collects it.
        let output = released_and_resumed(&provider, &dir);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{dialect:?}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(provider.violations(), Vec::<String>::new(), "{dialect:?}");
        check_trials(&dir.path().join("run"));
        // The first batch's eight requests were polled for, not submitted again: only the two
        // that failed in it went out a second time.
        let submissions = provider.submissions();
        assert_eq!(
            submissions.values().filter(|n| **n == 2).count(),
            2,
            "{dialect:?}: {submissions:?}"
        );
        assert!(submissions.values().all(|n| *n <= 2), "{submissions:?}");
        assert_eq!(provider.batch_sizes()[0], 8);
    }
}

/// A batch id edited in the journal is checked as a provider's id is: `batch_1?leak=1`, an encoded
/// `..%2F..%2Fstats` and a `../../../` path never name a URL; each is a lost batch, and its
/// requests are submitted again (not recorded as errors).
#[test]
fn a_journaled_batch_id_that_names_no_batch_is_a_lost_batch() {
    for bad in ["batch_1?leak=1", "..%2F..%2Fstats", "../../../v1/files"] {
        let (provider, dir) = killed_after_its_first_batch(Dialect::OpenAi);
        let journal = dir.path().join("run/batches.jsonl");
        let mut record: Value =
            serde_json::from_str(std::fs::read_to_string(&journal).unwrap().trim()).unwrap();
        record["batch_id"] = bad.into();
        std::fs::write(&journal, format!("{record}\n")).unwrap();
        let output = released_and_resumed(&provider, &dir);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{bad}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert_eq!(provider.violations(), Vec::<String>::new(), "{bad}");
        // Every trial answered as in an undisturbed run (no error for the lost batch).
        check_trials(&dir.path().join("run"));
        // The lost batch's eight requests went out again.
        let submissions = provider.submissions();
        assert!(
            submissions.values().filter(|n| **n >= 2).count() >= 8,
            "{bad}: {submissions:?}"
        );
    }
}

#[test]
fn batch_needs_a_hosted_backend() {
    let dir = workspace_with(SUITE);
    let output = command(
        dir.path(),
        &["run", "--backend", "bm25", "--batch", "--out", "run"],
    )
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(text.contains("--batch sends hosted turns"), "{text}");
}
