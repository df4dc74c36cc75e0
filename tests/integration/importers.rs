//! `mcpick import-bfcl` and `mcpick import-metatool` end to end on hand-written records in each
//! data set's format (tests/data/): the imports pass `validate`, the oracle scores 100% on them
//! under `run`, `sweep` and `ab`, `random` lands on the chance level its draw predicts, a sweep adds
//! distractors to each task's own list, and files that cannot be read are clear errors.

use crate::common;

use common::read_trials;
use mcpick::score::wilson_interval;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

fn mcpick(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn succeed(args: &[&str]) -> String {
    let output = mcpick(args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(0),
        "mcpick {args:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs a run-like command into `out` (no progress bar).
fn run_into(args: &[&str], out: &Path) -> String {
    let mut all = args.to_vec();
    all.extend(["--no-progress", "--out", path(out)]);
    succeed(&all)
}

/// The summary cell of `backend` over all suites (under one arm, when given).
fn cell(out: &Path, backend: &str, variant: Option<&str>) -> Value {
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let suite = variant.map_or_else(|| "(all)".to_string(), |arm| format!("(all) · {arm}"));
    summary["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["backend"] == backend && c["suite"] == suite.as_str())
        .unwrap_or_else(|| panic!("no cell for {backend}: {summary:#}"))
        .clone()
}

fn import_sample_bfcl(dir: &Path) -> String {
    succeed(&[
        "import-bfcl",
        "tests/data/bfcl/BFCL_v4_sample.json",
        "--answers",
        "tests/data/bfcl/possible_answer/BFCL_v4_sample.json",
        "-o",
        path(dir),
    ])
}

#[test]
fn a_bfcl_import_validates_and_the_oracle_scores_every_task() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("bfcl");
    let stdout = import_sample_bfcl(&dir);
    assert!(
        stdout.contains("18 records: 15 tasks, 3 not translated; 9 tools"),
        "{stdout}"
    );
    // toolset.json, suite.toml and tasks.jsonl, each as its `spec` type writes it.
    assert_eq!(common::written_files::assert_reads_back_as_written(&dir), 3);
    // "forty-two" for an integer is acceptable to BFCL's checker: the schema widens to take it.
    assert!(
        stdout.contains("count.n: schema widened to accept the answer's \"forty-two\""),
        "{stdout}"
    );
    let report = std::fs::read_to_string(dir.join("IMPORT.md")).unwrap();
    assert!(report.contains("| simple_python_4 | 15 |"), "{report}");
    assert!(
        report.contains("scored with the `bfcl` profile"),
        "{report}"
    );
    let suite = std::fs::read_to_string(dir.join("suite.toml")).unwrap();
    assert!(suite.contains("scoring = \"bfcl\""), "{suite}");

    let validated = succeed(&["validate", path(&dir)]);
    assert!(
        validated.contains("15 tasks: 2 no-call = 13.3%, 1 any-of, 2 all-of, 0 multi-step, 15 with their own tool list"),
        "{validated}"
    );

    let out = work.path().join("run");
    // mcpick's own matchers, which the importer proves every gold answer reaches.
    run_into(
        &[
            "run",
            path(&dir),
            "--backend",
            "oracle",
            "--backend",
            "random",
            "--scoring",
            "mcp",
        ],
        &out,
    );
    let oracle = cell(&out, "oracle", None);
    assert_eq!(oracle["accuracy"]["estimate"], 1.0, "{oracle:#}");
    assert_eq!(oracle["accuracy"]["trials"], 15);
    assert_eq!(oracle["scoring"], "mcp", "{oracle:#}");
    let trials = read_trials(&out);
    assert_eq!(trials.len(), 30);
    // Each task is shown exactly its own functions, under the names the record uses.
    let shown = |task: &str| -> Vec<String> {
        let trial = trials.iter().find(|t| t["task"] == task).unwrap();
        serde_json::from_value(trial["tools_shown"].clone()).unwrap()
    };
    assert_eq!(
        shown("multiple_0"),
        ["get_weather", "search_flights", "travel.plan_trip"]
    );
    assert_eq!(shown("simple_python_1"), ["get_weather"]);
    let parallel = trials
        .iter()
        .find(|t| t["task"] == "parallel_0" && t["backend"] == "oracle")
        .unwrap();
    assert_eq!(parallel["calls"].as_array().unwrap().len(), 2, "{parallel}");
}

/// A BFCL-format file of `records` records written here: `multiple` records offering 1 to 6
/// functions with one right call, and every fifth an `irrelevance` record.
fn generated_bfcl(records: usize) -> (String, String) {
    let (mut questions, mut answers) = (String::new(), String::new());
    for i in 0..records {
        let offered = 1 + i % 6;
        let functions: Vec<Value> = (0..offered)
            .map(|j| {
                json!({"name": format!("tool_{i}_{j}"), "description": format!("Tool {j} of record {i}."),
                    "parameters": {"type": "dict", "properties": {"n": {"type": "integer", "description": "A number."}},
                    "required": ["n"]}})
            })
            .collect();
        let irrelevant = i % 5 == 4;
        let id = if irrelevant {
            format!("irrelevance_{i}")
        } else {
            format!("multiple_{i}")
        };
        let question = json!({"id": id, "question": [[{"role": "user", "content": format!("Request {i}")}]],
            "function": functions});
        questions.push_str(&format!("{question}\n"));
        if !irrelevant {
            let gold = format!("tool_{i}_{}", i % offered);
            let answer = json!({"id": id, "ground_truth": [{gold: {"n": [i]}}]});
            answers.push_str(&format!("{answer}\n"));
        }
    }
    (questions, answers)
}

#[test]
fn random_lands_on_the_chance_level_its_draw_predicts() {
    let work = tempfile::tempdir().unwrap();
    let (questions, answers) = generated_bfcl(300);
    std::fs::write(work.path().join("questions.json"), questions).unwrap();
    std::fs::write(work.path().join("answers.json"), answers).unwrap();
    let dir = work.path().join("generated");
    succeed(&[
        "import-bfcl",
        path(&work.path().join("questions.json")),
        "--answers",
        path(&work.path().join("answers.json")),
        "-o",
        path(&dir),
    ]);
    let out = work.path().join("run");
    run_into(
        &[
            "run",
            path(&dir),
            "--backend",
            "random",
            "--backend",
            "oracle",
            "--repeats",
            "3",
        ],
        &out,
    );
    assert_eq!(cell(&out, "oracle", None)["accuracy"]["estimate"], 1.0);
    // random draws one of the N tools shown, or no call, uniformly: a call task's first pick is
    // right with chance 1/(N+1), and a no-call task is abstained on with chance 1/(N+1).
    let trials = read_trials(&out);
    let (mut predicted_picks, mut call_trials) = (0.0, 0u64);
    let (mut predicted_abstentions, mut abstained, mut no_call_trials) = (0.0, 0u64, 0u64);
    for t in trials.iter().filter(|t| t["backend"] == "random") {
        let chance = 1.0 / (t["tools_shown"].as_array().unwrap().len() as f64 + 1.0);
        if t["expected_tools"].as_array().unwrap().is_empty() {
            predicted_abstentions += chance;
            no_call_trials += 1;
            abstained += u64::from(t["outcome"] == "correct_abstain");
        } else {
            predicted_picks += chance;
            call_trials += 1;
        }
    }
    assert_eq!(call_trials, 240 * 3);
    let selection = &cell(&out, "random", None)["selection_accuracy"];
    let predicted = predicted_picks / call_trials as f64;
    assert!(
        selection["low"].as_f64().unwrap() <= predicted
            && predicted <= selection["high"].as_f64().unwrap(),
        "random picked right {selection} against a predicted {predicted:.4}"
    );
    let abstention = wilson_interval(abstained, no_call_trials);
    let predicted = predicted_abstentions / no_call_trials as f64;
    assert!(
        abstention.low <= predicted && predicted <= abstention.high,
        "random abstained {abstention:?} against a predicted {predicted:.4}"
    );
}

#[test]
fn a_sweep_adds_distractors_to_each_tasks_own_list() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("bfcl");
    import_sample_bfcl(&dir);
    let out = work.path().join("sweep");
    run_into(
        &[
            "sweep",
            path(&dir),
            "--sizes",
            "2,4,8",
            "--backend",
            "oracle",
            // The sample's draft-3 record makes BFCL's checker raise; mcpick's rules reach it.
            "--scoring",
            "mcp",
        ],
        &out,
    );
    assert_eq!(cell(&out, "oracle", None)["accuracy"]["estimate"], 1.0);
    let tasks: BTreeMap<String, Value> = std::fs::read_to_string(dir.join("tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|t| (t["id"].as_str().unwrap().to_string(), t))
        .collect();
    let mut shown: BTreeMap<String, BTreeMap<u64, BTreeSet<String>>> = BTreeMap::new();
    for t in read_trials(&out) {
        let names: BTreeSet<String> = serde_json::from_value(t["tools_shown"].clone()).unwrap();
        let size = t["size"].as_u64().unwrap();
        assert_eq!(names.len() as u64, size, "{t}");
        shown
            .entry(t["task"].as_str().unwrap().to_string())
            .or_default()
            .insert(size, names);
    }
    assert_eq!(shown.len(), tasks.len());
    for (task, sizes) in &shown {
        let own: BTreeSet<String> = tasks[task]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.get("as").unwrap_or(t).as_str().unwrap().to_string())
            .collect();
        for (size, names) in sizes {
            if *size as usize >= own.len() {
                assert!(
                    names.is_superset(&own),
                    "{task} at {size}: {names:?} lacks {own:?}"
                );
            }
        }
        let sets: Vec<&BTreeSet<String>> = sizes.values().collect();
        for pair in sets.windows(2) {
            assert!(pair[0].is_subset(pair[1]), "{task}: not nested: {sets:?}");
        }
    }
}

#[test]
fn an_ab_test_runs_on_an_imported_suite() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("bfcl");
    import_sample_bfcl(&dir);
    std::fs::write(
        dir.join("terse.toml"),
        "format = 1\nvariant = \"sample-terse\"\nbase = \"bfcl_v4_sample\"\n[describe.get_weather]\ndescription = \"Weather.\"\n[rename]\nsearch_flights = \"find_flights\"\n",
    )
    .unwrap();
    let out = work.path().join("ab");
    let stdout = run_into(
        &[
            "ab",
            path(&dir),
            "--variant",
            "base",
            "--variant",
            "sample-terse",
            "--backend",
            "oracle",
            "--scoring",
            "mcp",
        ],
        &out,
    );
    assert!(stdout.contains("## Description A/B"), "{stdout}");
    for arm in ["base", "sample-terse"] {
        assert_eq!(
            cell(&out, "oracle", Some(arm))["accuracy"]["estimate"],
            1.0,
            "{arm}"
        );
    }
    let trials = read_trials(&out);
    let flights = |arm: &str| {
        trials
            .iter()
            .find(|t| t["task"] == "multiple_0" && t["variant"] == arm)
            .unwrap()["tools_shown"]
            .clone()
    };
    assert_eq!(
        flights("base"),
        json!(["get_weather", "search_flights", "travel.plan_trip"])
    );
    assert_eq!(
        flights("sample-terse"),
        json!(["get_weather", "find_flights", "travel.plan_trip"])
    );
}

#[test]
fn a_metatool_import_runs_and_sweeps_its_one_toolset() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("metatool");
    let stdout = succeed(&[
        "import-metatool",
        "tests/data/metatool/queries.csv",
        "--descriptions",
        "tests/data/metatool/plugin_des.json",
        "-o",
        path(&dir),
    ]);
    assert!(
        stdout.contains("16 records: 15 tasks, 1 not translated; 8 tools"),
        "{stdout}"
    );
    assert_eq!(common::written_files::assert_reads_back_as_written(&dir), 3);
    assert!(
        stdout.contains("\"ChessTool\" has no description"),
        "{stdout}"
    );
    succeed(&["validate", path(&dir)]);
    // Run from a folder without a `toolsets/` of its own: the import carries its toolset.
    let elsewhere = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(work.path())
        .args([
            "run",
            "metatool",
            "--backend",
            "oracle",
            "--no-progress",
            "--out",
            "elsewhere",
        ])
        .output()
        .unwrap();
    assert_eq!(
        elsewhere.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&elsewhere.stdout)
    );
    assert_eq!(read_trials(&work.path().join("elsewhere")).len(), 15);
    let out = work.path().join("run");
    run_into(
        &[
            "run",
            path(&dir),
            "--backend",
            "oracle",
            "--backend",
            "random",
        ],
        &out,
    );
    assert_eq!(cell(&out, "oracle", None)["accuracy"]["estimate"], 1.0);
    for t in read_trials(&out) {
        assert_eq!(
            t["tools_shown"].as_array().unwrap().len(),
            8,
            "the whole toolset"
        );
    }
    let sweep = work.path().join("sweep");
    run_into(
        &["sweep", path(&dir), "--sizes", "3,6", "--backend", "oracle"],
        &sweep,
    );
    assert_eq!(cell(&sweep, "oracle", None)["accuracy"]["estimate"], 1.0);
}

