//! Real servers as they are: eight MCP servers published on npm (installed, pinned, under
//! `tests/peers/wild`) are imported, validated, linted, served back by `serve` with the same
//! `tools/list` they sent, and run with bm25 beside the shipped toolsets — a toolset in `toolsets/`
//! that a run does not use never stops it. A hand-written toolset carries extra keys at every level
//! MCP leaves open (the tool, `annotations`, `_meta`, `icons`, `execution`, the schemas), and they
//! survive loading and serving unchanged; a key that is a slip of a known one is still refused.

use crate::common::published_servers::{listed_tools, npm_server_command, served_back};
use serde_json::Value;
use std::path::Path;

/// (toolset name, package, arguments after the server's script).
const SERVERS: [(&str, &str, &[&str]); 8] = [
    ("everything", "@modelcontextprotocol/server-everything", &[]),
    (
        "filesystem",
        "@modelcontextprotocol/server-filesystem",
        &["."],
    ),
    ("memory", "@modelcontextprotocol/server-memory", &[]),
    (
        "sequential-thinking",
        "@modelcontextprotocol/server-sequential-thinking",
        &[],
    ),
    ("playwright", "@playwright/mcp", &[]),
    ("context7", "@upstash/context7-mcp", &[]),
    ("desktop-commander", "@wonderwhy-er/desktop-commander", &[]),
    ("chrome-devtools", "chrome-devtools-mcp", &[]),
];

fn mcpick(dir: &Path, args: &[&str]) -> (i32, String) {
    // desktop-commander keeps its settings under the home folder: keep them in the test's.
    crate::common::mcpick_in(dir, args, &[("HOME", dir)])
}

