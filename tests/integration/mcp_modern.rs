//! The 2026-07-28 era's multi-round and streaming parts against the real binary, in raw JSON-RPC
//! (the conformance suite drives the same over HTTP; this is stdio, and HTTP for a toolset's own
//! `x-mcp-header` tool): `input_required` results and signed request states, a missing client
//! capability, `subscriptions/listen` with its tagged notifications, and the same input-asking
//! fixture served to a 2025-11-25 session as a real server-to-client request.

use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

const MODERN: &str = "2026-07-28";

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// `mcpick serve --conformance-fixtures` on stdio, spoken to line by line.
struct StdioServer {
    _child: Child,
    input: ChildStdin,
    output: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl StdioServer {
    async fn start() -> StdioServer {
        let toolset = concat!(env!("CARGO_MANIFEST_DIR"), "/toolsets/travel.toml");
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(["serve", toolset, "--conformance-fixtures"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap()).lines();
        StdioServer {
            _child: child,
            input,
            output,
            next_id: 1,
        }
    }

    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.input.write_all(line.as_bytes()).await.unwrap();
    }

    /// The next message, or `None` if none comes within `wait`.
    async fn next(&mut self, wait: Duration) -> Option<Value> {
        let line = tokio::time::timeout(wait, self.output.next_line())
            .await
            .ok()?
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap())
    }

    /// Sends a request and returns its response and whatever came before it.
    async fn request(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut before = Vec::new();
        loop {
            let message = self
                .next(Duration::from_secs(10))
                .await
                .unwrap_or_else(|| panic!("no answer to {method}; before it: {before:?}"));
            if message["id"] == id && message.get("method").is_none() {
                return (message, before);
            }
            before.push(message);
        }
    }

    async fn call(&mut self, params: Value) -> Value {
        self.request("tools/call", params).await.0
    }
}

fn elicit_answer(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test]
async fn a_multi_round_call_carries_a_signed_state_from_round_to_round() {
    let mut server = StdioServer::start().await;
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let tool = "test_input_required_result_multi_round";
    let first = server
        .call(json!({"name": tool, "arguments": {}, "_meta": meta(caps.clone())}))
        .await;
    let r1 = &first["result"];
    assert_eq!(r1["resultType"], "input_required", "{first}");
    assert_eq!(
        r1["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let state1 = r1["requestState"].as_str().unwrap().to_string();

    // The state is checked: altered, it is an error, not a result of any kind.
    let tampered = server
        .call(
            json!({"name": tool, "arguments": {}, "_meta": meta(caps.clone()),
            "inputResponses": {"user_name": elicit_answer(json!({"name": "Ada"}))},
            "requestState": format!("{state1}-TAMPERED")}),
        )
        .await;
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");
    // So is an answer of the wrong shape.
    let malformed = server
        .call(
            json!({"name": tool, "arguments": {}, "_meta": meta(caps.clone()),
            "inputResponses": {"user_name": 12345}, "requestState": state1}),
        )
        .await;
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");
    // A missing answer is asked for again.
    let again = server
        .call(
            json!({"name": tool, "arguments": {}, "_meta": meta(caps.clone()),
            "inputResponses": {"wrong_key": elicit_answer(json!({}))}, "requestState": state1}),
        )
        .await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");

    let second = server
        .call(
            json!({"name": tool, "arguments": {}, "_meta": meta(caps.clone()),
            "inputResponses": {"user_name": elicit_answer(json!({"name": "Ada"}))},
            "requestState": state1}),
        )
        .await;
    let r2 = &second["result"];
    assert_eq!(r2["resultType"], "input_required", "{second}");
    let state2 = r2["requestState"].as_str().unwrap();
    assert_ne!(state2, state1, "each round has a state of its own");
    let key = r2["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let done = server
        .call(
            json!({"name": tool, "arguments": {}, "_meta": meta(caps.clone()),
            "inputResponses": {key: elicit_answer(json!({"color": "blue"}))},
            "requestState": state2}),
        )
        .await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("blue")
    );

    // A state is bound to its call: another tool does not accept it.
    let elsewhere = server
        .call(
            json!({"name": "test_input_required_result_request_state", "arguments": {},
            "_meta": meta(caps), "inputResponses": {"confirm": elicit_answer(json!({"ok": true}))},
            "requestState": state2}),
        )
        .await;
    assert_eq!(elsewhere["error"]["code"], -32602, "{elsewhere}");
}

#[tokio::test]
async fn what_a_client_did_not_declare_is_never_asked() {
    let mut server = StdioServer::start().await;
    let refused = server
        .call(json!({"name": "test_missing_capability", "arguments": {}, "_meta": meta(json!({}))}))
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(refused["error"]["data"]["requiredCapabilities"]["sampling"].is_object());
    // A client that can sample but not elicit is asked to sample.
    let asked = server
        .call(
            json!({"name": "test_input_required_result_capabilities", "arguments": {},
            "_meta": meta(json!({"sampling": {}}))}),
        )
        .await;
    let requests = asked["result"]["inputRequests"].as_object().unwrap();
    assert!(
        requests
            .values()
            .all(|r| r["method"] == "sampling/createMessage"),
        "{asked}"
    );
}

#[tokio::test]
async fn a_listen_hears_only_what_it_asked_for_tagged_with_its_id() {
    let mut server = StdioServer::start().await;
    server
        .send(
            &json!({"jsonrpc": "2.0", "id": "tools-listen", "method": "subscriptions/listen",
            "params": {"_meta": meta(json!({})), "notifications": {"toolsListChanged": true}}}),
        )
        .await;
    let ack = server.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "tools-listen"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    server
        .send(
            &json!({"jsonrpc": "2.0", "id": "prompts-listen", "method": "subscriptions/listen",
            "params": {"_meta": meta(json!({})), "notifications": {"promptsListChanged": true}}}),
        )
        .await;
    let ack = server.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        ack["params"]["notifications"],
        json!({}),
        "nothing of it is honoured: {ack}"
    );

    let (reply, mut heard) = server
        .request(
            "tools/call",
            json!({"name": "test_trigger_tool_change", "arguments": {}, "_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    while let Some(message) = server.next(Duration::from_millis(500)).await {
        heard.push(message);
    }
    assert_eq!(
        heard.len(),
        1,
        "one notification, for the tools listen only: {heard:?}"
    );
    assert_eq!(heard[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        heard[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "tools-listen"
    );

    // Cancelled, the listen hears nothing more.
    server
        .send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "tools-listen"}}),
        )
        .await;
    let (_, before) = server
        .request(
            "tools/call",
            json!({"name": "test_trigger_tool_change", "arguments": {}, "_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(before, Vec::<Value>::new());
    assert_eq!(server.next(Duration::from_millis(500)).await, None);
}

#[tokio::test]
async fn a_2025_session_is_asked_the_same_question_as_a_request_of_its_own() {
    let mut server = StdioServer::start().await;
    server
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    server
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "test_input_required_result_elicitation", "arguments": {}}}))
        .await;
    let asked = server.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    server
        .send(&json!({"jsonrpc": "2.0", "id": asked["id"],
            "result": elicit_answer(json!({"name": "Grace"}))}))
        .await;
    let done = server.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(done["id"], 7, "{done}");
    assert!(
        done["result"].get("resultType").is_none(),
        "no 2026 fields on 2025: {done}"
    );
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Grace")
    );
}

