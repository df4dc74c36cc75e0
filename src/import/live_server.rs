//! A live MCP server's tools, snapshotted (`mcpick import`): a server started from a command line
//! (split the way a shell would) or reached at a URL, spoken to in the revision it answers, its
//! `tools/list` read whole, and written as a JSON toolset that `validate` accepts, which keeps where
//! it came from: the command or URL, the server's reported name and version, the revision spoken.
//! What the server writes on standard error is kept for the import log, not shown as mcpick's.
//! `save_server_tools` is the whole of it, snapshot to written file, for `import` and `draft` alike.
//! Tools are kept verbatim, each given a simulated answer that is not empty: structured content
//! built from its `outputSchema` (strings filled with placeholders naming the field and the tool),
//! or a short text naming the tool and echoing the arguments — and the file says so.

use super::server_command::StdioServer;
use crate::mcp::client::{HttpEndpoint, HttpTransport, McpClient, Negotiation, StderrLog};
use crate::simulated_answer::with_simulated_answer;
use crate::spec::{ToolsetDocument, json_text, toml_text};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

/// Where the server is.
#[derive(Debug, Clone)]
pub enum ServerSource {
    /// A command line that starts it on stdio.
    Stdio(StdioServer),
    Http(HttpServer),
}

/// A server reached over HTTP, and its URL as the command line or config file wrote it (a URL
/// built from `${VAR}` may hold a secret; the template does not).
#[derive(Debug, Clone)]
pub struct HttpServer {
    pub endpoint: HttpEndpoint,
    pub url_as_written: String,
}

impl HttpServer {
    /// Streamable HTTP at `url`, as `--url` names it.
    pub fn at(url: &str) -> HttpServer {
        HttpServer {
            endpoint: HttpEndpoint::streamable(url),
            url_as_written: url.to_string(),
        }
    }
}

impl ServerSource {
    /// How the toolset file and messages name where it came from: the command's words without
    /// the values of the variables set for it, or the URL as written.
    pub fn label(&self) -> String {
        match self {
            ServerSource::Stdio(server) => server.recorded().0.join(" "),
            ServerSource::Http(server) => server.url_as_written.clone(),
        }
    }
}

/// A server to snapshot, as the command line chose it: where it is, and what else the toolset
/// records of how it was named (the config file and entry, the registry's name and version).
#[derive(Debug, Clone)]
pub struct ChosenServer {
    /// The config's name for it, if a config named it.
    pub name: Option<String>,
    pub source: ServerSource,
    pub recorded: Vec<(String, Value)>,
}

