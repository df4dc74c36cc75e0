//! A run folder read back is outside input. Each case starts from a real run of `bm25` and `random`
//! on the shipped travel suite (53 tasks, 106 trials), edits the folder as a careless or hostile
//! hand would — a manifest whose plan changed, numbers out of bounds, a forged plan hash, a shard
//! outside its split, lines of another plan, an outcome no version writes, bytes that are not UTF-8,
//! a NEW run missing trials or holding only errors — and checks that `run --resume`, `merge`,
//! `compare` and `report` refuse with the reason, or count over the plan and name what they set
//! aside. A property test mutates a folder at random and runs all four on it: no panic, no abort,
//! every printed count true or an exit with a reason, nothing that was in the folder deleted.

use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

fn mcpick(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .args(args)
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The command's output, once it is known to have exited with `code`.
fn exits(output: &Output, code: i32) -> String {
    let said = text(output);
    assert_eq!(output.status.code(), Some(code), "{said}");
    said
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs a plan into `out`, offline; the run must finish.
fn run(suite: &str, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        suite,
        "--backend",
        "bm25",
        "--backend",
        "random",
        "--no-cache",
        "--no-progress",
        "--out",
        path(out),
    ];
    args.extend_from_slice(extra);
    let output = mcpick(&args);
    assert!(output.status.success(), "{}", text(&output));
}

/// The pristine travel run and its two shards, made once per test binary (under cargo's temporary
/// folder for integration tests, made anew each time) and copied per test.
fn pristine() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile_folders");
        let _ = std::fs::remove_dir_all(&dir);
        run("tasks/travel.toml", &dir.join("travel"), &[]);
        for shard in ["0/2", "1/2"] {
            run(
                "tasks/travel.toml",
                &dir.join("shards"),
                &["--shard", shard],
            );
        }
        run(
            "tasks/smart_home.toml",
            &dir.join("other"),
            &["--shard", "1/2"],
        );
        dir
    })
}

/// A copy of the pristine folder `name` (and what is under it) in a new temporary folder.
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&pristine().join(name), &dir.path().join(name));
    let copied = dir.path().join(name);
    (dir, copied)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The records of the folder's `set-aside.jsonl`.
