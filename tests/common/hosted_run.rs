//! Running `mcpick run` against the mock provider, for the hosted-backend tests: the one-tool
//! toolset they share, the command with the test key in its environment, and lookups in the trials.

use super::mock_provider::{Dialect, TEST_KEY};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// One tool, `weather.get`, whose name every provider must see sanitised.
pub const TOOLSET: &str = r#"
format = 1
name = "weather"

[[tool]]
name = "weather.get"
description = "Current weather for one city."
[tool.inputSchema]
type = "object"
required = ["city"]
properties.city = { type = "string" }
[tool.behavior]
text = "{city}: 18 degrees, light rain"
"#;

/// A workspace holding the weather toolset and `suite` as `tasks/wire.toml`.
pub fn workspace_with(suite: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("toolsets")).unwrap();
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    std::fs::write(dir.path().join("toolsets/weather.toml"), TOOLSET).unwrap();
    std::fs::write(dir.path().join("tasks/wire.toml"), suite).unwrap();
    dir
}

pub fn mcpick(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir)
        .env("MCPICK_TEST_KEY", TEST_KEY)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .args(args)
        .output()
        .unwrap()
}

pub fn by_task<'a>(lines: &'a [Value], task: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["task"] == task)
        .unwrap_or_else(|| panic!("no trial for {task}"))
}

pub fn backend_spec(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::OpenAi => "openai:mock-model",
        Dialect::Anthropic => "anthropic:mock-model",
    }
}
