//! Agreement: the candidates that passed the checks, put to the pickers mcpick has offline (`bm25`,
//! `embed`, and the drafter's own model) through the normal trial path — a real run, in
//! `DIR/.draft/agreement-HASH` (the hash of the candidates' suite), of a suite of the candidates
//! over the whole toolset — and read back as what each picker chose for each task and whether that
//! was the intended tool (or no call). A killed draft resumes this run like any other
//! (`--resume`); the run of other candidates is replaced.

use crate::record::{Manifest, read_run};
use crate::runner::run_in_folder;
use crate::settings::RunSettings;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What one picker did with one task.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    /// The first tool called, or `none`.
    pub chose: String,
    pub right: bool,
}

/// Per task id, per picker id: its pick.
pub type Picks = HashMap<String, BTreeMap<String, Pick>>;

/// Runs `suite` (a candidates' suite file) against `pickers` into `folder`, with the other settings
/// of `template`, and reads back every pick. `progress` shows the run's progress bar.
pub async fn run_pickers(
    suite: &Path,
    pickers: &[String],
    template: &RunSettings,
    folder: &Path,
    progress: bool,
) -> Result<(Picks, Vec<String>), String> {
    let mut settings = template.clone();
    settings.paths = vec![suite.to_path_buf()];
    settings.backends = pickers.to_vec();
    // A run of other pickers in this folder is replaced: the folder is named by the tasks alone.
    if Manifest::read(folder).is_ok_and(|(m, _)| m.options != settings) {
        std::fs::remove_dir_all(folder)
            .map_err(|e| format!("{}: cannot replace: {e}", folder.display()))?;
    }
    let run = run_in_folder(&settings, folder, progress, "the agreement run").await?;
    if run.interrupted {
        return Err("interrupted; run the same command again to go on".into());
    }
    let stored = read_run(folder)?.stored;
    let mut picks: Picks = HashMap::new();
    for trial in stored.trials {
        let chose = trial
            .calls
            .first()
            .map_or_else(|| "none".to_string(), |c| c.tool.clone());
        let chose = match &trial.backend_error {
            Some(_) => "error".to_string(),
            None => chose,
        };
        picks.entry(trial.task.clone()).or_default().insert(
            trial.backend.clone(),
            Pick {
                right: trial.scored() && trial.right_pick(),
                chose,
            },
        );
    }
    Ok((picks, run.lanes))
}

/// Where the agreement run of a candidates' suite lives: a folder named by the suite's content, so
/// a run is resumed only for the very tasks it ran (a task id drafted again with other words is
/// another run); folders of other candidates are removed.
pub fn agreement_folder(work_dir: &Path, candidates_dir: &Path) -> std::io::Result<PathBuf> {
    let mut content = std::fs::read(candidates_dir.join("suite.toml"))?;
    content.extend(std::fs::read(candidates_dir.join("tasks.jsonl"))?);
    let name = format!("agreement-{}", &crate::hashing::sha256_hex(&content)[..12]);
    for entry in std::fs::read_dir(work_dir)?.flatten() {
        let other = entry.file_name().to_string_lossy().into_owned();
        if other.starts_with("agreement") && other != name {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(work_dir.join(name))
}
