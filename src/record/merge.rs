//! The union of a split run's folders (`mcpick merge`): every folder must have run the same plan —
//! the same plan hash, so the same settings and the same input files — or the merge is refused with
//! what differs named; each trial key is kept exactly once (a duplicate that agrees is dropped, one
//! that disagrees is reported and the first kept); and what is missing is told per shard, from the
//! trial counts each shard's manifest planned. Writing the merged folder is the command's.

use super::folder::read_trials;
use super::manifest::StoredManifest;
use super::shard::Shard;
use super::trial::{StoredTrial, TrialKey};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One folder given to the merge, as read.
pub struct MergeInput {
    pub folder: PathBuf,
    pub manifest: StoredManifest,
    pub shard: Option<Shard>,
    pub trials: Vec<StoredTrial>,
    pub unreadable: usize,
}

/// What the merge made.
#[derive(Debug)]
pub struct MergedRun {
    /// The first folder's manifest without its shard, with `merged_from` listing the folders.
    pub manifest: Value,
    /// Every key once, in the order the folders were given.
    pub trials: Vec<StoredTrial>,
    /// Trials found twice with the same result (one kept).
    pub duplicates: usize,
    /// Trials found twice with different results, one line each (the first kept).
    pub conflicts: Vec<String>,
    /// What is missing: shards not given, shards that did not finish, trials the plan lacks.
    pub missing: Vec<String>,
    /// Trials the plan holds in all.
    pub planned: usize,
}

/// Reads the folders and merges them; `Err` names why they cannot be merged.
pub fn merge_runs(folders: &[PathBuf]) -> Result<MergedRun, String> {
    let inputs = folders
        .iter()
        .map(|folder| read_input(folder))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = inputs.first() else {
        return Err("no run folders to merge".into());
    };
    for input in &inputs[1..] {
        let differences = plan_differences(&first.manifest.document, &input.manifest.document);
        if !differences.is_empty() {
            return Err(format!(
                "{} ran another plan ({}) than {} ({}): {}",
                input.folder.display(),
                input.manifest.document["plan_hash"],
                first.folder.display(),
                first.manifest.document["plan_hash"],
                differences.join("; ")
            ));
        }
    }
    let mut kept: HashMap<TrialKey, usize> = HashMap::new();
    let mut merged = MergedRun {
        manifest: merged_manifest(&inputs),
        trials: Vec::new(),
        duplicates: 0,
        conflicts: Vec::new(),
        missing: missing_shards(&inputs),
        planned: first.manifest.document["trials"].as_u64().unwrap_or(0) as usize,
    };
    for input in &inputs {
        for trial in &input.trials {
            let key = trial.key();
            match kept.get(&key) {
                None => {
                    kept.insert(key, merged.trials.len());
                    merged.trials.push(trial.clone());
                }
                Some(&at) if same_result(&merged.trials[at], trial) => merged.duplicates += 1,
                Some(&at) => merged.conflicts.push(format!(
                    "{}: {} in one folder, {} in {} (the first kept)",
                    describe(&key),
                    merged.trials[at].verdict.outcome.as_str(),
                    trial.verdict.outcome.as_str(),
                    input.folder.display()
                )),
            }
        }
    }
    if merged.trials.len() < merged.planned {
        merged.missing.push(format!(
            "{} of the plan's {} trials are in none of the folders",
            merged.planned - merged.trials.len(),
            merged.planned
        ));
    }
    Ok(merged)
}

fn read_input(folder: &Path) -> Result<MergeInput, String> {
    let manifest = StoredManifest::read(folder)?;
    if manifest.document["plan_hash"].as_str().is_none() {
        return Err(format!(
            "{}: no plan hash, so it is not a run's manifest",
            manifest.path.display()
        ));
    }
    let stored = read_trials(folder)
        .map_err(|e| format!("cannot read {}: {e}", folder.join("trials.jsonl").display()))?;
    Ok(MergeInput {
        folder: folder.to_path_buf(),
        shard: Shard::of_manifest(&manifest.document),
        manifest,
        trials: stored.trials,
        unreadable: stored.unreadable,
    })
}

