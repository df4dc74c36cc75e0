//! The MCP server checklist (shared/MCP-CHECKLIST.md) as wire-level tests against the real binary:
//! each test in `on_both_transports!` runs once over stdio and once over Streamable HTTP, speaking
//! raw JSON-RPC so that nothing is smoothed over by a client library. HTTP-only rules (status codes,
//! sessions, Host/Origin, SSE framing) and stdio-only rules (EOF, framing, size) follow.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

const TOOLSET: &str = r#"format = 1
name = "wire"
description = "Tools for protocol tests"

[[tool]]
name = "echo_text"
description = "Returns the arguments it was given, as JSON text."
[tool.inputSchema]
type = "object"
properties.text = { type = "string", description = "Any text" }

[[tool]]
name = "get_weather"
description = "Current weather for one city; not forecasts."
annotations = { readOnlyHint = true }
[tool.inputSchema]
type = "object"
required = ["city"]
additionalProperties = false
properties.city = { type = "string", description = "City name such as 'Paris'" }
[tool.outputSchema]
type = "object"
required = ["temperature", "conditions"]
properties.temperature = { type = "number" }
properties.conditions = { type = "string" }
[tool.behavior]
text = "{city}: 18 degrees, light rain"
structured = { temperature = 18, conditions = "light rain" }
[[tool.behavior.rule]]
when = { city = "Atlantis" }
error = "Unknown city '{city}'. Pass a real city such as 'Paris'."

[[tool]]
name = "slow_report"
description = "Builds a report slowly (two seconds), for cancellation and concurrency tests."
[tool.behavior]
text = "report ready"
latency_ms = 2000

[[tool]]
name = "list_regions"
description = "Lists the regions the service covers; takes no arguments."
[tool.behavior]
text = "eu, us, apac"
"#;

fn mcpick() -> &'static str {
    env!("CARGO_BIN_EXE_mcpick")
}

fn write_toolset(dir: &Path) -> PathBuf {
    let path = dir.join("wire.toml");
    std::fs::write(&path, TOOLSET).unwrap();
    path
}

/// One connection to a freshly started server, over either transport, speaking raw JSON-RPC.
struct Wire {
    _dir: tempfile::TempDir,
    toolset: PathBuf,
    child: tokio::process::Child,
    link: Link,
    next_id: i64,
}

enum Link {
    Stdio {
        stdin: tokio::process::ChildStdin,
        lines: mpsc::UnboundedReceiver<Value>,
    },
    Http {
        client: reqwest::Client,
        url: String,
        session: Option<String>,
        stream: Option<mpsc::UnboundedReceiver<Value>>,
    },
}

#[derive(Clone, Copy, PartialEq)]
enum Transport {
    Stdio,
    Http,
}

