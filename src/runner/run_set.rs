//! A set of runs one command makes, each a real run folder under one folder (`DIR/runs/`):
//! `improve`'s (one wording on one part of the split, `r1-baseline`, `r1-c2`, …, and the held-out
//! comparison) and `explain`'s (the wording as it is, then one run per unit left out). Every run
//! has the settings `run` would give it — the suite, the wording's variant file, the backend, the
//! task ids — so a killed command resumes each folder where it stopped, and `mcpick report` reads
//! any of them. The budget covers all of them: each run may spend what the others have not.

use super::{FolderRun, run_in_folder};
use crate::record::{StoredTrial, read_run};
use crate::settings::RunSettings;
use std::path::{Path, PathBuf};

/// Where and how a command runs its trials.
#[derive(Debug, Clone)]
pub struct RunSet {
    /// The settings every run starts from (backend, its options, limits).
    pub template: RunSettings,
    /// The files every run loads: the suite, and the starting variant's file when `toolsets/`
    /// does not already hold it.
    pub paths: Vec<PathBuf>,
    /// `DIR/runs`.
    pub folder: PathBuf,
    /// Dollars all runs together may spend.
    pub budget: Option<f64>,
    pub progress: bool,
}

/// One finished (or stopped) run and its trials.
pub struct RunTrials {
    pub run: FolderRun,
    pub trials: Vec<StoredTrial>,
}

impl RunSet {
    /// The run folder `name`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.folder.join(name)
    }

    /// Runs the `arms` (variant names, A first) on `tasks` into `DIR/runs/NAME`, loading the
    /// variant files `variant_files` besides the common paths.
    pub async fn run(
        &self,
        name: &str,
        arms: &[String],
        variant_files: &[PathBuf],
        tasks: &[String],
    ) -> Result<RunTrials, String> {
        let folder = self.path(name);
        let mut settings = self.template.clone();
        settings.paths = self.paths.clone();
        settings.paths.extend(variant_files.iter().cloned());
        settings.variants = arms.to_vec();
        settings.tasks = tasks.to_vec();
        settings.budget = match self.budget {
            Some(budget) => Some((budget - self.spent_outside(&folder)?).max(0.0)),
            None => None,
        };
        let run = run_in_folder(&settings, &folder, self.progress, &format!("run {name}")).await?;
        let trials = read_run(&folder)?.stored.trials;
        Ok(RunTrials { run, trials })
    }

    /// Whether the run folder `name` already holds `trials` trials (a resumed command then has
    /// nothing of it left to run).
    pub fn finished(&self, name: &str, trials: usize) -> bool {
        std::fs::read_to_string(self.path(name).join("trials.jsonl"))
            .is_ok_and(|text| text.lines().filter(|l| !l.trim().is_empty()).count() >= trials)
    }

    /// What the runs other than `folder` have spent, from their trials.
    fn spent_outside(&self, folder: &Path) -> Result<f64, String> {
        let Ok(entries) = std::fs::read_dir(&self.folder) else {
            return Ok(0.0);
        };
        let mut spent = 0.0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path == folder || !path.join("trials.jsonl").is_file() {
                continue;
            }
            let stored = read_run(&path)?.stored;
            spent += stored.trials.iter().map(|t| t.cost_usd).sum::<f64>();
        }
        Ok(spent)
    }
}
