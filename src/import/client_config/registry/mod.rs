//! The MCP registry's `server.json` (schema 2025-12-11) as servers to start or reach: each
//! `packages[]` entry started the way its registry type says and pinned to the version it names
//! — npm with `npx -y ID@VERSION`, PyPI with `uvx ID==VERSION`, OCI with `docker run -i --rm
//! IMAGE:TAG`, NuGet with `dnx ID@VERSION --yes` — its `runtimeHint`, runtime and package
//! arguments and environment variables applied; each `remotes[]` entry reached at its URL with
//! its headers. A value the file leaves to the user (no `value`, no `default`) comes from the
//! environment: an environment variable by its own name, an argument or URL variable from
//! `$MCPICK_INPUT_<NAME>` or `--input NAME=VAR`. The registry's name, version and description
//! are kept for the toolset and for `lint`.

use super::expand::{Environment, input_variable};
use crate::import::live_server::{HttpServer, ServerSource};
use crate::import::server_command::{ConfiguredWords, StdioServer};
use crate::mcp::client::{HttpEndpoint, HttpTransport};
use serde_json::{Map, Value};

/// What the registry says of the server, kept in the imported toolset.
pub type RegistryEntry = crate::model::RegistryListing;

/// The registry entry of a `server.json` document.
pub fn registry_entry(document: &Map<String, Value>) -> Result<RegistryEntry, String> {
    let name = document
        .get("name")
        .and_then(Value::as_str)
        .ok_or("name is missing: a server.json names its server (`io.github.owner/server`)")?;
    Ok(RegistryEntry {
        name: name.to_string(),
        version: document
            .get("version")
            .and_then(Value::as_str)
            .map(str::to_string),
        description: document
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// The names of a `server.json`'s entries, in file order: each package by its registry type
/// (`npm`, `pypi`, `npm-2` for a second), each remote as `remote` (`remote-2`, ...), with the
/// key path of each.
pub fn entry_names(document: &Map<String, Value>) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = Vec::new();
    let mut add = |base: &str, place: String| {
        let taken = names
            .iter()
            .filter(|(n, _)| n == base || n.starts_with(&format!("{base}-")))
            .count();
        let name = if taken == 0 {
            base.to_string()
        } else {
            format!("{base}-{}", taken + 1)
        };
        names.push((name, place));
    };
    for (i, package) in array(document, "packages").iter().enumerate() {
        let kind = package
            .get("registryType")
            .and_then(Value::as_str)
            .unwrap_or("package");
        add(kind, format!("packages[{i}]"));
    }
    for i in 0..array(document, "remotes").len() {
        add("remote", format!("remotes[{i}]"));
    }
    names
}

/// The server the entry at `place` (`packages[i]` or `remotes[i]`) describes.
pub fn registry_server(
    document: &Map<String, Value>,
    place: &str,
    env: &Environment,
) -> Result<ServerSource, String> {
    let (list, index) = place
        .trim_end_matches(']')
        .split_once('[')
        .and_then(|(list, i)| Some((list, i.parse::<usize>().ok()?)))
        .ok_or_else(|| format!("{place}: not an entry"))?;
    let entry = array(document, list)
        .get(index)
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{place}: an object"))?;
    if list == "remotes" {
        remote(entry, place, env).map(ServerSource::Http)
    } else {
        package(entry, place, env).map(ServerSource::Stdio)
    }
}

fn array<'a>(document: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    document
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn required<'a>(entry: &'a Map<String, Value>, key: &str, place: &str) -> Result<&'a str, String> {
    entry
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{place}.{key} is missing"))
}

/// A value filled from an input: what is used, and what may be recorded of it.
struct Filled {
    value: String,
    shown: String,
}

