//! One whole run of given settings into a given folder, from inside another command (`draft`'s
//! agreement run, `improve`'s runs of each candidate): started new, or resumed when the folder
//! already holds a run of the same settings (how much may still be spent aside), executed, and
//! summed up — what it cost, whether it was stopped, how much a local model evaluated. A folder
//! holding a run of other settings is refused, never overwritten: the caller decides what to do.

use super::{RunTarget, ShardRequest, StartError, execute, start_run};
use crate::backend::Work;
use crate::record::Manifest;
use crate::settings::RunSettings;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// How a folder's run ended.
#[derive(Debug, Clone, Default)]
pub struct FolderRun {
    /// Trials the plan holds, and trials this call ran.
    pub planned: usize,
    pub ran: usize,
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

impl FolderRun {
    /// Whether every planned trial is in the folder.
    pub fn complete(&self) -> bool {
        !self.interrupted && !self.budget_reached && self.halted.is_empty()
    }
}

/// Runs `settings` into `folder`: resumes it when its manifest records the same settings (but for
/// the budget, which `settings.budget` replaces), starts it when there is no run there. `what`
/// names the run in errors (`the agreement run`).
pub async fn run_in_folder(
    settings: &RunSettings,
    folder: &Path,
    progress: bool,
    what: &str,
) -> Result<FolderRun, String> {
    let started_at = Instant::now();
    let interrupt = crate::interrupt::listen();
    let target = match Manifest::read(folder) {
        Ok((manifest, _)) => {
            let mut recorded = manifest.options.clone();
            recorded.budget = settings.budget;
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
    let started = match start_run(target, ShardRequest::default(), &|_| None) {
        Ok(started) => started,
        Err(StartError::Plan(problems)) => {
            return Err(format!("{what} cannot start: {}", problems.join("; ")));
        }
        Err(StartError::Refused(why)) => return Err(format!("{what}: {why}")),
        Err(StartError::Io(e)) => return Err(format!("{what}: {e}")),
    };
    let mut run_folder = started.folder;
    let execution = execute(
        Arc::clone(&started.plan),
        started.pending.clone(),
        started.already_spent,
        &mut run_folder,
        progress,
        interrupt,
    )
    .await
    .map_err(|e| format!("{what}: {e}"))?;
    Ok(FolderRun {
        planned: started.owned,
        ran: execution.finished,
        lanes: started.plan.lanes.iter().map(|l| l.id.clone()).collect(),
        interrupted: execution.interrupted,
        budget_reached: execution.budget_reached,
        halted: execution.halted,
        cost_usd: execution.cost_usd,
        seconds: started_at.elapsed().as_secs_f64(),
        local_work: started
            .plan
            .lanes
            .iter()
            .filter_map(|lane| Some((lane.id.clone(), lane.backend.local_work()?)))
            .collect(),
    })
}
