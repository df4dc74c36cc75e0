//! `mcpick serve`: load the toolset, serve it on stdio or HTTP, and reload it when its files change —
//! an invalid edit keeps the tools being served and says why on stderr; a valid one swaps them and
//! every session gets one `notifications/tools/list_changed`.

use super::ExitStatus;
use crate::cli::ServeOptions;
use crate::live_toolset::{Reload, WatchedFiles, served_tools, watch_and_reload};
use crate::load::ToolsetTarget;
use crate::mcp::{McpServer, ServerConfig};
use std::io::Write;
use std::sync::Arc;

pub fn run_serve(options: ServeOptions, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let target = ToolsetTarget {
        toolset: options.toolset.clone(),
        variant: options.variant.single().map(str::to_string),
    };
    let files = WatchedFiles::now(&target);
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
        // The server's own instructions when the file keeps them; else what the toolset is.
        instructions: toolset
            .instructions
            .clone()
            .or_else(|| toolset.description.clone()),
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
            files,
            options.conformance_fixtures,
            tell_about_reload,
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
                crate::mcp::transport::http::serve_http(
                    server,
                    listener,
                    crate::interrupt::requested(),
                )
                .await
            }
            None => {
                tokio::select! {
                    served = crate::mcp::transport::stdio::serve_stdio(server) => served,
                    () = crate::interrupt::requested() => Ok(()),
                }
            }
        }
    })?;
    Ok(ExitStatus::Success)
}

/// A reload, on standard error (standard output may be the protocol's).
fn tell_about_reload(reload: Reload) {
    match reload {
        Reload::Served { source, tools } => eprintln!(
            "mcpick: reloaded {} ({tools} tools); notifying clients",
            source.display()
        ),
        Reload::Invalid(errors) => {
            eprintln!("mcpick: the edit does not load; still serving the previous tools:");
            for d in errors {
                eprintln!("{d}");
            }
        }
        Reload::Failed(message) => {
            eprintln!("mcpick: {message}; still serving the previous tools")
        }
    }
}
