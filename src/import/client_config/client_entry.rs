//! One server of a client's config — an entry of `mcpServers` (Claude Desktop, Claude Code,
//! Cursor) or `servers` (VS Code) — as a server to start or reach: `command`, `args`, `env`,
//! `envFile` and `cwd` for stdio; `url` and `headers` for `http` (Streamable HTTP) and `sse` (the
//! 2024-11-05 transport). Without a `type`, a `command` means stdio and a `url` HTTP, as the
//! clients read it. Relative paths are taken from the workspace folder, where the clients start
//! servers. Keys a client reads and mcpick has no use for (`disabled`, `autoApprove`, ...) are
//! left alone.

use super::expand::Environment;
use crate::import::live_server::{HttpServer, ServerSource};
use crate::import::server_command::{ConfiguredWords, StdioServer};
use crate::mcp::client::{HttpEndpoint, HttpTransport};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The server `entry` (at key path `place`) describes.
pub fn client_server(
    entry: &Value,
    place: &str,
    env: &Environment,
) -> Result<ServerSource, String> {
    let entry = entry
        .as_object()
        .ok_or_else(|| format!("{place}: a server is an object with `command` or `url`"))?;
    let kind = match entry.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(_) => return Err(format!("{place}.type: a string (stdio, http or sse)")),
    };
    let transport = match (
        kind,
        entry.contains_key("command"),
        entry.contains_key("url"),
    ) {
        (Some("stdio"), ..) | (None, true, _) => None,
        (Some("http" | "streamable-http" | "streamableHttp"), ..) | (None, false, true) => {
            Some(HttpTransport::Streamable)
        }
        (Some("sse"), ..) => Some(HttpTransport::LegacySse),
        (Some(other), ..) => {
            return Err(format!(
                "{place}.type: {other:?} is not a transport (stdio, http or sse)"
            ));
        }
        (None, false, false) => {
            return Err(format!(
                "{place}: neither `command` (a server to start) nor `url` (one to reach)"
            ));
        }
    };
    match transport {
        None => stdio_server(entry, place, env).map(ServerSource::Stdio),
        Some(transport) => http_server(entry, place, env, transport).map(ServerSource::Http),
    }
}

fn stdio_server(
    entry: &Map<String, Value>,
    place: &str,
    env: &Environment,
) -> Result<StdioServer, String> {
    let command = string_at(entry, "command", place)?
        .ok_or_else(|| format!("{place}.command is missing: a stdio server needs it"))?;
    let mut as_written = vec![command.to_string()];
    let mut words = vec![env.expand(command, &format!("{place}.command"))?];
    match entry.get("args") {
        None | Some(Value::Null) => {}
        Some(Value::Array(args)) => {
            for (i, arg) in args.iter().enumerate() {
                let here = format!("{place}.args[{i}]");
                let arg = arg
                    .as_str()
                    .ok_or_else(|| format!("{here}: an argument is a string"))?;
                as_written.push(arg.to_string());
                words.push(env.expand(arg, &here)?);
            }
        }
        Some(_) => return Err(format!("{place}.args: a list of strings")),
    }
    let cwd = match string_at(entry, "cwd", place)? {
        Some(cwd) => env
            .workspace
            .join(env.expand(cwd, &format!("{place}.cwd"))?),
        None => env.workspace.clone(),
    };
    // A program named by a relative path is the workspace's, as the client starts it there.
    if words[0].contains('/') && Path::new(&words[0]).is_relative() {
        words[0] = cwd.join(&words[0]).display().to_string();
    }
    let mut variables = match string_at(entry, "envFile", place)? {
        Some(file) => env_file(
            &env.workspace
                .join(env.expand(file, &format!("{place}.envFile"))?),
            place,
        )?,
        None => Vec::new(),
    };
    for (name, value) in string_map(entry, "env", place)? {
        let value = env.expand(value, &format!("{place}.env.{name}"))?;
        variables.retain(|(known, _)| known != name);
        variables.push((name.to_string(), value));
    }
    Ok(StdioServer {
        line: String::new(),
        env: variables,
        cwd: Some(cwd),
        argv: Some(ConfiguredWords { words, as_written }),
    })
}

fn http_server(
    entry: &Map<String, Value>,
    place: &str,
    env: &Environment,
    transport: HttpTransport,
) -> Result<HttpServer, String> {
    let url = string_at(entry, "url", place)?
        .ok_or_else(|| format!("{place}.url is missing: an HTTP server needs it"))?;
    let mut headers = Vec::new();
    for (name, value) in string_map(entry, "headers", place)? {
        headers.push((
            name.to_string(),
            env.expand(value, &format!("{place}.headers.{name}"))?,
        ));
    }
    Ok(HttpServer {
        endpoint: HttpEndpoint {
            url: env.expand(url, &format!("{place}.url"))?,
            headers,
            transport,
        },
        url_as_written: url.to_string(),
    })
}

/// The string at `key`, if there is one; another kind of value is an error naming it.
fn string_at<'a>(
    entry: &'a Map<String, Value>,
    key: &str,
    place: &str,
) -> Result<Option<&'a str>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(format!("{place}.{key}: a string")),
    }
}

/// The object of strings at `key` (`env`, `headers`), in file order.
fn string_map<'a>(
    entry: &'a Map<String, Value>,
    key: &str,
    place: &str,
) -> Result<Vec<(&'a str, &'a str)>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| match value {
                Value::String(value) => Ok((name.as_str(), value.as_str())),
                _ => Err(format!("{place}.{key}.{name}: a string")),
            })
            .collect(),
        Some(_) => Err(format!("{place}.{key}: an object of names and strings")),
    }
}

/// `NAME=value` lines of an env file (`#` comments, blank lines and `export ` allowed).
fn env_file(file: &PathBuf, place: &str) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{place}.envFile: cannot read {}: {e}", file.display()))?;
    let mut variables = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let (name, value) = line
            .split_once('=')
            .ok_or_else(|| format!("{}:{}: not NAME=value", file.display(), i + 1))?;
        let value = value.trim();
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        variables.push((name.trim().to_string(), unquoted.to_string()));
    }
    Ok(variables)
}