impl Wire {
    async fn start(transport: Transport, extra: &[&str]) -> Wire {
        let dir = tempfile::tempdir().unwrap();
        let toolset = write_toolset(dir.path());
        let mut command = tokio::process::Command::new(mcpick());
        command
            .args(["serve", toolset.to_str().unwrap(), "--conformance-fixtures"])
            .args(extra)
            .kill_on_drop(true);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if transport == Transport::Http {
            command.args(["--http", "127.0.0.1:0"]);
        }
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let link = match transport {
            Transport::Stdio => {
                tokio::spawn(async move {
                    let mut lines = BufReader::new(stderr).lines();
                    while let Ok(Some(_)) = lines.next_line().await {}
                });
                let (tx, rx) = mpsc::unbounded_channel();
                tokio::spawn(async move {
                    let mut lines = BufReader::new(stdout).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        // Every stdout line must be one JSON object: anything else fails the test here.
                        let value: Value = serde_json::from_str(&line)
                            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
                        assert!(value.is_object(), "stdout line is not an object: {line}");
                        if tx.send(value).is_err() {
                            break;
                        }
                    }
                });
                Link::Stdio {
                    stdin: child.stdin.take().unwrap(),
                    lines: rx,
                }
            }
            Transport::Http => {
                let mut lines = BufReader::new(stderr).lines();
                let line = lines.next_line().await.unwrap().unwrap();
                tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
                let address = line
                    .split("http://")
                    .nth(1)
                    .unwrap()
                    .split('/')
                    .next()
                    .unwrap()
                    .to_string();
                let client = reqwest::Client::builder()
                    .tcp_nodelay(true)
                    .build()
                    .unwrap();
                Link::Http {
                    client,
                    url: format!("http://{address}/mcp"),
                    session: None,
                    stream: None,
                }
            }
        };
        Wire {
            _dir: dir,
            toolset,
            child,
            link,
            next_id: 1,
        }
    }

    /// Starts a server and performs the initialize handshake.
    async fn ready(transport: Transport) -> Wire {
        Wire::ready_with(transport, &[]).await
    }

    async fn ready_with(transport: Transport, extra: &[&str]) -> Wire {
        let mut wire = Wire::start(transport, extra).await;
        let (reply, _) = wire.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}})).await;
        assert!(reply["result"]["protocolVersion"].is_string(), "{reply}");
        wire.notify("notifications/initialized", None).await;
        wire.open_stream().await;
        wire
    }

    fn url(&self) -> &str {
        match &self.link {
            Link::Http { url, .. } => url,
            Link::Stdio { .. } => unreachable!("HTTP only"),
        }
    }

    /// Sends one raw line (stdio) or body (HTTP) and returns every message received in answer.
    async fn send_raw(&mut self, text: &str) -> Vec<Value> {
        match &mut self.link {
            Link::Stdio { stdin, .. } => {
                stdin.write_all(text.as_bytes()).await.unwrap();
                stdin.write_all(b"\n").await.unwrap();
                stdin.flush().await.unwrap();
                Vec::new()
            }
            Link::Http {
                client,
                url,
                session,
                ..
            } => {
                let mut request = client
                    .post(url.as_str())
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream");
                if let Some(id) = session {
                    request = request.header("mcp-session-id", id.as_str());
                }
                let response = request.body(text.to_string()).send().await.unwrap();
                if let Some(id) = response.headers().get("mcp-session-id") {
                    *session = Some(id.to_str().unwrap().to_string());
                }
                let status = response.status().as_u16();
                let sse = response
                    .headers()
                    .get("content-type")
                    .is_some_and(|v| v.to_str().unwrap().starts_with("text/event-stream"));
                let body = response.text().await.unwrap();
                if status == 202 {
                    assert!(body.is_empty(), "202 must have an empty body: {body:?}");
                    return Vec::new();
                }
                if sse {
                    sse_messages(&body)
                } else {
                    serde_json::from_str::<Value>(&body)
                        .map(|v| vec![v])
                        .unwrap_or_default()
                }
            }
        }
    }

    /// The next message the server sends on its own (stdio: any line; HTTP: the GET stream).
    async fn next_message(&mut self, wait: Duration) -> Option<Value> {
        let receiver = match &mut self.link {
            Link::Stdio { lines, .. } => lines,
            Link::Http {
                stream: Some(stream),
                ..
            } => stream,
            Link::Http { stream: None, .. } => return None,
        };
        tokio::time::timeout(wait, receiver.recv())
            .await
            .ok()
            .flatten()
    }

    /// Sends a request and returns its response and the notifications that came before it.
    async fn request(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        self.request_with_id(json!(id), method, params).await
    }

    async fn request_with_id(
        &mut self,
        id: Value,
        method: &str,
        params: Value,
    ) -> (Value, Vec<Value>) {
        let text =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let mut received = self.send_raw(&text).await;
        if let Link::Stdio { .. } = self.link {
            loop {
                let message = self
                    .next_message(Duration::from_secs(10))
                    .await
                    .unwrap_or_else(|| panic!("no answer to {method}"));
                let done = message.get("id") == Some(&id);
                received.push(message);
                if done {
                    break;
                }
            }
        }
        let position = received
            .iter()
            .position(|m| m.get("id") == Some(&id))
            .unwrap_or_else(|| panic!("no response to {method}: {received:?}"));
        let response = received.remove(position);
        (response, received)
    }

    async fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        let answer = self.send_raw(&message.to_string()).await;
        assert!(
            answer.is_empty(),
            "a notification got an answer: {answer:?}"
        );
    }

    /// HTTP: opens the session's GET stream for server notifications.
    async fn open_stream(&mut self) {
        let Link::Http {
            client,
            url,
            session,
            stream,
        } = &mut self.link
        else {
            return;
        };
        let response = client
            .get(url.as_str())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session.clone().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            use futures_util::StreamExt;
            let mut body = response.bytes_stream();
            let mut buffer = String::new();
            while let Some(Ok(chunk)) = body.next().await {
                buffer.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buffer.find("\n\n") {
                    let event: String = buffer.drain(..end + 2).collect();
                    for message in sse_messages(&event) {
                        let _ = tx.send(message);
                    }
                }
            }
        });
        *stream = Some(rx);
    }
}

/// The JSON messages in an SSE body (events without data, such as the priming event, are skipped).
fn sse_messages(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            let data = data.join("\n");
            (!data.trim().is_empty()).then(|| {
                serde_json::from_str(&data)
                    .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {data}"))
            })
        })
        .collect()
}

fn tool_names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

