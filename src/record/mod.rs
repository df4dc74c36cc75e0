//! The run folder as a record: one stored-trial type written as trials finish and read back by
//! everything downstream (`trial`), the folder's files (`folder`: append, read once, replace
//! whole), the manifest read back (`manifest`) and what `--resume` skips (`resume`). The runner
//! only appends; `report::rebuild` reads the records once and hands them to the exporters.

mod folder;
mod manifest;
mod resume;
mod trial;

pub use folder::{RunFolder, StoredTrials, read_trials, write_whole};
pub use manifest::StoredManifest;
pub use resume::{Finished, finished_trials};
pub use trial::{StoredTrial, TrialKey};