fn package(
    entry: &Map<String, Value>,
    place: &str,
    env: &Environment,
) -> Result<StdioServer, String> {
    let kind = required(entry, "registryType", place)?;
    let identifier = required(entry, "identifier", place)?;
    let version = entry.get("version").and_then(Value::as_str);
    if let Some(transport) = entry
        .get("transport")
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str)
        && transport != "stdio"
    {
        return Err(format!(
            "{place}.transport.type is {transport:?}: that package serves HTTP once started; start it yourself and give its URL with --url"
        ));
    }
    let pinned = |separator: &str| -> Result<String, String> {
        let version = version.ok_or_else(|| {
            format!("{place}.version is missing: a {kind} package is started pinned")
        })?;
        if version == "latest" {
            return Err(format!(
                "{place}.version is \"latest\": the registry takes a specific version"
            ));
        }
        Ok(format!("{identifier}{separator}{version}"))
    };
    let (default_runtime, spec) = match kind {
        "npm" => ("npx", pinned("@")?),
        "pypi" => ("uvx", pinned("==")?),
        "nuget" => ("dnx", pinned("@")?),
        "oci" => {
            let tagged = identifier
                .rsplit('/')
                .next()
                .is_some_and(|last| last.contains(':'))
                || identifier.contains('@');
            match (tagged, version) {
                (true, _) => ("docker", identifier.to_string()),
                (false, Some(_)) => ("docker", pinned(":")?),
                (false, None) => {
                    return Err(format!(
                        "{place}.identifier {identifier:?} has no tag and the package no version: nothing pins it"
                    ));
                }
            }
        }
        other => {
            return Err(format!(
                "{place}.registryType {other:?}: mcpick starts npm, pypi, oci and nuget packages (an mcpb bundle is installed into a client)"
            ));
        }
    };
    let runtime = entry
        .get("runtimeHint")
        .and_then(Value::as_str)
        .unwrap_or(default_runtime);
    let runtime_args = arguments(entry, "runtimeArguments", place, env)?;
    let package_args = arguments(entry, "packageArguments", place, env)?;
    let mut variables = Vec::new();
    for (i, variable) in array(entry, "environmentVariables").iter().enumerate() {
        let here = format!("{place}.environmentVariables[{i}]");
        let name = variable
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{here}.name is missing"))?;
        if let Some(filled) = input_value(variable, name, &here, env, true)? {
            variables.push((name.to_string(), filled.value));
        }
    }
    let mut words: Vec<Filled> = vec![shown_as_is(runtime)];
    if runtime_args.is_empty() {
        match runtime {
            "npx" => words.push(shown_as_is("-y")),
            "docker" => words.extend(["run", "-i", "--rm"].map(shown_as_is)),
            _ => {}
        }
    }
    words.extend(runtime_args);
    if runtime == "docker" {
        // The container sees only the variables it is handed: name each one (values by inheritance).
        for (name, _) in &variables {
            words.extend([shown_as_is("-e"), shown_as_is(name)]);
        }
    }
    words.push(shown_as_is(&spec));
    if kind == "nuget" && runtime == "dnx" {
        words.push(shown_as_is("--yes"));
    }
    words.extend(package_args);
    Ok(StdioServer {
        line: String::new(),
        env: variables,
        cwd: None,
        argv: Some(ConfiguredWords {
            as_written: words.iter().map(|w| w.shown.clone()).collect(),
            words: words.into_iter().map(|w| w.value).collect(),
        }),
    })
}

fn shown_as_is(word: &str) -> Filled {
    Filled {
        value: word.to_string(),
        shown: word.to_string(),
    }
}

/// The words of an argument list: a positional's value; a named one's flag and its value.
fn arguments(
    entry: &Map<String, Value>,
    key: &str,
    place: &str,
    env: &Environment,
) -> Result<Vec<Filled>, String> {
    let mut words = Vec::new();
    for (i, argument) in array(entry, key).iter().enumerate() {
        let here = format!("{place}.{key}[{i}]");
        let kind = argument
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("positional");
        match kind {
            "positional" => {
                let id = argument
                    .get("valueHint")
                    .and_then(Value::as_str)
                    .unwrap_or("argument");
                if let Some(filled) = input_value(argument, id, &here, env, false)? {
                    words.push(filled);
                }
            }
            "named" => {
                let flag = argument
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("{here}.name is missing"))?;
                let id = flag.trim_start_matches('-');
                let has_value = ["value", "default", "valueHint"]
                    .iter()
                    .any(|k| argument.get(*k).is_some())
                    || argument
                        .get("isRequired")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                if !has_value {
                    words.push(shown_as_is(flag));
                } else if let Some(filled) = input_value(argument, id, &here, env, false)? {
                    words.push(shown_as_is(flag));
                    words.push(filled);
                }
            }
            other => return Err(format!("{here}.type {other:?}: positional or named")),
        }
    }
    Ok(words)
}

