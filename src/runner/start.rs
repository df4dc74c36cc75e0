//! Starting a run, new or resumed, up to its first trial: the settings (given, or read back from the
//! folder's manifest), the plan, the shard this process runs, the folder (named by the start time
//! and plan hash unless given; a shard's under the plan's folder), the trials still to run, and the
//! manifest written with the run's own part — when it started, its resumptions, its shard. A folder
//! that already holds a run is continued only if it is the same plan: a manifest that does not hold
//! together, or whose settings with today's files no longer give its plan hash, is refused with what
//! changed; lines of trials that are not the plan's are set aside (`record::RunFolder::open`). One
//! whose manifest was damaged from outside is adopted by a new start of the same command, its
//! damaged manifest kept beside the new one, so finished trials are never stranded. Nothing here
//! prints: what the user should know comes back as `warnings`.

use super::plan::{PlannedTrial, RunPlan};
use crate::record::{
    MANIFEST_FILE, Manifest, ManifestError, PlannedKeys, RunFolder, SET_ASIDE_FILE, Shard,
    finished_trials, plan_hash_holds, shard_from_environment, utc_stamp,
};
use crate::settings::RunSettings;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// What is started.
#[derive(Debug, Clone)]
pub enum RunTarget {
    /// A run of these settings, into `out` (default `reports/<UTC stamp>-<plan hash>`).
    New {
        settings: Box<RunSettings>,
        out: Option<PathBuf>,
    },
    /// The run in `folder`, by the settings its manifest recorded; `budget` and `kv_cache`, if
    /// given, replace the recorded ones (how a run is paid for or computed may change; what it
    /// runs may not).
    Resume {
        folder: PathBuf,
        budget: Option<f64>,
        kv_cache: Option<crate::backend::PrefixCacheUse>,
    },
}

/// Which shard this process is asked to run: `--shard I/N`, or `--shards N` with the index from
/// the environment (a Kubernetes Indexed Job's, or a Slurm array's without either flag).
#[derive(Debug, Clone, Copy, Default)]
pub struct ShardRequest {
    pub shard: Option<Shard>,
    pub shards: Option<u32>,
}

