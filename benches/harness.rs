//! The harness around the protocol: `scoring` (judging 10,000 recorded trials against their tasks'
//! expectations, as `mcpick report` does) and `pipeline` (a whole `mcpick run` of the shipped suites
//! whose tools answer without simulated latency, with the scripted `oracle` backend): `plan` (files
//! loaded, checked and compiled, once per run), `run` (every trial: a fresh MCP session, tools/list,
//! the backend's turns, tools/call, scoring, one `trials.jsonl` line flushed — the harness's own
//! overhead per trial) and `report` (the summary, CSV, Parquet and HTML rebuilt from that file).
//!
//! `cargo bench --bench harness` measures; `cargo test` runs each once as a check.

#[allow(dead_code, reason = "each bench target uses part of the shared module")]
mod side_by_side;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use mcpick::load::Workspace;
use mcpick::model::Expectation;
use mcpick::record::{RunFolder, StoredTrial, read_trials};
use mcpick::report::rebuild;
use mcpick::runner::{RunPlan, execute};
use mcpick::score::{Outcome, score};
use mcpick::settings::RunSettings;
use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The shipped suites whose toolsets simulate no latency, so a run's time is the harness's own.
const SUITES: [&str; 3] = [
    "tasks/devtools.toml",
    "tasks/files.toml",
    "tasks/smart_home.toml",
];

/// Trials scored per iteration of the scoring benchmark.
const SCORED_TRIALS: usize = 10_000;

// The allocator the mcpick binary runs with (src/main.rs), so these figures are the binary's; the
// rmcp server measured in the same process gets it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Plans name toolsets/ and tasks/ relative to where mcpick runs: the package root.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("the package root");
    let mut criterion = Criterion::default()
        .output_directory(&side_by_side::criterion_dir())
        .configure_from_args();
    scoring(&mut criterion);
    pipeline(&mut criterion);
    criterion.final_summary();
    if side_by_side::measuring() {
        let trials = trials_in(&run_settings(&["oracle"]));
        for (value, what) in [("oracle", "harness time per trial (oracle backend)")] {
            if let Some(ns) = side_by_side::criterion_median_ns(
                "pipeline",
                "run",
                &format!("{value}, {trials} trials"),
            ) {
                println!("{what}: {}", side_by_side::human_time(ns / trials as f64));
            }
        }
    }
}

fn manifest_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// `mcpick run SUITES --backend … --no-cache`, as the command line resolves it.
fn run_settings(backends: &[&str]) -> RunSettings {
    RunSettings {
        paths: SUITES.iter().map(|s| manifest_path(s)).collect(),
        backends: backends.iter().map(|b| b.to_string()).collect(),
        no_cache: true,
        ..RunSettings::default()
    }
}

fn trials_in(settings: &RunSettings) -> usize {
    RunPlan::resolve(settings)
        .expect("the shipped suites plan")
        .trials()
        .len()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A resolved plan and its (fresh) run folder, the manifest written: what `mcpick run` has before
/// its first trial.
fn prepare(settings: &RunSettings, out: &Path) -> (Arc<RunPlan>, RunFolder) {
    let plan = Arc::new(RunPlan::resolve(settings).expect("the shipped suites plan"));
    let folder = RunFolder::create(out).expect("a run folder");
    folder
        .write_manifest(&plan.manifest)
        .expect("the manifest is written");
    (plan, folder)
}

/// Runs every trial of `plan` into `folder`; returns the trials run.
fn execute_all(
    runtime: &tokio::runtime::Runtime,
    plan: &Arc<RunPlan>,
    folder: &mut RunFolder,
) -> usize {
    let execution = runtime
        .block_on(async {
            let interrupt = mcpick::interrupt::listen();
            execute(
                Arc::clone(plan),
                plan.trials(),
                0.0,
                folder,
                false,
                interrupt,
            )
            .await
        })
        .expect("the run writes its folder");
    assert!(!execution.interrupted && execution.halted.is_empty());
    execution.finished
}

/// The recorded trials of a run folder, each with its task's expectation.
fn recorded_trials(folder: &Path) -> Vec<(Expectation, StoredTrial)> {
    // Suites load beside the toolsets they name.
    let workspace = Workspace::load(&[manifest_path("toolsets"), manifest_path("tasks")]);
    let expectations: HashMap<(&str, &str), &Expectation> = workspace
        .suites
        .iter()
        .flat_map(|suite| {
            suite
                .tasks
                .iter()
                .map(move |task| ((suite.name.as_str(), task.id.as_str()), &task.expectation))
        })
        .collect();
    read_trials(folder, None)
        .expect("trials.jsonl")
        .trials
        .into_iter()
        .map(|trial| {
            let key = (trial.suite.as_str(), trial.task.as_str());
            let expectation = (*expectations.get(&key).expect("a task of the suites")).clone();
            (expectation, trial)
        })
        .collect()
}

fn scoring(c: &mut Criterion) {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let out = scratch.path().join("run");
    let (plan, mut folder) = prepare(&run_settings(&["oracle", "bm25", "random"]), &out);
    execute_all(&runtime(), &plan, &mut folder);
    let recorded = recorded_trials(&out);
    // The same verdicts the run recorded, so the benchmark scores real trials the real way.
    let outcomes: Vec<Outcome> = recorded
        .iter()
        .map(|(e, r)| score(e, &r.observed()).outcome)
        .collect();
    assert!(
        outcomes.contains(&Outcome::Correct) && outcomes.iter().any(|o| *o != Outcome::Correct)
    );
    let trials: Vec<&(Expectation, StoredTrial)> =
        recorded.iter().cycle().take(SCORED_TRIALS).collect();
    let mut group = c.benchmark_group("scoring");
    group.throughput(Throughput::Elements(SCORED_TRIALS as u64));
    group.bench_function(
        BenchmarkId::new("score", format!("{SCORED_TRIALS} trials")),
        |b| {
            b.iter(|| {
                for (expectation, record) in &trials {
                    black_box(score(black_box(expectation), &black_box(record).observed()));
                }
            })
        },
    );
    group.finish();
}

fn pipeline(c: &mut Criterion) {
    let runtime = runtime();
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let settings = run_settings(&["oracle"]);
    let trials = trials_in(&settings);
    let mut group = c.benchmark_group("pipeline");
    group
        .throughput(Throughput::Elements(trials as u64))
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    let folder = |run: usize| scratch.path().join(format!("run-{run}"));
    group.bench_function(
        BenchmarkId::new("plan", format!("oracle, {trials} trials")),
        |b| b.iter(|| RunPlan::resolve(black_box(&settings)).unwrap()),
    );
    let mut runs = 0;
    group.bench_function(
        BenchmarkId::new("run", format!("oracle, {trials} trials")),
        |b| {
            b.iter_batched(
                || {
                    // Untimed: the previous run's folder goes (the first stays for `report` below).
                    if runs > 1 {
                        let _ = std::fs::remove_dir_all(scratch.path().join(format!("run-{runs}")));
                    }
                    runs += 1;
                    prepare(&settings, &folder(runs))
                },
                |(plan, mut folder)| assert_eq!(execute_all(&runtime, &plan, &mut folder), trials),
                BatchSize::PerIteration,
            )
        },
    );
    let finished = scratch.path().join("run-1");
    group.bench_function(
        BenchmarkId::new("report", format!("oracle, {trials} trials")),
        |b| b.iter(|| rebuild(black_box(&finished)).expect("the report rebuilds")),
    );
    group.finish();
}
