//! The `bfcl` scoring profile against BFCL's own checker, call for call. Every BFCL v4 single-turn
//! file (from the `bfcl-eval` package `tests/peers/install.sh` installs) is imported with
//! `import-bfcl`; a mutation generator derives replies from each record's correct call — one thing
//! changed (a type, a string's case, a list's order, a dict's keys, an argument added or left out, a
//! call added, dropped or split over turns, arguments that do not parse, ...) — and each reply is
//! judged by mcpick's `bfcl` profile and by bfcl-eval's `ast_checker` (`tests/peers/bfcl_checker.py`
//! drives it). The verdicts must agree on every reply except one documented kind: `1` for `true`
//! inside a list or dict, which Python's `True == 1` lets BFCL accept and mcpick does not. The test
//! prints the agreement table by kind. A second test replays a dozen kinds through `mcpick run`
//! (`replay:`), so the verdicts checked are the ones a real run writes.

use crate::common;

use common::bfcl_mutations::{Case, Reply, gold_calls, mutations, reply, source_text_gold};
use mcpick::model::{BfclRecord, Expectation, ExpectedCall};
use mcpick::observation::{CallArguments, Observed, ObservedCall};
use mcpick::score::Outcome;
use mcpick::score::bfcl::score_bfcl;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The one kind where mcpick departs from BFCL on purpose (`docs/scoring.md`, "Scoring profiles").
const DOCUMENTED_DIFFERENCE: &str = "bool_as_int_nested";

/// The gold call of a record the import left out: BFCL's checker must reject it too.
const SKIPPED_RECORD: &str = "skipped_record_gold";

/// BFCL v4's single-turn files.
const CATEGORIES: [&str; 13] = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
];

fn python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/.venv/bin/python");
    assert!(
        python.exists(),
        "bfcl-eval is not installed: run tests/peers/install.sh (the README's test command does)"
    );
    python
}