impl ChosenServer {
    /// A server named only by where it is (`--stdio`, `--url`).
    pub fn plain(source: ServerSource) -> ChosenServer {
        ChosenServer {
            name: None,
            source,
            recorded: Vec::new(),
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
    /// What the server tells hosts to put in the model's prompt (`instructions`), if anything.
    pub instructions: Option<String>,
    /// What a server started on stdio wrote on standard error while it was asked.
    pub stderr: String,
}

/// Why a snapshot failed, and what a server started on stdio said on standard error meanwhile.
#[derive(Debug, Clone)]
pub struct SnapshotFailure {
    pub message: String,
    pub stderr: String,
}

/// Connects to the server in the revision `negotiation` settles on and lists its tools, each
/// request waiting up to `timeout`.
pub async fn snapshot_server(
    source: &ServerSource,
    negotiation: Negotiation,
    timeout: Duration,
) -> Result<ServerSnapshot, SnapshotFailure> {
    let stderr = StderrLog::default();
    let failed = |message: String| SnapshotFailure {
        message,
        stderr: String::new(),
    };
    let client = match source {
        ServerSource::Stdio(server) => {
            let launch = server
                .launch(timeout)
                .map_err(|e| failed(format!("--stdio: {e}")))?;
            McpClient::spawn(&launch, negotiation, stderr.clone()).await
        }
        ServerSource::Http(server) => {
            McpClient::connect_endpoint(&server.endpoint, negotiation, timeout).await
        }
    };
    let client = match client {
        Ok(client) => client,
        Err(e) => {
            // A server that died says why as it goes: let its last words arrive.
            tokio::time::sleep(Duration::from_millis(200)).await;
            return Err(SnapshotFailure {
                message: format!("cannot connect: {e}"),
                stderr: stderr.text(),
            });
        }
    };
    let tools = match client.list_tools().await {
        Ok(tools) => tools,
        Err(e) => {
            return Err(SnapshotFailure {
                message: format!("tools/list failed: {e}"),
                stderr: client.server_stderr(),
            });
        }
    };
    Ok(ServerSnapshot {
        server_name: client.server_name().unwrap_or("an MCP server").to_string(),
        server_version: client.server_version().map(str::to_string),
        protocol_version: client.protocol_version.clone(),
        tools,
        instructions: client.server_instructions().map(str::to_string),
        stderr: client.server_stderr(),
    })
}

/// The format a toolset file is written in, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsetFormat {
    Json,
    Toml,
}

impl ToolsetFormat {
    /// `.json` or `.toml`; any other name is refused by name, before a server is started.
    pub fn of(file: &std::path::Path) -> Result<ToolsetFormat, String> {
        match file.extension().and_then(|e| e.to_str()) {
            Some("json") => Ok(ToolsetFormat::Json),
            Some("toml") => Ok(ToolsetFormat::Toml),
            _ => Err(format!(
                "{}: a toolset file is named .json (the server's tools as it sent them) or .toml",
                file.display()
            )),
        }
    }
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
    server: &ChosenServer,
    negotiation: Negotiation,
    timeout: Duration,
    place: &dyn Fn(&str) -> (PathBuf, String),
) -> std::io::Result<Result<SavedTools, String>> {
    let source = &server.source;
    let snapshot = match snapshot_server(source, negotiation, timeout).await {
        Ok(snapshot) => snapshot,
        Err(failure) => {
            // The server never said its name: the log goes where the toolset would have.
            let (file, _) = place("server");
            return Ok(Err(failure_message(&failure, &file, source)?));
        }
    };
    let (file, name) = place(&snapshot.server_name);
    let (file, name) = (file.as_path(), name.as_str());
    let (server_name, protocol_version, tools) = (
        snapshot.server_name.clone(),
        snapshot.protocol_version.clone(),
        snapshot.tools.len(),
    );
    let server_stderr = snapshot.stderr.clone();
    let (mut document, notes) = toolset_document(snapshot, name, source);
    if let Some(imported) = document.imported.as_mut() {
        for (key, value) in &server.recorded {
            imported[key] = value.clone();
        }
    }
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let text = match ToolsetFormat::of(file) {
        Ok(ToolsetFormat::Json) => json_text(&document),
        Ok(ToolsetFormat::Toml) => document
            .to_toml_file()
            .and_then(|toml| toml_text(&toml))
            .map_err(|e| format!("{e}; name the file .json, which holds any tool a server sends")),
        Err(e) => Err(e),
    };
    let text = match text {
        Ok(text) => text,
        Err(message) => return Ok(Err(message)),
    };
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

/// A failure, with the last lines the server wrote on standard error and where all of it is
/// kept (`FILE.import.log`), so "no reply" points at the server's own words.
fn failure_message(
    failure: &SnapshotFailure,
    file: &std::path::Path,
    source: &ServerSource,
) -> std::io::Result<String> {
    if let ServerSource::Http(server) = source {
        return Ok(format!("{} ({})", failure.message, server.url_as_written));
    }
    if failure.stderr.trim().is_empty() {
        return Ok(format!(
            "{} (the server wrote nothing on standard error; is it an MCP server speaking on stdio?)",
            failure.message
        ));
    }
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let log = file.with_extension("import.log");
    crate::file_replace::replace(&log, failure.stderr.as_bytes())?;
    let lines: Vec<&str> = failure.stderr.lines().collect();
    let last = &lines[lines.len().saturating_sub(LAST_STDERR_LINES)..];
    Ok(format!(
        "{}\n  the server's standard error, last {} of {} lines (all of it in {}):\n{}",
        failure.message,
        last.len(),
        lines.len(),
        log.display(),
        last.iter()
            .map(|line| format!("    | {line}"))
            .collect::<Vec<_>>()
            .join("\n")
    ))
}

/// How many of a failed server's last standard-error lines a message shows.
const LAST_STDERR_LINES: usize = 10;

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
        ServerSource::Stdio(server) => {
            let (words, env_names) = server.recorded();
            imported["command"] = json!(words);
            if !env_names.is_empty() {
                // Names only: a value may be a secret, and it reached the server, not the file.
                imported["env"] = json!(env_names);
            }
        }
        ServerSource::Http(server) => {
            imported["url"] = json!(server.url_as_written);
            if server.endpoint.transport == HttpTransport::LegacySse {
                imported["transport"] = json!("sse");
            }
            if !server.endpoint.headers.is_empty() {
                // Names only, as for a command's variables: a header is often a credential.
                let names: Vec<&str> = server
                    .endpoint
                    .headers
                    .iter()
                    .map(|(name, _)| name.as_str())
                    .collect();
                imported["headers"] = json!(names);
            }
        }
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
    document.instructions = snapshot.instructions;
    (document, notes)
}
