//! The run folder and its vocabulary, written and read through the same types: one stored-trial
//! type, made by the plan, filled by the runner and read back by everything downstream, with the
//! key that identifies a trial (`trial`); the typed manifest (`manifest`: the plan's part and the
//! run's part — started, resumed, shard, merged from); the folder's files (`folder`: append, open
//! checked, replace whole); the stamps it is named and dated by (`stamp`); what `--resume` skips
//! (`resume`); which shard of a split run owns a trial (`shard`) and the union of shards' folders
//! (`merge`). Everything read back is outside input, checked by one rule: the manifest against
//! itself as it is read (`manifest_read`, `manifest_check`), each line of trials against the keys
//! its plan holds (`planned`, `trial_lines`), lines that fail named and moved to a side file, never
//! deleted (`set_aside`); `read_back` is that rule for the commands that only read a folder. The
//! runner only appends; `report::rebuild` reads the records once and hands them to the exporters.
//! Nothing outside this module reads or writes a run folder's files by key.

mod folder;
mod manifest;
mod manifest_check;
mod manifest_read;
mod merge;
mod planned;
mod read_back;
mod resume;
mod set_aside;
mod shard;
mod stamp;
mod trial;
mod trial_lines;

pub use folder::{RunFolder, ends_with_newline, write_whole};
pub use manifest::{
    BatchRecord, BystanderRecord, LaneRecord, MANIFEST_FILE, Manifest, MergedFolder, ShardIndex,
    ShardRecord, SuiteRecord,
};
pub use manifest_check::{plan_hash, plan_hash_holds, setting_hashes};
pub use manifest_read::ManifestError;
pub use merge::{MergeInput, MergedRun, merge_runs};
pub use planned::PlannedKeys;
pub use read_back::{RunRecords, read_run};
pub use resume::{Finished, finished_trials};
pub use set_aside::{SET_ASIDE_FILE, original_bytes};
pub use shard::{Shard, shard_from_environment, shard_of};
pub use stamp::utc_stamp;
pub use trial::{StoredTrial, TrialKey};
pub use trial_lines::{
    MAX_LINE_BYTES, SetAside, StoredTrials, TRIALS_FILE, read_bounded_line, read_trials,
};
