//! `mcpick import`: snapshot a live MCP server's `tools/list` (over stdio or Streamable HTTP) into a
//! JSON toolset that `validate` accepts. Tools are kept verbatim; a tool that declares an
//! `outputSchema` gets simulated structured output synthesised from that schema (a real mcpick
//! toolset must answer with content matching it), or, when no instance can be built, an explicit
//! error response that says to edit the file.

use super::ExitStatus;
use crate::cli::{EraChoice, ImportOptions};
use crate::load::Workspace;
use crate::mcp::client::{McpClient, Negotiation};
use crate::registry::{compile_schema, example_instance};
use serde_json::{Value, json};
use std::io::Write;

pub fn run_import(options: ImportOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let negotiation = match options.era {
        EraChoice::Auto => Negotiation::Auto,
        EraChoice::Modern => Negotiation::Modern,
        EraChoice::Legacy => Negotiation::Legacy,
    };
    let snapshot = runtime.block_on(async {
        let client = match (&options.stdio, &options.url) {
            (Some(command), None) => {
                let words = split_command(command).map_err(|e| format!("--stdio: {e}"))?;
                let Some((program, args)) = words.split_first() else {
                    return Err("--stdio needs a command".to_string());
                };
                McpClient::spawn_stdio_with(program, args, negotiation).await
            }
            (None, Some(url)) => McpClient::connect_http_with(url, negotiation).await,
            _ => return Err("give exactly one of --stdio \"CMD ARGS\" or --url URL".to_string()),
        }
        .map_err(|e| format!("cannot connect: {e}"))?;
        let tools = client
            .list_tools()
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        let server = client.server_name().unwrap_or("an MCP server").to_string();
        Ok((server, client.protocol_version.clone(), tools))
    });
    let (server_name, protocol_version, tools) = match snapshot {
        Ok(snapshot) => snapshot,
        Err(message) => {
            writeln!(out, "mcpick import: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };

    let name = options.name.clone().unwrap_or_else(|| {
        options
            .output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "imported".into())
    });
    let source = options
        .stdio
        .clone()
        .or(options.url.clone())
        .unwrap_or_default();
    let mut notes = Vec::new();
    let tools: Vec<Value> = tools
        .into_iter()
        .map(|tool| with_simulated_output(tool, &mut notes))
        .collect();
    let document = json!({
        "format": 1,
        "name": name,
        "description": format!("Imported from {server_name} ({source}) by mcpick import"),
        "imported": { "from": source, "server": server_name, "protocolVersion": protocol_version },
        "tools": tools,
    });
    if let Some(parent) = options
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(
        &options.output,
        serde_json::to_string_pretty(&document).unwrap_or_default() + "\n",
    )?;
    writeln!(
        out,
        "wrote {} tools from {server_name} (MCP {protocol_version}) to {}",
        tools.len(),
        options.output.display()
    )?;
    for note in notes {
        writeln!(out, "  note: {note}")?;
    }

    // What was written must load: check it the way `validate` does.
    let workspace = Workspace::load(std::slice::from_ref(&options.output));
    let problems: Vec<_> = workspace
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .collect();
    for d in &problems {
        writeln!(out, "{d}")?;
    }
    Ok(if workspace.has_errors() {
        ExitStatus::InvalidInput
    } else {
        ExitStatus::Success
    })
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
fn split_command(line: &str) -> Result<Vec<String>, String> {
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
