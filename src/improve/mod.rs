//! `mcpick improve`: rewrite the descriptions that confuse, and keep only what wins on tasks it
//! never saw. This file holds the settings, the folder (its lock, the settings it is bound to, its
//! variant files), the entry and how a stopped run ends it; `rounds` strings the loop's steps together. The suite is split once (`split`) into a
//! working and a held-out part. On the working part, under the current wording, every tool that
//! loses or takes picks is found (`targets`); for each, the rewriter model (`rewriter`, through
//! `backend::JsonWriter`) and the lint's rules (`rules`) propose wordings (`proposals`,
//! `wording`), which are checked (`screen`), gathered into slates — one candidate per tool — each
//! written as a variant file (`overlay`), run on the working part (`runs`) and compared paired
//! with the round's baseline (`judge`), each candidate read on its own tool's tasks, the best per
//! tool combined (`slates`); the slate that raises the whole working part's score most, and takes
//! no picks from a neighbour, becomes the next round's baseline. `schedule` keeps the clock: the
//! plan, and the `--minutes` budget. The final wording is then compared once with the starting
//! one on the held-out part and adopted only if significantly better (`confirm`). Everything is
//! told in `IMPROVE.md` (`write_up`), rewritten after every step; every trial is in a run folder,
//! so a killed `improve` resumes where it stopped, and Ctrl-C stops it between runs too.

mod attribution;
mod confirm;
mod judge;
mod ledger;
mod promotion;
pub use promotion::promotion;
mod proposals;
mod rewriter;
mod rounds;
mod rules;
mod schedule;
mod screen;
mod slates;
mod split;
mod targets;
mod wording;
mod write_up;

#[cfg(test)]
mod tests;

pub use judge::{Judgement, judge};
pub use screen::{DESCRIPTION_BUDGET, PARAMETER_BUDGET};
pub use split::{Split, split_tasks};
pub use targets::{Standing, Target, find_targets, standings};
pub use wording::{Candidate, Origin, Wording};
pub use write_up::{Account, Round, Slate, Tried, judgement_line, verdict_sentence};

use crate::backend::BackendOptions;
use crate::backend::JsonWriter;
use crate::document::markdown::markdown_document;
use crate::model::Suite;
use crate::runner::RunSet;
use crate::settings::RunSettings;
use crate::wording::{Start, load_start};
use crate::work_folder::WorkFolder;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What `improve` is asked to do.
#[derive(Debug, Clone)]
pub struct ImproveSettings {
    pub suite: PathBuf,
    /// The variant to start from (`None`: the toolset as it is).
    pub variant: Option<String>,
    /// The rewriter's backend spec, and its options.
    pub rewriter: String,
    pub rewriter_options: BackendOptions,
    pub rounds: u32,
    /// Rewriter candidates per target (the rules add one more where they have something to say).
    pub candidates: u32,
    /// Tools reworded per round, the weakest first (`None`: every tool with something to fix).
    pub targets: Option<u32>,
    /// Measure what moves each target's picks first (`explain`'s leave-one-out runs on the working
    /// part), and aim the proposals with it.
    pub explain: bool,
    /// The held-out fraction.
    pub held_out: f64,
    /// The minutes this invocation may take (`--minutes`): steps that would not leave time for the
    /// held-out run are not started.
    pub minutes: Option<f64>,
    pub seed: u64,
    pub out: PathBuf,
    /// The runs' settings: the one backend, its options, limits, the budget.
    pub run: RunSettings,
    /// How long a hosted rewriter may take over one ask.
    pub timeout: Duration,
    pub progress: bool,
}

/// How `improve` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The held-out comparison was significantly better: `variant.toml` is adopted.
    Adopted,
    /// It was not, or no candidate improved the working part.
    NotAdopted,
    /// Stopped by Ctrl-C: the same command resumes.
    Interrupted,
    /// The budget is spent, or the backend was stopped.
    Incomplete,
}

/// The part of the settings a folder is bound to: another value here is another experiment.
fn fingerprint(settings: &ImproveSettings, split: &Split) -> serde_json::Value {
    serde_json::json!({
        "suite": settings.suite, "variant": settings.variant, "backends": settings.run.backends,
        "rewriter": settings.rewriter, "rounds": settings.rounds, "candidates": settings.candidates,
        "targets": settings.targets, "held_out": settings.held_out, "seed": settings.seed,
        "explain": settings.explain,
        "split": split, "instructions": rewriter::template_hash(),
    })
}

