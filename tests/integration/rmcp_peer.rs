//! Our MCP client against a server written with the official Rust SDK, `rmcp` 3.x (the peer in
//! `examples/rmcp_peer.rs`), in both eras: in-process over an in-memory pipe (list, call, both
//! answers to an unknown tool), and `mcpick import` from the example binary over stdio and
//! Streamable HTTP — `auto` negotiating 2026-07-28 with rmcp's `server/discover`, `legacy` its
//! `initialize` handshake — with the version spoken recorded in the toolset file.

#[path = "../../examples/rmcp_peer.rs"]
#[allow(dead_code)]
mod weather_peer;

use mcpick::mcp::client::{ClientError, McpClient, Negotiation};
use rmcp::ServiceExt;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

async fn in_process_session(negotiation: Negotiation) -> McpClient {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = weather_peer::WeatherPeer::default()
            .serve(server_end)
            .await
            .expect("rmcp serves");
        let _ = running.waiting().await;
    });
    let (read, write) = tokio::io::split(client_end);
    McpClient::connect_lines_with(read, write, negotiation)
        .await
        .expect("connect to rmcp")
}

#[tokio::test]
async fn our_client_talks_to_an_rmcp_server_in_both_eras() {
    for (negotiation, era) in [
        (Negotiation::Auto, "2026-07-28"),
        (Negotiation::Sessions, "2025-11-25"),
    ] {
        let client = in_process_session(negotiation).await;
        assert_eq!(client.protocol_version, era, "{negotiation:?}");
        assert_eq!(client.is_stateless(), era == "2026-07-28");

        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0]["name"], "get_weather");
        assert_eq!(tools[0]["inputSchema"]["required"], json!(["city"]));

        let result = client
            .call_tool("get_weather", json!({"city": "Oslo"}))
            .await
            .unwrap();
        assert_eq!(result["content"][0]["text"], "Oslo: 18 degrees, light rain");

        // Servers differ on an unknown tool: a JSON-RPC error, or an isError result. Both are answers.
        match client.call_tool("no_such_tool", json!({})).await {
            Err(ClientError::Rpc { code, message }) => {
                assert!(code == -32602 || code == -32601, "{code} {message}")
            }
            Ok(result) => assert_eq!(result["isError"], true, "{result}"),
            Err(other) => panic!("not an answer: {other}"),
        }
    }
}

/// The example binary `cargo test` builds beside the tests.
fn rmcp_peer_binary() -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let profile = deps.parent().unwrap().parent().unwrap();
    let binary = profile.join("examples/rmcp_peer");
    assert!(binary.exists(), "{} was not built", binary.display());
    binary
}

/// `mcpick import --era ERA` from `source` (`--stdio CMD` or `--url URL`); the written file.
fn import(era: &str, source: [&str; 2]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("weather.json");
    let run = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["import", "--era", era])
        .args(source)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{era} {source:?}: {stdout}");
    println!("{stdout}");
    serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap()
}

#[test]
fn import_snapshots_an_rmcp_server_in_both_eras_over_stdio_and_http() {
    let binary = rmcp_peer_binary();
    let mut http = Command::new(&binary)
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(http.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    let stdio = format!("{} --stdio", binary.display());
    for (era, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        for source in [["--stdio", stdio.as_str()], ["--url", url.as_str()]] {
            let imported = import(era, source);
            assert_eq!(
                imported["imported"]["protocolVersion"], version,
                "{era} {source:?}: {imported:#}"
            );
            assert_eq!(imported["tools"][0]["name"], "get_weather");
            assert_eq!(
                imported["tools"][0]["inputSchema"]["required"],
                json!(["city"])
            );
        }
    }
    let _ = http.kill();
    let _ = http.wait();
}
