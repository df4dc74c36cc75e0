//! Servers from the files people already have (`--mcp-config FILE[#NAME]`): Claude Desktop's
//! `claude_desktop_config.json`, Claude Code's `.mcp.json` and Cursor's `.cursor/mcp.json`
//! (`mcpServers`), VS Code's `.vscode/mcp.json` (`servers` and `inputs`, JSON with comments, or
//! `mcp` in its settings), and the MCP registry's `server.json` (`packages` and `remotes`). The
//! shape is told from the keys; an entry is read only when it is chosen, so a variable another
//! server needs does not stop this one. Values filled from the environment (`expand`) go to the
//! server only: what is recorded of a server is what the file wrote.

mod client_entry;
mod expand;
mod jsonc;
mod registry;

pub use expand::{Environment, input_variable};
pub use registry::RegistryEntry;

use crate::import::live_server::ServerSource;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `FILE` or `FILE#NAME`, as `--mcp-config` takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigChoice {
    pub file: PathBuf,
    pub name: Option<String>,
}

impl std::str::FromStr for ConfigChoice {
    type Err = String;
    fn from_str(text: &str) -> Result<ConfigChoice, String> {
        let (file, name) = match text.rsplit_once('#') {
            Some((file, name)) if !name.is_empty() => (file, Some(name.to_string())),
            Some((file, _)) => (file, None),
            None => (text, None),
        };
        if file.is_empty() {
            return Err("give the config file: FILE or FILE#NAME".into());
        }
        Ok(ConfigChoice {
            file: PathBuf::from(file),
            name,
        })
    }
}

/// Which kind of file it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigShape {
    /// `mcpServers`: Claude Desktop, Claude Code, Cursor.
    McpServers,
    /// `servers` (and `inputs`): VS Code.
    VsCode,
    /// A registry `server.json`.
    Registry,
}

/// A config file read: its servers by name, not yet filled in.
pub struct ConfigFile {
    pub path: PathBuf,
    pub shape: ConfigShape,
    /// The object the servers live in (for VS Code settings, the `mcp` object).
    document: Map<String, Value>,
    /// Name and key path of each server, in file order.
    entries: Vec<(String, String)>,
    pub registry: Option<RegistryEntry>,
}

/// One server of a config file, ready to start or reach.
#[derive(Debug, Clone)]
pub struct ConfiguredServer {
    pub name: String,
    pub source: ServerSource,
    /// `FILE#NAME`, as recorded in the toolset.
    pub origin: String,
    pub registry: Option<RegistryEntry>,
}

impl ConfigFile {
    /// Reads and classifies `path`; an unreadable file, bad JSON (at its line) or an unknown
    /// shape is an error naming the file.
    pub fn read(path: &Path) -> Result<ConfigFile, String> {
        let shown = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
        let value: Value = serde_json::from_str(&jsonc::strip_comments(&text))
            .map_err(|e| format!("{shown}:{}:{}: not JSON: {e}", e.line(), e.column()))?;
        let Value::Object(mut document) = value else {
            return Err(format!("{shown}: an MCP config is a JSON object"));
        };
        // VS Code's settings.json keeps the same shape under `mcp`.
        if !document.contains_key("servers")
            && let Some(Value::Object(mcp)) = document.get("mcp")
        {
            document = mcp.clone();
        }
        let (shape, entries) = if let Some(servers) = document.get("mcpServers") {
            (
                ConfigShape::McpServers,
                names(servers, "mcpServers", &shown)?,
            )
        } else if let Some(servers) = document.get("servers") {
            (ConfigShape::VsCode, names(servers, "servers", &shown)?)
        } else if document.contains_key("packages") || document.contains_key("remotes") {
            (ConfigShape::Registry, registry::entry_names(&document))
        } else {
            return Err(format!(
                "{shown}: not an MCP config mcpick knows: expected `mcpServers` (Claude Desktop, Claude Code, Cursor), `servers` (VS Code) or `packages`/`remotes` (a registry server.json)"
            ));
        };
        let registry = match shape {
            ConfigShape::Registry => {
                Some(registry::registry_entry(&document).map_err(|e| format!("{shown}: {e}"))?)
            }
            _ => None,
        };
        if entries.is_empty() {
            return Err(format!("{shown}: it names no server"));
        }
        Ok(ConfigFile {
            path: path.to_path_buf(),
            shape,
            document,
            entries,
            registry,
        })
    }

    /// The servers' names, in file order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(name, _)| name.as_str()).collect()
    }

    /// The folder a client would start this file's servers in: the project of a `.vscode/` or
    /// `.cursor/` file, else the file's own folder.
    pub fn workspace(&self) -> PathBuf {
        let folder = self
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        match folder.file_name().and_then(|n| n.to_str()) {
            Some(".vscode" | ".cursor") => {
                folder.parent().map_or(folder.clone(), Path::to_path_buf)
            }
            _ => folder,
        }
    }

    /// The defaults of VS Code's `inputs`, by id.
    pub fn input_defaults(&self) -> HashMap<String, String> {
        let inputs = self.document.get("inputs").and_then(Value::as_array);
        inputs
            .into_iter()
            .flatten()
            .filter_map(|input| {
                let id = input.get("id")?.as_str()?;
                let default = input.get("default")?.as_str()?;
                Some((id.to_string(), default.to_string()))
            })
            .collect()
    }

    /// The server called `name`, filled in from `env`; a name the file does not have is an error
    /// listing those it has.
    pub fn server(&self, name: &str, env: &Environment) -> Result<ConfiguredServer, String> {
        let shown = self.path.display();
        let Some((_, place)) = self.entries.iter().find(|(known, _)| known == name) else {
            return Err(format!(
                "{shown} has no server {name:?}; it has: {}",
                self.names().join(", ")
            ));
        };
        let source = match self.shape {
            ConfigShape::Registry => registry::registry_server(&self.document, place, env),
            ConfigShape::McpServers | ConfigShape::VsCode => {
                let (list, key) = place.split_once('.').unwrap_or((place, name));
                let entry = &self.document[list][key];
                client_entry::client_server(entry, place, env)
            }
        }
        .map_err(|e| format!("{shown}: {e}"))?;
        Ok(ConfiguredServer {
            name: name.to_string(),
            source,
            origin: format!("{}#{name}", self.path.display()),
            registry: self.registry.clone(),
        })
    }
}

/// The names of the servers in the object at `key`, with their key paths.
fn names(
    servers: &Value,
    key: &str,
    shown: &impl std::fmt::Display,
) -> Result<Vec<(String, String)>, String> {
    let servers = servers
        .as_object()
        .ok_or_else(|| format!("{shown}: `{key}` is an object of servers by name"))?;
    Ok(servers
        .keys()
        .map(|name| (name.clone(), format!("{key}.{name}")))
        .collect())
}
