//! A toolset served live (`mcpick serve`): the tools a server serves for the toolset a command names
//! (its own, and the conformance suite's fixtures when asked), and the watcher that polls the files
//! behind it and, on a settled change, loads them again — a valid edit that changes the tools is
//! swapped into the server (every session then gets one `notifications/tools/list_changed`), an
//! invalid one keeps the previous tools. What happened is handed to the caller as a `Reload`; nothing
//! here prints.

use crate::load::{Diagnostic, ToolsetTarget};
use crate::mcp::{McpServer, ServedTools, fixtures};
use crate::model::{Tool, Toolset};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// How often the watched files' modification times are checked.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);
/// How long a change must be quiet before it is loaded (editors write in several steps).
const SETTLE: Duration = Duration::from_millis(100);

/// What a settled change to the watched files led to.
#[derive(Debug)]
pub enum Reload {
    /// The new tools are served: the toolset file and how many tools it has.
    Served { source: PathBuf, tools: usize },
    /// The edit does not load; the previous tools are still served.
    Invalid(Vec<Diagnostic>),
    /// The edit loads but cannot be served (or could not be loaded at all); the previous tools
    /// are still served.
    Failed(String),
}

/// The tools to serve for `toolset`, with the conformance fixtures after its own when asked.
pub fn served_tools(toolset: &Toolset, with_fixtures: bool) -> Result<ServedTools, String> {
    let tools = toolset.tools.clone();
    let served = if with_fixtures {
        ServedTools::with_fixtures(tools, fixtures::tools())
    } else {
        ServedTools::new(tools)
    };
    served.map_err(|e| format!("{}: cannot serve: {e}", toolset.source.display()))
}

/// Polls the files behind `target` until the task is dropped; each settled change that alters what
/// would be served is loaded and, if it serves, swapped in. `on_reload` hears of every load.
pub async fn watch_and_reload(
    server: Arc<McpServer>,
    target: ToolsetTarget,
    with_fixtures: bool,
    on_reload: impl Fn(Reload) + Send + 'static,
) {
    let paths = target.paths();
    let mut last = modification_times(&paths);
    loop {
        tokio::time::sleep(WATCH_INTERVAL).await;
        if modification_times(&paths) == last {
            continue;
        }
        tokio::time::sleep(SETTLE).await;
        last = modification_times(&paths);
        let reloaded = tokio::task::spawn_blocking({
            let target = target.clone();
            move || target.load()
        })
        .await;
        let toolset = match reloaded {
            Ok(Ok(toolset)) => toolset,
            Ok(Err(errors)) => {
                on_reload(Reload::Invalid(errors));
                continue;
            }
            Err(e) => {
                on_reload(Reload::Failed(format!("reload failed: {e}")));
                continue;
            }
        };
        if serves_the_same(&server, &toolset.tools, with_fixtures) {
            continue;
        }
        match served_tools(&toolset, with_fixtures) {
            Ok(served) => {
                server.replace_tools(served);
                on_reload(Reload::Served {
                    source: toolset.source.clone(),
                    tools: toolset.tools.len(),
                });
            }
            Err(message) => on_reload(Reload::Failed(message)),
        }
    }
}

/// Whether `tools` (with the fixtures, if served) are exactly what `server` serves now.
fn serves_the_same(server: &McpServer, tools: &[Tool], with_fixtures: bool) -> bool {
    let current = server.tools();
    let current: Vec<_> = current
        .registry
        .tools()
        .iter()
        .map(|t| serde_json::to_value(&t.tool).ok())
        .collect();
    let fixture_tools = if with_fixtures {
        fixtures::tools()
    } else {
        Vec::new()
    };
    let new: Vec<_> = tools
        .iter()
        .chain(&fixture_tools)
        .map(|t| serde_json::to_value(t).ok())
        .collect();
    current == new
}

fn modification_times(paths: &[PathBuf]) -> Vec<Option<SystemTime>> {
    paths.iter().map(|p| latest_modification(p)).collect()
}

/// A file's modification time, or for a directory the newest among its files.
fn latest_modification(path: &Path) -> Option<SystemTime> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_dir() {
        return metadata.modified().ok();
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.metadata().ok()?.modified().ok())
        .max()
}
