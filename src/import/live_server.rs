//! A live MCP server's tools, snapshotted (`mcpick import`): a server started from a command line
//! (split the way a shell would) or reached at a URL, spoken to in the revision it answers, its
//! `tools/list` read whole, and written as a JSON toolset that `validate` accepts, which keeps where
//! it came from: the command or URL, the server's reported name and version, the revision spoken.
//! What the server writes on standard error is kept for the import log, not shown as mcpick's.
//! `save_server_tools` is the whole of it, snapshot to written file, for `import` and `draft` alike.
//! Tools are kept verbatim, each given a simulated answer that is not empty: structured content
//! built from its `outputSchema` (strings filled with placeholders naming the field and the tool),
//! or a short text naming the tool and echoing the arguments — and the file says so.

use crate::gold_arguments::example_instance;
use crate::mcp::client::{McpClient, Negotiation};
use crate::registry::compile_schema;
use crate::spec::{ToolsetDocument, json_text};
use serde_json::{Value, json};
use std::path::PathBuf;

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
    /// The version the server reports of itself, if it does.
    pub server_version: Option<String>,
    pub protocol_version: String,
    pub tools: Vec<Value>,
    /// What a server started on stdio wrote on standard error while it was asked.
    pub stderr: String,
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
        server_version: client.server_version().map(str::to_string),
        protocol_version: client.protocol_version.clone(),
        tools,
        stderr: client.server_stderr(),
    })
}

/// What `save_server_tools` wrote.
#[derive(Debug, Clone)]
pub struct SavedTools {
    /// The toolset file.
    pub file: PathBuf,
    pub server_name: String,
    pub protocol_version: String,
    pub tools: usize,
    /// What was synthesised for the file (the simulated answers).
    pub notes: Vec<String>,
    /// The import log of what the server said on standard error, and its lines, if it said any.
    pub stderr_log: Option<(PathBuf, usize)>,
}

/// Snapshots the server's tools into a JSON toolset (its folder created, the file replaced whole),
/// with what the server said on standard error beside it in `FILE.import.log`. `place` says, from
/// the server's own name, which file and which toolset name. The outer error is the file system's;
/// the inner one, the server's.
pub async fn save_server_tools(
    source: &ServerSource,
    negotiation: Negotiation,
    place: &dyn Fn(&str) -> (PathBuf, String),
) -> std::io::Result<Result<SavedTools, String>> {
    let snapshot = match snapshot_server(source, negotiation).await {
        Ok(snapshot) => snapshot,
        Err(message) => return Ok(Err(message)),
    };
    let (file, name) = place(&snapshot.server_name);
    let (file, name) = (file.as_path(), name.as_str());
    let (server_name, protocol_version, tools) = (
        snapshot.server_name.clone(),
        snapshot.protocol_version.clone(),
        snapshot.tools.len(),
    );
    let server_stderr = snapshot.stderr.clone();
    let (document, notes) = toolset_document(snapshot, name, source);
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let text = json_text(&document).map_err(std::io::Error::other)?;
    crate::file_replace::replace(file, text.as_bytes())?;
    let stderr_log = if server_stderr.is_empty() {
        None
    } else {
        let log = file.with_extension("import.log");
        crate::file_replace::replace(&log, server_stderr.as_bytes())?;
        Some((log, server_stderr.lines().count()))
    };
    Ok(Ok(SavedTools {
        file: file.to_path_buf(),
        server_name,
        protocol_version,
        tools,
        notes,
        stderr_log,
    }))
}

/// A server's name as a file and toolset name: letters, digits, `-` and `_` (`server` when
/// nothing is left).
pub fn file_name_for(server: &str) -> String {
    let name: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_string();
    if name.is_empty() {
        "server".into()
    } else {
        name
    }
}