#[test]
fn unreadable_or_empty_inputs_are_clear_errors() {
    let work = tempfile::tempdir().unwrap();
    let missing = mcpick(&["import-bfcl", "no/such/file.json", "-o", path(work.path())]);
    assert_eq!(missing.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&missing.stdout);
    assert!(stdout.contains("cannot read no/such/file.json"), "{stdout}");

    // Questions without their answers translate nothing but the no-answer categories.
    let no_answers = mcpick(&[
        "import-bfcl",
        "tests/data/bfcl/BFCL_v4_sample.json",
        "-o",
        path(&work.path().join("partial")),
    ]);
    assert_eq!(no_answers.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&no_answers.stdout);
    assert!(
        stdout.contains("18 records: 4 tasks, 14 not translated"),
        "{stdout}"
    );

    let junk = work.path().join("junk.json");
    std::fs::write(&junk, "not json\n{\"id\": 3}\n").unwrap();
    let nothing = mcpick(&[
        "import-bfcl",
        path(&junk),
        "-o",
        path(&work.path().join("j")),
    ]);
    assert_eq!(nothing.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&nothing.stdout);
    assert!(stdout.contains("nothing translated"), "{stdout}");
    assert!(stdout.contains("not JSON"), "{stdout}");
    assert!(!work.path().join("j").exists(), "nothing written");

    let bad_csv = mcpick(&[
        "import-metatool",
        "tests/data/metatool/plugin_des.json",
        "--descriptions",
        "tests/data/metatool/plugin_des.json",
        "-o",
        path(&work.path().join("m")),
    ]);
    assert_eq!(bad_csv.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&bad_csv.stdout);
    assert!(stdout.contains("`Query` and `Tool` columns"), "{stdout}");
}

