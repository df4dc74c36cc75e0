//! Our MCP client against a server written with the official Rust SDK, `rmcp` (the peer in
//! `examples/rmcp_peer.rs`, here in-process over an in-memory pipe): initialize, list, call, and both
//! answers to an unknown tool.

#[path = "../examples/rmcp_peer.rs"]
#[allow(dead_code)]
mod rmcp_peer;

use mcpick::mcp::client::{ClientError, McpClient};
use rmcp::ServiceExt;
use serde_json::json;

#[tokio::test]
async fn our_client_talks_to_an_rmcp_server() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = rmcp_peer::WeatherPeer::default()
            .serve(server_end)
            .await
            .expect("rmcp serves");
        let _ = running.waiting().await;
    });
    let (read, write) = tokio::io::split(client_end);
    let client = McpClient::connect_lines(read, write)
        .await
        .expect("initialize with rmcp");
    assert!(
        client.server_info["protocolVersion"].is_string(),
        "{}",
        client.server_info
    );

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
