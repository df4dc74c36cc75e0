//! `mcpick improve`: rewrite the descriptions that confuse, and keep only what wins on tasks it
//! never saw. The suite is split once (`split`) into a working and a held-out part. On the working
//! part, under the current wording, the weakest tools are found (`targets`); for each, the
//! rewriter model (`rewriter`, through `draft`'s writer) and the lint's rules (`rules`) propose
//! wordings (`wording`), which are checked (`screen`), written as variant files (`overlay`), run
//! on the working part (`runs`) and compared paired with the round's baseline (`judge`); the best
//! that raises the whole working part's score, and takes no picks from a neighbour, becomes the
//! next round's baseline. The final wording is then compared once with the starting one on the
//! held-out part and adopted only if significantly better. Everything is told in `IMPROVE.md`
//! (`write_up`), rewritten after every step; every trial is in a run folder, so a killed
//! `improve` resumes where it stopped.

mod judge;
mod overlay;
mod promotion;
pub use promotion::promotion;
mod proposals;
mod rewriter;
mod rules;
mod runs;
mod screen;
mod split;
mod start;
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
pub use write_up::{Account, Round, Tried, judgement_line, verdict_sentence};

use crate::analysis::statistics::AbVerdict;
use crate::backend::BackendOptions;
use crate::backend::JsonWriter;
use crate::lint::lint;
use crate::model::Suite;
use crate::record::StoredTrial;
use crate::settings::RunSettings;
use proposals::proposals;
use runs::Runs;
use start::{Start, load_start};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
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
    pub targets: u32,
    /// The held-out fraction.
    pub held_out: f64,
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

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    crate::file_replace::replace(path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Holds `state/lock` for as long as the file lives; another improve on the folder is refused.
fn lock_folder(state: &Path, out: &Path) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(state).map_err(|e| format!("{}: {e}", state.display()))?;
    let path = state.join("lock");
    crate::folder_lock::try_hold(&path)?.ok_or_else(|| {
        format!(
            "another improve is working in {} (it holds {}); wait for it to finish, or give a new -o",
            out.display(),
            path.display()
        )
    })
}

/// Runs `improve`; `say` gets each progress line. The account is returned however it ended.
pub async fn improve(
    settings: &ImproveSettings,
    say: &mut dyn FnMut(String),
) -> Result<(Ending, Account), String> {
    let started = Instant::now();
    let start = load_start(settings)?;
    let split = split_tasks(&start.suite.tasks, settings.held_out, settings.seed);
    if split.working.is_empty() || split.held_out.is_empty() {
        return Err(format!(
            "suite {} has {} task(s): too few to split into a working and a held-out part",
            start.suite.name,
            start.suite.tasks.len()
        ));
    }
    let state = settings.out.join(".improve");
    // One improve per folder: a second would append the same trials to the same runs.
    let _lock = lock_folder(&state, &settings.out)?;
    let print = fingerprint(settings, &split);
    let recorded = state.join("settings.json");
    match std::fs::read_to_string(&recorded) {
        Ok(text)
            if serde_json::from_str::<serde_json::Value>(&text).ok() != Some(print.clone()) =>
        {
            return Err(format!(
                "{} holds an improve of other settings (see {}); give a new -o",
                settings.out.display(),
                recorded.display()
            ));
        }
        Ok(_) => say(format!(
            "resuming the improve in {}",
            settings.out.display()
        )),
        Err(_) => write(&recorded, &print.to_string())?,
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
    let runs = Runs {
        template: settings.run.clone(),
        paths: std::iter::once(settings.suite.clone())
            .chain(start.files.iter().cloned())
            .collect(),
        folder: settings.out.join("runs"),
        budget: settings.run.budget,
        progress: settings.progress,
    };
    let mut context = Context {
        requests: working_requests(&start.suite, &split),
        settings,
        start: &start,
        split: &split,
        runs: &runs,
        rewriter: None,
    };
    let ending = rounds(&mut context, &mut account, say).await?;
    // The time of every invocation that worked on this folder, a resumed one's included.
    let clock = state.join("seconds");
    let earlier: f64 = std::fs::read_to_string(&clock)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0.0);
    account.seconds = earlier + started.elapsed().as_secs_f64();
    write(&clock, &account.seconds.to_string())?;
    write(
        &settings.out.join("IMPROVE.md"),
        &write_up::render(&account),
    )?;
    Ok((ending, account))
}

