//! A live MCP server's tools, snapshotted (`mcpick import`): a server started from a command line
//! (split the way a shell would) or reached at a URL, spoken to in the revision it answers, its
//! `tools/list` read whole, and written as a JSON toolset that `validate` accepts. Tools are kept
//! verbatim; a tool that declares an `outputSchema` gets simulated structured output synthesised
//! from that schema (a real mcpick toolset must answer with content matching it), or, when no
//! instance can be built, an explicit error response that says to edit the file.

use crate::gold_arguments::example_instance;
use crate::mcp::client::{McpClient, Negotiation};
use crate::registry::compile_schema;
use serde_json::{Value, json};

/// Where the server is.
#[derive(Debug, Clone)]
pub enum ServerSource {
    /// A command line that starts it on stdio.
    Stdio(String),
    Url(String),
}

impl ServerSource {
    /// How the toolset file names where it came from.
    pub fn label(&self) -> &str {
        match self {
            ServerSource::Stdio(command) => command,
            ServerSource::Url(url) => url,
        }
    }
}

/// What the server said of itself and its tools.
#[derive(Debug, Clone)]
pub struct ServerSnapshot {
    pub server_name: String,
    pub protocol_version: String,
    pub tools: Vec<Value>,
}

/// Connects to the server in the revision `negotiation` settles on and lists its tools.
pub async fn snapshot_server(
    source: &ServerSource,
    negotiation: Negotiation,
) -> Result<ServerSnapshot, String> {
    let client = match source {
        ServerSource::Stdio(command) => {
            let words = split_command(command).map_err(|e| format!("--stdio: {e}"))?;
            let Some((program, args)) = words.split_first() else {
                return Err("--stdio needs a command".to_string());
            };
            McpClient::spawn_stdio_with(program, args, negotiation).await
        }
        ServerSource::Url(url) => McpClient::connect_http_with(url, negotiation).await,
    }
    .map_err(|e| format!("cannot connect: {e}"))?;
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    Ok(ServerSnapshot {
        server_name: client.server_name().unwrap_or("an MCP server").to_string(),
        protocol_version: client.protocol_version.clone(),
        tools,
    })
}

/// The toolset file's document for a snapshot, and notes on what was synthesised.
pub fn toolset_document(
    snapshot: ServerSnapshot,
    name: &str,
    source: &ServerSource,
) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let tools: Vec<Value> = snapshot
        .tools
        .into_iter()
        .map(|tool| with_simulated_output(tool, &mut notes))
        .collect();
    let source = source.label();
    let document = json!({
        "format": 1,
        "name": name,
        "description": format!("Imported from {} ({source}) by mcpick import", snapshot.server_name),
        "imported": { "from": source, "server": snapshot.server_name, "protocolVersion": snapshot.protocol_version },
        "tools": tools,
    });
    (document, notes)
}

/// Adds a `behavior` to a tool with an `outputSchema`, so that the toolset can serve it.
fn with_simulated_output(mut tool: Value, notes: &mut Vec<String>) -> Value {
    let Some(schema) = tool.get("outputSchema").cloned() else {
        return tool;
    };
    let name = tool["name"].as_str().unwrap_or("").to_string();
    let instance = example_instance(&schema, &schema);
    let valid = compile_schema(&schema)
        .map(|v| v.is_valid(&instance))
        .unwrap_or(false);
    let behavior = if valid && instance.is_object() {
        notes.push(format!(
            "{name}: simulated structured output built from its outputSchema; edit it to look real"
        ));
        json!({ "structured": instance })
    } else {
        notes.push(format!("{name}: no structured output could be built from its outputSchema; it answers with an error until you add one"));
        json!({ "error": format!("mcpick has no simulated output for {name}: add `behavior.structured` matching its outputSchema to this toolset file") })
    };
    if let Value::Object(object) = &mut tool {
        object.insert("behavior".into(), behavior);
    }
    tool
}

/// Splits a command line into words: whitespace separates, single and double quotes group, a
/// backslash escapes the next character (outside single quotes).
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unclosed single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.push(chars.next().ok_or("trailing backslash")?),
                        Some(c) => word.push(c),
                        None => return Err("unclosed double quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or("trailing backslash")?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_command(r#"node "my server.mjs" --flag 'a b' c\ d"#).unwrap(),
            ["node", "my server.mjs", "--flag", "a b", "c d"]
        );
        assert!(split_command("node 'unclosed").is_err());
        assert!(split_command("   ").unwrap().is_empty());
    }
}
