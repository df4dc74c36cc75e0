//! The plan's part of the manifest: the files it read with their SHA-256s, the plan hash over the
//! settings and those files (what `--resume` compares), and the `record::Manifest` of the plan —
//! settings, lanes, suites, the system prompt, the MCP version trials speak, the cache, the trial
//! count and where the code came from.

use super::SuitePlan;
use crate::backend::DEFAULT_SYSTEM_PROMPT;
use crate::mcp::STATELESS_REVISIONS;
use crate::record::{LaneRecord, Manifest, SuiteRecord};
use crate::settings::RunSettings;
use serde_json::Value;
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

/// Eight hex digits naming the plan: its settings and the contents of every file it read — by the
/// rule `record` checks a manifest read back with.
pub(super) fn plan_hash(options: &RunSettings, files: &BTreeMap<String, String>) -> String {
    crate::record::plan_hash(
        &serde_json::to_value(options).unwrap_or(Value::Null),
        &serde_json::to_value(files).unwrap_or(Value::Null),
    )
}

/// What `manifest.json` says about the plan (the run's own part — when it started, which shard —
/// is the starter's).
pub(super) struct ManifestParts<'a> {
    pub options: &'a RunSettings,
    pub hash: &'a str,
    pub lanes: Vec<LaneRecord>,
    pub suites: &'a [SuitePlan],
    pub files: BTreeMap<String, String>,
    pub cache: Option<&'a Path>,
    pub trials: usize,
    pub client: Option<&'a crate::client_profile::ClientProfile>,
}

pub(super) fn manifest(parts: ManifestParts<'_>) -> Manifest {
    Manifest {
        mcpick_version: env!("CARGO_PKG_VERSION").into(),
        command: std::env::args().collect(),
        git_revision: git_revision(),
        plan_hash: parts.hash.into(),
        // Over the settings as the manifest's text will hold them, which is what a reader hashes.
        setting_hashes: crate::record::setting_hashes(
            &serde_json::to_string(parts.options)
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or(Value::Null),
        ),
        options: parts.options.clone(),
        backends: parts.lanes,
        suites: parts
            .suites
            .iter()
            .map(|s| SuiteRecord {
                suite: s.name.clone(),
                toolset: s.toolset.clone(),
                variant: s.variant.clone(),
                tasks: s.tasks.len(),
                task_ids: s.tasks.iter().map(|t| t.id.clone()).collect(),
                distractor_pool: s.pool.len(),
                scoring: s.tasks.first().map(|t| t.scoring.as_str().to_string()),
                today: s.tasks.first().and_then(|t| t.today.clone()),
                replace_system: s
                    .tasks
                    .iter()
                    .filter(|t| t.replace_system)
                    .map(|t| t.id.clone())
                    .collect(),
                unreviewed: s
                    .tasks
                    .iter()
                    .filter(|t| t.review.is_some_and(|r| r.pending()))
                    .count(),
                drafted_by: s.tasks.first().and_then(|t| t.drafted_by.clone()),
                bystanders: s.bystanders.clone(),
            })
            .collect(),
        files: parts.files,
        system_prompt: DEFAULT_SYSTEM_PROMPT.into(),
        // What the in-memory trial sessions speak (`mcp::duplex` pins it: no handshake per trial).
        mcp_protocol_version: Some(STATELESS_REVISIONS[0].into()),
        cache: parts.cache.map(|c| c.display().to_string()),
        trials: parts.trials,
        resumed: Vec::new(),
        started: None,
        shard: None,
        merged_from: None,
        client: parts.client.cloned(),
    }
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