/// A run ready for its first trial.
pub struct StartedRun {
    pub settings: RunSettings,
    pub plan: Arc<RunPlan>,
    pub folder: RunFolder,
    /// The trials this process owns: the plan's, or its shard's.
    pub owned: usize,
    /// Of those, the ones not finished yet, in the order they run.
    pub pending: Vec<PlannedTrial>,
    /// The shard this process runs, and where that came from (for the user).
    pub shard: Option<(Shard, &'static str)>,
    /// What the folder's finished trials cost (a resumed run's budget covers the whole run).
    pub already_spent: f64,
    /// What the user should know before the run starts.
    pub warnings: Vec<String>,
}

/// Why a run did not start.
#[derive(Debug)]
pub enum StartError {
    /// The plan cannot be made: every problem found.
    Plan(Vec<String>),
    /// Refused before anything ran, with why and what to do.
    Refused(String),
    Io(std::io::Error),
}

impl From<std::io::Error> for StartError {
    fn from(e: std::io::Error) -> Self {
        StartError::Io(e)
    }
}

/// Starts `target`: plans it, opens its folder, writes its manifest, and says what is left to run.
/// `environment` reads the variables a shard may come from.
pub fn start_run(
    target: RunTarget,
    shards: ShardRequest,
    environment: &dyn Fn(&str) -> Option<String>,
) -> Result<StartedRun, StartError> {
    let mut warnings = Vec::new();
    let mut recorded_options = serde_json::Value::Null;
    let (settings, previous, resume_folder) = match target {
        RunTarget::Resume {
            folder,
            budget,
            kv_cache,
        } => {
            let (previous, text) = Manifest::read(&folder)
                .map_err(|e| StartError::Refused(cannot_resume(&folder, e)))?;
            // The settings as written, which the plan hash was taken over (a newer version may
            // write the same settings with more fields).
            recorded_options = serde_json::from_str::<serde_json::Value>(&text)
                .map(|manifest| manifest["options"].clone())
                .unwrap_or_default();
            let mut settings = previous.options.clone();
            settings.budget = budget.or(settings.budget);
            settings.backend.local.kv_cache = kv_cache;
            (settings, Some(previous), Some(folder))
        }
        RunTarget::New { settings, out } => (*settings, None, out),
    };
    let resuming = previous.is_some();
    let plan = Arc::new(RunPlan::resolve(&settings).map_err(|e| StartError::Plan(e.0))?);
    let shard = match &previous {
        Some(previous) => Shard::of_manifest(previous).map(|s| (s, "the manifest")),
        None => match shards.shard {
            Some(shard) => Some((shard, "--shard")),
            None => {
                shard_from_environment(shards.shards, environment).map_err(StartError::Refused)?
            }
        },
    };
    let now = utc_stamp(SystemTime::now());
    let folder_path = match (resume_folder, shard) {
        (Some(folder), _) if resuming => folder,
        (out, None) => out.unwrap_or_else(|| PathBuf::from(format!("reports/{now}-{}", plan.hash))),
        // Shards started apart share no clock: by default they meet in the plan's folder.
        (out, Some((shard, _))) => out
            .unwrap_or_else(|| PathBuf::from(format!("reports/{}", plan.hash)))
            .join(shard.folder_name()),
    };
    // A new start into a folder that holds a run continues it only if it is the same plan.
    let previous = match previous {
        Some(previous) => Some(previous),
        None => earlier_run_in(&folder_path, &plan, &mut warnings)?,
    };
    if let Some(previous) = previous.as_ref().filter(|_| resuming) {
        refuse_another_plan(previous, &recorded_options, &plan.manifest)?;
    }
    let mut owned = plan.trials();
    if let Some((shard, _)) = shard {
        owned.retain(|t| shard.owns(&plan.key(*t)));
    }
    let mut manifest = plan.manifest.clone();
    match &previous {
        Some(previous) => manifest = manifest.resuming(previous, now),
        None => manifest.started = Some(now),
    }
    manifest.shard = shard.map(|(shard, _)| shard.record(owned.len()));
    let (folder, stored) = RunFolder::open(&folder_path, &PlannedKeys::of(&manifest))?;
    let shown = 10;
    for line in stored.set_aside.iter().take(shown) {
        warnings.push(format!(
            "{}/{}; set aside into {SET_ASIDE_FILE}",
            folder_path.display(),
            line.describe()
        ));
    }
    if stored.set_aside.len() > shown {
        warnings.push(format!(
            "… and {} more line(s) set aside into {}",
            stored.set_aside.len() - shown,
            folder_path.join(SET_ASIDE_FILE).display()
        ));
    }
    let finished = finished_trials(&stored);
    let pending: Vec<PlannedTrial> = owned
        .iter()
        .copied()
        .filter(|t| !finished.keys.contains(&plan.key(*t)))
        .collect();
    folder.write_manifest(&manifest)?;
    Ok(StartedRun {
        settings,
        plan,
        folder,
        owned: owned.len(),
        pending,
        shard,
        already_spent: finished.cost_usd,
        warnings,
    })
}

/// Refuses to resume `previous` under a plan that is no longer its own: its settings as recorded
/// (`options`, as the manifest's text has them), with the files the plan reads as they are now, must
/// give the recorded plan hash (a `--budget` given to `--resume` changes how the run is paid for,
/// not what it runs, and is left out).
fn refuse_another_plan(
    previous: &Manifest,
    options: &serde_json::Value,
    now: &Manifest,
) -> Result<(), StartError> {
    let files = serde_json::to_value(&now.files).unwrap_or_default();
    let Err(hash) = plan_hash_holds(previous, options, &files) else {
        return Ok(());
    };
    let mut changed = Vec::new();
    let paths: std::collections::BTreeSet<&String> =
        previous.files.keys().chain(now.files.keys()).collect();
    for path in paths {
        match (previous.files.get(path), now.files.get(path)) {
            (Some(was), Some(is)) if was != is => changed.push(format!(
                "{path} changed (SHA-256 {} when the run started, {} now)",
                &was[..was.len().min(12)],
                &is[..is.len().min(12)]
            )),
            (Some(_), None) => changed.push(format!("{path} is no longer read")),
            (None, Some(_)) => changed.push(format!("{path} is read now but was not then")),
            _ => {}
        }
    }
    if changed.is_empty() {
        changed.push("the files the plan reads changed".into());
    }
    Err(StartError::Refused(format!(
        "cannot resume: the plan is no longer the one this run started (plan {} → {hash}): {}. The finished trials would mix two plans: to run the new one, start it into a new folder (`mcpick run … --out NEW_DIR`); to resume this one, put the files back as they were",
        previous.plan_hash,
        changed.join("; ")
    )))
}

/// Why `--resume FOLDER` cannot go on, and what the user can do: a damaged manifest lost the plan
/// but not the finished trials beside it, which a new start of the same command adopts.
fn cannot_resume(folder: &Path, error: ManifestError) -> String {
    match error {
        ManifestError::Missing { .. } | ManifestError::Inconsistent { .. } => {
            format!("cannot resume: {error}")
        }
        ManifestError::Damaged { ref command, .. } => {
            let command = command
                .as_ref()
                .map_or("the command that started it".to_string(), |words| {
                    format!("`{}`", words.join(" "))
                });
            format!(
                "cannot resume: {error}, so the plan it recorded is lost. The finished trials in {} are kept: finish the run by starting {command} again with --out {} (trials already there are kept, only the missing ones run, and the damaged manifest is kept as {MANIFEST_FILE}.damaged)",
                folder.join("trials.jsonl").display(),
                folder.display()
            )
        }
    }
}

/// The run a new start finds in its folder: `None` for an empty or new folder; the earlier manifest
/// when it is the same plan (a shard's process restarted, a run started again); refused when it is
/// another plan's. A folder with trials but no readable manifest is adopted: its damaged manifest
/// is kept beside the new one.
fn earlier_run_in(
    folder: &Path,
    plan: &RunPlan,
    warnings: &mut Vec<String>,
) -> Result<Option<Manifest>, StartError> {
    let has_trials = folder.join("trials.jsonl").is_file();
    match Manifest::read(folder) {
        Ok((earlier, _)) if earlier.plan_hash == plan.hash => Ok(Some(earlier)),
        Ok((earlier, _)) => Err(StartError::Refused(format!(
            "{} holds a run of another plan ({}): {}; resume it with --resume {}, or choose another --out",
            folder.display(),
            earlier.plan_hash,
            // `here` is this command's plan, `there` the folder's.
            plan.manifest.plan_differences(&earlier).join("; "),
            folder.display()
        ))),
        Err(ManifestError::Missing { .. }) if !has_trials => Ok(None),
        Err(error) => {
            let damaged = folder.join(format!("{MANIFEST_FILE}.damaged"));
            if folder.join(MANIFEST_FILE).is_file() {
                std::fs::rename(folder.join(MANIFEST_FILE), &damaged)?;
            }
            warnings.push(format!(
                "{error}; adopting the finished trials in {} for this plan{}",
                folder.join("trials.jsonl").display(),
                if damaged.is_file() {
                    format!(" (the damaged manifest is kept as {})", damaged.display())
                } else {
                    String::new()
                }
            ));
            Ok(None)
        }
    }
}
