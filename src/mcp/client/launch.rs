//! Starting a server as a child process: its program and arguments, the environment and working
//! folder it is given (`import --env/--cwd`, or `NAME=value` words before the command), and how
//! long a request to it may wait. Its standard error goes to a `StderrLog` the caller holds, so
//! what the server said is there to show even when it never answered.

use super::{ClientError, McpClient, Negotiation, REQUEST_TIMEOUT, StderrLog};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How to start one stdio server.
#[derive(Debug, Clone)]
pub struct StdioLaunch {
    pub program: String,
    pub args: Vec<String>,
    /// Variables set for the server on top of mcpick's own environment.
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    pub request_timeout: Duration,
}

impl StdioLaunch {
    /// `program` with `args`, in mcpick's environment and folder, with the default timeout.
    pub fn new(program: &str, args: &[String]) -> StdioLaunch {
        StdioLaunch {
            program: program.to_string(),
            args: args.to_vec(),
            env: Vec::new(),
            cwd: None,
            request_timeout: REQUEST_TIMEOUT,
        }
    }
}

impl McpClient {
    /// Starts the server `launch` describes and connects to its stdin/stdout; its standard error
    /// is kept in `stderr` (a clone the caller can read when connecting fails).
    pub async fn spawn(
        launch: &StdioLaunch,
        negotiation: Negotiation,
        stderr: StderrLog,
    ) -> Result<McpClient, ClientError> {
        let command = &launch.program;
        let mut process = tokio::process::Command::new(command);
        process
            .args(&launch.args)
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            // The server's own messages are its, not the user's terminal's: kept for its caller.
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        if let Some(folder) = &launch.cwd {
            process.current_dir(folder);
        }
        let mut child = process.spawn().map_err(|e| ClientError::Spawn {
            command: command.to_string(),
            reason: match &launch.cwd {
                Some(folder) if !folder.is_dir() => {
                    format!("{e} (its folder {} does not exist)", folder.display())
                }
                _ => e.to_string(),
            },
        })?;
        let child_stderr = child.stderr.take();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Spawn {
                command: command.to_string(),
                reason: "no pipes".into(),
            });
        };
        let (outgoing_tx, outgoing_rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(super::write_lines(stdin, outgoing_rx));
        let mut client = McpClient::unconnected(super::Link::Lines(outgoing_tx), Some(child));
        client.request_timeout = launch.request_timeout;
        client.stderr = stderr;
        if let Some(child_stderr) = child_stderr {
            client.stderr.keep(child_stderr);
        }
        tokio::spawn(super::read_lines(
            stdout,
            Arc::clone(&client.pending),
            client.notify_tx.clone(),
        ));
        let client = client.negotiate(negotiation).await?;
        if client.is_stateless() {
            client.listen_for_changes();
        }
        Ok(client)
    }
}
