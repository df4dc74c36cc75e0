//! The one way into a run (`run`): started (new or resumed, this process's shard), announced to
//! the caller, executed, and summed up — what it cost, whether it was stopped, how much a local
//! model evaluated. `mcpick run` goes through it, and so do the runs other commands make
//! (`run_in_folder`: `draft`'s agreement run, `improve`'s runs of each candidate), which start new
//! or resume when the folder already holds a run of the same settings (how much may still be spent
//! aside). A folder holding a run of other settings is refused, never overwritten: the caller
//! decides what to do.

use super::{RunTarget, ShardRequest, StartError, StartedRun, execute, start_run};
use crate::backend::Work;
use crate::record::Manifest;
use crate::settings::RunSettings;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// How a run ended.
#[derive(Debug, Clone, Default)]
pub struct FolderRun {
    /// The run folder.
    pub folder: PathBuf,
    /// Trials this process owns (the plan's, or its shard's), the ones of them this call set out
    /// to run (those not finished before), and the ones it ran.
    pub planned: usize,
    pub pending: usize,
    pub ran: usize,
    /// What the run may spend, in dollars.
    pub budget: Option<f64>,
    /// The run's lanes (backend ids), in the plan's order.
    pub lanes: Vec<String>,
    pub interrupted: bool,
    pub budget_reached: bool,
    /// Backends stopped early, with why.
    pub halted: Vec<(String, String)>,
    /// What this call spent, in dollars.
    pub cost_usd: f64,
    pub seconds: f64,
    /// The local lanes' work: tokens evaluated, restored from the prefix cache, generated.
    pub local_work: Vec<(String, Work)>,
}

/// Why a run ended before its last trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Ctrl-C: the same command resumes.
    Interrupted,
    /// The budget is spent, or a backend was stopped.
    Incomplete,
}

impl FolderRun {
    /// Whether every planned trial is in the folder.
    pub fn complete(&self) -> bool {
        !self.interrupted && !self.budget_reached && self.halted.is_empty()
    }

    /// How and why the run stopped before its last trial; none when it did not.
    pub fn stopped(&self) -> Option<(Stop, String)> {
        if self.interrupted {
            return Some((
                Stop::Interrupted,
                "interrupted; the same command resumes".into(),
            ));
        }
        if self.budget_reached {
            return Some((Stop::Incomplete, "the budget is spent".into()));
        }
        self.halted.first().map(|(backend, why)| {
            (
                Stop::Incomplete,
                format!("backend {backend} was stopped: {why}"),
            )
        })
    }
}

/// Starts `target`, tells `on_start` what is about to run (before its first trial), executes it
/// and sums it up. Ctrl-C is listened for from the start: pressed while the run is still starting,
/// it is held for the scheduler, which then stops the run as it would any other time. A file-system
/// error while the trials run comes back as `StartError::Io`, like one before.
pub async fn run(
    target: RunTarget,
    shards: ShardRequest,
    env: &dyn Fn(&str) -> Option<String>,
    progress: bool,
    on_start: &mut dyn FnMut(&StartedRun),
) -> Result<FolderRun, StartError> {
    let started_at = Instant::now();
    let interrupt = crate::interrupt::listen();
    let started = start_run(target, shards, env)?;
    on_start(&started);
    let StartedRun {
        settings,
        plan,
        folder: mut run_folder,
        owned,
        pending,
        already_spent,
        ..
    } = started;
    let folder = run_folder.path.clone();
    let execution = execute(
        Arc::clone(&plan),
        pending.clone(),
        already_spent,
        &mut run_folder,
        progress,
        interrupt,
    )
    .await
    .map_err(StartError::Io)?;
    Ok(FolderRun {
        folder,
        planned: owned,
        pending: pending.len(),
        ran: execution.finished,
        budget: settings.budget,
        lanes: plan.lanes.iter().map(|l| l.id.clone()).collect(),
        interrupted: execution.interrupted,
        budget_reached: execution.budget_reached,
        halted: execution.halted,
        cost_usd: execution.cost_usd,
        seconds: started_at.elapsed().as_secs_f64(),
        local_work: plan
            .lanes
            .iter()
            .filter_map(|lane| Some((lane.id.clone(), lane.backend.local_work()?)))
            .collect(),
    })
}

/// Runs `settings` into `folder`: resumes it when its manifest records the same settings (but for
/// the budget, which `settings.budget` replaces, and the use of the prefix cache, which no
/// manifest records), starts it when there is no run there. `what`
/// names the run in errors (`the agreement run`).
pub async fn run_in_folder(
    settings: &RunSettings,
    folder: &Path,
    progress: bool,
    what: &str,
) -> Result<FolderRun, String> {
    let target = match Manifest::read(folder) {
        Ok((manifest, _)) => {
            let mut recorded = manifest.options.clone();
            recorded.budget = settings.budget;
            // How the prefix cache is used is not recorded (it changes when numbers are computed,
            // never what they are), so it cannot make two runs' settings differ.
            recorded.backend.local.kv_cache = settings.backend.local.kv_cache;
            if recorded != *settings {
                return Err(format!(
                    "{what}: {} holds a run of other settings",
                    folder.display()
                ));
            }
            RunTarget::Resume {
                folder: folder.to_path_buf(),
                budget: settings.budget,
                kv_cache: settings.backend.local.kv_cache,
            }
        }
        Err(_) => RunTarget::New {
            settings: Box::new(settings.clone()),
            out: Some(folder.to_path_buf()),
        },
    };
    run(
        target,
        ShardRequest::default(),
        &|_| None,
        progress,
        &mut |_| {},
    )
    .await
    .map_err(|e| match e {
        StartError::Plan(problems) => format!("{what} cannot start: {}", problems.join("; ")),
        StartError::Refused(why) => format!("{what}: {why}"),
        StartError::Io(e) => format!("{what}: {e}"),
    })
}