macro_rules! on_both_transports {
    ($($test:ident),* $(,)?) => {
        $(
            mod $test {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn stdio() {
                    super::$test(super::Transport::Stdio).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn http() {
                    super::$test(super::Transport::Http).await
                }
            }
        )*
    };
}

on_both_transports!(
    version_negotiation_and_initialize_result,
    unknown_methods_and_ping_are_answered_before_initialize,
    ids_are_echoed_with_their_type,
    malformed_input_gets_errors_and_the_server_keeps_serving,
    tools_list_is_one_valid_page_with_schemas_verbatim,
    paging_with_cursors_lists_every_tool_once,
    tools_call_results_and_errors,
    structured_content_matches_the_output_schema,
    progress_notifications_precede_the_response,
    logging_set_level_filters_messages,
    cancellation_stops_a_call_and_the_server_stays_responsive,
    concurrent_requests_are_matched_by_id,
    editing_the_toolset_sends_one_list_changed,
);

// 1, 2: version negotiation and the InitializeResult.
async fn version_negotiation_and_initialize_result(transport: Transport) {
    for (asked, expected) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("1900-01-01", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let mut wire = Wire::start(transport, &[]).await;
        let (reply, _) = wire.request("initialize", json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})).await;
        let result = &reply["result"];
        assert_eq!(result["protocolVersion"], expected, "asked {asked}");
        assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
        assert!(result["capabilities"]["logging"].is_object());
        assert_eq!(result["serverInfo"]["name"], "mcpick");
        assert!(result["serverInfo"]["version"].is_string());
        // 3: a notification gets no response (HTTP: 202 with an empty body, checked in `notify`).
        wire.notify("notifications/initialized", None).await;
        let (pong, before) = wire.request("ping", json!({})).await;
        assert!(
            before.is_empty(),
            "nothing answers a notification: {before:?}"
        );
        assert_eq!(pong["result"], json!({}));
    }
}

// 4, 5: before initialize, `server/discover` (what SDK clients in `auto` mode send first) is
// answered at once — without `_meta` with -32602, which sends a legacy client on to `initialize`;
// with it, the versions of both eras — and, on stdio, ping and unknown methods too.
async fn unknown_methods_and_ping_are_answered_before_initialize(transport: Transport) {
    let mut wire = Wire::start(transport, &[]).await;
    let started = Instant::now();
    let (reply, _) = wire.request("server/discover", json!({})).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    let modern = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let (reply, _) = wire.request("server/discover", modern).await;
    if transport == Transport::Http {
        // Over HTTP a modern request also names its version in MCP-Protocol-Version; this one does
        // not, and legacy requests outside a session are not served.
        assert_eq!(reply["error"]["code"], -32020, "{reply}");
        return;
    }
    let versions = reply["result"]["supportedVersions"].as_array().unwrap();
    assert!(
        versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")),
        "{reply}"
    );
    assert_eq!(reply["result"]["resultType"], "complete");
    let (reply, _) = wire.request("ping", json!({})).await;
    assert_eq!(reply["result"], json!({}));
    let (reply, _) = wire.request("resources/list", json!({})).await;
    assert_eq!(reply["error"]["code"], -32601);
}

// 6: ids keep their type.
async fn ids_are_echoed_with_their_type(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let (reply, _) = wire
        .request_with_id(json!("req-7"), "ping", json!({}))
        .await;
    assert_eq!(reply["id"], json!("req-7"));
    let (reply, _) = wire.request_with_id(json!(0), "ping", json!({})).await;
    assert_eq!(reply["id"], json!(0));
    assert_eq!(reply["jsonrpc"], "2.0");
}

// 6 and malformed input: invalid JSON, a batch, a wrong id type, binary garbage, a huge message.
async fn malformed_input_gets_errors_and_the_server_keeps_serving(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let garbage = String::from_utf8_lossy(&[0xff, 0xfe, 0x00, 0x9c, b'{']).into_owned();
    for (input, code) in [
        ("{not json", -32700),
        (garbage.as_str(), -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["get_weather"]}"#,
            -32602,
        ),
    ] {
        let mut answer = wire.send_raw(input).await;
        if answer.is_empty() {
            answer.push(
                wire.next_message(Duration::from_secs(5))
                    .await
                    .expect("an error reply"),
            );
        }
        assert_eq!(
            answer[0]["error"]["code"], code,
            "input {input:?}: {answer:?}"
        );
        let (pong, _) = wire.request("ping", json!({})).await;
        assert_eq!(pong["result"], json!({}), "still serving after {input:?}");
    }
    // A 5 MB method name is not echoed back whole: the error names its first 100 characters.
    let (reply, _) = wire.request(&"m".repeat(5_000_000), json!({})).await;
    assert_eq!(reply["error"]["code"], -32601);
    assert!(
        reply.to_string().len() < 400,
        "{} bytes",
        reply.to_string().len()
    );
    // A 10 MB argument is read whole and echoed back intact.
    let huge = "x".repeat(10 * 1024 * 1024);
    let (reply, _) = wire
        .request(
            "tools/call",
            json!({"name": "echo_text", "arguments": {"text": huge}}),
        )
        .await;
    let echoed: Value =
        serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(echoed["text"].as_str().map(str::len), Some(huge.len()));
}

// 8, 9, 10: every tool valid, names unique, schemas served verbatim, one page by default.
async fn tools_list_is_one_valid_page_with_schemas_verbatim(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let (reply, _) = wire.request("tools/list", json!({})).await;
    let result = &reply["result"];
    assert!(result.get("nextCursor").is_none(), "one page by default");
    let names = tool_names(result);
    let unique: std::collections::BTreeSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len());
    for tool in result["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        assert!(
            !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)),
            "{name}"
        );
        assert!(!tool["description"].as_str().unwrap().is_empty(), "{name}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
    }
    let regions = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "list_regions")
        .unwrap();
    assert_eq!(
        regions["inputSchema"],
        json!({"type": "object", "additionalProperties": false})
    );
    let fixture = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .unwrap();
    let schema = &fixture["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert!(
        schema["allOf"][0]["anyOf"].is_array()
            && schema["if"].is_object()
            && schema["else"].is_object()
    );
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        result["tools"][1]["annotations"],
        json!({"readOnlyHint": true})
    );
}

