//! The run folder as a record: one stored-trial type written as trials finish and read back by
//! everything downstream (`trial`), the folder's files (`folder`: append, read once, replace
//! whole), the manifest read back (`manifest`), what `--resume` skips (`resume`), which shard of a split
//! run owns a trial (`shard`) and the union of shards' folders (`merge`). The runner
//! only appends; `report::rebuild` reads the records once and hands them to the exporters.

mod folder;
mod manifest;
mod merge;
mod resume;
mod shard;
mod trial;

pub use folder::{RunFolder, StoredTrials, read_trials, write_whole};
pub use manifest::StoredManifest;
pub use merge::{MergeInput, MergedRun, merge_runs};
pub use resume::{Finished, finished_trials};
pub use shard::{Shard, shard_from_environment, shard_of};
pub use trial::{StoredTrial, TrialKey};
