//! `mcpick review` driven through a pseudo-terminal, as a person would: accept, reject, edit in
//! `$EDITOR` (an edit that keeps the suite valid, and one that does not), quit, and a second review
//! that goes on with what is left. Without a terminal it lists what is pending and exits 2.

use crate::common;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const TOOLSET: &str = r#"format = 1
name = "mini"

[[tool]]
name = "get_weather"
description = "Current weather for a city."
[tool.inputSchema]
type = "object"
required = ["city"]
properties.city = { type = "string" }
"#;

const SUITE: &str = r#"format = 1
suite = "mini-draft"
toolset = "mini.toml"
tasks_file = "tasks.jsonl"
"#;

/// Starts a command on a pseudo-terminal and answers each `[y,n,e,s,q,?]?` question with the next
/// answer; prints everything the command wrote and exits with its exit code.
const PTY_DRIVER: &str = r#"
import os, pty, sys, time
answers = [a for a in sys.argv[1].split(",") if a]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
seen = b""
asked = 0
deadline = time.time() + 60
while time.time() < deadline:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    if seen.count(b"[y,n,e,s,q,?]? ") > asked:
        asked += 1
        if answers:
            os.write(fd, (answers.pop(0) + "\n").encode())
        else:
            os.write(fd, b"q\n")
sys.stdout.write(seen.decode("utf-8", "replace"))
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"#;

fn task(id: &str, city: &str) -> String {
    format!(
        r#"{{"id": "{id}", "prompt": "Is it raining in {city}?", "expect": [{{"tool": "get_weather", "args": {{"city": "{city}"}}}}], "review": "draft", "provenance": {{"picks": {{"bm25": "get_weather"}}}}}}"#
    )
}

fn drive(dir: &Path, answers: &str, editor: &str) -> (i32, String) {
    let scratch = dir.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let output: Output = Command::new("python3")
        .arg("-c")
        .arg(PTY_DRIVER)
        .arg(answers)
        .arg(env!("CARGO_BIN_EXE_mcpick"))
        .arg("review")
        .arg("drafted")
        .current_dir(dir)
        .env("EDITOR", editor)
        .env("TMPDIR", &scratch)
        .env_remove("VISUAL")
        .output()
        .unwrap();
    // The editor's scratch folder is gone with its file: the temporary folder is as it was.
    let left: Vec<_> = std::fs::read_dir(&scratch)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("planted")], "{left:?}");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code().unwrap_or(-1), text)
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_review_through_a_terminal_accepts_rejects_edits_quits_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let drafted = dir.path().join("drafted");
    std::fs::create_dir_all(&drafted).unwrap();
    std::fs::write(drafted.join("mini.toml"), TOOLSET).unwrap();
    std::fs::write(drafted.join("suite.toml"), SUITE).unwrap();
    let lines: Vec<String> = [
        ("one", "Oslo"),
        ("two", "Rome"),
        ("three", "Oslo"),
        ("four", "Lima"),
    ]
    .iter()
    .map(|(id, city)| task(id, city))
    .collect();
    std::fs::write(drafted.join("tasks.jsonl"), lines.join("\n") + "\n").unwrap();
    // Another program's file in the temporary folder, which the review must leave alone.
    std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
    std::fs::write(dir.path().join("tmp/planted"), "not the review's").unwrap();
    // Editors: one that changes the city, one that writes a review state that does not exist.
    let good = dir.path().join("good-editor.sh");
    std::fs::write(&good, "#!/bin/sh\nsed -i 's/Oslo/Bergen/g' \"$1\"\n").unwrap();
    let bad = dir.path().join("bad-editor.sh");
    std::fs::write(&bad, "#!/bin/sh\nsed -i 's/\"draft\"/\"maybe\"/' \"$1\"\n").unwrap();
    for script in [&good, &bad] {
        Command::new("chmod")
            .arg("+x")
            .arg(script)
            .status()
            .unwrap();
    }

    // Without a terminal: what is pending, and exit 2.
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["review", "drafted"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("4 of 4 tasks await review") && text.contains("four (draft)"),
        "{text}"
    );

    // accept one, reject two, edit three (the city becomes Bergen), accept it, quit at four.
    let (code, text) = drive(dir.path(), "y,n,e,y,q", good.to_str().unwrap());
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("(1/4) one (draft)"), "{text}");
    assert!(text.contains("edited; the task again"), "{text}");
    assert!(
        text.contains("accepted 2, rejected 1, edited 1; 1 still pending"),
        "{text}"
    );
    let tasks = records(&drafted.join("tasks.jsonl"));
    let ids: Vec<&str> = tasks.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["one", "three", "four"]);
    assert_eq!(tasks[0]["review"], "accepted");
    assert_eq!(tasks[1]["review"], "accepted");
    assert_eq!(tasks[1]["prompt"], "Is it raining in Bergen?");
    assert_eq!(tasks[2]["review"], "draft");
    let rejected = records(&drafted.join("rejected.jsonl"));
    assert_eq!(rejected.len(), 1);
    // Kept and rejected tasks still read as tasks, nothing of them lost.
    common::written_files::tasks_round_trip(&drafted.join("tasks.jsonl"));
    common::written_files::tasks_round_trip(&drafted.join("rejected.jsonl"));
    assert_eq!(rejected[0]["id"], "two");

    // The next review goes on with what is left; an edit that breaks the suite is not kept.
    let (code, text) = drive(dir.path(), "e,s", bad.to_str().unwrap());
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("(1/1) four (draft)"), "{text}");
    assert!(
        text.contains("the edit was not kept") && text.contains("maybe"),
        "{text}"
    );
    assert_eq!(records(&drafted.join("tasks.jsonl"))[2]["review"], "draft");
    let (code, text) = drive(dir.path(), "y", good.to_str().unwrap());
    assert_eq!(code, 0, "{text}");
    let (code, text) = drive(dir.path(), "", good.to_str().unwrap());
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("nothing to review: all 3 tasks"), "{text}");
    // What the review wrote still loads.
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["validate", "drafted"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}
