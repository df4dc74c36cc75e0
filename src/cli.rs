//! The command line as clap sees it: syntax and help text only. Nothing here opens a file or builds
//! anything; `commands` turns these values into work.

use crate::lint::LintSeverity;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// mcpick — measure which MCP tools language models pick, and why.
#[derive(Debug, Parser)]
#[command(name = "mcpick", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load and cross-check toolsets, variants and suites; exit 0 only if all are valid (2 otherwise).
    Validate {
        /// Files or directories to check [default: toolsets/ and tasks/].
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
    },
    /// Review a toolset's names, descriptions, parameters and hints against the design principles.
    Lint {
        /// Toolset file, or the name of a toolset in toolsets/.
        toolset: String,
        /// Lint the toolset as overlaid by this variant (a file, or a variant name in toolsets/variants/).
        #[arg(long)]
        variant: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
        /// Exit 1 when a finding at or above this severity is reported.
        #[arg(long, value_enum)]
        fail_on: Option<LintSeverity>,
    },
    /// Run every task of the suites against every backend and score the tool calls.
    Run(RunOptions),
    /// Rebuild a run's summaries and trials.csv from its trials.jsonl alone.
    Report {
        /// The run folder (it holds trials.jsonl).
        run_dir: std::path::PathBuf,
    },
    /// Serve a toolset over MCP (stdio by default, or Streamable HTTP), reloading it when its file changes.
    Serve(ServeOptions),
    /// Snapshot a live MCP server's tools into a toolset file (JSON) that `validate` accepts.
    Import(ImportOptions),
    /// Show the toolsets, variants and suites found.
    List {
        /// Directories to look in [default: toolsets/ and tasks/].
        paths: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ServeOptions {
    /// Toolset file, or the name of a toolset in toolsets/.
    pub toolset: String,
    /// Serve the toolset as overlaid by this variant (a file, or a variant name in toolsets/variants/).
    #[arg(long)]
    pub variant: Option<String>,
    /// Speak newline-delimited JSON-RPC on stdin/stdout (the default).
    #[arg(long, conflicts_with = "http")]
    pub stdio: bool,
    /// Serve Streamable HTTP at http://ADDR/mcp; port 0 picks a free port (the URL is printed on stderr).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8808")]
    pub http: Option<std::net::SocketAddr>,
    /// List tools in pages of N with opaque cursors (default: all in one page, as most clients expect).
    #[arg(long, value_name = "N")]
    pub page_size: Option<usize>,
    /// Also serve the tools the official MCP conformance suite calls by name.
    #[arg(long)]
    pub conformance_fixtures: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ImportOptions {
    /// Start this command and speak MCP over its stdin/stdout, e.g. "node server.js --stdio".
    #[arg(
        long,
        value_name = "\"CMD ARGS\"",
        conflicts_with = "url",
        required_unless_present = "url"
    )]
    pub stdio: Option<String>,
    /// Connect to this Streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp.
    #[arg(long)]
    pub url: Option<String>,
    /// Where to write the toolset, e.g. toolsets/github.json.
    #[arg(short, long, value_name = "FILE")]
    pub output: std::path::PathBuf,
    /// The toolset's name [default: the output file's name].
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// Suite files or directories [default: tasks/].
    pub paths: Vec<std::path::PathBuf>,
    /// A backend to run, as KIND[:OPTION]: bm25, random, random:SEED, oracle. Repeat for several.
    #[arg(long = "backend", value_name = "SPEC", required = true)]
    pub backends: Vec<String>,
    /// Model turns per trial (each turn may call tools; results go back to the model).
    #[arg(long, default_value_t = 4)]
    pub max_turns: usize,
    /// The run folder [default: reports/<UTC time>-<plan hash>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}
