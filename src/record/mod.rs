//! The run folder and its vocabulary, written and read through the same types: one stored-trial
//! type, made by the plan, filled by the runner and read back by everything downstream, with the
//! key that identifies a trial (`trial`); the typed manifest (`manifest`: the plan's part and the
//! run's part — started, resumed, shard, merged from); the folder's files (`folder`: append, read
//! once, replace whole); the stamps it is named and dated by (`stamp`); what `--resume` skips
//! (`resume`); which shard of a split run owns a trial (`shard`) and the union of shards' folders
//! (`merge`). The runner only appends; `report::rebuild` reads the records once and hands them to
//! the exporters. Nothing outside this module reads or writes a run folder's files by key.

mod folder;
mod manifest;
mod merge;
mod resume;
mod shard;
mod stamp;
mod trial;

pub use folder::{RunFolder, StoredTrials, read_trials, write_whole};
pub use manifest::{
    BatchRecord, LaneRecord, MANIFEST_FILE, Manifest, ManifestError, MergedFolder, ShardIndex,
    ShardRecord, SuiteRecord,
};
pub use merge::{MergeInput, MergedRun, merge_runs};
pub use resume::{Finished, finished_trials};
pub use shard::{Shard, shard_from_environment, shard_of};
pub use stamp::utc_stamp;
pub use trial::{StoredTrial, TrialKey};
