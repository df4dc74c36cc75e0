//! A run folder read back by a command that only reads it (`report`, `compare`, `merge`, `improve`,
//! `draft`'s agreement run): its manifest, checked (`manifest_check`), and its trials checked against
//! the plan that manifest records (`trial_lines`). A folder without a manifest (one made by hand, or
//! by a version that wrote none) is read with its keys unchecked; one whose manifest is damaged or
//! does not hold together is refused, with why.

use super::manifest::Manifest;
use super::manifest_read::ManifestError;
use super::planned::PlannedKeys;
use super::trial_lines::{StoredTrials, TRIALS_FILE, read_trials};
use std::path::Path;

/// What a run folder holds, checked.
#[derive(Debug)]
pub struct RunRecords {
    /// The manifest and its text as on disk (`None`: the folder has none).
    pub manifest: Option<(Manifest, String)>,
    /// The keys its plan holds (`None` without a manifest).
    pub plan: Option<PlannedKeys>,
    pub stored: StoredTrials,
}

impl RunRecords {
    /// The trials the folder's plan owns (`None` without a manifest to say).
    pub fn planned(&self) -> Option<usize> {
        self.plan.as_ref().map(|p| p.owned)
    }
}

/// Reads the run folder at `folder`; `Err` says why it cannot be read.
pub fn read_run(folder: &Path) -> Result<RunRecords, String> {
    let manifest = match Manifest::read(folder) {
        Ok(read) => Some(read),
        Err(ManifestError::Missing { .. }) => None,
        Err(e) => return Err(e.to_string()),
    };
    let plan = manifest.as_ref().map(|(m, _)| PlannedKeys::of(m));
    let cannot =
        |e: std::io::Error| format!("cannot read {}: {e}", folder.join(TRIALS_FILE).display());
    let mut stored = read_trials(folder, plan.as_ref()).map_err(cannot)?;
    stored.earlier_set_aside = super::set_aside::count(folder).map_err(cannot)?;
    Ok(RunRecords {
        manifest,
        plan,
        stored,
    })
}
