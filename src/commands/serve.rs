//! `mcpick serve`: load the toolset, serve it on stdio or HTTP, and reload it when its files change —
//! an invalid edit keeps the tools being served and says why on stderr; a valid one swaps them and
//! every session gets one `notifications/tools/list_changed`.

use super::ExitStatus;
use super::target::ToolsetTarget;
use crate::cli::ServeOptions;
use crate::mcp::{McpServer, ServedTools, ServerConfig};
use crate::model::Toolset;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// How often the watched files' modification times are checked.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);
/// How long a change must be quiet before it is loaded (editors write in several steps).
const SETTLE: Duration = Duration::from_millis(100);

pub fn run_serve(options: ServeOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let target = ToolsetTarget {
        toolset: options.toolset.clone(),
        variant: options.variant.clone(),
    };
    let toolset = match target.load() {
        Ok(toolset) => toolset,
        Err(errors) => {
            for d in errors {
                writeln!(out, "{d}")?;
            }
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let served = match served_tools(&toolset, options.conformance_fixtures) {
        Ok(served) => served,
        Err(message) => {
            writeln!(out, "{message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let config = ServerConfig {
        page_size: options.page_size,
        instructions: toolset.description.clone(),
        ..ServerConfig::default()
    };
    let server = McpServer::new(config, served);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        tokio::spawn(watch_and_reload(
            Arc::clone(&server),
            target,
            options.conformance_fixtures,
        ));
        match options.http {
            Some(address) => {
                let listener = tokio::net::TcpListener::bind(address).await?;
                // Tests bind port 0 and read the real address from this line.
                eprintln!(
                    "mcpick: serving {} tools on http://{}/mcp",
                    server.tools().registry.len(),
                    listener.local_addr()?
                );
                crate::mcp::http::serve_http(server, listener, crate::interrupt::requested()).await
            }
            None => {
                tokio::select! {
                    served = crate::mcp::stdio::serve_stdio(server) => served,
                    () = crate::interrupt::requested() => Ok(()),
                }
            }
        }
    })?;
    Ok(ExitStatus::Success)
}

fn served_tools(toolset: &Toolset, fixtures: bool) -> Result<ServedTools, String> {
    let tools = toolset.tools.clone();
    let served = if fixtures {
        ServedTools::with_fixtures(tools, crate::mcp::fixtures::tools())
    } else {
        ServedTools::new(tools)
    };
    served.map_err(|e| format!("{}: cannot serve: {e}", toolset.source.display()))
}

/// Polls the files behind `target`; on a settled change, reloads and swaps the served tools.
async fn watch_and_reload(server: Arc<McpServer>, target: ToolsetTarget, fixtures: bool) {
    let paths = target.paths();
    let mut last = modification_times(&paths);
    loop {
        tokio::time::sleep(WATCH_INTERVAL).await;
        let now = modification_times(&paths);
        if now == last {
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
                eprintln!("mcpick: the edit does not load; still serving the previous tools:");
                for d in errors {
                    eprintln!("{d}");
                }
                continue;
            }
            Err(e) => {
                eprintln!("mcpick: reload failed: {e}");
                continue;
            }
        };
        let unchanged = {
            let current = server.tools();
            let current_tools: Vec<_> = current
                .registry
                .tools()
                .iter()
                .map(|t| serde_json::to_value(&t.tool).ok())
                .collect();
            let mut new_tools: Vec<_> = toolset
                .tools
                .iter()
                .map(|t| serde_json::to_value(t).ok())
                .collect();
            if fixtures {
                new_tools.extend(
                    crate::mcp::fixtures::tools()
                        .iter()
                        .map(|t| serde_json::to_value(t).ok()),
                );
            }
            current_tools == new_tools
        };
        if unchanged {
            continue;
        }
        match served_tools(&toolset, fixtures) {
            Ok(served) => {
                eprintln!(
                    "mcpick: reloaded {} ({} tools); notifying clients",
                    toolset.source.display(),
                    toolset.tools.len()
                );
                server.replace_tools(served);
            }
            Err(message) => eprintln!("mcpick: {message}; still serving the previous tools"),
        }
    }
}

fn modification_times(paths: &[PathBuf]) -> Vec<Option<SystemTime>> {
    paths.iter().map(latest_modification).collect()
}

/// A file's modification time, or for a directory the newest among its files.
fn latest_modification(path: &PathBuf) -> Option<SystemTime> {
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
