//! Interoperability: mcpick's MCP server driven by clients nobody here wrote — the official
//! conformance suite, the official Python SDK client (modes `auto` and `legacy`), the TypeScript SDK
//! client and the MCP Inspector CLI — over stdio and Streamable HTTP. `tests/peers/install.sh`
//! installs them (pinned, from npm and PyPI); the README's test command runs it first.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const NEW_TOOL: &str = "\n[[tool]]\nname = \"get_uv_index\"\ndescription = \"UV index for a city today, 0 to 11+, with sun-protection advice.\"\n";

fn peers() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    assert!(
        dir.join("node_modules/.bin/node").exists() && dir.join(".venv/bin/python").exists(),
        "the peer clients are not installed: run tests/peers/install.sh (the README's test command does)"
    );
    dir
}

fn node() -> PathBuf {
    peers().join("node_modules/.bin/node")
}

fn python() -> PathBuf {
    peers().join(".venv/bin/python")
}

fn mcpick() -> &'static str {
    env!("CARGO_BIN_EXE_mcpick")
}

/// A private copy of the travel toolset, so a test can edit it.
fn toolset_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("travel.toml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("toolsets/travel.toml"),
        &path,
    )
    .unwrap();
    (dir, path)
}

/// `mcpick serve --http 127.0.0.1:0`, killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(toolset: &Path, extra: &[&str]) -> HttpServer {
        let mut child = Command::new(mcpick())
            .args(["serve", toolset.to_str().unwrap(), "--http", "127.0.0.1:0"])
            .args(extra)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|s| s.split('/').next())
            .unwrap_or_else(|| panic!("no URL in {line:?}"));
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in stderr.lines() {});
        let port = address.rsplit(':').next().unwrap();
        HttpServer {
            child,
            url: format!("http://localhost:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a client that prints one JSON object per line; returns its exit code and the objects.
fn run_client(command: &mut Command) -> (i32, Vec<Value>) {
    let output = command.stderr(Stdio::inherit()).output().unwrap();
    let events = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (output.status.code().unwrap_or(-1), events)
}

fn event<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["event"] == name)
        .unwrap_or_else(|| panic!("no {name:?} event in {events:#?}"))
}

