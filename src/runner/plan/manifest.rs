//! The plan's manifest: the files it read with their SHA-256s, the plan hash over the settings and
//! those files (what `--resume` compares), and `manifest.json`'s document — settings, lanes, suites,
//! the system prompt, the MCP version trials speak, the cache, the trial count and where the code
//! came from.

use super::SuitePlan;
use crate::backend::DEFAULT_SYSTEM_PROMPT;
use crate::mcp::modern::MODERN_VERSIONS;
use crate::settings::RunSettings;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// Each file the plan read, with its SHA-256 (`unreadable` for one that could not be read again).
pub(super) fn file_hashes<'a>(paths: impl Iterator<Item = &'a Path>) -> BTreeMap<String, String> {
    paths
        .map(|path| {
            let sha = crate::hashing::file_sha256(path).unwrap_or_else(|_| "unreadable".into());
            (path.display().to_string(), sha)
        })
        .collect()
}

/// Eight hex digits naming the plan: its settings and the contents of every file it read.
pub(super) fn plan_hash(options: &RunSettings, files: &BTreeMap<String, String>) -> String {
    let options_json = serde_json::to_value(options).unwrap_or(Value::Null);
    let digest = crate::hashing::sha256_hex(
        json!({"options": options_json, "files": files})
            .to_string()
            .as_bytes(),
    );
    digest[..8].to_string()
}

/// What `manifest.json` says about the plan (the command adds when it started).
pub(super) struct ManifestParts<'a> {
    pub options: &'a RunSettings,
    pub hash: &'a str,
    pub lanes: Vec<Value>,
    pub suites: &'a [SuitePlan],
    pub files: BTreeMap<String, String>,
    pub cache: Option<&'a Path>,
    pub trials: usize,
}

pub(super) fn manifest(parts: ManifestParts<'_>) -> Value {
    let suites = parts.suites;
    json!({
        "mcpick_version": env!("CARGO_PKG_VERSION"),
        "command": std::env::args().collect::<Vec<_>>(),
        "git_revision": git_revision(),
        "plan_hash": parts.hash,
        "options": serde_json::to_value(parts.options).unwrap_or(Value::Null),
        "backends": parts.lanes,
        "suites": suites.iter().map(|s| json!({"suite": s.name, "toolset": s.toolset, "variant": s.variant, "tasks": s.tasks.len(), "distractor_pool": s.pool.len(), "scoring": s.tasks.first().map(|t| t.scoring.as_str())})).collect::<Vec<_>>(),
        "files": parts.files,
        "system_prompt": DEFAULT_SYSTEM_PROMPT,
        // What the in-memory trial sessions speak (`mcp::duplex` pins it: no handshake per trial).
        "mcp_protocol_version": MODERN_VERSIONS[0],
        "cache": parts.cache.map(|c| c.display().to_string()),
        "trials": parts.trials,
    })
}

fn git_revision() -> Option<String> {
    let output = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}