fn side_records(folder: &Path) -> Vec<Value> {
    std::fs::read_to_string(folder.join("set-aside.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// An edit of a manifest, named by what it should make a reader say.
type ManifestEdit = fn(&mut Value);

fn edit_manifest(folder: &Path, edit: impl FnOnce(&mut Value)) {
    let file = folder.join("manifest.json");
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    edit(&mut manifest);
    std::fs::write(file, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
}

fn lines(folder: &Path) -> Vec<Value> {
    std::fs::read_to_string(folder.join("trials.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_lines(folder: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(folder.join("trials.jsonl"), text).unwrap();
}

// ---- compare: the gate never passes without evidence ----

#[test]
fn compare_refuses_a_backend_with_no_verdict_to_compare() {
    let (_keep, new) = copy_of("travel");
    let base = pristine().join("travel");
    let mut trials = lines(&new);
    for trial in trials.iter_mut().filter(|t| t["backend"] == "bm25") {
        trial["outcome"] = "error".into();
        trial["selection_correct"] = Value::Null;
        trial["backend_error"] = "connection reset".into();
    }
    write_lines(&new, &trials);
    let output = mcpick(&["compare", path(&base), path(&new)]);
    let said = exits(&output, 2);
    assert!(
        said.contains("| bm25 | 0 | 53 | 0 | 0 |") && said.contains("no evidence"),
        "{said}"
    );
    assert!(
        said.contains("cannot compare: backend bm25 has no pair with a verdict"),
        "{said}"
    );
    // Both sides all errors: no evidence either.
    let output = mcpick(&["compare", path(&new), path(&new)]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
}

#[test]
fn compare_refuses_a_new_run_that_lacks_base_trials_unless_allowed() {
    let (_keep, new) = copy_of("travel");
    let base = pristine().join("travel");
    let trials = lines(&new);
    let mut bm25_seen = 0;
    let kept: Vec<Value> = trials
        .into_iter()
        .filter(|t| {
            if t["backend"] != "bm25" {
                return true;
            }
            bm25_seen += 1;
            bm25_seen <= 27
        })
        .collect();
    write_lines(&new, &kept);
    let output = mcpick(&["compare", path(&base), path(&new)]);
    let said = exits(&output, 2);
    assert!(said.contains("| bm25 | 27 | 0 | 26 | 0 |"), "{said}");
    assert!(
        said.contains("NEW lacks 26 of BASE's trials (26 on bm25), more than --allow-missing 0"),
        "{said}"
    );
    let allowed = mcpick(&["compare", path(&base), path(&new), "--allow-missing", "26"]);
    assert_eq!(allowed.status.code(), Some(0), "{}", text(&allowed));
    let short = mcpick(&["compare", path(&base), path(&new), "--allow-missing", "25"]);
    assert_eq!(short.status.code(), Some(2), "{}", text(&short));
}

#[test]
fn compare_refuses_a_line_it_cannot_read() {
    let (_keep, new) = copy_of("travel");
    let base = pristine().join("travel");
    let mut trials = lines(&new);
    trials[9]["outcome"] = "teleported".into();
    write_lines(&new, &trials);
    let output = mcpick(&["compare", path(&base), path(&new)]);
    let said = exits(&output, 2);
    assert!(
        said.contains("trials.jsonl:10: not a trial this version reads")
            && said.contains("teleported"),
        "{said}"
    );
}

// ---- run --resume: a manifest whose plan changed is refused ----

#[test]
fn resume_refuses_a_manifest_whose_plan_was_edited() {
    let edits: [(&str, ManifestEdit); 3] = [
        ("`backends`", |m| {
            m["options"]["backends"]
                .as_array_mut()
                .unwrap()
                .push("oracle".into())
        }),
        ("`sizes`", |m| {
            m["options"]["sizes"] = serde_json::json!([5])
        }),
        ("`paths`", |m| {
            m["options"]["paths"] = serde_json::json!(["tasks/smart_home.toml"])
        }),
    ];
    for (field, edit) in edits {
        let (_keep, folder) = copy_of("travel");
        let before = std::fs::read(folder.join("trials.jsonl")).unwrap();
        edit_manifest(&folder, edit);
        let output = mcpick(&["run", "--resume", path(&folder), "--no-progress"]);
        let said = text(&output);
        assert_eq!(output.status.code(), Some(2), "{field}: {said}");
        assert!(
            said.contains(&format!("the setting(s) {field}")) && said.contains("--out NEW_DIR"),
            "{field}: {said}"
        );
        assert_eq!(
            std::fs::read(folder.join("trials.jsonl")).unwrap(),
            before,
            "nothing appended"
        );
    }
}

#[test]
fn resume_refuses_a_plan_whose_files_changed() {
    let dir = tempfile::tempdir().unwrap();
    // The run's suite, copied and then changed under the same path.
    let suite = dir.path().join("travel.toml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/travel.toml"),
        &suite,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("toolsets")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("toolsets/travel.toml"),
        dir.path().join("toolsets/travel.toml"),
    )
    .unwrap();
    let rerun = dir.path().join("rerun");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir.path())
        .args([
            "run",
            "travel.toml",
            "--backend",
            "bm25",
            "--no-cache",
            "--no-progress",
            "--out",
            path(&rerun),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let mut changed = std::fs::read_to_string(&suite).unwrap();
    changed.push_str("\n# edited after the run started\n");
    std::fs::write(&suite, changed).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir.path())
        .args(["run", "--resume", path(&rerun), "--no-progress"])
        .output()
        .unwrap();
    let said = exits(&output, 2);
    assert!(
        said.contains("travel.toml changed (SHA-256") && said.contains("--out NEW_DIR"),
        "{said}"
    );
}

/// A setting the plan hashes as an `f32` (a temperature, widened) and the manifest writes short
/// (`0.8`) does not make a run look edited: it reports and resumes.
#[test]
fn a_run_with_a_temperature_reads_back_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("warm");
    run("tasks/travel.toml", &folder, &["--temperature", "0.8"]);
    exits(&mcpick(&["report", path(&folder)]), 0);
    let said = exits(
        &mcpick(&["run", "--resume", path(&folder), "--no-progress"]),
        0,
    );
    assert!(said.contains("running 0 of 106 planned trials"), "{said}");
}

#[test]
fn resume_refuses_numbers_beyond_the_cli_bounds() {
    let edits: [(&str, ManifestEdit); 3] = [
        ("`repeats` is 4000000000, outside 1..=1000", |m| {
            m["options"]["repeats"] = 4_000_000_000u64.into()
        }),
        ("`seeds` is 4000000000, outside 1..=10000", |m| {
            m["options"]["seeds"] = 4_000_000_000u64.into()
        }),
        ("`concurrency` is 0, outside 1..=256", |m| {
            m["options"]["concurrency"] = 0.into()
        }),
    ];
    for (problem, edit) in edits {
        let (_keep, folder) = copy_of("travel");
        edit_manifest(&folder, edit);
        let output = mcpick(&["run", "--resume", path(&folder), "--no-progress"]);
        let said = exits(&output, 2);
        assert!(said.contains(problem), "{problem}: {said}");
        assert!(!said.contains("memory allocation"), "{said}");
    }
}

#[test]
fn resume_refuses_a_shard_outside_its_split() {
    let (_keep, shards) = copy_of("shards");
    let shard = shards.join("shard-1-of-2");
    edit_manifest(&shard, |m| m["shard"]["index"] = 5.into());
    let output = mcpick(&["run", "--resume", path(&shard), "--no-progress"]);
    let said = exits(&output, 2);
    assert!(said.contains("says shard 5 of 2"), "{said}");
}

#[test]
fn lines_of_other_plans_are_named_set_aside_and_never_counted() {
    let (_keep, folder) = copy_of("travel");
    let mut trials = lines(&folder);
    let mut stranger = trials[0].clone();
    stranger["task"] = "no-such-task".into();
    let mut injected = trials[1].clone();
    injected["injected"] = "x".into();
    trials.remove(1);
    trials.push(stranger);
    trials.push(injected);
    write_lines(&folder, &trials);
    let report = mcpick(&["report", path(&folder)]);
    let said = exits(&report, 0);
    assert!(
        said.contains("105 of 106 planned trials; 1 not run yet")
            && said.contains("2 line(s) of trials.jsonl are not this plan's trials"),
        "{said}"
    );
    assert!(
        said.contains("trials.jsonl:106: not a trial of this folder's plan: task `no-such-task` is not in suite travel's plan"),
        "{said}"
    );
    assert!(
        said.contains("trials.jsonl:107: field(s) mcpick never writes: `injected`"),
        "{said}"
    );
    let resumed = mcpick(&["run", "--resume", path(&folder), "--no-progress"]);
    let said = exits(&resumed, 0);
    assert!(
        said.contains("trials.jsonl:106: not a trial")
            && said.contains("set aside into set-aside.jsonl"),
        "{said}"
    );
    assert!(said.contains("running 1 of 106 planned trials"), "{said}");
    assert!(said.contains("106 of 106 planned trials"), "{said}");
    assert_eq!(lines(&folder).len(), 106);
    let records = side_records(&folder);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["from"], "trials.jsonl:106");
    let kept: Value = serde_json::from_str(records[1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(kept["injected"], "x", "the line is kept as it was");
}

#[test]
fn a_line_that_is_not_utf8_is_named_like_a_torn_one() {
    let (_keep, folder) = copy_of("travel");
    let text_before = std::fs::read(folder.join("trials.jsonl")).unwrap();
    let mut bytes = Vec::new();
    for (number, line) in text_before.split_inclusive(|b| *b == b'\n').enumerate() {
        if number == 9 {
            let mut broken = line.to_vec();
            broken[20] = 0xff;
            broken[21] = 0xfe;
            bytes.extend(broken);
        } else {
            bytes.extend_from_slice(line);
        }
    }
    bytes.extend_from_slice(b"{\"suite\":\"travel\",\"task\":\"cut sh");
    std::fs::write(folder.join("trials.jsonl"), &bytes).unwrap();
    let report = mcpick(&["report", path(&folder)]);
    let said = exits(&report, 0);
    assert!(
        said.contains("trials.jsonl:10: bytes that are not UTF-8 (from byte 21)")
            && said.contains("trials.jsonl:107: cut short")
            && said.contains("105 of 106 planned trials"),
        "{said}"
    );
    let resumed = mcpick(&["run", "--resume", path(&folder), "--no-progress"]);
    let said = exits(&resumed, 0);
    assert!(said.contains("running 1 of 106 planned trials"), "{said}");
    let records = side_records(&folder);
    assert_eq!(records.len(), 2);
    let original = mcpick::record::original_bytes(&records[0]).unwrap();
    assert_eq!(
        original[20..22],
        [0xff, 0xfe],
        "the bytes are kept as they were"
    );
}

// ---- merge ----

#[test]
fn merge_refuses_a_shard_of_another_plan_with_a_forged_hash() {
    let (dir, shards) = copy_of("shards");
    copy_tree(&pristine().join("other"), &dir.path().join("other"));
    let ours = shards.join("shard-0-of-2");
    let theirs = dir.path().join("other/shard-1-of-2");
    let hash = serde_json::from_slice::<Value>(&std::fs::read(ours.join("manifest.json")).unwrap())
        .unwrap()["plan_hash"]
        .clone();
    edit_manifest(&theirs, |m| m["plan_hash"] = hash);
    let out = dir.path().join("merged");
    let output = mcpick(&["merge", path(&ours), path(&theirs), "-o", path(&out)]);
    let said = exits(&output, 2);
    assert!(
        said.contains("other/shard-1-of-2/manifest.json cannot be trusted")
            && said.contains("not to the plan hash"),
        "{said}"
    );
    assert!(!out.join("trials.jsonl").exists());
}

#[test]
fn merge_counts_over_the_plan_and_stays_resumable() {
    let (dir, shards) = copy_of("shards");
    let first = shards.join("shard-0-of-2");
    let mut trials = lines(&first);
    for (n, trial) in trials.iter_mut().take(3).enumerate() {
        trial["task"] = format!("no-such-task-{n}").into();
    }
    write_lines(&first, &trials);
    let out = dir.path().join("merged");
    let output = mcpick(&[
        "merge",
        path(&first),
        path(&shards.join("shard-1-of-2")),
        "-o",
        path(&out),
    ]);
    let said = exits(&output, 3);
    assert!(said.contains("103 of 106 planned trials"), "{said}");
    assert!(
        said.contains(
            "shard-0-of-2/trials.jsonl:1: not a trial of this folder's plan: task `no-such-task-0`"
        ),
        "{said}"
    );
    assert!(
        said.contains("3 of the plan's 106 trials are in none"),
        "{said}"
    );
    let resumed = mcpick(&["run", "--resume", path(&out), "--no-progress"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed));
    assert!(text(&resumed).contains("running 3 of 106 planned trials"));
    assert_eq!(lines(&out).len(), 106);
}

#[test]
fn merge_refuses_a_shard_count_beyond_bounds_without_allocating_it() {
    let (dir, shards) = copy_of("shards");
    let shard = shards.join("shard-1-of-2");
    edit_manifest(&shard, |m| m["shard"]["count"] = 4_000_000_000u64.into());
    let out = dir.path().join("merged");
    let output = mcpick(&["merge", path(&shard), "-o", path(&out)]);
    let said = exits(&output, 2);
    assert!(said.contains("says shard 1 of 4000000000"), "{said}");
}

// ---- the property: any mutation, four readers, no panic, true counts, nothing deleted ----

#[derive(Debug, Clone)]
enum Mutation {
    /// A manifest number set to another value.
    Number(&'static str, u64),
    /// A manifest field removed.
    Remove(&'static str),
    /// A line cut at a byte.
    Truncate(usize, usize),
    /// A line written twice.
    Duplicate(usize),
    /// A line of the other plan's folder inserted.
    Stranger(usize),
    /// A byte flipped.
    Flip(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (
            prop::sample::select(vec![
                "/options/repeats",
                "/options/seeds",
                "/options/concurrency",
                "/options/max_turns",
                "/trials",
                "/suites/0/tasks",
                "/backends/0/concurrency",
            ]),
            prop::sample::select(vec![0u64, 1, 2, 53, 1000, 4_000_000_000, u64::MAX]),
        )
            .prop_map(|(p, v)| Mutation::Number(p, v)),
        prop::sample::select(vec!["plan_hash", "options", "suites", "backends", "files"])
            .prop_map(Mutation::Remove),
        (0usize..106, 0usize..400).prop_map(|(l, at)| Mutation::Truncate(l, at)),
        (0usize..106).prop_map(Mutation::Duplicate),
        (0usize..20).prop_map(Mutation::Stranger),
        (0usize..60_000, 1u8..=255).prop_map(|(at, x)| Mutation::Flip(at, x)),
    ]
}

fn apply(folder: &Path, mutation: &Mutation) {
    let trials = folder.join("trials.jsonl");
    let bytes = std::fs::read(&trials).unwrap();
    let mut lines: Vec<Vec<u8>> = bytes
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    match mutation {
        Mutation::Number(pointer, value) => edit_manifest(folder, |m| {
            if let Some(slot) = m.pointer_mut(pointer) {
                *slot = (*value).into();
            }
        }),
        Mutation::Remove(field) => edit_manifest(folder, |m| {
            m.as_object_mut().unwrap().remove(*field);
        }),
        Mutation::Truncate(line, at) => {
            let line = &mut lines[*line];
            line.truncate((*at).min(line.len()));
        }
        Mutation::Duplicate(line) => {
            let copy = lines[*line].clone();
            lines.insert(*line, copy);
        }
        Mutation::Stranger(line) => {
            let other = std::fs::read(pristine().join("other/shard-1-of-2/trials.jsonl")).unwrap();
            let stranger = other.split_inclusive(|b| *b == b'\n').nth(*line).unwrap();
            lines.insert(*line, stranger.to_vec());
        }
        Mutation::Flip(at, x) => {
            let mut flat: Vec<u8> = lines.concat();
            let at = at % flat.len();
            flat[at] ^= x;
            lines = vec![flat];
        }
    }
    if !matches!(mutation, Mutation::Number(..) | Mutation::Remove(..)) {
        std::fs::write(&trials, lines.concat()).unwrap();
    }
}

/// The non-blank lines of a file, as bytes.
fn byte_lines(file: &Path) -> Vec<Vec<u8>> {
    std::fs::read(file)
        .unwrap_or_default()
        .split(|b| *b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// The number after `marker` in `said` (`105` in "… 105 of 106 planned").
fn count_before(said: &str, marker: &str) -> Option<usize> {
    let at = said.find(marker)?;
    said[..at].split_whitespace().last()?.parse().ok()
}

fn no_crash(output: &Output, what: &str) {
    let said = text(output);
    assert!(
        output.status.code().is_some(),
        "{what} died by a signal: {said}"
    );
    assert!(
        !said.contains("panicked") && !said.contains("memory allocation"),
        "{what}: {said}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_mutation_is_refused_with_a_reason_or_counted_truly(mutation in mutation()) {
        let (dir, folder) = copy_of("travel");
        apply(&folder, &mutation);
        let before = byte_lines(&folder.join("trials.jsonl"));
        let base = pristine().join("travel");

        let report = mcpick(&["report", path(&folder)]);
        no_crash(&report, "report");
        let said = text(&report);
        match report.status.code() {
            Some(0) => {
                // Counted + named as not counted = every line of the file.
                let counted = count_before(&said, " of 106 planned trials").expect("a count over the plan");
                let set_aside = said.lines().filter(|l| l.starts_with("- trials.jsonl:")).count();
                prop_assert!(set_aside <= 10);
                if set_aside < 10 {
                    prop_assert_eq!(counted + set_aside, before.len(), "{}", said);
                }
            }
            code => prop_assert_eq!(code, Some(2), "{}", said),
        }

        let compare = mcpick(&["compare", path(&base), path(&folder)]);
        no_crash(&compare, "compare");
        let said = text(&compare);
        match compare.status.code() {
            Some(0) => prop_assert!(
                said.contains("| bm25 | 53 | 0 | 0 | 0 |") && said.contains("| random | 53 | 0 | 0 | 0 |"),
                "{}", said
            ),
            Some(1) => prop_assert!(said.contains("FAIL"), "{}", said),
            code => prop_assert_eq!(code, Some(2), "{}", said),
        }

        let merged = dir.path().join("merged");
        let merge = mcpick(&["merge", path(&folder), "-o", path(&merged)]);
        no_crash(&merge, "merge");
        let said = text(&merge);
        match merge.status.code() {
            Some(0) | Some(3) => {
                let counted = count_before(&said, " of 106 planned trials").expect("a count over the plan");
                prop_assert_eq!(counted, byte_lines(&merged.join("trials.jsonl")).len(), "{}", said);
                prop_assert_eq!(merge.status.code() == Some(0), counted == 106, "{}", said);
            }
            code => prop_assert_eq!(code, Some(2), "{}", said),
        }

        let resume = mcpick(&["run", "--resume", path(&folder), "--no-progress"]);
        no_crash(&resume, "resume");
        let said = text(&resume);
        match resume.status.code() {
            Some(0) => {
                prop_assert!(said.contains("106 of 106 planned trials done"), "{}", said);
                let after = byte_lines(&folder.join("trials.jsonl"));
                prop_assert_eq!(after.len(), 106);
                // Nothing deleted: every line that was there is still there, or in the side file.
                let side: Vec<Vec<u8>> = byte_lines(&folder.join("set-aside.jsonl"))
                    .iter()
                    .map(|l| {
                        let record: Value = serde_json::from_slice(l).unwrap();
                        let mut bytes = mcpick::record::original_bytes(&record).unwrap();
                        if bytes.last() == Some(&b'\n') {
                            bytes.pop();
                        }
                        bytes
                    })
                    .collect();
                for line in &before {
                    prop_assert!(after.contains(line) || side.contains(line), "a line was lost: {}", String::from_utf8_lossy(line));
                }
            }
            code => {
                prop_assert_eq!(code, Some(2), "{}", said);
                prop_assert_eq!(byte_lines(&folder.join("trials.jsonl")), before);
            }
        }
    }
}