// 11: paging.
async fn paging_with_cursors_lists_every_tool_once(transport: Transport) {
    let mut wire = Wire::ready_with(transport, &["--page-size", "3"]).await;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let (reply, _) = wire.request("tools/list", params).await;
        let result = &reply["result"];
        let page = tool_names(result);
        assert!(page.len() <= 3);
        seen.extend(page);
        pages += 1;
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let unique: std::collections::BTreeSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "every tool exactly once");
    assert!(
        seen.len() > 10 && pages == seen.len().div_ceil(3),
        "{pages} pages for {} tools",
        seen.len()
    );
    let (again, _) = wire.request("tools/list", json!({})).await;
    assert_eq!(
        tool_names(&again["result"])[..3],
        seen[..3],
        "the order is deterministic"
    );
    for bad in [
        json!("garbage"),
        json!("0000000000000000ffffffff"),
        json!(42),
    ] {
        let (reply, _) = wire.request("tools/list", json!({"cursor": bad})).await;
        assert_eq!(reply["error"]["code"], -32602, "cursor {bad}: {reply}");
    }
}

// 12, 13, 14, 15, 17: results, unknown tools, invalid arguments, tool failures, `params.task`.
async fn tools_call_results_and_errors(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let (reply, _) = wire
        .request(
            "tools/call",
            json!({"name": "get_weather", "arguments": {"city": "Paris"}}),
        )
        .await;
    let result = &reply["result"];
    assert_eq!(
        result["content"][0],
        json!({"type": "text", "text": "Paris: 18 degrees, light rain"})
    );
    assert_ne!(result["isError"], true);

    let (reply, _) = wire
        .request(
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {}}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32602);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool")
    );

    for bad in [
        json!({"city": 5}),
        json!({}),
        json!({"city": "Paris", "extra": 1}),
    ] {
        let (reply, _) = wire
            .request(
                "tools/call",
                json!({"name": "get_weather", "arguments": bad}),
            )
            .await;
        let result = &reply["result"];
        assert_eq!(result["isError"], true, "{bad}: {reply}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("Invalid arguments for tool get_weather"),
            "{text}"
        );
    }
    // Missing `arguments` is `{}`.
    let (reply, _) = wire
        .request("tools/call", json!({"name": "list_regions"}))
        .await;
    assert_eq!(reply["result"]["content"][0]["text"], "eu, us, apac");

    let (reply, _) = wire
        .request(
            "tools/call",
            json!({"name": "get_weather", "arguments": {"city": "Atlantis"}}),
        )
        .await;
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "Unknown city 'Atlantis'. Pass a real city such as 'Paris'."
    );

    let (reply, _) = wire
        .request(
            "tools/call",
            json!({"name": "list_regions", "arguments": {}, "task": {"ttl": 1000}}),
        )
        .await;
    assert_eq!(reply["result"]["content"][0]["text"], "eu, us, apac");

    let (reply, _) = wire
        .request(
            "tools/call",
            json!({"name": "test_multiple_content_types", "arguments": {}}),
        )
        .await;
    let kinds: Vec<&str> = reply["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    let (pong, _) = wire.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
}

// 16: structuredContent validates against outputSchema and is also sent as text.
async fn structured_content_matches_the_output_schema(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let (listed, _) = wire.request("tools/list", json!({})).await;
    let tool = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_weather")
        .unwrap()
        .clone();
    let (reply, _) = wire
        .request(
            "tools/call",
            json!({"name": "get_weather", "arguments": {"city": "Paris"}}),
        )
        .await;
    let result = &reply["result"];
    let structured = &result["structuredContent"];
    assert!(
        jsonschema::is_valid(&tool["outputSchema"], structured),
        "{structured}"
    );
    let texts: Vec<Value> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .filter_map(|t| serde_json::from_str(t).ok())
        .collect();
    assert!(
        texts.contains(structured),
        "the same JSON as a text block: {result}"
    );
}

// 20: progress.
async fn progress_notifications_precede_the_response(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let (reply, before) = wire.request("tools/call", json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p-1"}})).await;
    assert!(reply["result"]["content"].is_array());
    let progress: Vec<f64> = before
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], "p-1");
            m["params"]["progress"].as_f64().unwrap()
        })
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    let (_, before) = wire
        .request(
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {}}),
        )
        .await;
    assert!(
        before
            .iter()
            .all(|m| m["method"] != "notifications/progress"),
        "no token, no progress: {before:?}"
    );
    // Nothing arrives after the response.
    assert!(
        wire.next_message(Duration::from_millis(300))
            .await
            .is_none()
    );
}

