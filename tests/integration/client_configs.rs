//! Servers from the files people have (`--mcp-config FILE[#NAME]`): the official filesystem
//! server imported from a config written the way each client's documentation writes it —
//! Claude Desktop, Claude Code, Cursor, VS Code (with a prompted input filled from the
//! environment) and a registry `server.json` (an npm package pinned to its version) — started
//! with `npx` as the clients start it (offline, from the test peers' install). A canary secret
//! given through `env`, an input and a header reaches the servers and appears in no file mcpick
//! writes and not in what it prints; the HTTP headers and the 2024-11-05 SSE transport are
//! checked against the official Python SDK's server, which refuses a request without them.

use crate::common::mcpick_in;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const CANARY: &str = "canary-5e1f0c9a-never-written";
const FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem";
const FILESYSTEM_VERSION: &str = "2026.8.31";

fn peers() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    assert!(
        dir.join("node_modules/.bin/mcp-server-filesystem").exists()
            && dir.join(".venv/bin/python").exists(),
        "the test peers are not installed: run tests/peers/install.sh (the README's test command does)"
    );
    dir
}

/// A project folder whose `npx` finds the filesystem server installed (the peers' node_modules)
/// and never reaches the network, and a `data` folder for the server to serve.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        peers().join("node_modules"),
        dir.path().join("node_modules"),
    )
    .unwrap();
    std::fs::copy(
        peers().join("package.json"),
        dir.path().join("package.json"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    dir
}

/// The environment every import runs in: Node 22 of the peers first on PATH (what `npx` runs
/// on), npm offline, and the canary secret.
fn environment() -> Vec<(String, String)> {
    let path = format!(
        "{}:{}",
        peers().join("node_modules/.bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    vec![
        ("PATH".into(), path),
        ("npm_config_offline".into(), "true".into()),
        ("CANARY_SECRET".into(), CANARY.into()),
    ]
}

/// `mcpick import ARGS` in `dir`, its home and caches in `dir/home` (scanned for the canary too).
fn import(dir: &Path, args: &[&str], extra: &[(&str, &str)]) -> (i32, String) {
    let mut env = environment();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    env.push(("HOME".into(), home.display().to_string()));
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let env: Vec<(&str, &Path)> = env
        .iter()
        .map(|(k, v)| (k.as_str(), Path::new(v.as_str())))
        .collect();
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    mcpick_in(dir, &all, &env)
}

/// Every file under `dir` (not following the node_modules link) whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if String::from_utf8_lossy(&std::fs::read(&path).unwrap()).contains(needle) {
            found.push(path);
        }
    }
    found
}

fn toolset(file: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// The five shapes, each as its client's documentation writes it.
fn write_configs(dir: &Path) {
    // Claude Desktop: claude_desktop_config.json, absolute paths, `env`.
    let data = dir.join("data").display().to_string();
    let desktop = serde_json::json!({"mcpServers": {"filesystem": {
        "command": "npx",
        "args": ["-y", FILESYSTEM, data],
        "env": {"FS_TOKEN": "${CANARY_SECRET}"}
    }}});
    std::fs::write(dir.join("claude_desktop_config.json"), desktop.to_string()).unwrap();
    // Claude Code: a project's .mcp.json, `type`, `${VAR}` and `${VAR:-default}`.
    let code = r#"{
  "mcpServers": {
    "filesystem": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${DATA_DIR:-./data}"],
      "env": {"FS_TOKEN": "${CANARY_SECRET}"}
    },
    "docs": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${CANARY_SECRET}"}}
  }
}"#;
    std::fs::write(dir.join(".mcp.json"), code).unwrap();
    // Cursor: .cursor/mcp.json, `${env:VAR}` and `${workspaceFolder}`.
    std::fs::create_dir_all(dir.join(".cursor")).unwrap();
    let cursor = r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}/data"],
      "env": {"FS_TOKEN": "${env:CANARY_SECRET}"}
    }
  }
}"#;
    std::fs::write(dir.join(".cursor/mcp.json"), cursor).unwrap();
    // VS Code: .vscode/mcp.json, JSON with comments, `servers`, a prompted input.
    std::fs::create_dir_all(dir.join(".vscode")).unwrap();
    let vscode = r#"{
  // Filled by VS Code's prompt; here from $MCPICK_INPUT_FS_TOKEN.
  "inputs": [
    {"type": "promptString", "id": "fs-token", "description": "Filesystem token", "password": true}
  ],
  "servers": {
    "filesystem": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}/data"],
      "env": {"FS_TOKEN": "${input:fs-token}"},
    },
  },
}"#;
    std::fs::write(dir.join(".vscode/mcp.json"), vscode).unwrap();
    // The registry: server.json, schema 2025-12-11, an npm package pinned to its version.
    let registry = serde_json::json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": "io.github.modelcontextprotocol/server-filesystem",
        "description": "MCP server for filesystem access: read, write, search and move files and directories",
        "version": FILESYSTEM_VERSION,
        "packages": [{
            "registryType": "npm",
            "registryBaseUrl": "https://registry.npmjs.org",
            "identifier": FILESYSTEM,
            "version": FILESYSTEM_VERSION,
            "transport": {"type": "stdio"},
            "packageArguments": [
                {"type": "positional", "valueHint": "allowed_directory", "description": "A directory the server may read", "isRequired": true}
            ],
            "environmentVariables": [
                {"name": "FS_TOKEN", "description": "A token", "isRequired": true, "isSecret": true}
            ]
        }]
    });
    std::fs::write(dir.join("server.json"), registry.to_string()).unwrap();
}

