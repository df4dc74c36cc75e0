//! `manifest.json`, typed: the one shape in which a run folder says what plan it ran and how the run
//! went. The plan's part (version, command, settings, lanes, suites, files and the plan hash over
//! them) is made by the run plan; the run's part (when it started, when it was resumed, which shard
//! it is, which folders it was merged from) by whoever starts, resumes or merges it. It is written
//! whole and read back through this type only (`manifest_read`: checked, since someone may have
//! edited it); the key order on disk is the field order here.

use crate::settings::{Price, RunSettings};
use crate::tool_exposure::Exposure;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The manifest's file name in a run folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// A run's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub mcpick_version: String,
    /// The command line that made the plan.
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub git_revision: Option<String>,
    /// Eight hex digits over the settings and the contents of every file the plan read.
    pub plan_hash: String,
    /// Each setting's own hash, so a manifest edited later can say which setting changed (not
    /// part of the plan hash; absent in manifests written before it was kept).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub setting_hashes: BTreeMap<String, String>,
    /// The settings the run was started with: what `--resume` runs again.
    pub options: RunSettings,
    /// One entry per backend lane, in `--backend` order.
    #[serde(default)]
    pub backends: Vec<LaneRecord>,
    #[serde(default)]
    pub suites: Vec<SuiteRecord>,
    /// Each file the plan read, with its SHA-256.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    #[serde(default)]
    pub system_prompt: String,
    /// What the in-memory trial sessions speak.
    #[serde(default)]
    pub mcp_protocol_version: Option<String>,
    /// The response cache's file, if the run used one.
    #[serde(default)]
    pub cache: Option<String>,
    /// Trials the plan holds in all.
    #[serde(default)]
    pub trials: usize,
    /// When the run was resumed, oldest first (UTC stamps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed: Vec<String>,
    /// When the run started (a UTC stamp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    /// The shard of a split run this folder holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardRecord>,
    /// The folders a merged run was made of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_from: Option<Vec<MergedFolder>>,
    /// The client profile the tools were shown as (`--client`), whole: its source, the date it was
    /// checked and every rule, as this build applied them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<crate::client_profile::ClientProfile>,
}

/// A backend lane as the manifest records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneRecord {
    pub id: String,
    pub spec: String,
    /// A hosted model's settings (no key), as the backend describes them.
    #[serde(default)]
    pub hosted: Option<Value>,
    /// The embedded model's settings and file hash, as the backend describes them.
    #[serde(default)]
    pub local: Option<Value>,
    pub concurrency: usize,
    #[serde(default)]
    pub price: Option<Price>,
    #[serde(default)]
    pub requests_per_minute: Option<u32>,
    #[serde(default)]
    pub tokens_per_minute: Option<u32>,
    /// Only for lanes sent through a provider's batch API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<BatchRecord>,
}

/// How a lane's turns went through a provider's batch API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchRecord {
    pub provider: String,
    pub size: u32,
    pub poll_seconds: f64,
}

/// A bystander server a run showed: its name and its tools as served, each with the name its
/// server lists it by where a clash made them differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BystanderRecord {
    pub server: String,
    /// The file its tools came from.
    pub source: String,
    /// Its tools' names as the trials' server listed them.
    pub tools: Vec<String>,
    /// Served name → the name its own server lists, for the tools a clash renamed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub renamed: BTreeMap<String, String>,
}

/// A suite under one arm, as the manifest records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteRecord {
    pub suite: String,
    pub toolset: String,
    pub variant: Option<String>,
    pub tasks: usize,
    /// The ids of those tasks, in plan order: what a trial's key must name (absent in manifests
    /// written before they were kept, whose trials are checked by suite only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_ids: Vec<String>,
    #[serde(default)]
    pub distractor_pool: usize,
    #[serde(default)]
    pub scoring: Option<String>,
    /// The date the default system prompt states (`today`), if the suite sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<String>,
    /// Tasks whose own system message replaces the default system prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace_system: Vec<String>,
    /// Drafted tasks run before a person accepted them (`review = "draft"` or `"doubtful"`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unreviewed: usize,
    /// Who drafted the suite's tasks, for a drafted suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drafted_by: Option<crate::spec::DraftedBySpec>,
    /// The bystander servers every trial of the suite showed beside its tools (`--bystanders`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bystanders: Vec<BystanderRecord>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Which shard of a split run a folder holds, and how many trials that shard owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardRecord {
    pub index: u32,
    pub count: u32,
    pub trials: usize,
}

/// One folder a merged run was made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedFolder {
    pub folder: String,
    pub shard: Option<ShardIndex>,
    pub trials: usize,
}

/// A shard's place without its count of trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardIndex {
    pub index: u32,
    pub count: u32,
}