/// The text of each working task, as the rewriter may be shown it: only working tasks are here.
fn working_requests(suite: &Suite, split: &Split) -> BTreeMap<String, String> {
    suite
        .tasks
        .iter()
        .filter(|t| split.working.contains(&t.id))
        .map(|t| (t.id.clone(), t.input.user_messages().join(" / ")))
        .collect()
}

use crate::work_folder::write;

/// Runs `improve`; `say` gets each progress line. The account is returned however it ended.
pub async fn improve(
    settings: &ImproveSettings,
    say: &mut dyn FnMut(String),
) -> Result<(Ending, Account), String> {
    let started = Instant::now();
    if settings.explain
        && let Some(why) = settings
            .run
            .backends
            .first()
            .and_then(|b| crate::explain::refusal(b))
    {
        return Err(format!("--explain: {why}"));
    }
    let start = load_start(&settings.suite, settings.variant.as_deref(), "improve")?;
    let split = split_tasks(&start.suite.tasks, settings.held_out, settings.seed);
    if split.working.is_empty() || split.held_out.is_empty() {
        return Err(format!(
            "suite {} has {} task(s): too few to split into a working and a held-out part",
            start.suite.name,
            start.suite.tasks.len()
        ));
    }
    // One improve per folder: a second would append the same trials to the same runs.
    let folder = WorkFolder::open(&settings.out, "improve", &fingerprint(settings, &split))?;
    if folder.resumed {
        say(format!(
            "resuming the improve in {}",
            settings.out.display()
        ));
    }
    write(
        &settings.out.join("split.json"),
        &serde_json::to_string_pretty(&split).unwrap_or_default(),
    )?;
    let mut account = Account {
        suite: start.suite.name.clone(),
        start: start.label.clone(),
        backend: settings.run.backends.join(", "),
        rewriter: settings.rewriter.clone(),
        template_hash: rewriter::template_hash(),
        seed: settings.seed,
        working: split.working.clone(),
        held_out: split.held_out.clone(),
        ..Account::default()
    };
    let held_out_runs = RunSet {
        template: settings.run.clone(),
        paths: start.run_paths(),
        folder: settings.out.join("runs"),
        budget: settings.run.budget,
        progress: settings.progress,
    };
    // The working part chooses on the pick alone; the held-out run writes the arguments too, so
    // its report (`DIR/report.html`) scores them.
    let runs = RunSet {
        template: settings.run.clone().first_pick_only(),
        ..held_out_runs.clone()
    };
    let mut context = Context {
        requests: working_requests(&start.suite, &split),
        settings,
        start: &start,
        split: &split,
        runs: &runs,
        held_out_runs: &held_out_runs,
        rewriter: None,
        schedule: schedule::Schedule::new(settings.minutes),
        stop: crate::interrupt::StopWatch::start(),
    };
    let ending = rounds::rounds(&mut context, &mut account, say).await?;
    // The time of every invocation that worked on this folder, a resumed one's included.
    account.seconds = folder.add_seconds(started.elapsed().as_secs_f64())?;
    write(
        &settings.out.join("IMPROVE.md"),
        &markdown_document(&write_up::render(&account)),
    )?;
    Ok((ending, account))
}

/// What every step of the loop reads.
struct Context<'a> {
    settings: &'a ImproveSettings,
    start: &'a Start,
    split: &'a Split,
    /// The working part's runs (the first pick only), and the held-out run's.
    runs: &'a RunSet,
    held_out_runs: &'a RunSet,
    /// The working tasks' requests: all the rewriter may be shown.
    requests: BTreeMap<String, String>,
    /// The rewriter, loaded when first needed.
    rewriter: Option<JsonWriter>,
    /// What the steps cost, and the `--minutes` budget.
    schedule: schedule::Schedule,
    /// Ctrl-C or SIGTERM, heard between runs too.
    stop: crate::interrupt::StopWatch,
}

/// A variant file of this improve (`DIR/variants/LABEL.toml`).
fn variant_file(context: &Context<'_>, label: &str) -> PathBuf {
    context
        .settings
        .out
        .join("variants")
        .join(format!("{label}.toml"))
}

/// How `improve` ends when a run was stopped; the reason goes into the account.
fn stopped(run: &crate::runner::FolderRun, account: &mut Account) -> Option<Ending> {
    let (how, why) = run.stopped()?;
    Some(ended(how, why, account))
}

/// The ending a stop means, its reason put into the account.
fn ended(how: crate::runner::Stop, why: String, account: &mut Account) -> Ending {
    account.stopped = Some(why);
    match how {
        crate::runner::Stop::Interrupted => Ending::Interrupted,
        crate::runner::Stop::Incomplete => Ending::Incomplete,
    }
}