/// A config to import from, the file to write, and the variables it needs on top.
type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>);

#[test]
fn the_filesystem_server_imports_from_each_client_s_config_and_no_secret_is_written() {
    let project = project();
    let dir = project.path();
    write_configs(dir);
    let data = dir.join("data").display().to_string();
    let mut printed = String::new();
    let cases: [Case; 5] = [
        (
            "claude_desktop_config.json#filesystem",
            "desktop.json",
            vec![],
        ),
        (".mcp.json#filesystem", "code.json", vec![]),
        (".cursor/mcp.json", "cursor.json", vec![]),
        (
            ".vscode/mcp.json",
            "vscode.json",
            vec![("MCPICK_INPUT_FS_TOKEN", CANARY)],
        ),
        (
            "server.json",
            "registry.json",
            vec![
                ("MCPICK_INPUT_ALLOWED_DIRECTORY", data.as_str()),
                ("FS_TOKEN", CANARY),
            ],
        ),
    ];
    for (config, out, extra) in &cases {
        let out = format!("toolsets/{out}");
        let (code, text) = import(dir, &["--mcp-config", config, "-o", &out], extra);
        assert_eq!(code, 0, "{config}: {text}");
        printed.push_str(&text);
        let written = toolset(&dir.join(&out));
        assert_eq!(written["tools"].as_array().unwrap().len(), 14, "{config}");
        assert!(
            written["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "read_text_file")
        );
        let imported = &written["imported"];
        assert_eq!(imported["server"], "secure-filesystem-server", "{config}");
        assert_eq!(
            imported["env"],
            serde_json::json!(["FS_TOKEN"]),
            "{config}: names only"
        );
        assert!(
            imported["config"].as_str().unwrap().ends_with(&format!(
                "#{}",
                if config.contains('#') {
                    config.split('#').nth(1).unwrap()
                } else if *config == "server.json" {
                    "npm"
                } else {
                    "filesystem"
                }
            )),
            "{imported}"
        );
    }
    // A value given through `env` reaches the server: it reports the length of what it was given.
    let python = peers().join(".venv/bin/python").display().to_string();
    let reporter = peers().join("py_env_server.py").display().to_string();
    let config = serde_json::json!({"mcpServers": {"reporter": {
        "command": python, "args": [reporter], "env": {"FS_TOKEN": "${CANARY_SECRET}"}
    }}});
    std::fs::write(dir.join("reporter.json"), config.to_string()).unwrap();
    let (code, text) = import(
        dir,
        &[
            "--mcp-config",
            "reporter.json",
            "-o",
            "toolsets/reporter.json",
        ],
        &[],
    );
    assert_eq!(code, 0, "{text}");
    printed.push_str(&text);
    let reporter = toolset(&dir.join("toolsets/reporter.json"));
    let description = reporter["tools"][0]["description"].as_str().unwrap();
    assert!(
        description.contains(&format!("a token of {} characters", CANARY.len())),
        "{description}"
    );

    // As written, not as filled: the command keeps its variables.
    let cursor = toolset(&dir.join("toolsets/cursor.json"));
    assert_eq!(cursor["imported"]["command"][3], "${workspaceFolder}/data");
    // The registry's entry is kept, and the package was started pinned.
    let registry = toolset(&dir.join("toolsets/registry.json"));
    assert_eq!(
        registry["imported"]["registry"]["name"],
        "io.github.modelcontextprotocol/server-filesystem"
    );
    assert_eq!(
        registry["imported"]["registry"]["version"],
        FILESYSTEM_VERSION
    );
    assert_eq!(
        registry["imported"]["command"],
        serde_json::json!([
            "npx",
            "-y",
            format!("{FILESYSTEM}@{FILESYSTEM_VERSION}"),
            "${MCPICK_INPUT_ALLOWED_DIRECTORY}"
        ])
    );
    // Lint reads the registry entry: this description is backed by the tools and fits...
    let (code, lint) = mcpick_in(dir, &["lint", "toolsets/registry.json"], &[]);
    assert!(code <= 1, "{lint}");
    assert!(!lint.contains("registry-"), "{lint}");
    // ...and one too long for the registry, promising what no tool does, is found.
    let mut long: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("server.json")).unwrap()).unwrap();
    long["description"] = Value::from(format!(
        "{} and weather forecasts",
        "Read, write, search and move files and directories on disk ".repeat(2)
    ));
    std::fs::write(dir.join("long-server.json"), long.to_string()).unwrap();
    let extra = [
        ("MCPICK_INPUT_ALLOWED_DIRECTORY", data.as_str()),
        ("FS_TOKEN", CANARY),
    ];
    let (code, text) = import(
        dir,
        &[
            "--mcp-config",
            "long-server.json",
            "-o",
            "toolsets/long.json",
        ],
        &extra,
    );
    assert_eq!(code, 0, "{text}");
    let (_, lint) = mcpick_in(dir, &["lint", "toolsets/long.json"], &[]);
    assert!(
        lint.contains("registry-description") && lint.contains("the registry takes 1 to 100"),
        "{lint}"
    );
    assert!(
        lint.contains("registry-promise") && lint.contains("\"weather\", \"forecasts\""),
        "{lint}"
    );

    // The secret reached the server (it was required), and nothing mcpick wrote or printed holds it.
    assert_eq!(files_holding(dir, CANARY), Vec::<PathBuf>::new());
    assert!(!printed.contains(CANARY), "{printed}");
}