impl Manifest {
    /// The manifest as written: pretty JSON, keys in field order.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The arms in the order the run named them, as trials label them (empty without variants).
    pub fn named_arms(&self) -> Vec<String> {
        self.options.arm_labels()
    }

    /// The exposure strategies in the order the run named them, as labels (empty without any).
    pub fn named_exposures(&self) -> Vec<String> {
        self.options
            .exposures
            .iter()
            .map(|e| Exposure::label(*e))
            .collect()
    }

    /// This plan's manifest for a run resumed from `previous`: when it started, the earlier
    /// resumptions and `now`, and (a merged folder stays one) which folders it was made of.
    pub fn resuming(mut self, previous: &Manifest, now: String) -> Manifest {
        self.started = previous.started.clone();
        self.resumed = previous.resumed.clone();
        self.resumed.push(now);
        self.merged_from = previous.merged_from.clone();
        self
    }

    /// What makes two manifests' plans differ: the version that planned them, each setting, and
    /// each input file's contents. Empty when the plan hashes agree.
    pub fn plan_differences(&self, other: &Manifest) -> Vec<String> {
        if self.plan_hash == other.plan_hash {
            return Vec::new();
        }
        let mut differences = Vec::new();
        if self.mcpick_version != other.mcpick_version {
            differences.push(format!(
                "mcpick {:?} against {:?}",
                self.mcpick_version, other.mcpick_version
            ));
        }
        let as_map = |settings: &RunSettings| match serde_json::to_value(settings) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let (mine, theirs) = (as_map(&self.options), as_map(&other.options));
        let names: BTreeSet<&String> = mine.keys().chain(theirs.keys()).collect();
        for name in names {
            let (x, y) = (
                mine.get(name).unwrap_or(&Value::Null),
                theirs.get(name).unwrap_or(&Value::Null),
            );
            if x != y {
                differences.push(format!("setting `{name}` is {y} there, {x} here"));
            }
        }
        let paths: BTreeSet<&String> = self.files.keys().chain(other.files.keys()).collect();
        for path in paths {
            match (self.files.get(path), other.files.get(path)) {
                (Some(x), Some(y)) if x != y => differences.push(format!(
                    "{path} differs (SHA-256 {} there, {} here)",
                    short_hash(y),
                    short_hash(x)
                )),
                (Some(_), None) => differences.push(format!("{path} was read only here")),
                (None, Some(_)) => differences.push(format!("{path} was read only there")),
                _ => {}
            }
        }
        if differences.is_empty() {
            differences.push("the plan hashes differ".into());
        }
        differences
    }
}

fn short_hash(hash: &str) -> String {
    hash.chars().take(12).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manifest of a run written before the manifest had a type (commit 748a1c8): a sweep
    /// resumed once, with a local and a bm25 lane.
    const PREVIOUS_FORMAT: &str = include_str!("../../tests/data/manifests/typeless.json");

    #[test]
    fn a_manifest_of_the_previous_format_reads_and_writes_back_the_same() {
        let manifest: Manifest = serde_json::from_str(PREVIOUS_FORMAT).unwrap();
        assert_eq!(manifest.plan_hash, "38d5b18b");
        assert_eq!(manifest.options.sizes, vec![5, 25, 100]);
        assert_eq!(manifest.backends.len(), 2);
        assert_eq!(manifest.resumed.len(), 2);
        assert_eq!(
            manifest.named_exposures(),
            ["flat", "retrieve:embed:5", "retrieve:bm25:5"]
        );
        let written: Value = serde_json::from_str(&manifest.to_json()).unwrap();
        let read: Value = serde_json::from_str(PREVIOUS_FORMAT).unwrap();
        assert_eq!(
            serde_json::to_string_pretty(&written).unwrap(),
            serde_json::to_string_pretty(&read).unwrap(),
            "the typed manifest writes every key of the previous format, in its order"
        );
    }

    #[test]
    fn plans_that_differ_are_named_by_setting_and_file() {
        let a: Manifest = serde_json::from_str(PREVIOUS_FORMAT).unwrap();
        let mut b = a.clone();
        b.plan_hash = "bbbbbbbb".into();
        b.options.sizes = vec![5, 50];
        b.files.clear();
        let first = a.files.keys().next().unwrap().clone();
        b.files.insert(first.clone(), "3333333333333333".into());
        let differences = a.plan_differences(&b);
        assert_eq!(
            differences[0],
            "setting `sizes` is [5,50] there, [5,25,100] here"
        );
        assert!(
            differences[1].starts_with(&format!("{first} differs (SHA-256 333333333333 there")),
            "{differences:?}"
        );
        assert!(a.plan_differences(&a).is_empty());
    }
}