#[test]
fn the_bfcl_profile_scores_the_first_reply_and_is_named_everywhere() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("bfcl");
    import_sample_bfcl(&dir);
    // The profile is checked before anything runs.
    for (args, said) in [
        (
            vec![
                "run",
                path(&dir),
                "--backend",
                "oracle",
                "--scoring",
                "nope",
            ],
            "the profiles are `mcp` and `bfcl`",
        ),
        (
            vec![
                "run",
                "tasks/travel.toml",
                "--backend",
                "oracle",
                "--scoring",
                "bfcl",
            ],
            "needs BFCL's record",
        ),
    ] {
        let refused = mcpick(&args);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&refused.stdout),
            String::from_utf8_lossy(&refused.stderr)
        );
        assert!(text.contains(said), "{args:?}: {text}");
        assert!(text.contains("nothing was run"), "{text}");
    }
    let out = work.path().join("run");
    // No --scoring: an imported BFCL suite names `bfcl` itself.
    let args = vec![
        "run",
        path(&dir),
        "--backend",
        "oracle",
        "--backend",
        "random",
    ];
    run_into(&args, &out);
    let oracle = cell(&out, "oracle", None);
    assert_eq!(oracle["scoring"], "bfcl", "{oracle:#}");
    // Every gold call passes BFCL's checker but one: the sample's simple_python_3 writes its
    // required parameters the draft-3 way, without `parameters.required`, on which BFCL's own
    // checker raises KeyError.
    assert_eq!(
        oracle["outcomes"]["correct"].as_u64().unwrap()
            + oracle["outcomes"]["correct_abstain"].as_u64().unwrap(),
        14,
        "{oracle:#}"
    );
    let trials = read_trials(&out);
    let failed: Vec<&Value> = trials
        .iter()
        .filter(|t| {
            t["backend"] == "oracle" && !t["outcome"].as_str().unwrap().starts_with("correct")
        })
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["task"], "simple_python_3");
    assert!(
        failed[0]["detail"]
            .as_str()
            .unwrap()
            .contains("checker_exception"),
        "{:#}",
        failed[0]
    );
    assert_eq!(cell(&out, "random", None)["scoring"], "bfcl");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["suites"][0]["scoring"], "bfcl", "{manifest:#}");
    assert!(trials.iter().all(|t| t["scoring"] == "bfcl"));
    assert!(
        trials
            .iter()
            .any(|t| t["mismatches"].as_array().is_some_and(|m| m
                .iter()
                .any(|m| m["argument"].as_str().is_some_and(|e| e.contains(':'))))),
        "random's failures carry BFCL's error types"
    );
}
