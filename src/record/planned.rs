//! Which trial keys a run folder's plan holds, from its manifest alone (a folder copied to another
//! machine is checked without its suites): the suites with their task ids under each arm, the
//! backend lanes, the exposure labels, the sweep sizes and seeds, the repeats, and the shard this
//! folder runs. A trial whose key is not among them belongs to another plan or another shard and
//! is never counted as this run's. Manifests written before task ids were kept are checked by
//! suite only.

use super::manifest::Manifest;
use super::shard::Shard;
use super::trial::TrialKey;
use std::collections::{BTreeSet, HashSet};

/// The keys a folder's plan holds, and how many trials it owns.
#[derive(Debug, Clone)]
pub struct PlannedKeys {
    /// (suite, variant or "") → the task ids (`None`: not recorded, any task of the suite).
    suites: Vec<(String, String, Option<HashSet<String>>)>,
    backends: BTreeSet<String>,
    exposures: BTreeSet<String>,
    sizes: BTreeSet<u32>,
    seeds: u32,
    repeats: u32,
    shard: Option<Shard>,
    /// The trials this folder owns: the plan's, or its shard's.
    pub owned: usize,
}

impl PlannedKeys {
    /// The keys `manifest`'s plan holds (a checked manifest: its numbers are within bounds).
    pub fn of(manifest: &Manifest) -> PlannedKeys {
        let options = &manifest.options;
        let shard = Shard::of_manifest(manifest);
        PlannedKeys {
            suites: manifest
                .suites
                .iter()
                .map(|s| {
                    let tasks = (!s.task_ids.is_empty() || s.tasks == 0)
                        .then(|| s.task_ids.iter().cloned().collect());
                    (
                        s.suite.clone(),
                        s.variant.clone().unwrap_or_default(),
                        tasks,
                    )
                })
                .collect(),
            backends: manifest.backends.iter().map(|l| l.id.clone()).collect(),
            exposures: if options.exposures.is_empty() {
                BTreeSet::from([String::new()])
            } else {
                manifest.named_exposures().into_iter().collect()
            },
            sizes: if options.sizes.is_empty() {
                BTreeSet::from([0])
            } else {
                options.sizes.iter().copied().collect()
            },
            seeds: if options.sizes.is_empty() {
                1
            } else {
                options.seeds
            },
            repeats: options.repeats.max(1),
            owned: manifest.shard.map_or(manifest.trials, |s| s.trials),
            shard,
        }
    }

    /// Why the trial with `key` is not this folder's (`None`: it is).
    pub fn why_not(&self, key: &TrialKey) -> Option<String> {
        let arms: Vec<&(String, String, Option<HashSet<String>>)> = self
            .suites
            .iter()
            .filter(|(suite, _, _)| *suite == key.suite)
            .collect();
        if arms.is_empty() {
            return Some(format!("suite `{}` is not in the plan", key.suite));
        }
        let Some((_, _, tasks)) = arms.iter().find(|(_, variant, _)| *variant == key.variant)
        else {
            return Some(format!(
                "variant `{}` is not an arm of the plan",
                key.variant
            ));
        };
        if tasks
            .as_ref()
            .is_some_and(|tasks| !tasks.contains(&key.task))
        {
            return Some(format!(
                "task `{}` is not in suite {}'s plan",
                key.task, key.suite
            ));
        }
        if !self.backends.contains(&key.backend) {
            return Some(format!("backend `{}` is not in the plan", key.backend));
        }
        if !self.exposures.contains(&key.exposure) {
            return Some(format!("exposure `{}` is not in the plan", key.exposure));
        }
        if !self.sizes.contains(&key.size) {
            return Some(format!("size {} is not in the plan", key.size));
        }
        if key.sweep_seed >= self.seeds {
            return Some(format!(
                "sweep seed {} is beyond the plan's {}",
                key.sweep_seed, self.seeds
            ));
        }
        if key.repeat >= self.repeats {
            return Some(format!(
                "repeat {} is beyond the plan's {}",
                key.repeat, self.repeats
            ));
        }
        match self.shard {
            Some(shard) if !shard.owns(key) => Some(format!(
                "it belongs to shard {}/{}, not to this folder's {shard}",
                super::shard::shard_of(key, shard.count),
                shard.count
            )),
            _ => None,
        }
    }
}
