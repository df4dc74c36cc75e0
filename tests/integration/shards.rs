//! A run split into shards and merged is the run: the plan run as 4 shards in 4 separate processes
//! (one by `--shard`, one by Kubernetes' `JOB_COMPLETION_INDEX`, two by a Slurm array's variables),
//! merged with `mcpick merge`, gives the `summary.json` a single process gives, timings aside; each
//! trial is in exactly one shard; shards of different plans are refused with the difference named;
//! a missing shard is named and `--resume` on the merged folder finishes it.

use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Output};

/// A sweep of the shipped travel suite over offline backends: 2 sizes × 2 seeds × 3 backends.
const PLAN: &[&str] = &[
    "sweep",
    "tasks/travel.toml",
    "--sizes",
    "5,20",
    "--seeds",
    "2",
    "--backend",
    "bm25",
    "--backend",
    "random",
    "--backend",
    "oracle",
    "--no-cache",
    "--no-progress",
];

/// mcpick with `args`, in the checkout, seeing no scheduler's variables but those in `env`.
fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    for name in [
        "JOB_COMPLETION_INDEX",
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    command
}

fn mcpick(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(args, env).output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn run_plan(extra: &[&str], env: &[(&str, &str)]) -> Output {
    let args: Vec<&str> = PLAN.iter().chain(extra).copied().collect();
    mcpick(&args, env)
}

fn keys(folder: &Path) -> Vec<String> {
    std::fs::read_to_string(folder.join("trials.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let trial: Value = serde_json::from_str(line).unwrap();
            format!(
                "{}/{}/{}/{}/{}",
                trial["task"],
                trial["backend"],
                trial["size"],
                trial["sweep_seed"],
                trial["repeat"]
            )
        })
        .collect()
}

/// summary.json with what depends on the clock taken out.
fn summary_without_timings(folder: &Path) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("latency_ms");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut summary: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("summary.json")).unwrap())
            .unwrap();
    strip(&mut summary);
    summary
}

/// How one shard is started: its extra arguments and the scheduler's variables it sees.
type Launch<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);

#[test]
fn four_shards_in_four_processes_merge_into_the_single_process_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let single = run_plan(&["--out", &path("single")], &[]);
    assert!(single.status.success(), "{}", text(&single));

    let shards = path("shards");
    let launches: [Launch; 4] = [
        (&["--shard", "0/4"], &[]),
        (&["--shards", "4"], &[("JOB_COMPLETION_INDEX", "1")]),
        (
            &[],
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
            ],
        ),
        (
            &[],
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
            ],
        ),
    ];
    let children: Vec<_> = launches
        .iter()
        .map(|(args, env)| {
            let mut all: Vec<&str> = PLAN.to_vec();
            all.extend_from_slice(args);
            all.extend_from_slice(&["--out", &shards]);
            command(&all, env)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", text(&output));
    }

    // Every trial in exactly one shard, and the shards together are the plan.
    let single_keys: HashSet<String> = keys(&dir.path().join("single")).into_iter().collect();
    let mut seen = HashSet::new();
    let mut folders = Vec::new();
    for index in 0..4 {
        let folder = dir.path().join(format!("shards/shard-{index}-of-4"));
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["shard"]["index"], index);
        assert_eq!(
            manifest["trials"],
            single_keys.len(),
            "the full plan's count"
        );
        let held = keys(&folder);
        assert!(!held.is_empty(), "shard {index} ran nothing");
        assert_eq!(manifest["shard"]["trials"], held.len());
        for key in held {
            assert!(seen.insert(key.clone()), "{key} ran in two shards");
        }
        folders.push(folder.display().to_string());
    }
    assert_eq!(seen, single_keys);

    let merged = path("merged");
    let mut args = vec!["merge"];
    args.extend(folders.iter().map(String::as_str));
    args.extend(["-o", &merged]);
    let output = mcpick(&args, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains(&format!(
        "{} of {} planned trials",
        single_keys.len(),
        single_keys.len()
    )));
    assert_eq!(
        summary_without_timings(Path::new(&merged)),
        summary_without_timings(&dir.path().join("single"))
    );
    for file in ["report.html", "summary.md", "trials.csv", "trials.parquet"] {
        assert!(Path::new(&merged).join(file).exists(), "{file}");
    }

    // Three of four: the missing shard is named, and --resume on the merged folder runs its trials.
    let partial = path("partial");
    let output = mcpick(
        &[
            "merge",
            &folders[0],
            &folders[1],
            &folders[3],
            "-o",
            &partial,
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(
        text(&output).contains("shard(s) 2 of 4 were not given"),
        "{}",
        text(&output)
    );
    let resumed = mcpick(&["run", "--resume", &partial, "--no-progress"], &[]);
    assert!(resumed.status.success(), "{}", text(&resumed));
    let after: Vec<String> = keys(Path::new(&partial));
    assert_eq!(after.len(), single_keys.len());
    assert_eq!(after.into_iter().collect::<HashSet<_>>(), single_keys);
    assert_eq!(
        summary_without_timings(Path::new(&partial)),
        summary_without_timings(&dir.path().join("single"))
    );
}

#[test]
fn shards_of_different_plans_are_refused_with_the_difference_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let a = run_plan(&["--shard", "0/2", "--out", &path("a")], &[]);
    assert!(a.status.success(), "{}", text(&a));
    let b_out = path("b");
    let other: Vec<&str> = PLAN
        .iter()
        .map(|arg| if *arg == "5,20" { "5,25" } else { arg })
        .chain(["--shard", "1/2", "--out", &b_out])
        .collect();
    let b = mcpick(&other, &[]);
    assert!(b.status.success(), "{}", text(&b));
    let output = mcpick(
        &[
            "merge",
            &path("a/shard-0-of-2"),
            &path("b/shard-1-of-2"),
            "-o",
            &path("merged"),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("setting `sizes` is [5,25] there, [5,20] here"),
        "{}",
        text(&output)
    );
    assert!(!dir.path().join("merged/trials.jsonl").exists());
}

#[test]
fn a_shard_outside_the_count_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run").display().to_string();
    let output = run_plan(
        &["--shards", "4", "--out", &out],
        &[("JOB_COMPLETION_INDEX", "4")],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("from 0 to 3"), "{}", text(&output));
    assert!(!dir.path().join("run").exists());
}

#[test]
fn the_slurm_example_runs_as_an_array_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("sweep").display().to_string();
    let script = |name: &str, env: &[(&str, &str)]| {
        let output = Command::new("bash")
            .arg(format!("deploy/slurm/{name}"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("MCPICK", env!("CARGO_BIN_EXE_mcpick"))
            .env("RUN_DIR", &run_dir)
            .env(
                "PLAN",
                "sweep tasks/travel.toml --sizes 5,20 --backend bm25 --no-cache",
            )
            .env_remove("JOB_COMPLETION_INDEX")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {}", text(&output));
        output
    };
    for task in ["0", "1", "2"] {
        script(
            "sweep.sbatch",
            &[
                ("SLURM_ARRAY_TASK_ID", task),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
        );
    }
    let merged = script("merge.sbatch", &[]);
    let merged_keys = keys(&dir.path().join("sweep/merged"));
    let planned: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("sweep/merged/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        merged_keys.len(),
        planned["trials"].as_u64().unwrap() as usize
    );
    assert_eq!(
        merged_keys.iter().collect::<HashSet<_>>().len(),
        merged_keys.len()
    );
    assert!(
        text(&merged).contains("merged 3 folders"),
        "{}",
        text(&merged)
    );
}
