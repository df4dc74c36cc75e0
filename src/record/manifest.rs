//! `manifest.json`, typed: the one shape in which a run folder says what plan it ran and how the run
//! went. The plan's part (version, command, settings, lanes, suites, files and the plan hash over
//! them) is made by the run plan; the run's part (when it started, when it was resumed, which shard
//! it is, which folders it was merged from) by whoever starts, resumes or merges it. It is written
//! whole and read back through this type only; the key order on disk is the field order here.
//! A manifest that does not read — damaged from outside, since the writes are atomic — is an error
//! that keeps what can still be learnt from its text (the command that started the run).

use crate::settings::{Price, RunSettings};
use crate::tool_exposure::Exposure;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The manifest's file name in a run folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The largest manifest read: 16 MiB (a plan of 10,000 suites' task ids is well below it).
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

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

/// Why a folder's manifest could not be taken.
#[derive(Debug, Clone, PartialEq)]
pub enum ManifestError {
    /// There is none (or it cannot be read at all).
    Missing { path: PathBuf, reason: String },
    /// It is there but does not read as a manifest: truncated, not JSON, or not this shape. What
    /// could still be read of its text: the command that started the run.
    Damaged {
        path: PathBuf,
        reason: String,
        command: Option<Vec<String>>,
    },
    /// It reads, but does not hold together: a number out of bounds, a shard outside its split, a
    /// plan hash its settings and files no longer give. Each problem, one sentence each.
    Inconsistent {
        path: PathBuf,
        problems: Vec<String>,
    },
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ManifestError::Missing { path, reason } => {
                write!(f, "cannot read {}: {reason}", path.display())
            }
            ManifestError::Damaged { path, reason, .. } => {
                write!(f, "{} is damaged: {reason}", path.display())
            }
            ManifestError::Inconsistent { path, problems } => {
                write!(
                    f,
                    "{} cannot be trusted: {}",
                    path.display(),
                    problems.join("; ")
                )
            }
        }
    }
}

impl Manifest {
    /// Reads the manifest of the run folder at `folder`, with its text as it is on disk (which
    /// `report.html` shows as it is), and checks it holds together (`manifest_check`): a manifest
    /// edited or forged since the run wrote it is `Inconsistent`, never acted on.
    pub fn read(folder: &Path) -> Result<(Manifest, String), ManifestError> {
        let path = folder.join(MANIFEST_FILE);
        let missing = |e: std::io::Error| ManifestError::Missing {
            path: path.clone(),
            reason: e.to_string(),
        };
        let damaged = |reason: String, text: &str| ManifestError::Damaged {
            path: path.clone(),
            reason,
            command: recorded_command(text),
        };
        // A manifest is a few kilobytes; one far larger was not written by mcpick.
        let size = std::fs::metadata(&path).map_err(missing)?.len();
        if size > MAX_MANIFEST_BYTES {
            return Err(damaged(
                format!("{size} bytes, more than a manifest can be ({MAX_MANIFEST_BYTES})"),
                "",
            ));
        }
        let bytes = std::fs::read(&path).map_err(missing)?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
                return Err(damaged("not UTF-8 text".into(), &lossy));
            }
        };
        match serde_json::from_str::<Value>(&text).and_then(|value| {
            let manifest = Manifest::deserialize(&value)?;
            Ok((manifest, value))
        }) {
            Ok((manifest, value)) => {
                let problems = super::manifest_check::problems(&manifest, &value);
                if problems.is_empty() {
                    Ok((manifest, text))
                } else {
                    Err(ManifestError::Inconsistent {
                        path: path.clone(),
                        problems,
                    })
                }
            }
            Err(e) if e.is_syntax() || e.is_eof() => Err(damaged(format!("not JSON ({e})"), &text)),
            Err(e) => Err(damaged(
                format!("not a run manifest this version reads ({e})"),
                &text,
            )),
        }
    }

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

/// The command line a damaged manifest still holds: `command` is written second, so a manifest cut
/// short usually keeps it whole.
fn recorded_command(text: &str) -> Option<Vec<String>> {
    let at = text.find("\"command\"")?;
    let rest = text[at + "\"command\"".len()..].trim_start();
    let rest = rest.strip_prefix(':')?;
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Vec<String>>();
    values.next()?.ok().filter(|words| !words.is_empty())
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
    fn a_damaged_manifest_keeps_its_command() {
        let dir = tempfile::tempdir().unwrap();
        let cut = &PREVIOUS_FORMAT[..PREVIOUS_FORMAT.len() / 2];
        std::fs::write(dir.path().join(MANIFEST_FILE), cut).unwrap();
        let Err(ManifestError::Damaged {
            reason, command, ..
        }) = Manifest::read(dir.path())
        else {
            panic!("a manifest cut in half is damaged")
        };
        assert!(reason.starts_with("not JSON"), "{reason}");
        let command = command.expect("the command is near the start");
        assert_eq!(command[1], "run");
        std::fs::write(dir.path().join(MANIFEST_FILE), b"\xff\xfe{").unwrap();
        assert!(matches!(
            Manifest::read(dir.path()),
            Err(ManifestError::Damaged { command: None, .. })
        ));
        assert!(matches!(
            Manifest::read(&dir.path().join("nowhere")),
            Err(ManifestError::Missing { .. })
        ));
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
