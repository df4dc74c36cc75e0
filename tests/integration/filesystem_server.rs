//! The official filesystem MCP server (`@modelcontextprotocol/server-filesystem`, installed with the
//! tests' peers), a real server nobody here wrote: imported with its source kept (version, command,
//! revision; its own standard error in the import log, not on the terminal), linted in English with
//! `read_file` flagged as deprecated in favour of `read_text_file`, and scored under the `mcp`
//! profile with matchers that say what a path list means: a reversed list of paths is right with
//! `unordered`, `srv/files/x` is not `/srv/files/x`, a glob is compared exactly.

use crate::common;
use mcpick::load::Workspace;
use mcpick::model::Task;
use mcpick::observation::{CallArguments, Observed, ObservedCall};
use mcpick::score::{Outcome, score_task};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn peers() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    assert!(
        dir.join("node_modules/.bin/mcp-server-filesystem").exists(),
        "the filesystem server is not installed: run tests/peers/install.sh (the README's test command does)"
    );
    dir
}

fn mcpick(args: &[&str], dir: &Path) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code().unwrap_or(-1), text)
}

const SUITE: &str = r#"format = 1
suite = "filesystem"
toolset = "filesystem.json"

[[task]]
id = "read-three"
prompt = "Compare /srv/files/a.txt, /srv/files/b.txt and /srv/files/c.txt."
expect = [{ tool = "read_multiple_files", args = { paths = { unordered = ["/srv/files/a.txt", "/srv/files/b.txt", "/srv/files/c.txt"] } } }]

[[task]]
id = "read-one"
prompt = "What is in /srv/files/x?"
expect = [{ tool = "read_text_file", args = { path = "/srv/files/x" } }]

[[task]]
id = "find-pdfs"
prompt = "Find every PDF under /srv/files."
expect = [{ tool = "search_files", args = { path = "/srv/files", pattern = ["**/*.pdf", "*.pdf"] } }]

[[task]]
id = "rename-function"
prompt = "In /srv/files/app.py, rename foo to bar."
expect = [{ tool = "edit_file", args = { path = "/srv/files/app.py", edits = { contains = [{ oldText = { regex = "foo" }, newText = { regex = "bar" } }] } } }]
"#;

fn call(tool: &str, arguments: Value) -> ObservedCall {
    ObservedCall {
        tool: tool.into(),
        arguments: CallArguments::Parsed(arguments.as_object().unwrap().clone()),
        result_is_error: Some(false),
        reply: 0,
    }
}

fn outcome(task: &Task, shown: &[String], made: ObservedCall) -> Outcome {
    let calls = [made];
    score_task(
        task,
        &Observed {
            tools_shown: shown,
            calls: &calls,
            backend_error: None,
        },
    )
    .outcome
}

#[test]
fn the_filesystem_servers_tools_import_lint_and_score_paths_as_paths() {
    let peers = peers();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let command = format!(
        "{} {} {}",
        peers.join("node_modules/.bin/node").display(),
        peers
            .join("node_modules/.bin/mcp-server-filesystem")
            .display(),
        root.display()
    );
    let (code, said) = mcpick(
        &["import", "--stdio", &command, "-o", "filesystem.json"],
        dir.path(),
    );
    assert_eq!(code, 0, "{said}");
    // The server's own messages go to the import log, not among mcpick's.
    assert!(!said.contains("Secure MCP Filesystem Server"), "{said}");
    let log = std::fs::read_to_string(dir.path().join("filesystem.import.log")).unwrap();
    assert!(log.contains("Secure MCP Filesystem Server"), "{log}");
    assert!(common::written_files::assert_file_reads_back(
        &dir.path().join("filesystem.json")
    ));
    let toolset: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("filesystem.json")).unwrap())
            .unwrap();
    let imported = &toolset["imported"];
    assert_eq!(imported["server"], "secure-filesystem-server");
    assert!(imported["serverVersion"].is_string(), "{imported}");
    assert!(imported["protocolVersion"].is_string() && imported["command"].is_array());
    // Every tool answers something that is not empty.
    for tool in toolset["tools"].as_array().unwrap() {
        let answer = tool["behavior"].to_string();
        assert!(answer.contains("simulated"), "{}: {answer}", tool["name"]);
    }

    let (code, lint) = mcpick(&["lint", "filesystem.json"], dir.path());
    assert_eq!(code, 0, "{lint}");
    assert!(
        !lint.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{lint}"
    );
    assert!(
        lint.lines().any(|l| l.contains("read_file")
            && l.contains("deprecated-tool")
            && l.contains("in favour of read_text_file")),
        "{lint}"
    );

    std::fs::write(dir.path().join("suite.toml"), SUITE).unwrap();
    let (code, said) = mcpick(&["validate", "suite.toml", "filesystem.json"], dir.path());
    assert_eq!(code, 0, "{said}");
    let workspace = Workspace::load(&[
        dir.path().join("filesystem.json"),
        dir.path().join("suite.toml"),
    ]);
    let suite = &workspace.suites[0];
    let task = |id: &str| suite.tasks.iter().find(|t| t.id == id).unwrap();
    let shown: Vec<String> = workspace.toolsets[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    let judge =
        |id: &str, tool: &str, arguments: Value| outcome(task(id), &shown, call(tool, arguments));
    let reversed = json!({"paths": ["/srv/files/c.txt", "/srv/files/b.txt", "/srv/files/a.txt"]});
    assert_eq!(
        judge("read-three", "read_multiple_files", reversed),
        Outcome::Correct
    );
    let one_short = json!({"paths": ["/srv/files/c.txt", "/srv/files/b.txt"]});
    assert_eq!(
        judge("read-three", "read_multiple_files", one_short),
        Outcome::WrongArgs
    );
    assert_eq!(
        judge(
            "read-one",
            "read_text_file",
            json!({"path": "/srv/files/x"})
        ),
        Outcome::Correct
    );
    assert_eq!(
        judge(
            "read-one",
            "read_text_file",
            json!({"path": "/srv//files/./x/"})
        ),
        Outcome::Correct
    );
    assert_eq!(
        judge("read-one", "read_text_file", json!({"path": "srv/files/x"})),
        Outcome::WrongArgs
    );
    assert_eq!(
        judge(
            "read-one",
            "read_text_file",
            json!({"path": "/SRV/files/x"})
        ),
        Outcome::WrongArgs
    );
    assert_eq!(
        judge(
            "find-pdfs",
            "search_files",
            json!({"path": "/srv/files", "pattern": "**/*.pdf"})
        ),
        Outcome::Correct
    );
    assert_eq!(
        judge(
            "find-pdfs",
            "search_files",
            json!({"path": "/srv/files", "pattern": "pdf"})
        ),
        Outcome::WrongArgs
    );
    let edits = json!({"path": "/srv/files/app.py", "edits": [
        {"oldText": "import os", "newText": "import os, sys"},
        {"oldText": "def foo():", "newText": "def bar():"},
    ]});
    assert_eq!(
        judge("rename-function", "edit_file", edits),
        Outcome::Correct
    );
    let no_rename = json!({"path": "/srv/files/app.py", "edits": [{"oldText": "import os", "newText": "import sys"}]});
    assert_eq!(
        judge("rename-function", "edit_file", no_rename),
        Outcome::WrongArgs
    );

    // The oracle meets every task of the suite through the real server's schemas.
    let (code, said) = mcpick(
        &[
            "run",
            "suite.toml",
            "filesystem.json",
            "--backend",
            "oracle",
            "--no-progress",
            "--out",
            "run",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("| oracle | (all) | 4 | 100.0%"), "{said}");
}