/// The toolset file's document for a snapshot, and notes on what was synthesised.
fn toolset_document(
    snapshot: ServerSnapshot,
    name: &str,
    source: &ServerSource,
) -> (ToolsetDocument, Vec<String>) {
    let mut notes = Vec::new();
    let tools: Vec<Value> = snapshot
        .tools
        .into_iter()
        .map(|tool| with_simulated_answer(tool, &mut notes))
        .collect();
    let label = source.label();
    let mut imported = json!({
        "from": label,
        "server": snapshot.server_name,
        "serverVersion": snapshot.server_version,
        "protocolVersion": snapshot.protocol_version,
        "simulated": "every tool answers with a placeholder mcpick made (from its outputSchema, or naming the tool and echoing the arguments), not with what the server would say: edit each tool's `behavior` to look real",
    });
    match source {
        ServerSource::Stdio(command) => {
            imported["command"] = json!(split_command(command).unwrap_or_default());
        }
        ServerSource::Url(url) => imported["url"] = json!(url),
    }
    let version = snapshot
        .server_version
        .as_deref()
        .map_or(String::new(), |v| format!(" {v}"));
    let mut document = ToolsetDocument::new(
        name,
        Some(format!(
            "Imported from {}{version} ({label}) by mcpick import; its answers are simulated",
            snapshot.server_name
        )),
        tools,
    );
    document.imported = Some(imported);
    (document, notes)
}

/// Adds a simulated answer to a tool: structured content from its `outputSchema` (strings filled
/// with placeholders), else a text naming the tool and echoing its arguments.
fn with_simulated_answer(mut tool: Value, notes: &mut Vec<String>) -> Value {
    let name = tool["name"].as_str().unwrap_or("").to_string();
    let behavior = match tool.get("outputSchema").cloned() {
        Some(schema) => {
            let validator = compile_schema(&schema).ok();
            let valid = |instance: &Value| validator.as_ref().is_some_and(|v| v.is_valid(instance));
            let plain = example_instance(&schema, &schema);
            let mut instance = plain.clone();
            fill_in(&mut instance, &schema, &schema, &name, "");
            if !valid(&instance) {
                // The placeholders broke a constraint (a pattern, a length): the schema's own
                // minimal instance, empty strings filled where that still validates.
                instance = plain;
                let before = instance.clone();
                fill_in(&mut instance, &Value::Null, &schema, &name, "");
                if !valid(&instance) {
                    instance = before;
                }
            }
            if valid(&instance) && instance.is_object() {
                notes.push(format!(
                    "{name}: simulated structured output built from its outputSchema; edit it to look real"
                ));
                json!({ "structured": instance })
            } else {
                notes.push(format!("{name}: no structured output could be built from its outputSchema; it answers with an error until you add one"));
                json!({ "error": format!("mcpick has no simulated output for {name}: add `behavior.structured` matching its outputSchema to this toolset file") })
            }
        }
        None => {
            let parameters: Vec<String> = tool["inputSchema"]["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(parameter, _)| format!("{parameter}={{{parameter}}}"))
                .collect();
            json!({ "text": format!("(simulated by mcpick) {name} called with {}", parameters.join(", ")) })
        }
    };
    if let Value::Object(object) = &mut tool {
        object.insert("behavior".into(), behavior);
    }
    tool
}

/// Fills a built instance so it says something: each empty string becomes a placeholder naming
/// its field and the tool, and each empty array (whose schema gives its items) one item.
fn fill_in(value: &mut Value, schema: &Value, root: &Value, tool: &str, field: &str) {
    let schema = resolved(schema, root);
    match value {
        Value::String(text) if text.is_empty() => {
            let field = if field.is_empty() { "value" } else { field };
            *text = format!("(simulated {field} of {tool})");
        }
        Value::Object(object) => {
            for (key, nested) in object.iter_mut() {
                let property = &schema["properties"][key.as_str()];
                fill_in(nested, property, root, tool, key);
            }
        }
        Value::Array(items) => {
            let item_schema = resolved(&schema["items"], root);
            if items.is_empty() && item_schema.is_object() {
                items.push(example_instance(item_schema, root));
            }
            for item in items.iter_mut() {
                fill_in(item, item_schema, root, tool, field);
            }
        }
        _ => {}
    }
}

/// A schema with a local `$ref` followed, and of `anyOf` / `oneOf` the first branch.
fn resolved<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let schema = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/"))
        .and_then(|target| target.split('/').try_fold(root, |node, key| node.get(key)))
        .unwrap_or(schema);
    ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key)?.as_array()?.first())
        .map_or(schema, |branch| resolved(branch, root))
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