#[test]
fn what_cannot_be_read_is_named_and_nothing_is_prompted() {
    let project = project();
    let dir = project.path();
    write_configs(dir);
    // Several servers and a command that takes one: list them, exit 2.
    let (code, text) = mcpick_in(dir, &["draft", "--mcp-config", ".mcp.json", "-o", "d"], &[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(".mcp.json#filesystem") && text.contains(".mcp.json#docs"),
        "{text}"
    );
    // An input with no value: named, with where to put it; never a prompt.
    let (code, text) = import(
        dir,
        &["--mcp-config", ".vscode/mcp.json", "-o", "t/x.json"],
        &[],
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("servers.filesystem.env.FS_TOKEN") && text.contains("MCPICK_INPUT_FS_TOKEN"),
        "{text}"
    );
    // A missing variable, a missing server, an unknown shape, bad JSON: each names file and key.
    let (code, text) = mcpick_in(
        dir,
        &[
            "import",
            "--mcp-config",
            ".cursor/mcp.json",
            "-o",
            "t/x.json",
        ],
        &[],
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(".cursor/mcp.json")
            && text.contains("mcpServers.filesystem.env.FS_TOKEN")
            && text.contains("CANARY_SECRET"),
        "{text}"
    );
    let (code, text) = import(
        dir,
        &["--mcp-config", ".mcp.json#nope", "-o", "t/x.json"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        text.contains("no server \"nope\"") && text.contains("filesystem, docs"),
        "{text}"
    );
    std::fs::write(dir.join("odd.json"), r#"{"tools": []}"#).unwrap();
    let (code, text) = import(dir, &["--mcp-config", "odd.json", "-o", "t/x.json"], &[]);
    assert_eq!(code, 2);
    assert!(text.contains("odd.json: not an MCP config"), "{text}");
    std::fs::write(
        dir.join("broken.json"),
        "{\n  \"mcpServers\": {\n    \"a\": [}\n}",
    )
    .unwrap();
    let (code, text) = import(dir, &["--mcp-config", "broken.json", "-o", "t/x.json"], &[]);
    assert_eq!(code, 2);
    assert!(text.contains("broken.json:3:"), "{text}");
    // One server's missing variable does not stop the others of the file.
    let partial = serde_json::json!({"mcpServers": {
        "good": {"command": "npx", "args": ["-y", FILESYSTEM, "./data"]},
        "bad": {"command": "npx", "args": ["${NOT_SET_ANYWHERE}"]}
    }});
    std::fs::write(dir.join("partial.json"), partial.to_string()).unwrap();
    let (code, text) = import(dir, &["--mcp-config", "partial.json", "-o", "partial"], &[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("mcpick import (bad)")
            && text.contains("mcpServers.bad.args[0]")
            && text.contains("${NOT_SET_ANYWHERE}"),
        "{text}"
    );
    assert!(text.contains("imported 1 of 2 servers"), "{text}");
    assert!(dir.join("partial/good.json").exists());
    // --input names the variable an input comes from.
    let (code, text) = import(
        dir,
        &[
            "--mcp-config",
            ".vscode/mcp.json",
            "--input",
            "fs-token=MY_TOKEN",
            "-o",
            "t/v.json",
        ],
        &[("MY_TOKEN", CANARY)],
    );
    assert_eq!(code, 0, "{text}");
    assert_eq!(files_holding(dir, CANARY), Vec::<PathBuf>::new());
}

/// The Python SDK's server on HTTP+SSE or Streamable HTTP, refusing requests without the header.
struct HeaderServer {
    child: Child,
    port: u16,
}

impl HeaderServer {
    fn start(transport: &str, expect: &str) -> HeaderServer {
        let mut child = Command::new(peers().join(".venv/bin/python"))
            .arg(peers().join("py_header_server.py"))
            .args(["--transport", transport, "--expect", expect])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).unwrap();
        let port = line.trim().strip_prefix("PORT ").unwrap().parse().unwrap();
        // It prints its port before uvicorn takes the socket: wait until it answers.
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        HeaderServer { child, port }
    }
}

impl Drop for HeaderServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn http_and_sse_servers_get_the_config_s_headers_and_only_they_see_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let expect = format!("Bearer {CANARY}");
    let sse = HeaderServer::start("sse", &expect);
    let http = HeaderServer::start("http", &expect);
    let config = serde_json::json!({"mcpServers": {
        "legacy": {"type": "sse", "url": format!("http://127.0.0.1:{}/sse", sse.port), "headers": {"Authorization": "Bearer ${CANARY_SECRET}"}},
        "streamable": {"type": "http", "url": format!("http://127.0.0.1:{}/mcp", http.port), "headers": {"Authorization": "Bearer ${env:CANARY_SECRET}"}}
    }});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    // Without the secret the servers refuse: the header is what lets mcpick in.
    let (code, text) = import(
        dir.path(),
        &["--mcp-config", ".mcp.json", "-o", "toolsets"],
        &[("CANARY_SECRET", "wrong")],
    );
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("401"), "{text}");
    let (code, text) = import(dir.path(), &["--mcp-config", ".mcp.json"], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("imported 2 of 2 servers"), "{text}");
    for (name, transport) in [("legacy", Some("sse")), ("streamable", None)] {
        let written = toolset(&dir.path().join(format!("toolsets/{name}.json")));
        assert_eq!(written["tools"][0]["name"], "lookup_order", "{name}");
        assert_eq!(
            written["imported"]["headers"],
            serde_json::json!(["Authorization"])
        );
        assert_eq!(written["imported"]["transport"].as_str(), transport);
    }
    assert_eq!(files_holding(dir.path(), CANARY), Vec::<PathBuf>::new());
    assert!(!text.contains(CANARY));
}