/// The data folder inside the installed bfcl-eval package.
fn bfcl_data() -> PathBuf {
    let out = Command::new(python())
        .args([
            "-c",
            "import bfcl_eval, os; print(os.path.join(os.path.dirname(bfcl_eval.__file__), 'data'))",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// One row of the agreement table.
#[derive(Default)]
struct KindRow {
    replies: usize,
    bfcl_valid: usize,
    agree: usize,
    /// BFCL valid where mcpick is not.
    only_bfcl_valid: usize,
    examples: Vec<String>,
}

struct Record {
    bfcl: BfclRecord,
    shown: Vec<String>,
}

#[test]
fn bfcl_profile_agrees_with_bfcls_checker() {
    let data = bfcl_data();
    let mut records: BTreeMap<String, Record> = BTreeMap::new();
    let mut cases = Vec::new();
    for category in CATEGORIES {
        let questions =
            std::fs::read_to_string(data.join(format!("BFCL_v4_{category}.json"))).unwrap();
        let answers =
            std::fs::read_to_string(data.join(format!("possible_answer/BFCL_v4_{category}.json")))
                .ok();
        let imported = mcpick::import::bfcl::import_bfcl(&questions, answers.as_deref(), category);
        // A record the import leaves out must be one BFCL's checker cannot pass either: its own
        // answer's first values are judged like any reply, and must fail.
        for skipped in &imported.skipped {
            let question: Value =
                serde_json::from_str(questions.lines().nth(skipped.line - 1).unwrap()).unwrap();
            let truth = answers
                .as_deref()
                .into_iter()
                .flat_map(str::lines)
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|a| a["id"] == question["id"])
                .map_or(json!([]), |a| a["ground_truth"].clone());
            let bfcl = BfclRecord {
                category: category.to_string(),
                function: question["function"].as_array().unwrap().clone(),
                ground_truth: truth.as_array().unwrap().clone(),
            };
            let id = skipped.record.clone();
            cases.push(Case {
                kind: SKIPPED_RECORD,
                id: id.clone(),
                replies: vec![reply(&gold_calls(&bfcl))],
            });
            records.insert(
                id,
                Record {
                    bfcl,
                    shown: Vec::new(),
                },
            );
        }
        for task in &imported.tasks {
            let id = task["id"].as_str().unwrap().to_string();
            let bfcl: BfclRecord = serde_json::from_value(task["bfcl"].clone()).unwrap();
            let shown = task["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.get("as").unwrap_or(t).as_str().unwrap().to_string())
                .collect();
            let gold = if bfcl.category.ends_with("java") || bfcl.category.ends_with("javascript") {
                source_text_gold(task, &imported.tools)
            } else {
                gold_calls(&bfcl)
            };
            mutations(&id, &bfcl, gold, &mut cases);
            records.insert(id, Record { bfcl, shown });
        }
    }
    let theirs = bfcl_verdicts(records.iter().map(|(id, r)| (id.as_str(), &r.bfcl)), &cases);
    assert_eq!(theirs.len(), cases.len(), "one BFCL verdict per case");

    let mut table: BTreeMap<&str, KindRow> = BTreeMap::new();
    let mut exceptions = 0;
    for (case, verdict) in cases.iter().zip(&theirs) {
        let record = &records[&case.id];
        let ours = mcpick_valid(record, &case.replies);
        let valid = verdict["valid"].as_bool().unwrap();
        exceptions += usize::from(
            verdict["error_type"]
                .as_str()
                .is_some_and(|e| e.starts_with("exception")),
        );
        let row = table.entry(case.kind).or_default();
        row.replies += 1;
        row.bfcl_valid += usize::from(valid);
        row.only_bfcl_valid += usize::from(valid && !ours);
        if ours == valid {
            row.agree += 1;
        } else if row.examples.len() < 3 {
            row.examples.push(format!(
                "{} BFCL {valid} ({}), mcpick {ours}: {:?}",
                case.id, verdict["error_type"], case.replies
            ));
        }
    }
    let mut report = String::from(
        "\n| kind | replies | BFCL valid | agree | disagree |\n|---|---:|---:|---:|---:|\n",
    );
    let (mut total, mut agreed) = (0, 0);
    for (kind, row) in &table {
        let (n, valid, agree) = (row.replies, row.bfcl_valid, row.agree);
        writeln!(
            report,
            "| {kind} | {n} | {valid} | {agree} | {} |",
            n - agree
        )
        .unwrap();
        total += n;
        agreed += agree;
    }
    writeln!(
        report,
        "| all | {total} | | {agreed} | {} |\n\n{} records, {} BFCL checker exceptions",
        total - agreed,
        records.len(),
        exceptions
    )
    .unwrap();
    println!("{report}");
    let mut failures = String::new();
    for (kind, row) in &table {
        let (n, agree, examples) = (row.replies, row.agree, &row.examples);
        if *kind != DOCUMENTED_DIFFERENCE && n != agree {
            writeln!(
                failures,
                "{kind}: {} disagreements, e.g.\n  {}",
                n - agree,
                examples.join("\n  ")
            )
            .unwrap();
        }
    }
    assert!(failures.is_empty(), "{report}\n{failures}");
    if let Some(skipped) = table.get(SKIPPED_RECORD) {
        assert_eq!(
            skipped.bfcl_valid, 0,
            "the import left out a record BFCL's checker passes: {:?}",
            skipped.examples
        );
    }
    let documented = &table[DOCUMENTED_DIFFERENCE];
    assert!(
        documented.replies > 0,
        "the generator makes the documented kind"
    );
    assert_eq!(
        documented.replies - documented.agree,
        documented.only_bfcl_valid,
        "in the documented kind mcpick differs only by rejecting what BFCL accepts"
    );
    assert!(
        table.len() >= 30,
        "the generator makes every kind: {}",
        table.len()
    );
}

/// Whether mcpick's `bfcl` profile scores these replies correct.
fn mcpick_valid(record: &Record, replies: &[Reply]) -> bool {
    let calls: Vec<ObservedCall> = replies
        .iter()
        .enumerate()
        .flat_map(|(reply, calls)| {
            calls.iter().map(move |(name, text)| ObservedCall {
                tool: name.clone(),
                arguments: match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(map)) => CallArguments::Parsed(map),
                    _ => CallArguments::Malformed {
                        raw: text.clone(),
                        reason: "not a JSON object".into(),
                    },
                },
                result_is_error: Some(false),
                reply: reply as u32,
            })
        })
        .collect();
    let trial = Observed {
        tools_shown: &record.shown,
        calls: &calls,
        backend_error: None,
    };
    let expectation = if record.bfcl.category.contains("relevance") {
        Expectation::NoCall
    } else {
        Expectation::AllOf(
            gold_calls(&record.bfcl)
                .into_iter()
                .map(|(tool, _)| ExpectedCall {
                    tool,
                    args: BTreeMap::new(),
                    refused: false,
                })
                .collect(),
        )
    };
    matches!(
        score_bfcl(&record.bfcl, &expectation, &trial).outcome,
        Outcome::Correct | Outcome::CorrectAbstain
    )
}

/// BFCL's own verdict (`{case, valid, error_type}`) on each case, from `tests/peers/bfcl_checker.py`.
fn bfcl_verdicts<'a>(
    records: impl Iterator<Item = (&'a str, &'a BfclRecord)>,
    cases: &[Case],
) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let (records_path, cases_path) = (
        dir.path().join("records.jsonl"),
        dir.path().join("cases.jsonl"),
    );
    let mut text = String::new();
    for (id, record) in records {
        let mut line = serde_json::to_value(record).unwrap();
        line["id"] = json!(id);
        writeln!(text, "{line}").unwrap();
    }
    std::fs::write(&records_path, text).unwrap();
    let mut text = String::new();
    for (n, case) in cases.iter().enumerate() {
        let replies: Vec<Vec<Value>> = case
            .replies
            .iter()
            .map(|r| {
                r.iter()
                    .map(|(name, arguments)| json!({"name": name, "arguments": arguments}))
                    .collect()
            })
            .collect();
        writeln!(
            text,
            "{}",
            json!({"case": n, "id": case.id, "replies": replies})
        )
        .unwrap();
    }
    std::fs::write(&cases_path, text).unwrap();
    let out = Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/bfcl_checker.py"))
        .arg(&records_path)
        .arg(&cases_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The kinds replayed through `mcpick run` (each a recorded backend), one reply per task.
const REPLAYED_KINDS: [&str; 12] = [
    "correct",
    "no_call",
    "extra_call",
    "later_turn_fix",
    "malformed_then_fixed",
    "calls_split_over_turns",
    "undeclared_argument",
    "omit_argument",
    "int_as_float",
    "case_changed_nested",
    "relevance_call",
    "malformed",
];

/// The same check through the whole path a model's reply takes: mutated replies written as a
/// recorded run, replayed by `mcpick run --backend replay:...` against imported suites (the MCP
/// server executes every call, the runner records which reply made it), and each trial's verdict
/// in `trials.jsonl` held against BFCL's on the calls of the trial's first reply.
#[test]
fn replayed_through_mcpick_run_the_verdicts_are_bfcls() {
    let data = bfcl_data();
    let work = tempfile::tempdir().unwrap();
    let mut records: BTreeMap<String, BfclRecord> = BTreeMap::new();
    let mut recorded = String::new();
    let mut suites = Vec::new();
    for category in [
        "simple_python",
        "multiple",
        "parallel",
        "parallel_multiple",
        "irrelevance",
        "simple_javascript",
    ] {
        let questions =
            std::fs::read_to_string(data.join(format!("BFCL_v4_{category}.json"))).unwrap();
        let answers =
            std::fs::read_to_string(data.join(format!("possible_answer/BFCL_v4_{category}.json")))
                .ok();
        let imported = mcpick::import::bfcl::import_bfcl(&questions, answers.as_deref(), category);
        let dir = work.path().join(category);
        imported.write(&dir, category).unwrap();
        suites.push(dir);
        for task in &imported.tasks {
            let id = task["id"].as_str().unwrap().to_string();
            let bfcl: BfclRecord = serde_json::from_value(task["bfcl"].clone()).unwrap();
            let gold = if category.ends_with("javascript") {
                source_text_gold(task, &imported.tools)
            } else {
                gold_calls(&bfcl)
            };
            let mut cases = Vec::new();
            mutations(&id, &bfcl, gold, &mut cases);
            // The conversation as the trial starts it, then each reply of the first case of a kind.
            let opening: Vec<Value> = match task.get("prompt") {
                Some(prompt) => vec![json!({"role": "user", "content": prompt})],
                None => task["messages"].as_array().unwrap().clone(),
            };
            for kind in REPLAYED_KINDS {
                let Some(case) = cases.iter().find(|c| c.kind == kind) else {
                    continue;
                };
                let mut transcript = opening.clone();
                for (n, calls) in case.replies.iter().enumerate() {
                    let calls: Vec<Value> = calls
                        .iter()
                        .enumerate()
                        .map(|(i, (name, text))| {
                            let arguments = match serde_json::from_str::<Value>(text) {
                                Ok(Value::Object(map)) => json!({"parsed": map}),
                                _ => json!({"malformed": {"raw": text, "reason": "not a JSON object"}}),
                            };
                            json!({"id": format!("call-{n}-{i}"), "tool": name, "arguments": arguments})
                        })
                        .collect();
                    let text = calls.is_empty().then_some("No tool is needed.");
                    transcript.push(json!({"role": "assistant", "text": text, "calls": calls}));
                }
                let line = json!({"suite": category, "task": id, "backend": format!("mutated:{kind}"), "transcript": transcript});
                writeln!(recorded, "{line}").unwrap();
            }
            records.insert(id, bfcl);
        }
    }
    let recording = work.path().join("recorded");
    std::fs::create_dir_all(&recording).unwrap();
    std::fs::write(recording.join("trials.jsonl"), recorded).unwrap();
    let out = work.path().join("run");
    let mut args: Vec<String> = vec!["run".into()];
    args.extend(suites.iter().map(|d| d.display().to_string()));
    for kind in REPLAYED_KINDS {
        args.push("--backend".into());
        args.push(format!("replay:{}#mutated:{kind}", recording.display()));
    }
    args.extend([
        "--no-progress".into(),
        "--out".into(),
        out.display().to_string(),
    ]);
    let ran = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    let trials = common::read_trials(&out);
    // A task without a case of some kind has no recording for that backend: an `error` trial.
    let judged: Vec<&Value> = trials.iter().filter(|t| t["outcome"] != "error").collect();
    assert!(judged.len() > 10_000, "{} trials judged", judged.len());
    assert!(judged.iter().all(|t| t["scoring"] == "bfcl"));
    let cases: Vec<Case> = judged
        .iter()
        .map(|t| {
            let first: Reply = t["calls"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["reply"] == 0)
                .map(|c| {
                    let text = match &c["arguments"] {
                        Value::Object(a) if a.contains_key("parsed") => a["parsed"].to_string(),
                        other => other["malformed"]["raw"].as_str().unwrap().to_string(),
                    };
                    (c["tool"].as_str().unwrap().to_string(), text)
                })
                .collect();
            Case {
                kind: "replayed",
                id: t["task"].as_str().unwrap().to_string(),
                replies: vec![first],
            }
        })
        .collect();
    let theirs = bfcl_verdicts(records.iter().map(|(id, r)| (id.as_str(), r)), &cases);
    let mut disagreements = Vec::new();
    let mut later_turn_fixed = 0;
    for (trial, verdict) in judged.iter().zip(&theirs) {
        let ours = matches!(
            trial["outcome"].as_str(),
            Some("correct" | "correct_abstain")
        );
        later_turn_fixed += usize::from(trial["later_turn_fixed"] == true);
        if ours != verdict["valid"].as_bool().unwrap() {
            disagreements.push(format!(
                "{} {} {}: mcpick {ours}, BFCL {verdict}",
                trial["suite"], trial["task"], trial["backend"]
            ));
        }
    }
    println!(
        "{} trials replayed through mcpick run, {} disagreements, {later_turn_fixed} fixed in a later turn",
        judged.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{}",
        disagreements[..disagreements.len().min(10)].join("\n")
    );
    assert!(
        later_turn_fixed > 0,
        "later_turn_fix and malformed_then_fixed are fixed in a later turn"
    );
}
