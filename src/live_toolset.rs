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

/// The state of the files behind a toolset at one moment: what a change is measured against.
pub struct WatchedFiles {
    paths: Vec<PathBuf>,
    last: Vec<Option<FileStamp>>,
}

impl WatchedFiles {
    /// The files behind `target` as they are now. Taken before the first load, so an edit that
    /// lands while the server starts is a change rather than the baseline (a watcher that read its
    /// baseline only once it was scheduled missed such an edit).
    pub fn now(target: &ToolsetTarget) -> Self {
        let paths = target.paths();
        let last = stamps(&paths);
        Self { paths, last }
    }
}

/// Polls the files behind `target` until the task is dropped; each settled change since `files`
/// that alters what would be served is loaded and, if it serves, swapped in. `on_reload` hears of
/// every load.
pub async fn watch_and_reload(
    server: Arc<McpServer>,
    target: ToolsetTarget,
    files: WatchedFiles,
    with_fixtures: bool,
    on_reload: impl Fn(Reload) + Send + 'static,
) {
    let WatchedFiles { paths, mut last } = files;
    loop {
        tokio::time::sleep(WATCH_INTERVAL).await;
        if stamps(&paths) == last {
            continue;
        }
        tokio::time::sleep(SETTLE).await;
        last = stamps(&paths);
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

/// A file's modification time and length, or for a directory its newest modification time and
/// the sum of its files' lengths. The length catches an edit that lands within the file system's
/// timestamp tick.
type FileStamp = (SystemTime, u64);

fn stamps(paths: &[PathBuf]) -> Vec<Option<FileStamp>> {
    paths.iter().map(|p| stamp(p)).collect()
}

fn stamp(path: &Path) -> Option<FileStamp> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_dir() {
        return Some((metadata.modified().ok()?, metadata.len()));
    }
    let files: Vec<_> = std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok()?.metadata().ok())
        .collect();
    let newest = files.iter().filter_map(|m| m.modified().ok()).max()?;
    Some((newest, files.iter().map(|m| m.len()).sum()))
}
