//! Splitting one run's trials among processes: a shard is `index/count` (0-based, as Kubernetes'
//! `JOB_COMPLETION_INDEX` is), and a stable hash of a trial's key assigns the trial to exactly one
//! shard — the same on every machine and build, so shards that never talk to each other still
//! cover the plan once between them. The shard is how a run is split, not what it runs: it stays
//! out of the settings and the plan hash, and the manifest records it apart (`shard`), which is
//! what `mcpick merge` and `--resume` read back.

use super::manifest::{Manifest, ShardRecord};
use super::trial::TrialKey;

/// One of `count` shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// `I/N` with 0 ≤ I < N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (index, count) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not a shard: write I/N, e.g. 0/4"))?;
        let parse = |part: &str, what: &str| {
            part.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{text}`: the shard {what} `{part}` is not a whole number"))
        };
        Shard::new(parse(index, "index")?, parse(count, "count")?)
    }

    pub fn new(index: u32, count: u32) -> Result<Shard, String> {
        if count == 0 {
            return Err("a run cannot be split into 0 shards".into());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is out of range for {count} shards: indices run from 0 to {} (as JOB_COMPLETION_INDEX does)",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// Whether the trial with `key` is this shard's.
    pub fn owns(&self, key: &TrialKey) -> bool {
        shard_of(key, self.count) == self.index
    }

    /// The folder a shard writes under the run's folder: `shard-I-of-N`.
    pub fn folder_name(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }

    /// The shard a manifest records (`None` for a run that was not split, or a merged one).
    pub fn of_manifest(manifest: &Manifest) -> Option<Shard> {
        let shard = manifest.shard?;
        Shard::new(shard.index, shard.count).ok()
    }

    /// How the manifest of this shard's folder records it: with the trials it owns.
    pub fn record(&self, trials: usize) -> ShardRecord {
        ShardRecord {
            index: self.index,
            count: self.count,
            trials,
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard of `count` that owns `key`. Every field of the key goes in, separated by a byte no
/// name holds, and SplitMix64 spreads FNV-1a's low bits, which alone would cluster similar keys.
pub fn shard_of(key: &TrialKey, count: u32) -> u32 {
    let text = format!(
        "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}",
        key.suite,
        key.task,
        key.backend,
        key.variant,
        key.exposure,
        key.size,
        key.sweep_seed,
        key.repeat
    );
    let mixed = crate::hashing::splitmix64(crate::hashing::fnv1a(&text));
    (mixed % u64::from(count.max(1))) as u32
}

/// Where a shard comes from when `--shard` is not given: Kubernetes' Indexed Job index with the
/// count from `--shards`, or a Slurm job array's task id and count (its ids made 0-based from
/// `SLURM_ARRAY_TASK_MIN`, since arrays may start anywhere). `None`: the run is not split.
pub fn shard_from_environment(
    shards: Option<u32>,
    variable: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<(Shard, &'static str)>, String> {
    let number = |name: &str| -> Result<Option<u32>, String> {
        match variable(name) {
            None => Ok(None),
            Some(text) => text.trim().parse::<u32>().map(Some).map_err(|_| {
                format!("{name}={text:?} is not a whole number, so it names no shard")
            }),
        }
    };
    if let Some(count) = shards {
        let Some(index) = number("JOB_COMPLETION_INDEX")? else {
            return Err(format!(
                "--shards {count} takes the shard's index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it), which is not set here; give --shard I/{count} instead"
            ));
        };
        return Shard::new(index, count)
            .map(|shard| Some((shard, "JOB_COMPLETION_INDEX")))
            .map_err(|e| format!("JOB_COMPLETION_INDEX: {e}"));
    }
    let (Some(id), Some(count)) = (
        number("SLURM_ARRAY_TASK_ID")?,
        number("SLURM_ARRAY_TASK_COUNT")?,
    ) else {
        return Ok(None);
    };
    let first = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
    let index = id
        .checked_sub(first)
        .ok_or_else(|| format!("SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {first}"))?;
    Shard::new(index, count)
        .map(|shard| Some((shard, "SLURM_ARRAY_TASK_ID")))
        .map_err(|e| format!("SLURM_ARRAY_TASK_ID: {e} (an array with a step or gaps cannot be mapped to shards; use --shard)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn key(task: usize, size: u32) -> TrialKey {
        TrialKey {
            suite: "travel".into(),
            task: format!("t{task}"),
            backend: "bm25".into(),
            variant: String::new(),
            exposure: String::new(),
            size,
            sweep_seed: 0,
            repeat: 0,
        }
    }

    #[test]
    fn shards_parse_and_refuse_what_names_none() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert!(Shard::parse("4/4").unwrap_err().contains("from 0 to 3"));
        assert!(Shard::parse("0/0").unwrap_err().contains("0 shards"));
        assert!(Shard::parse("1").unwrap_err().contains("I/N"));
        assert!(Shard::parse("a/4").unwrap_err().contains("index `a`"));
    }

    #[test]
    fn every_trial_belongs_to_exactly_one_shard_and_shards_are_even() {
        let keys: Vec<TrialKey> = (0..2000).map(|t| key(t, [5, 25, 100][t % 3])).collect();
        let shards: Vec<Shard> = (0..4).map(|i| Shard::new(i, 4).unwrap()).collect();
        let mut per_shard = HashMap::new();
        for key in &keys {
            let owners: Vec<u32> = shards
                .iter()
                .filter(|s| s.owns(key))
                .map(|s| s.index)
                .collect();
            assert_eq!(owners.len(), 1, "{key:?} owned by {owners:?}");
            *per_shard.entry(owners[0]).or_insert(0) += 1;
        }
        // 500 expected each; a binomial's sd is ~19, so 430..570 fails only a broken hash.
        for index in 0..4 {
            let n = per_shard[&index];
            assert!((430..570).contains(&n), "shard {index} got {n} of 2000");
        }
    }

    #[test]
    fn the_assignment_is_pinned_across_builds() {
        // A shard resumed by a newer build must own the trials it owned before.
        let owners: Vec<u32> = (0..8).map(|t| shard_of(&key(t, 5), 4)).collect();
        assert_eq!(owners, PINNED_OWNERS);
    }
    const PINNED_OWNERS: [u32; 8] = [2, 3, 3, 1, 2, 1, 3, 3];

    #[test]
    fn the_environment_names_kubernetes_and_slurm_shards() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let k8s = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert_eq!(
            shard_from_environment(Some(4), &k8s),
            Ok(Some((Shard::new(3, 4).unwrap(), "JOB_COMPLETION_INDEX")))
        );
        assert!(
            shard_from_environment(Some(3), &k8s)
                .unwrap_err()
                .contains("JOB_COMPLETION_INDEX")
        );
        assert!(
            shard_from_environment(Some(4), &env(&[]))
                .unwrap_err()
                .contains("--shard I/4")
        );
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
        ]);
        assert_eq!(
            shard_from_environment(None, &slurm),
            Ok(Some((Shard::new(2, 4).unwrap(), "SLURM_ARRAY_TASK_ID")))
        );
        assert_eq!(shard_from_environment(None, &env(&[])), Ok(None));
        let garbage = env(&[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(
            shard_from_environment(None, &garbage)
                .unwrap_err()
                .contains("not a whole number")
        );
    }
}
