//! Hostile providers: what an outside auditor's faulty OpenAI-compatible and Anthropic servers did
//! to mcpick, each reproduced against the mock provider (`common/mock_provider.rs`) — waits no run
//! can serve, echoed keys, replies in no documented shape, a 5 MB reply — and the fault suite that
//! runs every hosted backend against all of its faults at once: every planned trial recorded exactly
//! once, no panic, no key in any file of the run folder or the response cache.

use crate::common;

use common::hosted_run::{backend_spec, by_task, workspace_with};
use common::mock_provider::{Dialect, LONG_WAITS, MockProvider, TEST_KEY};
use common::read_trials;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A 429 asking for a wait no run can serve — more than a `Duration` holds, a day, a date in 9999 —
/// is recorded as that trial's error, naming the wait and `--max-retry-wait`, within seconds: no
/// panic (the float once overflowed `Duration`), no hang (a day's sleep once looked like one), and
/// the other trials of the run are unaffected.
fn unservable_waits_are_errors(dialect: Dialect) {
    let provider = MockProvider::start(dialect, false, Duration::ZERO);
    let mut suite = String::from("format = 1\nsuite = \"waits\"\ntoolset = \"weather\"\n");
    for (word, ..) in LONG_WAITS {
        suite += &format!(
            "[[task]]\nid = \"{word}\"\nprompt = \"{word}: Oslo please\"\nexpect = [{{ tool = \"weather.get\", args = {{ city = \"Oslo\" }} }}]\n"
        );
    }
    suite += "[[task]]\nid = \"call\"\nprompt = \"What is the weather in Oslo?\"\nexpect = [{ tool = \"weather.get\", args = { city = \"Oslo\" } }]\n";
    let dir = workspace_with(&suite);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir.path())
        .env("MCPICK_TEST_KEY", TEST_KEY)
        .args([
            "run",
            "--backend",
            backend_spec(dialect),
            "--base-url",
            &provider.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--no-cache",
            "--out",
            "run",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A watchdog, not a timing: without the bound the run sleeps for a day.
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("the run was still waiting after 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(
        lines.len(),
        LONG_WAITS.len() + 1,
        "every trial recorded once"
    );
    for (word, header, value) in LONG_WAITS {
        let line = by_task(&lines, word);
        assert_eq!(line["outcome"], "error", "{header}: {value}: {line}");
        let error = line["backend_error"].as_str().unwrap();
        assert!(
            error.contains("longer than --max-retry-wait (60 s)"),
            "{header}: {value}: {error}"
        );
        assert_eq!(line["requests"], 1, "{header}: {value}: no retry");
    }
    assert!(
        by_task(&lines, "wait-a-day")["backend_error"]
            .as_str()
            .unwrap()
            .contains("86400 s")
    );
    assert_eq!(by_task(&lines, "call")["outcome"], "correct");
}

#[test]
fn an_openai_wait_no_run_can_serve_is_an_error_not_a_panic_or_a_hang() {
    unservable_waits_are_errors(Dialect::OpenAi);
}

#[test]
fn an_anthropic_wait_no_run_can_serve_is_an_error_not_a_panic_or_a_hang() {
    unservable_waits_are_errors(Dialect::Anthropic);
}

/// A provider that echoes the request's key — in a 400's body, in a model's text and arguments —
/// leaves it in no file of the run folder, of the response cache, or on the terminal.
fn an_echoed_key_is_stored_nowhere(dialect: Dialect) {
    let provider = MockProvider::start(dialect, false, Duration::ZERO);
    let suite = r#"
format = 1
suite = "echo"
toolset = "weather"

[[task]]
id = "headers"
prompt = "echo-headers: Oslo please"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "key"
prompt = "echo-key: Oslo please"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]
"#;
    let dir = workspace_with(suite);
    let cache = dir.path().join("cache");
    let output = run_against(&dir, &provider, dialect, &["-vv"]);
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(
        lines.len(),
        2,
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let headers = by_task(&lines, "headers");
    assert_eq!(headers["outcome"], "error");
    assert!(
        headers["backend_error"]
            .as_str()
            .unwrap()
            .contains("[REDACTED]"),
        "{headers}"
    );
    let key = by_task(&lines, "key");
    assert!(
        key["transcript"].to_string().contains("[REDACTED]"),
        "{key}"
    );
    assert_the_key_is_nowhere(&[dir.path().join("run"), cache], &output);
}

/// A 5 MB reply is stored as its first 256 KiB and its size, and still scored as the answer it is.
#[test]
fn a_huge_reply_is_stored_as_a_bounded_prefix() {
    let provider = MockProvider::start(Dialect::OpenAi, false, Duration::ZERO);
    let suite = "format = 1\nsuite = \"huge\"\ntoolset = \"weather\"\n[[task]]\nid = \"huge\"\nprompt = \"huge-reply: say hello\"\nexpect_no_call = true\n";
    let dir = workspace_with(suite);
    run_against(&dir, &provider, Dialect::OpenAi, &["--no-cache"]);
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(lines[0]["outcome"], "correct_abstain");
    assert!(
        lines[0]["transcript"]
            .to_string()
            .contains("of 5000000 bytes]")
    );
    let stored = std::fs::metadata(dir.path().join("run/trials.jsonl"))
        .unwrap()
        .len();
    assert!(stored < 1024 * 1024, "trials.jsonl is {stored} bytes");
}

/// A call whose arguments are 20 MB long is scored on all of them and stored as their first
/// 256 KiB with their length and SHA-256: `trials.jsonl` stays small, and the reply is not cached.
#[test]
fn huge_arguments_are_stored_bounded_with_their_length_and_hash() {
    let provider = MockProvider::start(Dialect::OpenAi, false, Duration::ZERO);
    let suite = "format = 1\nsuite = \"huge\"\ntoolset = \"weather\"\n[[task]]\nid = \"args\"\nprompt = \"huge-args: Oslo please\"\nexpect = [{ tool = \"weather.get\", args = { city = \"Oslo\" } }]\n";
    let dir = workspace_with(suite);
    let output = run_against(&dir, &provider, Dialect::OpenAi, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(
        lines[0]["outcome"], "wrong_args",
        "{}",
        lines[0]["backend_error"]
    );
    let city = lines[0]["calls"][0]["arguments"]["parsed"]["city"]
        .as_str()
        .unwrap();
    let sha = {
        use sha2::Digest;
        let digest = sha2::Sha256::digest("Oslo ".repeat(4_000_000).as_bytes());
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert!(
        city.ends_with(&format!("of 20000000 bytes; SHA-256 {sha}]")),
        "{}",
        &city[city.len() - 150..]
    );
    let stored = std::fs::metadata(dir.path().join("run/trials.jsonl"))
        .unwrap()
        .len();
    assert!(stored < 2 * 1024 * 1024, "trials.jsonl is {stored} bytes");
    let cache = std::fs::metadata(dir.path().join("cache/responses.sqlite")).map_or(0, |m| m.len());
    assert!(cache < 2 * 1024 * 1024, "the cache holds {cache} bytes");
}

#[test]
fn an_openai_key_echoed_back_is_stored_nowhere() {
    an_echoed_key_is_stored_nowhere(Dialect::OpenAi);
}

#[test]
fn an_anthropic_key_echoed_back_is_stored_nowhere() {
    an_echoed_key_is_stored_nowhere(Dialect::Anthropic);
}

/// A reply in no documented shape is an error on every task — above all on those that need no
/// tool, where a reply without calls would be credited as a right abstention.
fn undocumented_shapes_are_errors_not_abstentions(dialect: Dialect) {
    let provider = MockProvider::start(dialect, false, Duration::ZERO);
    let suite = r#"
format = 1
suite = "shapes"
toolset = "weather"

[[task]]
id = "tool"
prompt = "bad-shape: weather in Oslo"
expect = [{ tool = "weather.get", args = { city = "Oslo" } }]

[[task]]
id = "none"
prompt = "bad-shape: say hello"
expect_no_call = true
"#;
    let dir = workspace_with(suite);
    run_against(
        &dir,
        &provider,
        dialect,
        &["--max-retries", "0", "--no-cache"],
    );
    let lines = read_trials(&dir.path().join("run"));
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(line["outcome"], "error", "{line}");
        assert!(
            line["backend_error"].as_str().unwrap().contains("decoded"),
            "{line}"
        );
    }
}

#[test]
fn an_openai_reply_in_no_documented_shape_is_an_error_not_an_abstention() {
    undocumented_shapes_are_errors_not_abstentions(Dialect::OpenAi);
}

#[test]
fn an_anthropic_reply_in_no_documented_shape_is_an_error_not_an_abstention() {
    undocumented_shapes_are_errors_not_abstentions(Dialect::Anthropic);
}

/// No file under `folders` (the run folder, the response cache) and neither output stream holds
/// the test key.
fn assert_the_key_is_nowhere(folders: &[std::path::PathBuf], output: &Output) {
    let mut files = vec![];
    let mut folders = folders.to_vec();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    assert!(
        files.iter().any(|f| f.ends_with("responses.sqlite")),
        "{files:?}"
    );
    assert!(files.iter().any(|f| f.ends_with("trials.csv")), "{files:?}");
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        assert!(
            !bytes
                .windows(TEST_KEY.len())
                .any(|w| w == TEST_KEY.as_bytes()),
            "the key is in {}",
            file.display()
        );
    }
    for stream in [&output.stdout, &output.stderr] {
        assert!(!String::from_utf8_lossy(stream).contains(TEST_KEY));
    }
}

/// The fault suite: one run per hosted backend against every fault the mock provider can inject —
/// 429s with a one-second and with unservable `Retry-After`s, a 500, a hang, a non-JSON body, replies
/// in no documented shape, a 5 MB reply, an echoed key, malformed arguments, a looping model — with
/// the response cache on. Every planned trial is recorded exactly once, nothing panics, and the key
/// is in no file of the run folder or the cache.
fn fault_suite(dialect: Dialect) {
    let provider = MockProvider::start(dialect, false, Duration::ZERO);
    let mut words: Vec<&str> = vec![
        "weather",
        "parallel",
        "hello",
        "malformed",
        "ratelimit",
        "flaky",
        "hang",
        "garbage",
        "loop",
        "bad-shape",
        "echo-headers",
        "echo-key",
        "huge-reply",
    ];
    words.extend(LONG_WAITS.iter().map(|(word, ..)| *word));
    let mut suite = String::from("format = 1\nsuite = \"faults\"\ntoolset = \"weather\"\n");
    for word in &words {
        suite += &format!(
            "[[task]]\nid = \"{word}\"\nprompt = \"{word}: Oslo please\"\nexpect = [{{ tool = \"weather.get\", args = {{ city = \"Oslo\" }} }}]\n"
        );
    }
    let dir = workspace_with(&suite);
    let cache = dir.path().join("cache");
    let output = run_against(
        &dir,
        &provider,
        dialect,
        &["--timeout", "1", "--max-retries", "1", "-vv"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines = read_trials(&dir.path().join("run"));
    let mut recorded: Vec<&str> = lines.iter().map(|l| l["task"].as_str().unwrap()).collect();
    recorded.sort();
    let mut planned = words.clone();
    planned.sort();
    assert_eq!(recorded, planned, "every planned trial exactly once");
    assert_the_key_is_nowhere(&[dir.path().join("run"), cache], &output);
}

#[test]
fn the_openai_backend_survives_the_fault_suite() {
    fault_suite(Dialect::OpenAi);
}

#[test]
fn the_anthropic_backend_survives_the_fault_suite() {
    fault_suite(Dialect::Anthropic);
}

/// `mcpick run` in `dir` against `provider` as `dialect`'s backend, with the test key, the response
/// cache in `dir/cache` and the run folder `dir/run`, plus `extra` options.
fn run_against(
    dir: &tempfile::TempDir,
    provider: &MockProvider,
    dialect: Dialect,
    extra: &[&str],
) -> Output {
    let mut args = vec![
        "run",
        "--backend",
        backend_spec(dialect),
        "--base-url",
        &provider.base_url,
        "--api-key-env",
        "MCPICK_TEST_KEY",
        "--out",
        "run",
    ];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir.path())
        .env("MCPICK_TEST_KEY", TEST_KEY)
        .env("MCPICK_CACHE_DIR", dir.path().join("cache"))
        .args(args)
        .output()
        .unwrap()
}