fn tool_names(event: &Value) -> Vec<&str> {
    event["names"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

/// Runs `conformance server --requirements ERA` against a fresh `serve --conformance-fixtures`
/// with the era's tools-only baseline; returns the report.
fn conformance(era: &str) -> String {
    let peers = peers();
    let toolset = Path::new(env!("CARGO_MANIFEST_DIR")).join("toolsets/travel.toml");
    let server = HttpServer::start(&toolset, &["--conformance-fixtures"]);
    let output = Command::new(node())
        .arg(peers.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args([
            "server",
            "--url",
            &server.url,
            "--requirements",
            era,
            "--expected-failures",
        ])
        .arg(peers.join(format!("conformance-baseline-{era}.yml")))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("Total:"))
        .unwrap_or("(no summary)");
    println!("conformance {era}: {summary}");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("Baseline check passed"), "{stdout}");
    stdout
}

fn assert_passed(report: &str, scenarios: &[&str]) {
    for scenario in scenarios {
        assert!(
            report.contains(&format!("✓ {scenario}:")),
            "{scenario} did not pass:\n{report}"
        );
    }
}

#[test]
fn the_official_conformance_suite_passes_2025_11_25_with_a_tools_only_baseline() {
    let report = conformance("2025-11-25");
    assert_passed(
        &report,
        &[
            "tools-list",
            "tools-call-with-progress",
            "tools-call-sampling",
            "dns-rebinding-protection",
            "server-sse-multiple-streams",
        ],
    );
}

#[test]
fn the_official_conformance_suite_passes_2026_07_28_with_a_tools_only_baseline() {
    let report = conformance("2026-07-28");
    assert_passed(
        &report,
        &[
            "server-stateless",
            "tools-list",
            "tools-call-with-progress",
            "input-required-result-multi-round",
            "input-required-result-tampered-state",
            "input-required-result-capability-check",
            "dns-rebinding-protection",
            "server-sse-multiple-streams",
            // Run but not scored (pending upstream): held to passing all the same.
            "json-schema-2020-12",
            "http-header-validation",
            "http-custom-header-server-validation",
        ],
    );
}

fn python_session(transport: &str, mode: &str) {
    let (_dir, toolset) = toolset_copy();
    let server = (transport == "http").then(|| HttpServer::start(&toolset, &[]));
    // python py_client.py --transport T --mode M [--url U] FLAGS [-- mcpick serve TOOLSET]
    let client = |flags: &[&str]| {
        let mut command = Command::new(python());
        command
            .arg(peers().join("py_client.py"))
            .args(["--transport", transport, "--mode", mode]);
        if let Some(server) = &server {
            command.args(["--url", &server.url]);
        }
        command.args(flags);
        if server.is_none() {
            command.args(["--", mcpick(), "serve", toolset.to_str().unwrap()]);
        }
        command
    };

    // A good call, then an edit of the toolset file while connected: a 2025-11-25 session hears of
    // it as a plain notification, a 2026-07-28 client (`auto`) on its `subscriptions/listen` stream.
    let touch = toolset.to_str().unwrap();
    let modern = mode == "auto";
    let flags = [
        "--call",
        "get_weather",
        "--args",
        r#"{"city": "Paris"}"#,
        "--wait-list-changed",
        "10",
        "--touch",
        touch,
        "--touch-text",
        NEW_TOOL,
    ];
    let (code, events) = run_client(&mut client(&flags));
    assert_eq!(code, 0, "{transport}/{mode}: {events:#?}");
    let connected = event(&events, "connected");
    let negotiated = if modern { "2026-07-28" } else { "2025-11-25" };
    assert_eq!(
        connected["protocol_version"], negotiated,
        "{transport}/{mode}"
    );
    let connect_ms = connected["connect_ms"].as_f64().unwrap();
    println!("python {transport}/{mode}: connected in {connect_ms:.1} ms");
    assert!(
        connect_ms < 1000.0,
        "{transport}/{mode}: connect took {connect_ms} ms"
    );
    assert!(tool_names(event(&events, "tools")).contains(&"get_weather"));
    let call = event(&events, "call");
    assert_eq!(call["isError"], false, "{call:#?}");
    assert!(
        call["structuredContent"]["temperature"].is_number(),
        "{call:#?}"
    );
    assert_eq!(event(&events, "list_changed")["received"], true);
    let relisted = events
        .iter()
        .filter(|e| e["event"] == "tools")
        .nth(1)
        .expect("tools listed again");
    assert!(
        tool_names(relisted).contains(&"get_uv_index"),
        "{relisted:#?}"
    );

    // Arguments that fail the schema come back as an isError result the model can act on.
    let (code, events) = run_client(&mut client(&[
        "--call",
        "get_weather",
        "--args",
        r#"{"city": 5}"#,
    ]));
    assert_eq!(code, 0, "{events:#?}");
    let call = event(&events, "call");
    assert_eq!(call["isError"], true, "{call:#?}");
    assert!(
        call["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Invalid arguments for tool get_weather"),
        "{call:#?}"
    );
}

#[test]
fn the_python_sdk_client_works_over_stdio_in_both_modes() {
    python_session("stdio", "auto");
    python_session("stdio", "legacy");
}

#[test]
fn the_python_sdk_client_works_over_http_in_both_modes() {
    python_session("http", "auto");
    python_session("http", "legacy");
}

fn typescript_session(transport: &str) {
    let (_dir, toolset) = toolset_copy();
    let server = (transport == "http").then(|| HttpServer::start(&toolset, &[]));
    let mut command = Command::new(node());
    command
        .arg(peers().join("ts_client.mjs"))
        .args(["--transport", transport]);
    command.args([
        "--call",
        "cancel_booking",
        "--args",
        r#"{"booking_reference": "nope"}"#,
        "--wait-list-changed",
        "10",
    ]);
    command.args([
        "--touch",
        toolset.to_str().unwrap(),
        "--touch-text",
        NEW_TOOL,
    ]);
    match &server {
        Some(server) => command.args(["--url", &server.url]),
        None => command.args(["--", mcpick(), "serve", toolset.to_str().unwrap()]),
    };
    let (code, events) = run_client(&mut command);
    assert_eq!(code, 0, "{transport}: {events:#?}");
    assert!(tool_names(event(&events, "tools")).contains(&"cancel_booking"));
    // A malformed reference hits a scripted error rule: an isError result, not a protocol error.
    assert_eq!(event(&events, "call")["isError"], true, "{events:#?}");
    assert_eq!(event(&events, "list_changed")["received"], true);
}

#[test]
fn the_typescript_sdk_client_works_over_stdio_and_http() {
    typescript_session("stdio");
    typescript_session("http");
}

fn inspector(args: &[&str]) -> std::process::Output {
    Command::new(node())
        .arg(
            peers().join(
                "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
            ),
        )
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_inspector_cli_lists_and_calls() {
    let toolset = Path::new(env!("CARGO_MANIFEST_DIR")).join("toolsets/travel.toml");
    let toolset = toolset.to_str().unwrap();
    let listed = inspector(&[
        "--cli",
        "--method",
        "tools/list",
        "--strict",
        "--format",
        "json",
        "--",
        mcpick(),
        "serve",
        toolset,
    ]);
    assert_eq!(
        listed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let result: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert!(
        result["result"]["tools"].as_array().unwrap().len() >= 20,
        "{result:#?}"
    );

    let good = inspector(&[
        "--cli",
        "--method",
        "tools/call",
        "--tool-name",
        "get_weather",
        "--tool-arg",
        "city=Paris",
        "--",
        mcpick(),
        "serve",
        toolset,
    ]);
    assert_eq!(
        good.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );

    // An isError result is the Inspector's exit code 5.
    let server = HttpServer::start(Path::new(toolset), &[]);
    let bad = inspector(&[
        "--cli",
        &server.url,
        "--method",
        "tools/call",
        "--tool-name",
        "get_weather",
        "--tool-arg",
        "city=5",
        "--format",
        "json",
    ]);
    assert_eq!(
        bad.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

fn import(args: &[&str]) -> (i32, String) {
    let output = Command::new(mcpick())
        .arg("import")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn import_snapshots_a_typescript_sdk_server_into_a_valid_toolset() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("tiny.json");
    let command = format!(
        "{} {} --stdio",
        node().display(),
        peers().join("ts_server.mjs").display()
    );
    let (code, stdout) = import(&["--stdio", &command, "-o", output.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let names: Vec<&str> = written["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "add", "fail"]);
    // The TypeScript SDK 1.x server has no 2026-07-28 era: `auto` fell back to its handshake.
    assert_eq!(
        written["imported"]["protocolVersion"], "2025-11-25",
        "{stdout}"
    );
    // `add` declares an outputSchema: it gets simulated structured output matching it.
    assert!(
        written["tools"][1]["behavior"]["structured"]["sum"].is_number(),
        "{written:#}"
    );
    let validated = Command::new(mcpick())
        .args(["validate", output.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        validated.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&validated.stdout)
    );
}

#[test]
fn import_over_http_reproduces_the_served_tools() {
    let toolset = Path::new(env!("CARGO_MANIFEST_DIR")).join("toolsets/finance.toml");
    let server = HttpServer::start(&toolset, &[]);
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("finance.json");
    let (code, stdout) = import(&["--url", &server.url, "-o", output.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    let imported: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    // mcpick's client and server agree on the 2026-07-28 era by themselves.
    assert_eq!(imported["imported"]["protocolVersion"], "2026-07-28");
    let original = mcpick::load::Workspace::load(&[toolset]);
    let served: Vec<Value> = original.toolsets[0]
        .tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    let mut copied = imported["tools"].as_array().unwrap().clone();
    for tool in &mut copied {
        tool.as_object_mut().unwrap().remove("behavior");
    }
    assert_eq!(
        copied, served,
        "every tool definition survives serve → import unchanged"
    );
}

#[test]
fn the_typescript_client_2_works_in_auto_and_legacy_mode() {
    let toolset = Path::new(env!("CARGO_MANIFEST_DIR")).join("toolsets/travel.toml");
    let server = HttpServer::start(&toolset, &[]);
    for mode in ["auto", "legacy"] {
        for transport in ["stdio", "http"] {
            let mut command = Command::new(node());
            command.arg(peers().join("ts2_client.mjs")).args([
                "--mode",
                mode,
                "--transport",
                transport,
            ]);
            command.args(["--call", "get_weather", "--args", r#"{"city": "Oslo"}"#]);
            match transport {
                "http" => command.args(["--url", &server.url]),
                _ => command.args(["--", mcpick(), "serve", toolset.to_str().unwrap()]),
            };
            let (code, events) = run_client(&mut command);
            assert_eq!(code, 0, "{mode}/{transport}: {events:#?}");
            let connected = event(&events, "connected");
            // `auto` negotiates the 2026-07-28 era; `legacy` initializes a 2025-11-25 session.
            let negotiated = if mode == "auto" {
                "2026-07-28"
            } else {
                "2025-11-25"
            };
            assert_eq!(
                connected["protocol_version"], negotiated,
                "{mode}/{transport}"
            );
            assert!(
                connected["connect_ms"].as_f64().unwrap() < 1000.0,
                "{mode}/{transport}: {connected}"
            );
            assert_eq!(
                event(&events, "call")["isError"],
                false,
                "{mode}/{transport}"
            );
        }
    }
}