// 22: logging/setLevel.
async fn logging_set_level_filters_messages(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let (reply, _) = wire
        .request("logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(reply["result"], json!({}));
    let (_, before) = wire
        .request(
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    let logs: Vec<&Value> = before
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 3, "{before:?}");
    assert!(
        logs.iter()
            .all(|m| m["params"]["level"] == "info" && m["params"]["data"].is_string())
    );
    let (reply, _) = wire
        .request("logging/setLevel", json!({"level": "warning"}))
        .await;
    assert_eq!(reply["result"], json!({}));
    let (_, before) = wire
        .request(
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    assert!(
        before
            .iter()
            .all(|m| m["method"] != "notifications/message"),
        "filtered out: {before:?}"
    );
    let (reply, _) = wire
        .request("logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(reply["error"]["code"], -32602);
}

// 21: cancellation.
async fn cancellation_stops_a_call_and_the_server_stays_responsive(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    if transport == Transport::Http {
        // Over HTTP the slow call's POST blocks this connection; cancel from a second one.
        let url = wire.url().to_string();
        let Link::Http { session, .. } = &wire.link else {
            unreachable!()
        };
        let session = session.clone().unwrap();
        let client = reqwest::Client::new();
        let post = |body: Value| {
            client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", &session)
                .body(body.to_string())
                .send()
        };
        let started = Instant::now();
        let slow = tokio::spawn(post(
            json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "slow_report", "arguments": {}}}),
        ));
        tokio::time::sleep(Duration::from_millis(200)).await;
        let cancel = post(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99, "reason": "test"}})).await.unwrap();
        assert_eq!(cancel.status(), 202);
        let body = slow.await.unwrap().unwrap().text().await.unwrap();
        assert!(
            sse_messages(&body)
                .iter()
                .all(|m| m.get("id") != Some(&json!(99))),
            "no response for a cancelled call: {body}"
        );
        assert!(
            started.elapsed() < Duration::from_millis(1500),
            "the call stopped early: {:?}",
            started.elapsed()
        );
        return;
    }
    wire.send_raw(r#"{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"slow_report","arguments":{}}}"#).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    wire.notify(
        "notifications/cancelled",
        Some(json!({"requestId": 99, "reason": "test"})),
    )
    .await;
    wire.notify("notifications/cancelled", Some(json!({"requestId": 12345})))
        .await;
    let (pong, before) = wire.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    assert!(before.is_empty());
    assert!(
        wire.next_message(Duration::from_millis(2500))
            .await
            .is_none(),
        "a cancelled call sends no response"
    );
}

