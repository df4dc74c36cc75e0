//! Executing a plan: each backend lane runs its trials with its own concurrency, every finished
//! trial goes through one channel to the single writer (this loop), which appends it to
//! `trials.jsonl` and advances the progress display (`run_progress`). Ctrl-C stops new trials and abandons the ones in
//! flight (they are not recorded, so `--resume` runs them); a spent budget stops new trials; a
//! backend whose key is rejected stops that backend only. Nothing finished is ever lost. Batch
//! lanes are tied to the folder's batch journal before the first trial starts.

use super::batch::BatchJournal;
use super::plan::{PlannedTrial, RunPlan};
use super::run_progress::RunProgress;
use super::trial::{Halt, ToolListing, TrialSetting, record_internal_failure, run_trial};
use super::trial_serving::serve_trial;
use crate::interrupt::Interrupt;
use crate::record::{RunFolder, StoredTrial};
use futures_util::FutureExt;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

/// How the execution ended.
#[derive(Debug, Default)]
pub struct Execution {
    pub finished: usize,
    pub interrupted: bool,
    pub budget_reached: bool,
    /// Backends stopped early, with why.
    pub halted: Vec<(String, String)>,
    pub cost_usd: f64,
}

enum Event {
    Finished(PlannedTrial, Box<StoredTrial>),
    Halted(usize, Halt),
}

