//! The union of a split run's folders (`mcpick merge`): every folder must have run the same plan —
//! the same plan hash, so the same settings and the same input files — or the merge is refused with
//! what differs named; each trial key is kept exactly once (a duplicate that agrees is dropped, one
//! that disagrees is reported and the first kept); each folder's manifest is checked and its lines
//! against its own plan and shard, so a line of another plan or shard is named, never merged; and
//! what is missing is told per shard, from the trial counts each shard's manifest planned, and over
//! the plan. Writing the merged folder is the command's.

use super::manifest::{Manifest, MergedFolder, ShardIndex};
use super::planned::PlannedKeys;
use super::shard::Shard;
use super::trial::{StoredTrial, TrialKey};
use super::trial_lines::{SetAside, TRIALS_FILE, read_trials};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One folder given to the merge, as read.
pub struct MergeInput {
    pub folder: PathBuf,
    pub manifest: Manifest,
    pub shard: Option<Shard>,
    pub trials: Vec<StoredTrial>,
    /// Lines of its trials that are not its plan's trials (named, never merged).
    pub set_aside: Vec<SetAside>,
}

/// What the merge made.
#[derive(Debug)]
pub struct MergedRun {
    /// The first folder's manifest without its shard, with `merged_from` listing the folders.
    pub manifest: Manifest,
    /// Every key once, in the order the folders were given.
    pub trials: Vec<StoredTrial>,
    /// Trials found twice with the same result (one kept).
    pub duplicates: usize,
    /// Trials found twice with different results, one line each (the first kept).
    pub conflicts: Vec<String>,
    /// What is missing: shards not given, shards that did not finish, trials the plan lacks.
    pub missing: Vec<String>,
    /// Lines of the folders' trials that were not merged, `FOLDER/trials.jsonl:LINE: why`.
    pub set_aside: Vec<String>,
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
        let differences = first.manifest.plan_differences(&input.manifest);
        if !differences.is_empty() {
            return Err(format!(
                "{} ran another plan ({}) than {} ({}): {}",
                input.folder.display(),
                input.manifest.plan_hash,
                first.folder.display(),
                first.manifest.plan_hash,
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
        set_aside: inputs
            .iter()
            .flat_map(|input| {
                input
                    .set_aside
                    .iter()
                    .map(|line| format!("{}/{}", input.folder.display(), line.describe()))
            })
            .collect(),
        planned: first.manifest.trials,
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
    let (manifest, _) = Manifest::read(folder).map_err(|e| e.to_string())?;
    let stored = read_trials(folder, Some(&PlannedKeys::of(&manifest)))
        .map_err(|e| format!("cannot read {}: {e}", folder.join(TRIALS_FILE).display()))?;
    Ok(MergeInput {
        folder: folder.to_path_buf(),
        shard: Shard::of_manifest(&manifest),
        manifest,
        trials: stored.trials,
        set_aside: stored.set_aside,
    })
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
        if !input.set_aside.is_empty() {
            missing.push(format!(
                "{}: {} line(s) of trials.jsonl are not trials of its plan and were not merged (if they stood for planned trials, those run on --resume)",
                input.folder.display(),
                input.set_aside.len()
            ));
        }
        let Some(shard) = input.shard else { continue };
        given.entry(shard.count).or_default().insert(shard.index);
        let planned = input.manifest.shard.map_or(0, |s| s.trials);
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
        // A checked manifest has at most 100000 shards; the list names the first ten.
        let absent = (0..count).filter(|i| !indices.contains(i));
        let named: Vec<String> = absent.clone().take(10).map(|i| i.to_string()).collect();
        let more = absent.count().saturating_sub(named.len());
        if !named.is_empty() {
            missing.push(format!(
                "shard(s) {}{} of {count} were not given",
                named.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    missing
}

fn merged_manifest(inputs: &[MergeInput]) -> Manifest {
    let mut manifest = inputs[0].manifest.clone();
    manifest.shard = None;
    // The earliest start stands for the run (the stamps are UTC and sort as text).
    if let Some(started) = inputs
        .iter()
        .filter_map(|i| i.manifest.started.as_deref())
        .min()
    {
        manifest.started = Some(started.to_string());
    }
    manifest.merged_from = Some(
        inputs
            .iter()
            .map(|input| MergedFolder {
                folder: input.folder.display().to_string(),
                shard: input.shard.map(|s| ShardIndex {
                    index: s.index,
                    count: s.count,
                }),
                trials: input.trials.len(),
            })
            .collect(),
    );
    manifest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_not_given_are_named() {
        let input = |index: u32| MergeInput {
            folder: PathBuf::from(format!("runs/shard-{index}-of-4")),
            manifest: serde_json::from_str(include_str!(
                "../../tests/data/manifests/typeless.json"
            ))
            .unwrap(),
            shard: Some(Shard::new(index, 4).unwrap()),
            trials: Vec::new(),
            set_aside: Vec::new(),
        };
        assert_eq!(
            missing_shards(&[input(0), input(2)]),
            vec!["shard(s) 1, 3 of 4 were not given".to_string()]
        );
    }
}