// 24: concurrent requests, answered out of order, matched by id.
async fn concurrent_requests_are_matched_by_id(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    if transport == Transport::Http {
        let url = wire.url().to_string();
        let Link::Http { session, .. } = &wire.link else {
            unreachable!()
        };
        let session = session.clone().unwrap();
        let client = reqwest::Client::new();
        let calls = (0..8).map(|i| {
            let request = client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream, application/json")
                .header("mcp-session-id", &session)
                .body(json!({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": format!("City {i}")}}}).to_string());
            async move { request.send().await.unwrap().text().await.unwrap() }
        });
        let bodies = futures_util::future::join_all(calls).await;
        for (i, body) in bodies.iter().enumerate() {
            let messages = sse_messages(body);
            let response = messages.iter().find(|m| m.get("id").is_some()).unwrap();
            assert_eq!(response["id"], 1000 + i as i64);
            assert_eq!(
                response["result"]["content"][0]["text"],
                format!("City {i}: 18 degrees, light rain")
            );
        }
        return;
    }
    wire.send_raw(r#"{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"slow_report","arguments":{}}}"#).await;
    let started = Instant::now();
    let (pong, _) = wire.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "ping waited for the slow call"
    );
    let slow = wire.next_message(Duration::from_secs(5)).await.unwrap();
    assert_eq!(slow["id"], "slow");
    assert_eq!(slow["result"]["content"][0]["text"], "report ready");
}

// 19: list_changed after an edit, exactly once; a broken edit keeps the old tools.
async fn editing_the_toolset_sends_one_list_changed(transport: Transport) {
    let mut wire = Wire::ready(transport).await;
    let original = std::fs::read_to_string(&wire.toolset).unwrap();
    std::fs::write(&wire.toolset, format!("{original}\n[[tool]]\nname = \"get_uv_index\"\ndescription = \"UV index for a city today.\"\n")).unwrap();
    let note = wire
        .next_message(Duration::from_secs(5))
        .await
        .expect("list_changed");
    assert_eq!(note["method"], "notifications/tools/list_changed");
    assert!(
        wire.next_message(Duration::from_millis(800))
            .await
            .is_none(),
        "exactly one notification"
    );
    let (reply, _) = wire.request("tools/list", json!({})).await;
    assert!(tool_names(&reply["result"]).contains(&"get_uv_index".to_string()));

    std::fs::write(&wire.toolset, format!("{original}\n[[tool]\nbroken")).unwrap();
    assert!(
        wire.next_message(Duration::from_millis(1200))
            .await
            .is_none(),
        "an invalid edit changes nothing"
    );
    let (reply, _) = wire.request("tools/list", json!({})).await;
    assert!(
        tool_names(&reply["result"]).contains(&"get_uv_index".to_string()),
        "the old tools are still served"
    );
}

// 25: EOF on stdin ends the process with status 0, promptly.
#[tokio::test]
async fn stdio_eof_exits_zero() {
    let mut wire = Wire::ready(Transport::Stdio).await;
    let Link::Stdio { stdin, .. } = &mut wire.link else {
        unreachable!()
    };
    stdin.shutdown().await.unwrap();
    let Link::Stdio { stdin, lines } = std::mem::replace(
        &mut wire.link,
        Link::Http {
            client: reqwest::Client::new(),
            url: String::new(),
            session: None,
            stream: None,
        },
    ) else {
        unreachable!()
    };
    drop(stdin);
    drop(lines);
    let status = tokio::time::timeout(Duration::from_secs(3), wire.child.wait())
        .await
        .expect("exits within 3 s")
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// A raw HTTP request to a server, for the status-code rules.
async fn http_status(
    url: &str,
    method: reqwest::Method,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, String) {
    let client = reqwest::Client::new();
    let mut request = client.request(method, url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

fn initialize_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

const JSON_AND_SSE: (&str, &str) = ("accept", "application/json, text/event-stream");
const CONTENT_JSON: (&str, &str) = ("content-type", "application/json");

// 26, 27, 28, 29, 30: endpoint, status codes, SSE framing, sessions.
#[tokio::test]
async fn http_status_codes_sessions_and_sse_framing() {
    let wire = Wire::ready(Transport::Http).await;
    let url = wire.url().to_string();
    let post = reqwest::Method::POST;

    // 28: Accept must list both media types.
    let (status, _) = http_status(
        &url,
        post.clone(),
        &[("accept", "application/json"), CONTENT_JSON],
        Some(initialize_body()),
    )
    .await;
    assert_eq!(status, 406);
    // Malformed body → 400 with a parse error.
    let client = reqwest::Client::new();
    let response = client
        .post(&url)
        .header(JSON_AND_SSE.0, JSON_AND_SSE.1)
        .header(CONTENT_JSON.0, CONTENT_JSON.1)
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700);
    // 29: an unsupported MCP-Protocol-Version → 400; absent → served.
    let (status, _) = http_status(
        &url,
        post.clone(),
        &[
            JSON_AND_SSE,
            CONTENT_JSON,
            ("mcp-protocol-version", "1999-01-01"),
        ],
        Some(initialize_body()),
    )
    .await;
    assert_eq!(status, 400);

    // 27: initialize answered with JSON and a visible-ASCII session id.
    let response = client
        .post(&url)
        .header(JSON_AND_SSE.0, JSON_AND_SSE.1)
        .header(CONTENT_JSON.0, CONTENT_JSON.1)
        .body(initialize_body().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(session.len() >= 16 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let with_session = [
        JSON_AND_SSE,
        CONTENT_JSON,
        ("mcp-session-id", session.as_str()),
    ];

    // 27: a notification → 202, empty body.
    let (status, body) = http_status(
        &url,
        post.clone(),
        &with_session,
        Some(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await;
    assert_eq!((status, body.as_str()), (202, ""));
    // 27: tools/call answered as SSE: a priming event (id, empty data), then the response, then the end.
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "list_regions", "arguments": {}}});
    let response = client
        .post(&url)
        .headers(headers(&with_session))
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let body = response.text().await.unwrap();
    let first_event = body.split("\n\n").next().unwrap();
    assert!(
        first_event.lines().any(|l| l.starts_with("id:"))
            && first_event.lines().any(|l| l.trim() == "data:"),
        "{body:?}"
    );
    assert_eq!(sse_messages(&body)[0]["id"], 5);
    // 29: no MCP-Protocol-Version header is still served (as 2025-03-26).
    let (status, _) = http_status(
        &url,
        post.clone(),
        &with_session,
        Some(json!({"jsonrpc": "2.0", "id": 6, "method": "ping"})),
    )
    .await;
    assert_eq!(status, 200);

    // 30: sessions.
    let (status, _) = http_status(
        &url,
        post.clone(),
        &[JSON_AND_SSE, CONTENT_JSON],
        Some(json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})),
    )
    .await;
    assert_eq!(status, 400, "no session id");
    let (status, _) = http_status(
        &url,
        post.clone(),
        &[JSON_AND_SSE, CONTENT_JSON, ("mcp-session-id", "unknown")],
        Some(json!({"jsonrpc": "2.0", "id": 8, "method": "ping"})),
    )
    .await;
    assert_eq!(status, 404, "unknown session id");
    let (status, _) = http_status(
        &url,
        reqwest::Method::DELETE,
        &[("mcp-session-id", session.as_str())],
        None,
    )
    .await;
    assert!(status == 200 || status == 204, "{status}");
    let (status, _) = http_status(
        &url,
        post.clone(),
        &with_session,
        Some(json!({"jsonrpc": "2.0", "id": 9, "method": "ping"})),
    )
    .await;
    assert_eq!(status, 404, "a terminated session");
    // 26: GET without an event-stream Accept → 406; other paths are not MCP.
    let (status, _) = http_status(
        &url,
        reqwest::Method::GET,
        &[("accept", "application/json")],
        None,
    )
    .await;
    assert_eq!(status, 406);
    let (status, _) = http_status(
        &url.replace("/mcp", "/other"),
        post,
        &[JSON_AND_SSE, CONTENT_JSON],
        Some(initialize_body()),
    )
    .await;
    assert_eq!(status, 404);
}

fn headers(pairs: &[(&str, &str)]) -> reqwest::header::HeaderMap {
    let mut map = reqwest::header::HeaderMap::new();
    for (name, value) in pairs {
        map.insert(
            reqwest::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    map
}

// 31: DNS-rebinding protection.
#[tokio::test]
async fn http_host_and_origin_must_name_this_machine() {
    let wire = Wire::start(Transport::Http, &[]).await;
    let url = wire.url().to_string();
    let port = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_string();
    let post = reqwest::Method::POST;
    let evil_host = ("host", "evil.example.com");
    let (status, _) = http_status(
        &url,
        post.clone(),
        &[JSON_AND_SSE, CONTENT_JSON, evil_host],
        Some(initialize_body()),
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = http_status(
        &url,
        post.clone(),
        &[
            JSON_AND_SSE,
            CONTENT_JSON,
            ("origin", "http://evil.example.com"),
        ],
        Some(initialize_body()),
    )
    .await;
    assert_eq!(status, 403, "a bad Origin with a good Host");
    for host in ["localhost", "127.0.0.1", "[::1]"] {
        let authority = format!("{host}:{port}");
        let origin = format!("http://{authority}");
        let (status, body) = http_status(
            &url,
            post.clone(),
            &[
                JSON_AND_SSE,
                CONTENT_JSON,
                ("host", &authority),
                ("origin", &origin),
            ],
            Some(initialize_body()),
        )
        .await;
        assert_eq!(status, 200, "{host}: {body}");
    }
}

/// The status line's code for a request written byte for byte (a client library would merge or
/// refuse the duplicate headers these cases need).
async fn raw_http_status(url: &str, headers: &[&str], body: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let mut request = String::from("POST /mcp HTTP/1.1\r\n");
    for header in headers {
        request += &format!("{header}\r\n");
    }
    request += &format!(
        "Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"))
}

// 31: the guard cannot be walked around: loose Host and Origin forms, duplicates, look-alike media
// types.
#[tokio::test]
async fn http_host_origin_and_content_type_are_parsed_strictly() {
    let wire = Wire::start(Transport::Http, &[]).await;
    let url = wire.url().to_string();
    let body = initialize_body().to_string();
    let json = "Content-Type: application/json";
    for (headers, expected) in [
        (vec!["Host: [::1]evil.example", json], 403),
        (vec!["Host: localhost:evil", json], 403),
        (vec!["Host: 127.0.0.1", "Host: evil.example", json], 400),
        (vec!["Host: evil.example", "Host: 127.0.0.1", json], 400),
        (
            vec!["Host: 127.0.0.1", "Origin: http://[::1]evil.example", json],
            403,
        ),
        (
            vec![
                "Host: 127.0.0.1",
                "Origin: http://localhost",
                "Origin: http://evil.example",
                json,
            ],
            400,
        ),
        (
            vec!["Host: 127.0.0.1", "Content-Type: application/jsonp"],
            415,
        ),
        (
            vec![
                "Host: 127.0.0.1",
                "Content-Type: application/json-patch+json",
            ],
            415,
        ),
        (
            vec!["Host: 127.0.0.1", json, "Content-Type: text/plain"],
            415,
        ),
        (
            vec![
                "Host: 127.0.0.1",
                "Origin: http://127.0.0.1",
                "Content-Type: application/json; charset=utf-8",
            ],
            200,
        ),
    ] {
        let status = raw_http_status(&url, &headers, &body).await;
        assert_eq!(status, expected, "{headers:?}");
    }
}

// Bounds on what a client can make the server wait for or read: a body declared past the 64 MiB
// message limit is refused before a byte of it is read, and a declared body that never comes is
// cut off after 30 s with a 408.
#[tokio::test]
async fn http_bodies_are_bounded_in_size_and_in_time() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let wire = Wire::start(Transport::Http, &[]).await;
    let address = wire
        .url()
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let head = |length: u64| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n"
        )
    };
    for (length, expected) in [(100_000_000u64, " 413 "), (1000, " 408 ")] {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream.write_all(head(length).as_bytes()).await.unwrap();
        let mut answer = vec![0u8; 256];
        let read = tokio::time::timeout(Duration::from_secs(45), stream.read(&mut answer))
            .await
            .expect("an answer, not a wait")
            .unwrap();
        let answer = String::from_utf8_lossy(&answer[..read]);
        assert!(
            answer.starts_with("HTTP/1.1") && answer.contains(expected),
            "{length}: {answer}"
        );
    }
}

// A client that sends its headers a byte at a time is cut off (10 s), however long it keeps going.
#[tokio::test]
async fn http_a_client_dripping_its_headers_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let wire = Wire::start(Transport::Http, &[]).await;
    let address = wire
        .url()
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    writer
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let drip = tokio::spawn(async move {
        for _ in 0..60 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if writer.write_all(b"X").await.is_err() {
                return;
            }
        }
    });
    let mut buffer = [0u8; 64];
    let cut = tokio::time::timeout(Duration::from_secs(25), reader.read(&mut buffer)).await;
    drip.abort();
    // EOF, a reset or a 408: anything but still waiting.
    assert!(
        cut.is_ok(),
        "the server was still reading headers after 25 s"
    );
}

// 32: concurrent POSTs each get their own response stream.
#[tokio::test]
async fn http_concurrent_posts_each_get_their_own_stream() {
    concurrent_requests_are_matched_by_id(Transport::Http).await;
}

// 2: no undeclared capability is used — a client without `sampling` is never sent a sampling request.
#[tokio::test]
async fn sampling_is_not_requested_from_a_client_that_did_not_declare_it() {
    let mut wire = Wire::ready(Transport::Stdio).await;
    let (reply, before) = wire
        .request(
            "tools/call",
            json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}),
        )
        .await;
    assert!(
        before
            .iter()
            .all(|m| m["method"] != "sampling/createMessage"),
        "{before:?}"
    );
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("did not declare the sampling capability")
    );
}

