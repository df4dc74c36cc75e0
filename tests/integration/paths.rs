//! One path resolution: a suite outside the workspace naming `../ws/toolsets/x.json`, a toolset
//! whose `name` is not its file's, commands run from inside the workspace and from outside it —
//! `validate`, `run`, `lint` and `serve` agree on which file is which toolset, and one file reached
//! through two paths is one toolset.

use std::path::Path;

fn mcpick(dir: &Path, args: &[&str]) -> (i32, String) {
    crate::common::mcpick_in(dir, args, &[])
}

const DOCS_TOOLSET: &str = r#"{"format": 1, "name": "docs", "tools": [
  {"name": "resolve-library-id", "description": "Find a library's documentation ID from its name.",
   "inputSchema": {"type": "object", "properties": {"libraryName": {"type": "string"}}, "required": ["libraryName"]}},
  {"name": "query-docs", "description": "Read the documentation of a library by its ID.",
   "inputSchema": {"type": "object", "properties": {"libraryId": {"type": "string"}}, "required": ["libraryId"]}}
]}"#;

fn suite(toolset: &str) -> String {
    format!(
        "format = 1\nsuite = \"docs-{}\"\ntoolset = {toolset:?}\n\n[[task]]\nid = \"find-react\"\nprompt = \"Find the library ID for React.\"\nexpect = [{{ tool = \"resolve-library-id\" }}]\n\n[[task]]\nid = \"thanks\"\nprompt = \"Thanks, that is all.\"\nexpect_no_call = true\n",
        toolset.len()
    )
}

/// `root/ws/toolsets/docs.json` (name "docs"), `root/ws/toolsets/named.json` (name "renamed"),
/// `root/outside/docs.toml` naming `../ws/toolsets/docs.json`, `root/ws/mytasks/renamed.toml`
/// naming "renamed".
fn layout() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    for folder in ["ws/toolsets", "ws/mytasks", "outside"] {
        std::fs::create_dir_all(r.join(folder)).unwrap();
    }
    std::fs::write(r.join("ws/toolsets/docs.json"), DOCS_TOOLSET).unwrap();
    std::fs::write(
        r.join("ws/toolsets/named.json"),
        DOCS_TOOLSET.replace("\"name\": \"docs\"", "\"name\": \"renamed\""),
    )
    .unwrap();
    std::fs::write(
        r.join("outside/docs.toml"),
        suite("../ws/toolsets/docs.json"),
    )
    .unwrap();
    std::fs::write(r.join("ws/mytasks/renamed.toml"), suite("renamed")).unwrap();
    root
}

#[test]
fn a_suite_outside_the_workspace_names_a_toolset_inside_it_and_every_command_agrees() {
    let root = layout();
    let ws = root.path().join("ws");
    // From inside the workspace `run` also loads `toolsets/`: the same file through a second path
    // is the same toolset, not a duplicate name.
    for args in [
        &["validate", "../outside/docs.toml"][..],
        &[
            "run",
            "../outside/docs.toml",
            "--backend",
            "bm25",
            "-o",
            "../r1",
        ],
    ] {
        let (code, text) = mcpick(&ws, args);
        assert_eq!(code, 0, "{args:?} from inside: {text}");
        assert!(!text.contains("already used by"), "{args:?}: {text}");
    }
    // From outside the workspace: no `toolsets/` there, the suite's path is all there is.
    for args in [
        &["validate", "outside/docs.toml"][..],
        &["run", "outside/docs.toml", "--backend", "bm25", "-o", "r2"],
    ] {
        let (code, text) = mcpick(root.path(), args);
        assert_eq!(code, 0, "{args:?} from outside: {text}");
    }
}

#[test]
fn a_toolset_whose_name_is_not_its_file_name_is_found_by_every_command() {
    let root = layout();
    let ws = root.path().join("ws");
    let (code, text) = mcpick(&ws, &["validate", "mytasks/renamed.toml"]);
    assert_eq!(code, 0, "validate: {text}");
    assert!(
        text.contains("toolsets/named.json") && text.contains("toolset renamed: 2 tools"),
        "{text}"
    );
    let (code, text) = mcpick(
        &ws,
        &[
            "run",
            "mytasks/renamed.toml",
            "--backend",
            "bm25",
            "-o",
            "r",
        ],
    );
    assert_eq!(code, 0, "run: {text}");
    let (code, text) = mcpick(&ws, &["lint", "renamed"]);
    assert!(code == 0 || code == 1, "lint by the declared name: {text}");
    assert!(!text.contains("no toolset"), "{text}");
}

#[test]
fn a_suite_does_not_take_itself_for_its_toolset() {
    // `tasks/docs.toml` naming toolset "docs": the suite file is a candidate by its name, and
    // must not be read as the toolset.
    let root = layout();
    let ws = root.path().join("ws");
    std::fs::create_dir_all(ws.join("tasks")).unwrap();
    std::fs::write(ws.join("tasks/docs.toml"), suite("docs")).unwrap();
    let (code, text) = mcpick(&ws, &["validate", "tasks/docs.toml"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("toolsets/docs.json"), "{text}");
}