/// An input's value: its `value` (its `{variables}` filled), else the environment (a variable's
/// own name when `by_name`, else `$MCPICK_INPUT_<ID>` or `--input`), else its `default`; a
/// required input with none of these is an error, an optional one is left out.
fn input_value(
    input: &Value,
    id: &str,
    place: &str,
    env: &Environment,
    by_name: bool,
) -> Result<Option<Filled>, String> {
    if let Some(value) = input.get("value").and_then(Value::as_str) {
        return fill_braces(value, input.get("variables"), place, env).map(Some);
    }
    let from_environment = if by_name {
        env.variable(id).map(str::to_string)
    } else {
        env.input(id).ok()
    };
    let secret = input
        .get("isSecret")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(value) = from_environment {
        let shown = if by_name {
            format!("${{{id}}}")
        } else {
            format!("${{{}}}", input_variable(id))
        };
        let shown = if secret || !by_name {
            shown
        } else {
            value.clone()
        };
        return Ok(Some(Filled { value, shown }));
    }
    if let Some(default) = input.get("default").and_then(Value::as_str) {
        return Ok(Some(shown_as_is(default)));
    }
    if input
        .get("isRequired")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        let source = if by_name {
            format!("set ${id}")
        } else {
            format!("set ${} or give --input {id}=VAR", input_variable(id))
        };
        return Err(format!(
            "{place}: `{id}` is required and has no value or default: {source}"
        ));
    }
    Ok(None)
}

/// `text` with `{name}` replaced from `variables` (each an input); a name not there stays as it is.
fn fill_braces(
    text: &str,
    variables: Option<&Value>,
    place: &str,
    env: &Environment,
) -> Result<Filled, String> {
    let Some(Value::Object(variables)) = variables else {
        return Ok(shown_as_is(text));
    };
    let (mut value, mut shown) = (text.to_string(), text.to_string());
    for (name, variable) in variables {
        let braces = format!("{{{name}}}");
        if !value.contains(&braces) {
            continue;
        }
        let filled = input_value(variable, name, &format!("{place}.variables.{name}"), env, false)?
            .ok_or_else(|| format!("{place}.variables.{name}: no value for {braces}: set ${} or give --input {name}=VAR", input_variable(name)))?;
        value = value.replace(&braces, &filled.value);
        shown = shown.replace(&braces, &filled.shown);
    }
    Ok(Filled { value, shown })
}

fn remote(
    entry: &Map<String, Value>,
    place: &str,
    env: &Environment,
) -> Result<HttpServer, String> {
    let transport = match required(entry, "type", place)? {
        "streamable-http" | "http" => HttpTransport::Streamable,
        "sse" => HttpTransport::LegacySse,
        other => return Err(format!("{place}.type {other:?}: streamable-http or sse")),
    };
    let url = required(entry, "url", place)?;
    let url = fill_braces(url, entry.get("variables"), &format!("{place}.url"), env)?;
    let mut headers = Vec::new();
    for (i, header) in array(entry, "headers").iter().enumerate() {
        let here = format!("{place}.headers[{i}]");
        let name = header
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{here}.name is missing"))?;
        if let Some(filled) = input_value(header, name, &here, env, false)? {
            headers.push((name.to_string(), filled.value));
        }
    }
    Ok(HttpServer {
        endpoint: HttpEndpoint {
            url: url.value,
            headers,
            transport,
        },
        url_as_written: url.shown,
    })
}

#[cfg(test)]
mod tests;
