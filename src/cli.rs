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