/// What makes two manifests' plans differ: the version that planned them, each setting, and each
/// input file's contents. Empty when the plan hashes agree.
pub fn plan_differences(a: &Value, b: &Value) -> Vec<String> {
    if a["plan_hash"] == b["plan_hash"] {
        return Vec::new();
    }
    let mut differences = Vec::new();
    if a["mcpick_version"] != b["mcpick_version"] {
        differences.push(format!(
            "mcpick {} against {}",
            a["mcpick_version"], b["mcpick_version"]
        ));
    }
    let empty = serde_json::Map::new();
    let (options_a, options_b) = (
        a["options"].as_object().unwrap_or(&empty),
        b["options"].as_object().unwrap_or(&empty),
    );
    let names: BTreeSet<&String> = options_a.keys().chain(options_b.keys()).collect();
    for name in names {
        let (x, y) = (
            options_a.get(name).unwrap_or(&Value::Null),
            options_b.get(name).unwrap_or(&Value::Null),
        );
        if x != y {
            differences.push(format!("setting `{name}` is {y} there, {x} here"));
        }
    }
    let (files_a, files_b) = (
        a["files"].as_object().unwrap_or(&empty),
        b["files"].as_object().unwrap_or(&empty),
    );
    let paths: BTreeSet<&String> = files_a.keys().chain(files_b.keys()).collect();
    for path in paths {
        match (files_a.get(path), files_b.get(path)) {
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

fn short_hash(value: &Value) -> String {
    value.as_str().unwrap_or("?").chars().take(12).collect()
}

/// Equal but for how long the trial took.
fn same_result(a: &StoredTrial, b: &StoredTrial) -> bool {
    let strip = |trial: &StoredTrial| {
        let mut value = serde_json::to_value(trial).unwrap_or(Value::Null);
        if let Some(object) = value.as_object_mut() {
            object.remove("latency_ms");
        }
        value
    };
    strip(a) == strip(b)
}

fn describe(key: &TrialKey) -> String {
    let mut text = format!("{}/{} on {}", key.suite, key.task, key.backend);
    for (name, value) in [("variant", &key.variant), ("exposure", &key.exposure)] {
        if !value.is_empty() {
            text.push_str(&format!(", {name} {value}"));
        }
    }
    if key.size > 0 {
        text.push_str(&format!(", {} tools, seed {}", key.size, key.sweep_seed));
    }
    if key.repeat > 0 {
        text.push_str(&format!(", repeat {}", key.repeat));
    }
    text
}

/// Shards of each split that no folder holds, and shards that hold fewer trials than they planned.
fn missing_shards(inputs: &[MergeInput]) -> Vec<String> {
    let mut missing = Vec::new();
    let mut given: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for input in inputs {
        if input.unreadable > 0 {
            missing.push(format!(
                "{}: {} line(s) of trials.jsonl do not read (those trials run again on --resume)",
                input.folder.display(),
                input.unreadable
            ));
        }
        let Some(shard) = input.shard else { continue };
        given.entry(shard.count).or_default().insert(shard.index);
        let planned = input.manifest.document["shard"]["trials"]
            .as_u64()
            .unwrap_or(0) as usize;
        let held: BTreeSet<TrialKey> = input.trials.iter().map(StoredTrial::key).collect();
        if held.len() < planned {
            missing.push(format!(
                "shard {shard} ({}) holds {} of its {planned} trials",
                input.folder.display(),
                held.len()
            ));
        }
    }
    for (count, indices) in given {
        let absent: Vec<String> = (0..count)
            .filter(|i| !indices.contains(i))
            .map(|i| i.to_string())
            .collect();
        if !absent.is_empty() {
            missing.push(format!(
                "shard(s) {} of {count} were not given",
                absent.join(", ")
            ));
        }
    }
    missing
}

fn merged_manifest(inputs: &[MergeInput]) -> Value {
    let mut manifest = inputs[0].manifest.document.clone();
    if let Some(object) = manifest.as_object_mut() {
        object.remove("shard");
    }
    // The earliest start stands for the run (the stamps are UTC and sort as text).
    if let Some(started) = inputs
        .iter()
        .filter_map(|i| i.manifest.document["started"].as_str())
        .min()
    {
        manifest["started"] = json!(started);
    }
    manifest["merged_from"] = inputs
        .iter()
        .map(|input| {
            json!({
                "folder": input.folder.display().to_string(),
                "shard": input.shard.map(|s| json!({"index": s.index, "count": s.count})),
                "trials": input.trials.len(),
            })
        })
        .collect();
    manifest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_that_differ_are_named_by_setting_and_file() {
        let a = json!({"plan_hash": "aaaa", "mcpick_version": "0.1.0",
            "options": {"sizes": [5, 25], "seeds": 1},
            "files": {"tasks/travel.toml": "1111111111111111", "toolsets/travel.json": "22"}});
        let b = json!({"plan_hash": "bbbb", "mcpick_version": "0.1.0",
            "options": {"sizes": [5, 50], "seeds": 1},
            "files": {"tasks/travel.toml": "3333333333333333"}});
        let differences = plan_differences(&a, &b);
        assert_eq!(
            differences,
            vec![
                "setting `sizes` is [5,50] there, [5,25] here".to_string(),
                "tasks/travel.toml differs (SHA-256 333333333333 there, 111111111111 here)"
                    .to_string(),
                "toolsets/travel.json was read only here".to_string(),
            ]
        );
        assert!(plan_differences(&a, &a).is_empty());
    }

    #[test]
    fn shards_not_given_are_named() {
        let input = |index: u32| MergeInput {
            folder: PathBuf::from(format!("runs/shard-{index}-of-4")),
            manifest: StoredManifest::default(),
            shard: Some(Shard::new(index, 4).unwrap()),
            trials: Vec::new(),
            unreadable: 0,
        };
        assert_eq!(
            missing_shards(&[input(0), input(2)]),
            vec!["shard(s) 1, 3 of 4 were not given".to_string()]
        );
    }
}