#[test]
fn eight_npm_servers_import_validate_lint_serve_back_and_run_beside_the_shipped_toolsets() {
    let workspace = tempfile::tempdir().unwrap();
    let dir = workspace.path();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join("toolsets")).unwrap();
    std::fs::create_dir_all(dir.join("tasks")).unwrap();
    std::fs::create_dir_all(dir.join("back")).unwrap();
    for file in ["toolsets/travel.toml", "tasks/travel.toml"] {
        std::fs::copy(shipped.join(file), dir.join(file)).unwrap();
    }
    let mut tools_seen = 0;
    for (name, package, args) in SERVERS {
        let file = dir.join(format!("toolsets/{name}.json"));
        let command = npm_server_command(package, args);
        let (code, text) = mcpick(
            dir,
            &["import", "--stdio", &command, "-o", file.to_str().unwrap()],
        );
        assert_eq!(code, 0, "{name}: import: {text}");
        let (code, text) = mcpick(dir, &["validate", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: validate: {text}");
        // Findings are fine; a refusal to lint (exit 2) is not.
        let (code, text) = mcpick(dir, &["lint", file.to_str().unwrap()]);
        assert!(code == 0 || code == 1, "{name}: lint exited {code}: {text}");
        let imported = listed_tools(&file);
        assert!(!imported.is_empty(), "{name}: no tools imported");
        tools_seen += imported.len();
        assert_eq!(
            served_back(dir, &file, name),
            imported,
            "{name}: `serve` must list exactly the tools the server listed"
        );
    }
    assert!(
        tools_seen > 100,
        "only {tools_seen} tools across eight servers"
    );

    // chrome-devtools-mcp sends `annotations.category`; it is kept in the file and on the wire.
    let chrome = listed_tools(&dir.join("toolsets/chrome-devtools.json"));
    assert!(
        chrome
            .iter()
            .any(|t| t["annotations"]["category"].is_string()),
        "no annotations.category survived: {:#}",
        chrome[0]
    );

    // The eight imports beside the shipped toolset do not stop a travel run, and do not enter it.
    let (code, text) = mcpick(
        dir,
        &["run", "tasks/travel.toml", "--backend", "bm25", "-o", "out"],
    );
    assert_eq!(code, 0, "run beside the imports: {text}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert!(summary.to_string().contains("travel"), "{summary:#}");
}

/// A toolset with keys beyond MCP's at every open level.
const OPEN_LEVELS: &str = r#"{
  "format": 1,
  "name": "open",
  "tools": [
    {
      "name": "get_page",
      "description": "Fetch one page by its address.",
      "inputSchema": {
        "type": "object",
        "properties": { "url": { "type": "string", "x-order": 1 } },
        "required": ["url"],
        "x-server-hint": "pages"
      },
      "outputSchema": {
        "type": "object",
        "properties": { "status": { "type": "integer" } },
        "x-cacheable": true
      },
      "annotations": { "readOnlyHint": true, "category": "navigation", "x-rank": 2 },
      "icons": [{ "src": "https://example.com/page.png", "mimeType": "image/png", "theme": "dark", "x-size": 16 }],
      "execution": { "taskSupport": "optional", "x-queue": "fast" },
      "_meta": { "vendor.example/owner": "team-pages", "nested": { "a": [1, 2] } },
      "x-vendor-rank": { "score": 0.5 },
      "category": "browse",
      "behavior": { "structured": { "status": 200 } }
    }
  ]
}"#;

#[test]
fn extra_keys_at_every_open_level_survive_loading_and_serving() {
    let workspace = tempfile::tempdir().unwrap();
    let dir = workspace.path();
    std::fs::create_dir_all(dir.join("back")).unwrap();
    let file = dir.join("open.json");
    std::fs::write(&file, OPEN_LEVELS).unwrap();
    let (code, text) = mcpick(dir, &["validate", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    let written: Value = serde_json::from_str(OPEN_LEVELS).unwrap();
    let mut expected = written["tools"].as_array().unwrap().clone();
    // `serve` simulates structured output for an outputSchema; it adds no key to the listing.
    for tool in &mut expected {
        tool.as_object_mut().unwrap().remove("behavior");
    }
    assert_eq!(served_back(dir, &file, "open"), expected);

    // A slip of a known key is not an extra key: the tool would silently lose its description.
    let slipped = OPEN_LEVELS
        .replace("\"description\"", "\"descripton\"")
        .replace("\"readOnlyHint\"", "\"readonlyHint\"");
    std::fs::write(&file, slipped).unwrap();
    let (code, text) = mcpick(dir, &["validate", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("unknown key `descripton` in the tool")
            && text.contains("did you mean `description`?"),
        "{text}"
    );
    assert!(
        text.contains("unknown key `readonlyHint` in its annotations"),
        "{text}"
    );
}

#[test]
fn a_broken_toolset_stops_only_the_runs_that_use_it() {
    let workspace = tempfile::tempdir().unwrap();
    let dir = workspace.path();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join("toolsets")).unwrap();
    std::fs::create_dir_all(dir.join("tasks")).unwrap();
    for file in ["toolsets/travel.toml", "tasks/travel.toml"] {
        std::fs::copy(shipped.join(file), dir.join(file)).unwrap();
    }
    let broken = r#"{"tools": [{"name": "broken_tool", "inputSchema": {"type": "array"}}]}"#;
    std::fs::write(dir.join("toolsets/broken.json"), broken).unwrap();
    let (code, text) = mcpick(
        dir,
        &["run", "tasks/travel.toml", "--backend", "bm25", "-o", "out"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("toolsets/broken.json has 1 error(s) and is not used here"),
        "the set-aside file is named: {text}"
    );
    // A suite on the broken toolset still stops, with the toolset's own error.
    std::fs::write(
        dir.join("tasks/on_broken.toml"),
        "format = 1\nsuite = \"b\"\ntoolset = \"broken\"\n\n[[task]]\nid = \"t\"\nprompt = \"Go\"\nexpect_no_call = true\n",
    )
    .unwrap();
    let (code, text) = mcpick(
        dir,
        &[
            "run",
            "tasks/on_broken.toml",
            "--backend",
            "bm25",
            "-o",
            "out2",
        ],
    );
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("\"broken_tool\": inputSchema"),
        "the toolset's error is shown: {text}"
    );
}