/// What every step of the loop reads.
struct Context<'a> {
    settings: &'a ImproveSettings,
    start: &'a Start,
    split: &'a Split,
    runs: &'a Runs,
    /// The working tasks' requests: all the rewriter may be shown.
    requests: BTreeMap<String, String>,
    /// The rewriter, loaded when first needed.
    rewriter: Option<JsonWriter>,
}

/// The current wording: its label, its tools' new wordings (none: the starting wording), its
/// working trials.
struct Current {
    label: String,
    wordings: BTreeMap<String, Wording>,
    trials: Vec<StoredTrial>,
}

async fn rounds(
    context: &mut Context<'_>,
    account: &mut Account,
    say: &mut dyn FnMut(String),
) -> Result<Ending, String> {
    let (settings, start, split, runs) =
        (context.settings, context.start, context.split, context.runs);
    let save =
        |account: &Account| write(&settings.out.join("IMPROVE.md"), &write_up::render(account));
    say(format!(
        "baseline: {} on the {} working tasks",
        start.label,
        split.working.len()
    ));
    let baseline = runs
        .run(
            "r1-baseline",
            std::slice::from_ref(&start.label),
            &[],
            &split.working,
        )
        .await?;
    if let Some(ending) = stopped(&baseline.run, account) {
        save(account)?;
        return Ok(ending);
    }
    let mut current = Current {
        label: start.label.clone(),
        wordings: BTreeMap::new(),
        trials: baseline.trials,
    };
    for number in 1..=settings.rounds {
        let toolset = wording::apply(&start.toolset, &current.wordings);
        let findings = lint(&toolset);
        let targets = find_targets(
            &current.trials,
            &toolset,
            settings.targets as usize,
            &|tool| start.overlay.describable(tool),
        );
        if targets.is_empty() {
            account.stopped = Some("no tool left to fix on the working part".into());
            break;
        }
        say(format!(
            "round {number}: targets {}",
            targets
                .iter()
                .map(|t| format!("{} ({:.2})", t.standing.tool, t.standing.graded))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let mut round = Round {
            number,
            baseline: current.label.clone(),
            targets: targets.clone(),
            ..Round::default()
        };
        let candidates = proposals(
            context, number, &targets, &toolset, &findings, &mut round, say,
        )
        .await?;
        round.tried = candidates
            .into_iter()
            .enumerate()
            .map(|(k, candidate)| Tried {
                label: format!("{}-r{number}c{}", start.stem, k + 1),
                candidate,
                judgement: None,
                error: None,
                seconds: 0.0,
                evaluated: 0,
                restored: 0,
            })
            .collect();
        account.rounds.push(round);
        save(account)?;
        let round_index = account.rounds.len() - 1;
        let count = account.rounds[round_index].tried.len();
        let mut best: Option<(usize, f64, Vec<StoredTrial>)> = None;
        for k in 0..count {
            let tried = account.rounds[round_index].tried[k].clone();
            if !tried.candidate.rejected.is_empty() {
                continue;
            }
            let mut wordings = current.wordings.clone();
            wordings.insert(
                tried.candidate.tool.clone(),
                tried.candidate.wording.clone(),
            );
            let file = settings
                .out
                .join("variants")
                .join(format!("{}.toml", tried.label));
            let note = format!(
                "mcpick improve, round {number}: candidate {} for {} ({})",
                k + 1,
                tried.candidate.tool,
                tried.candidate.origin.as_str()
            );
            write(
                &file,
                &start.overlay.render(&tried.label, &note, &wordings)?,
            )?;
            say(format!(
                "round {number} · candidate {} of {count} · {} ({}) · {} trials",
                k + 1,
                tried.candidate.tool,
                tried.candidate.origin.as_str(),
                split.working.len()
            ));
            let name = format!("r{number}-c{}", k + 1);
            // A run that cannot start (its folder holds other settings, the plan is refused) is
            // the experiment's problem, not the candidate's: it stops `improve`.
            let run = runs
                .run(
                    &name,
                    std::slice::from_ref(&tried.label),
                    &[file],
                    &split.working,
                )
                .await?;
            if let Some(ending) = stopped(&run.run, account) {
                save(account)?;
                return Ok(ending);
            }
            let entry = &mut account.rounds[round_index].tried[k];
            entry.seconds = run.run.seconds;
            for (_, work) in &run.run.local_work {
                entry.evaluated += work.batched;
                entry.restored += work.restored;
            }
            match judge(&current.trials, &run.trials, &current.label, &tried.label) {
                Ok(judgement) => {
                    say(format!("  {}", judgement_line(&judgement)));
                    let steals = judgement.flagged.contains(&tried.candidate.tool);
                    if judgement.difference > 0.0
                        && !steals
                        && best
                            .as_ref()
                            .is_none_or(|(_, d, _)| judgement.difference > *d)
                    {
                        best = Some((k, judgement.difference, run.trials));
                    }
                    entry.judgement = Some(judgement);
                }
                Err(e) => entry.error = Some(e),
            }
            save(account)?;
        }
        let Some((k, _, trials)) = best else {
            account.stopped = Some(format!(
                "no candidate of round {number} improved the working part"
            ));
            break;
        };
        let round = &mut account.rounds[round_index];
        round.chosen = Some(k);
        let chosen = &round.tried[k];
        current.wordings.insert(
            chosen.candidate.tool.clone(),
            chosen.candidate.wording.clone(),
        );
        current.label = chosen.label.clone();
        current.trials = trials;
        save(account)?;
    }
    if current.wordings.is_empty() {
        return Ok(Ending::NotAdopted);
    }
    held_out(context, &current, account, say).await
}

/// Ends the rounds early when a run was stopped; the reason goes into the account.
fn stopped(run: &crate::runner::FolderRun, account: &mut Account) -> Option<Ending> {
    if run.interrupted {
        account.stopped = Some("interrupted; the same command resumes".into());
        return Some(Ending::Interrupted);
    }
    if run.budget_reached {
        account.stopped = Some("the budget is spent".into());
        return Some(Ending::Incomplete);
    }
    if let Some((backend, why)) = run.halted.first() {
        account.stopped = Some(format!("backend {backend} was stopped: {why}"));
        return Some(Ending::Incomplete);
    }
    None
}

/// The final wording against the starting one on the held-out part: `variant.toml`, the verdict,
/// and the held-out run's report as `report.html`.
async fn held_out(
    context: &Context<'_>,
    current: &Current,
    account: &mut Account,
    say: &mut dyn FnMut(String),
) -> Result<Ending, String> {
    let (settings, start, split, runs) =
        (context.settings, context.start, context.split, context.runs);
    let name = format!("{}-improved", start.stem);
    let note = format!(
        "{} reworded by mcpick improve (see IMPROVE.md beside this file)",
        start.label
    );
    let file = settings.out.join("variants").join(format!("{name}.toml"));
    let text = start.overlay.render(&name, &note, &current.wordings)?;
    write(&file, &text)?;
    account.final_label = Some(name.clone());
    say(format!(
        "held-out: {} against {name} on the {} held-out tasks",
        start.label,
        split.held_out.len()
    ));
    let arms = [start.label.clone(), name.clone()];
    let run = runs
        .run("held-out", &arms, &[file], &split.held_out)
        .await?;
    if let Some(ending) = stopped(&run.run, account) {
        return Ok(ending);
    }
    let (a, b): (Vec<StoredTrial>, Vec<StoredTrial>) = run
        .trials
        .into_iter()
        .partition(|t| t.variant.as_deref() == Some(start.label.as_str()));
    let judgement = judge(&a, &b, &start.label, &name)?;
    let adopted = judgement.verdict == AbVerdict::BBetter;
    account.verdict = Some(judgement);
    account.adopted = Some(adopted);
    let header = format!(
        "# {}\n# Written by mcpick improve; IMPROVE.md tells how it was chosen and tested.\n",
        verdict_sentence(account)
    );
    write(
        &settings.out.join("variant.toml"),
        &format!("{header}{text}"),
    )?;
    let folder = runs.path("held-out");
    crate::report::rebuild(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    std::fs::copy(folder.join("report.html"), settings.out.join("report.html"))
        .map_err(|e| format!("{}: {e}", settings.out.join("report.html").display()))?;
    Ok(if adopted {
        Ending::Adopted
    } else {
        Ending::NotAdopted
    })
}
