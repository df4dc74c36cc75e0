//! The documented offline runs (`docs/getting-started.md`, `docs/experiments.md`), rerun and
//! compared with recorded results: `run tasks/` with the three baselines, a description A/B test
//! and a size sweep. Their `trials.jsonl`, `summary.json` and
//! `manifest.json` must match the recordings in `tests/data/golden/` byte for byte once the
//! parts that cannot repeat are set aside — latencies, the command line, the git revision and the
//! start time. A redesign that keeps behaviour passes unchanged; a change that moves any result
//! fails with the first line that differs. After a deliberate change, rerun with
//! `MCPICK_BLESS_GOLDEN=1` and commit the new recordings with the change that explains them.

use flate2::{Compression, read::GzDecoder, write::GzEncoder};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Each recorded run: its name (the recordings' folder) and the arguments after `mcpick`.
const RUNS: &[(&str, &[&str])] = &[
    (
        "run_baselines",
        &[
            "run",
            "tasks/",
            "--backend",
            "bm25",
            "--backend",
            "random",
            "--backend",
            "oracle",
        ],
    ),
    (
        "ab_travel",
        &[
            "ab",
            "tasks/travel.toml",
            "--variant",
            "travel-terse",
            "--variant",
            "travel-rich",
            "--backend",
            "bm25",
            "--backend",
            "random",
        ],
    ),
    (
        "sweep_travel",
        &[
            "sweep",
            "tasks/travel.toml",
            "--sizes",
            "5,15,30,50,100",
            "--backend",
            "bm25",
            "--backend",
            "random",
        ],
    ),
];

/// Keys whose values differ from one run to the next by nature, wherever they appear.
const UNREPEATABLE: &[&str] = &["latency_ms", "command", "git_revision", "started"];

fn without_unrepeatable(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            for key in UNREPEATABLE {
                map.shift_remove(*key);
            }
            for v in map.values_mut() {
                *v = without_unrepeatable(v.take());
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                *v = without_unrepeatable(v.take());
            }
        }
        _ => {}
    }
    value
}

/// A run folder's files in comparable form: trial lines with their timing removed, sorted (trials
/// finish in whatever order concurrency gives), and the two JSON documents pretty-printed.
fn comparable(folder: &Path) -> Vec<(&'static str, String)> {
    let read = |name: &str| {
        std::fs::read_to_string(folder.join(name))
            .unwrap_or_else(|e| panic!("{}/{name}: {e}", folder.display()))
    };
    let mut trials: Vec<String> = read("trials.jsonl")
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("a trial line parses");
            serde_json::to_string(&without_unrepeatable(value)).unwrap()
        })
        .collect();
    trials.sort();
    let document = |name: &str| {
        let value: Value = serde_json::from_str(&read(name)).expect("the document parses");
        serde_json::to_string_pretty(&without_unrepeatable(value)).unwrap() + "\n"
    };
    vec![
        ("trials.jsonl", trials.join("\n") + "\n"),
        ("summary.json", document("summary.json")),
        ("manifest.json", document("manifest.json")),
    ]
}

fn recording(run: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/golden/{run}/{file}.gz"))
}

fn read_recording(path: &Path) -> String {
    let compressed = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record the golden runs with MCPICK_BLESS_GOLDEN=1)",
            path.display()
        )
    });
    let mut text = String::new();
    GzDecoder::new(compressed.as_slice())
        .read_to_string(&mut text)
        .expect("a recording is gzipped UTF-8");
    text
}

fn write_recording(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(text.as_bytes()).unwrap();
    std::fs::write(path, encoder.finish().unwrap()).unwrap();
}

/// The first line where `actual` and `expected` part, with both versions.
fn first_difference(actual: &str, expected: &str) -> Option<String> {
    let (mut a, mut e) = (actual.lines(), expected.lines());
    for number in 1.. {
        match (a.next(), e.next()) {
            (None, None) => return None,
            (left, right) if left == right => continue,
            (left, right) => {
                return Some(format!(
                    "line {number}\n  now:      {}\n  recorded: {}",
                    left.unwrap_or("(end)"),
                    right.unwrap_or("(end)")
                ));
            }
        }
    }
    unreachable!()
}

#[test]
fn the_readme_runs_give_the_recorded_results() {
    let bless = std::env::var_os("MCPICK_BLESS_GOLDEN").is_some();
    let scratch = tempfile::tempdir().unwrap();
    let mut differences = Vec::new();
    for (name, args) in RUNS {
        let out = scratch.path().join(name);
        let status = Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(*args)
            .arg("--out")
            .arg(&out)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("MCPICK_MODEL_DIR")
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "mcpick {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&status.stderr)
        );
        for (file, text) in comparable(&out) {
            let path = recording(name, file);
            if bless {
                write_recording(&path, &text);
            } else if let Some(difference) = first_difference(&text, &read_recording(&path)) {
                differences.push(format!("{name}/{file}: {difference}"));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "results moved:\n{}",
        differences.join("\n")
    );
}