const HEADER_TOOLSET: &str = r#"format = 1
name = "regions"
description = "A tool whose region travels as a header too"

[[tool]]
name = "get_region_status"
description = "Service status for one region."
[tool.inputSchema]
type = "object"
required = ["region"]
properties.region = { type = "string", description = "Region such as 'eu-west'", x-mcp-header = "Region" }
[tool.behavior]
text = "{region}: all systems normal"
"#;

#[tokio::test]
async fn a_toolsets_own_x_mcp_header_argument_must_match_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let toolset = dir.path().join("regions.toml");
    std::fs::write(&toolset, HEADER_TOOLSET).unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["serve", toolset.to_str().unwrap(), "--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = stderr.next_line().await.unwrap().unwrap();
    let address = line
        .split("http://")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let url = format!("http://{address}");
    let http = reqwest::Client::new();
    let post = |region_header: Option<&str>| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "get_region_status")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "get_region_status", "arguments": {"region": "eu-west"}, "_meta": meta(json!({}))
            }}).to_string());
        if let Some(value) = region_header {
            request = request.header("mcp-param-region", value);
        }
        request.send()
    };
    let missing = post(None).await.unwrap();
    assert_eq!(missing.status(), 400);
    assert!(missing.text().await.unwrap().contains("-32020"));
    let wrong = post(Some("us-east")).await.unwrap();
    assert_eq!(wrong.status(), 400);
    let encoded = post(Some("=?base64?ZXUtd2VzdA==?=")).await.unwrap();
    assert_eq!(encoded.status(), 200);
    let body: Value = encoded.json().await.unwrap();
    assert_eq!(
        body["result"]["content"][0]["text"],
        "eu-west: all systems normal"
    );

    // mcpick's own client sends the header it needs, from the tool's listing.
    let client = mcpick::mcp::client::McpClient::connect_http(&url)
        .await
        .unwrap();
    assert_eq!(client.protocol_version, MODERN);
    client.list_tools().await.unwrap();
    let result = client
        .call_tool("get_region_status", json!({"region": "eu-west"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "eu-west: all systems normal");
}
