//! The integration tests, one module per area, linked as one test binary: thirty binaries each
//! linking llama.cpp, polars and candle cost a cold `cargo test` minutes of linking alone. The
//! real-model tests stay a binary of their own (`tests/local_model.rs`): they keep both cores
//! busy for minutes, and the timing-sensitive tests here (timeouts, Ctrl-C) run beside each other,
//! not beside them.

#[path = "../common/mod.rs"]
mod common;

mod author_view;
mod batch_api;
mod bfcl_differential;
mod bystanders;
mod cli;
mod client_configs;
mod client_profiles;
mod compare;
mod draft;
mod experiments;
mod explain;
mod filesystem_server;
mod formats;
mod github_action;
mod github_action_checks;
mod golden_runs;
mod hosted_backends;
mod hostile_folders;
mod hostile_providers;
mod hostile_suites;
mod house;
mod import_traps;
mod importers;
mod improve;
mod llama_server;
mod load_errors;
mod machine_output;
mod mcp_modern;
mod mcp_wire;
mod model_fetch;
mod owned_folders;
mod paths;
mod peers;
mod promotion_screen;
mod pull_request_output;
mod real_servers_lint;
mod resume;
mod review;
mod rmcp_peer;
mod robustness;
mod run;
mod shards;
mod shipped_data;
mod statistics_reference;
mod suite_checks;
mod tool_search;
mod wild_servers;