/// `_meta` of a 2026-07-28 request.
fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

// The 2026-07-28 era beside the legacy one, on stdio: no initialize, the version in every request's
// `_meta`, results marked `resultType: complete`, tools/list with its caching hints and one order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_requests_are_answered_without_a_session_on_stdio() {
    let mut wire = Wire::start(Transport::Stdio, &[]).await;
    let meta = modern_meta("2026-07-28");
    let (first, _) = wire.request("tools/list", json!({"_meta": meta})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "complete", "{first}");
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcpick"
    );
    let names = |r: &Value| -> Vec<String> {
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (second, _) = wire.request("tools/list", json!({"_meta": meta})).await;
    assert_eq!(names(&first), names(&second), "the same order every time");
    let (call, _) = wire
        .request(
            "tools/call",
            json!({"name": "get_weather", "arguments": {"city": "Oslo"}, "_meta": meta}),
        )
        .await;
    assert_eq!(call["result"]["resultType"], "complete", "{call}");
    assert!(call["result"]["content"].is_array(), "{call}");
    // The era removed initialize, ping and logging/setLevel: with modern `_meta` they are unknown.
    for method in ["initialize", "ping", "logging/setLevel"] {
        let (reply, _) = wire.request(method, json!({"_meta": meta})).await;
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
    // A version the server does not speak: -32022, listing the ones it does.
    let (reply, _) = wire
        .request("tools/list", json!({"_meta": modern_meta("v999.0.0")}))
        .await;
    assert_eq!(reply["error"]["code"], -32022, "{reply}");
    assert_eq!(reply["error"]["data"]["requested"], "v999.0.0");
    let supported = reply["error"]["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!("2026-07-28")) && supported.contains(&json!("2025-11-25")));
    // The legacy era still works on the same connection.
    let (reply, _) = wire
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    let (legacy, _) = wire.request("tools/list", json!({})).await;
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
}

// The 2026-07-28 era on Streamable HTTP: no session; headers checked against the body in the
// revision's order, with its HTTP statuses.
#[tokio::test]
async fn modern_requests_over_http_check_headers_and_use_the_revisions_statuses() {
    let wire = Wire::start(Transport::Http, &[]).await;
    let url = wire.url().to_string();
    let post = reqwest::Method::POST;
    let body = |method: &str, meta: Value| json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": {"_meta": meta}});
    let modern = [
        JSON_AND_SSE,
        CONTENT_JSON,
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let (status, text) = http_status(
        &url,
        post.clone(),
        &modern,
        Some(body("tools/list", modern_meta("2026-07-28"))),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let reply: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(reply["result"]["resultType"], "complete");
    // No `_meta`: -32602 and 400, before any header is looked at.
    let (status, text) = http_status(
        &url,
        post.clone(),
        &[JSON_AND_SSE, CONTENT_JSON],
        Some(json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {}})),
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("-32602"), "{text}");
    // MCP-Protocol-Version disagreeing with `_meta`, or Mcp-Method with the body: -32020 and 400.
    let (status, text) = http_status(
        &url,
        post.clone(),
        &modern,
        Some(body("tools/list", modern_meta("v999.0.0"))),
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("-32020"), "{text}");
    let (status, text) = http_status(
        &url,
        post.clone(),
        &modern,
        Some(body("server/discover", modern_meta("2026-07-28"))),
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("-32020"), "{text}");
    // A method the era does not have: -32601 and 404.
    let ping = [
        JSON_AND_SSE,
        CONTENT_JSON,
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "ping"),
    ];
    let (status, text) = http_status(
        &url,
        post,
        &ping,
        Some(body("ping", modern_meta("2026-07-28"))),
    )
    .await;
    assert_eq!(status, 404, "{text}");
    assert!(text.contains("-32601"), "{text}");
}
