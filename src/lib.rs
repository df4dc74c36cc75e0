//! mcpick measures which MCP tools language models pick. It loads **toolsets** (MCP tool definitions
//! plus simulated behaviour) and **task suites** (prompts with the expected tool calls), checks them,
//! serves the tools over its own MCP server (stdio and Streamable HTTP), lets model backends (hosted
//! APIs, OpenAI-compatible servers, offline baselines, recorded runs) pick and call them, and reports
//! selection accuracy with honest statistics.
//!
//! # Layout
//!
//! | module | owns |
//! |---|---|
//! | [`backend`] | model backends behind one interface: `openai`, `anthropic`, `replay`, the embedded models (`local` through llama.cpp, `embed` through candle) and the offline baselines (`bm25`, `random`, `oracle`); provider tool-name mapping |
//! | [`catalogue`] | the models mcpick knows by name, their pinned PyPI sources and SHA-256s; the model directory; verified, resumable fetching with progress |
//! | [`cli`] | the command line's syntax (clap derive); builds nothing |
//! | [`commands`] | each subcommand: resolve arguments, call the library, print, pick the exit code |
//! | [`spec`] | serde structs of the file formats (toolset, variant, suite, run config), nothing more |
//! | [`import`] | translating public data sets (BFCL single-turn files, MetaTool's queries) into a toolset, a suite and an account of what could not be translated |
//! | [`load`] | reading files, cross-checking them, diagnostics with file, line and column |
//! | [`model`] | the validated in-memory data: tools, behaviours, tasks, argument matchers |
//! | [`registry`] | the immutable tool registry with validators compiled once; schema compilation |
//! | [`lint`] | description lints from the design principles and anti-patterns of the source chapter |
//! | [`retrieval`] | tokenising tool descriptions, TF-IDF similarity and BM25 ranking |
//! | [`runner`] | the run plan, backend lanes (cache, rate limits, timeouts, retries, prices), the trial loop over the in-memory MCP transport, the scheduler (concurrency, budget, Ctrl-C) and the run folder written as trials finish |
//! | [`score`] | pure scoring: the outcome taxonomy, BFCL-style argument matching, tallies with Wilson intervals |
//! | [`analysis`] | a run's trials as a polars DataFrame (and `trials.parquet`); A/B pairs, size curves, position bias and confusion as queries; the statistics (McNemar, bootstrap, logistic fit, power) |
//! | [`report`] | exporters: the Markdown sections of `summary.md` and the self-contained `report.html` with inline SVG charts |
//! | [`file_replace`] | replacing a file whole (temporary file, sync, rename), for every run-folder file that is rewritten |
//! | [`interrupt`] | what "stop" means to long-running commands: Ctrl-C or SIGTERM |
//! | [`mcp`] | the MCP protocol: JSON-RPC frames, the server's methods, stdio / HTTP / in-memory transports, the client |

pub mod analysis;
pub mod backend;
pub mod catalogue;
pub mod cli;
pub mod commands;
pub mod file_replace;
pub mod gold_arguments;
pub mod hashing;
pub mod import;
pub mod interrupt;
#[cfg(test)]
mod json_strategy;
pub mod lint;
pub mod load;
pub mod mcp;
pub mod model;
pub mod record;
pub mod registry;
pub mod report;
pub mod retrieval;
pub mod runner;
pub mod score;
pub mod settings;
pub mod spec;