/// Runs `pending` trials of `plan`, appending each to `folder` as it finishes, until they are done
/// or `interrupt` asks to stop. `already_spent` is what the run's earlier trials cost (a resumed
/// run's budget covers the whole run).
pub async fn execute(
    plan: Arc<RunPlan>,
    pending: Vec<PlannedTrial>,
    already_spent: f64,
    folder: &mut RunFolder,
    show_progress: bool,
    mut interrupt: Interrupt,
) -> std::io::Result<Execution> {
    let mut progress = RunProgress::new(pending.len(), show_progress);
    // Batch lanes take over the batches an earlier, killed, run of this folder submitted.
    let queues: Vec<_> = plan.lanes.iter().filter_map(|l| l.batch.as_ref()).collect();
    if !queues.is_empty() {
        let (journal, earlier) = BatchJournal::open(&folder.path)?;
        let journal = Arc::new(journal);
        for queue in queues {
            queue.start(Arc::clone(&journal), &earlier);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    // Spent money in micro-dollars, so lanes can read it without a lock.
    let spent = Arc::new(AtomicU64::new((already_spent * 1e6).round() as u64));
    let budget_micro = plan.budget.map(|b| (b * 1e6) as u64);
    let (events, mut received) = mpsc::unbounded_channel();
    let mut drivers = JoinSet::new();
    for lane in 0..plan.lanes.len() {
        let trials: Vec<PlannedTrial> =
            pending.iter().copied().filter(|t| t.lane == lane).collect();
        drivers.spawn(drive_lane(
            Arc::clone(&plan),
            lane,
            trials,
            events.clone(),
            Arc::clone(&stop),
            Arc::clone(&spent),
            budget_micro,
        ));
    }
    drop(events);

    let mut execution = Execution::default();
    let mut running: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    // Ctrl-C or SIGTERM: a run ended by a scheduler keeps its summary too.
    let ctrl_c = interrupt.requested();
    tokio::pin!(ctrl_c);
    loop {
        tokio::select! {
            event = received.recv() => match event {
                None => break,
                Some(Event::Finished(trial, stored)) => {
                    record(&plan, folder, &mut execution, &mut running, trial, *stored)?;
                    progress.advance(&running_accuracy(&running));
                }
                Some(Event::Halted(lane, Halt(error))) => {
                    let id = plan.lanes[lane].id.clone();
                    progress.println(&format!("mcpick run: stopping backend {id}: {error}"));
                    execution.halted.push((id, error.to_string()));
                }
            },
            _ = &mut ctrl_c, if !execution.interrupted => {
                execution.interrupted = true;
                stop.store(true, Ordering::SeqCst);
                progress.println("mcpick run: interrupted; abandoning the trials in flight (they are not recorded)");
                // Dropping a lane's JoinSet aborts its trials. One inside a blocking model call
                // (the embedded models) cannot stop before the call returns — minutes, for a long
                // prompt — so the loop does not wait for senders to go: it writes what was
                // already sent, and stops.
                drivers.abort_all();
                while let Ok(event) = received.try_recv() {
                    if let Event::Finished(trial, stored) = event {
                        record(&plan, folder, &mut execution, &mut running, trial, *stored)?;
                    }
                }
                break;
            }
        }
    }
    while drivers.join_next().await.is_some() {}
    progress.finish(&running_accuracy(&running));
    execution.budget_reached =
        budget_micro.is_some_and(|b| spent.load(Ordering::Relaxed) >= b) && !execution.interrupted;
    Ok(execution)
}

/// Books a finished trial: counted, tallied for the progress bar, appended to the folder.
fn record(
    plan: &RunPlan,
    folder: &mut RunFolder,
    execution: &mut Execution,
    running: &mut BTreeMap<String, (u64, u64)>,
    trial: PlannedTrial,
    mut stored: StoredTrial,
) -> std::io::Result<()> {
    // Scored whole, stored bounded.
    super::reply_bound::bound_stored(&mut stored);
    execution.finished += 1;
    execution.cost_usd += stored.cost_usd;
    let tally = running
        .entry(plan.lanes[trial.lane].id.clone())
        .or_default();
    if stored.scored() {
        tally.1 += 1;
        tally.0 += u64::from(stored.correct());
    }
    folder.append(&stored)
}

/// Starts a lane's trials as its concurrency allows, until they are done or the run must stop.
async fn drive_lane(
    plan: Arc<RunPlan>,
    lane: usize,
    trials: Vec<PlannedTrial>,
    events: mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
    spent: Arc<AtomicU64>,
    budget_micro: Option<u64>,
) {
    let slots = Arc::new(Semaphore::new(plan.lanes[lane].concurrency));
    let halted = Arc::new(AtomicBool::new(false));
    let mut running = JoinSet::new();
    for trial in trials {
        let Ok(permit) = Arc::clone(&slots).acquire_owned().await else {
            break;
        };
        let over_budget = budget_micro.is_some_and(|b| spent.load(Ordering::Relaxed) >= b);
        if stop.load(Ordering::SeqCst) || halted.load(Ordering::SeqCst) || over_budget {
            break;
        }
        let (plan, events, halted, spent) = (
            Arc::clone(&plan),
            events.clone(),
            Arc::clone(&halted),
            Arc::clone(&spent),
        );
        running.spawn(async move {
            let _permit = permit;
            let suite = &plan.suites[trial.suite];
            let task = &suite.tasks[trial.task];
            let running = async {
                let mut stored = plan.new_trial(trial);
                match serve_trial(&plan, trial) {
                    Ok(serving) => {
                        // A trial that lists its own server keeps its own listing.
                        let own_listing = ToolListing::default();
                        let listing = serving.shared_listing.unwrap_or(&own_listing);
                        stored.retrieval = serving.retrieval;
                        run_trial(
                            &serving.server,
                            listing,
                            &plan.lanes[trial.lane],
                            TrialSetting {
                                variant: suite.variant.as_deref(),
                                suite: &suite.name,
                                max_turns: plan.max_turns,
                                seed: plan.backend_seed(trial),
                                repeat: trial.repeat,
                                deferred_tools: serving.deferred_tools,
                            },
                            task,
                            &mut stored,
                        )
                        .await?;
                    }
                    Err(e) => record_internal_failure(&mut stored, task, e),
                }
                Ok(stored)
            };
            // A panic in a backend is a bug of ours, but it costs this trial only: it is recorded
            // as an error with the panic's message and the run goes on.
            let result = match std::panic::AssertUnwindSafe(running).catch_unwind().await {
                Ok(result) => result,
                Err(panic) => {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a panic".into());
                    let mut stored = plan.new_trial(trial);
                    record_internal_failure(&mut stored, task, message);
                    Ok(stored)
                }
            };
            match result {
                Ok(stored) => {
                    // Booked before the slot is freed, so the next trial sees what this one cost.
                    spent.fetch_add((stored.cost_usd * 1e6).round() as u64, Ordering::SeqCst);
                    let _ = events.send(Event::Finished(trial, Box::new(stored)));
                }
                Err(halt) => {
                    // Only the first rejected trial reports; the rest are simply not started.
                    if !halted.swap(true, Ordering::SeqCst) {
                        let _ = events.send(Event::Halted(trial.lane, halt));
                    }
                }
            }
        });
        // Reap finished trials as we go so the set does not grow with the whole plan.
        while running.try_join_next().is_some() {}
    }
    while running.join_next().await.is_some() {}
}

/// `bm25 12% · oracle 100%`: accuracy so far, errors excluded.
fn running_accuracy(running: &BTreeMap<String, (u64, u64)>) -> String {
    running
        .iter()
        .map(|(id, (right, scored))| {
            if *scored == 0 {
                format!("{id} –")
            } else {
                format!("{id} {:.0}%", 100.0 * *right as f64 / *scored as f64)
            }
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
