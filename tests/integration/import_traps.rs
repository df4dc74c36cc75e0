//! `import` as people use it: the output's format follows its name (TOML for `.toml`, refused
//! before any server starts for anything else); `--env`, `NAME=value` words and `--cwd` reach the
//! server and no value reaches the file; a command that is not an MCP server fails within
//! `--server-timeout` with its last standard-error lines and the log's path; the server's `instructions`
//! are kept, served back, and put in the system prompt by `run --server-instructions`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn peers() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    assert!(
        dir.join("wild/node_modules/.installed").exists(),
        "the npm servers are not installed: run tests/peers/install.sh (the README's test command does)"
    );
    dir
}

fn node() -> String {
    peers().join("node_modules/.bin/node").display().to_string()
}

/// The official "everything" server, which sends `instructions`.
fn everything() -> String {
    let script =
        peers().join("wild/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    format!("{} {}", node(), script.display())
}

fn mcpick(dir: &Path, args: &[&str]) -> (i32, String) {
    crate::common::mcpick_in(dir, args, &[])
}

#[test]
fn the_output_format_follows_the_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = mcpick(
        dir.path(),
        &[
            "import",
            "--stdio",
            &everything(),
            "-o",
            "toolsets/everything.toml",
        ],
    );
    assert_eq!(code, 0, "{text}");
    let written = std::fs::read_to_string(dir.path().join("toolsets/everything.toml")).unwrap();
    assert!(
        written.starts_with("format = 1"),
        "TOML, not JSON: {}",
        &written[..80.min(written.len())]
    );
    assert!(written.contains("[[tool]]"), "{written}");
    let (code, text) = mcpick(dir.path(), &["validate", "toolsets/everything.toml"]);
    assert_eq!(code, 0, "{text}");
    // Refused by name, before a server is started.
    let started = Instant::now();
    let (code, text) = mcpick(
        dir.path(),
        &["import", "--stdio", "sleep 30", "-o", "x.yaml"],
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("x.yaml: a toolset file is named .json"),
        "{text}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn environment_and_folder_reach_the_server_and_no_value_reaches_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let canary = "canary-7f3a9e";
    // The server starts only if all three arrived.
    let line = format!(
        "TOKEN={canary} sh -c 'test \"${{#TOKEN}}\" = {} && test \"$MODE\" = fast && test \"$(basename \"$PWD\")\" = work && exec {}'",
        canary.len(),
        everything()
    );
    let (code, text) = mcpick(
        dir.path(),
        &[
            "import",
            "--stdio",
            &line,
            "--env",
            "MODE=fast",
            "--cwd",
            work.to_str().unwrap(),
            "-o",
            "e.json",
        ],
    );
    assert_eq!(code, 0, "{text}");
    let written = std::fs::read_to_string(dir.path().join("e.json")).unwrap();
    assert!(
        !written.contains(canary),
        "a variable's value was written to the toolset"
    );
    let document: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        document["imported"]["env"],
        serde_json::json!(["TOKEN", "MODE"])
    );
    assert_eq!(document["imported"]["command"][0], "sh");
    // Without them the same command is no server, and says so.
    let line = line.replace(&format!("TOKEN={canary} "), "");
    let (code, _) = mcpick(
        dir.path(),
        &[
            "import",
            "--stdio",
            &line,
            "--server-timeout",
            "3",
            "-o",
            "f.json",
        ],
    );
    assert_eq!(code, 2);
}

#[test]
fn a_command_that_is_not_a_server_fails_within_the_timeout_showing_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let (code, text) = mcpick(
        dir.path(),
        &[
            "import",
            "--stdio",
            "sh -c 'echo booting >&2; echo listening on port 3000 >&2; sleep 60'",
            "--server-timeout",
            "2",
            "-o",
            "toolsets/web.json",
        ],
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    assert!(text.contains("no reply within 2s"), "{text}");
    assert!(
        text.contains("| listening on port 3000"),
        "the server's last words: {text}"
    );
    assert!(
        text.contains("toolsets/web.import.log"),
        "the log's path: {text}"
    );
    let log = std::fs::read_to_string(dir.path().join("toolsets/web.import.log")).unwrap();
    assert!(log.contains("booting"), "{log}");
    assert!(
        !dir.path().join("toolsets/web.json").exists(),
        "no toolset from no server"
    );
}

#[test]
fn instructions_are_kept_served_back_and_shown_to_models_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = mcpick(
        dir.path(),
        &[
            "import",
            "--stdio",
            &everything(),
            "-o",
            "toolsets/everything.json",
        ],
    );
    assert_eq!(code, 0, "{text}");
    let document: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("toolsets/everything.json")).unwrap(),
    )
    .unwrap();
    let instructions = document["instructions"]
        .as_str()
        .expect("instructions kept")
        .to_string();
    assert!(instructions.len() > 100, "{instructions}");
    // `serve` hands them to its clients: imported back, they are the same.
    let serve = format!(
        "{} serve toolsets/everything.json",
        env!("CARGO_BIN_EXE_mcpick")
    );
    let (code, text) = mcpick(
        dir.path(),
        &["import", "--stdio", &serve, "-o", "back.json"],
    );
    assert_eq!(code, 0, "{text}");
    let back: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("back.json")).unwrap())
            .unwrap();
    assert_eq!(back["instructions"].as_str(), Some(instructions.as_str()));
    // A run asked to show them puts them in each trial's system prompt.
    let tool = document["tools"][0]["name"].as_str().unwrap();
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    std::fs::write(
        dir.path().join("tasks/ev.toml"),
        format!("format = 1\nsuite = \"ev\"\ntoolset = \"everything\"\n\n[[task]]\nid = \"one\"\nprompt = \"Use {tool} please.\"\nexpect = [{{ tool = \"{tool}\" }}]\n"),
    )
    .unwrap();
    for (flag, out) in [(true, "with"), (false, "without")] {
        let mut args = vec!["run", "tasks/ev.toml", "--backend", "bm25", "-o", out];
        if flag {
            args.push("--server-instructions");
        }
        let (code, text) = mcpick(dir.path(), &args);
        assert_eq!(code, 0, "{text}");
        let trials = std::fs::read_to_string(dir.path().join(out).join("trials.jsonl")).unwrap();
        assert_eq!(
            trials.contains("Instructions from the MCP server \\\"everything\\\""),
            flag,
            "{out}: {trials}"
        );
    }
}
