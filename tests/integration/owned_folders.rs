//! Nothing mcpick runs writes or deletes outside the folders it owns. A sandbox stands in for the
//! whole machine: HOME, the temporary folder, the model folder and a prefix cache pointed at a
//! folder other programs share, each planted with other programs' files — hour-old `*.tmp` and
//! `*.partial` files, `*.kv` files, a suite and notes written by hand. Then mcpick's commands run
//! there as a person would run them (validate, lint, run with the offline baselines and the
//! embedded model, sweep, report, compare, models and `--clear-kv-cache`, draft with a scripted
//! drafter and the embedding model, review, improve with a scripted rewriter),
//! and every file outside the folders it was given (`--out`, `-o`), its model folder and its own
//! cache files must be exactly as it was — none changed, none deleted, none added.

use crate::common;
use common::drafter_provider::{DrafterProvider, Script};
use common::rewriter_provider::{RewriteScript, RewriterProvider};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (links as links) with its bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, Option<SystemTime>)> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                found.insert(path, (target.into_os_string().into_encoded_bytes(), None));
            } else {
                let modified = entry.metadata().unwrap().modified().ok();
                found.insert(path.clone(), (std::fs::read(&path).unwrap(), modified));
            }
        }
    }
    found
}

/// Writes `bytes` to `path` (making its folders), an hour old.
fn plant(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    let old = SystemTime::now() - Duration::from_secs(7200);
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

struct Sandbox {
    _dir: tempfile::TempDir,
    top: PathBuf,
    work: PathBuf,
    env: Vec<(&'static str, PathBuf)>,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().to_path_buf();
        let home = top.join("home");
        let work = top.join("work");
        let models = top.join("models");
        for folder in [&home, &work, &models, &top.join("tmp")] {
            std::fs::create_dir_all(folder).unwrap();
        }
        // The models the commands use, linked from the tests' model folder; their stamps copied,
        // so a stamp written anew lands in the sandbox.
        let shared_models = root().join("tests/peers/models");
        for entry in std::fs::read_dir(&shared_models).unwrap().flatten() {
            let target = models.join(entry.file_name());
            if entry.file_name().to_string_lossy().starts_with('.') {
                std::fs::copy(entry.path(), target).unwrap();
            } else {
                std::os::unix::fs::symlink(entry.path(), target).unwrap();
            }
        }
        for folder in ["tasks", "toolsets"] {
            copy_tree(&root().join(folder), &work.join(folder));
        }
        // Other programs' files, where a careless program would tread.
        let hour_old: [&str; 11] = [
            "home/.cache/editor/session.tmp",
            "home/.cache/mcpick/notes.txt",
            "home/.cache/other.partial",
            "shared/backup.tmp",
            "shared/app/index.kv",
            "shared/0123456789abcdef/aaaa.kv",
            "shared/draft.tmp",
            "models/video.mp4.partial",
            "models/other-model.gguf.123.partial",
            "tmp/mcpick-review-1-0.json",
            "work/notes.tmp",
        ];
        for file in hour_old {
            plant(&top.join(file), b"another program's file");
        }
        plant(
            &work.join("mine/suite.toml"),
            b"format = 1\nsuite = \"mine\"\ntoolset = \"travel\"\ntasks_file = \"tasks.jsonl\"\n",
        );
        plant(&work.join("mine/tasks.jsonl"), b"{\"id\": \"a\"}\n");
        Sandbox {
            _dir: dir,
            env: vec![
                ("HOME", home),
                ("TMPDIR", top.join("tmp")),
                ("MCPICK_MODEL_DIR", models),
                ("MCPICK_KV_CACHE", top.join("shared")),
                ("HF_HOME", top.join("hf")),
            ],
            top,
            work,
        }
    }

    fn mcpick(&self, args: &[&str]) -> (Option<i32>, String) {
        self.mcpick_with(args, &[])
    }

    fn mcpick_with(&self, args: &[&str], extra_env: &[(&str, &str)]) -> (Option<i32>, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
        command
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("MCPICK_OFFLINE", "1")
            .env("MCPICK_TEST_KEY", "test-key-123");
        for (name, value) in &self.env {
            command.env(name, value);
        }
        for (name, value) in extra_env {
            command.env(name, value);
        }
        let output = command.args(args).output().unwrap();
        let said = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(!said.contains("panicked"), "{args:?}: {said}");
        (output.status.code(), said)
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A three-tool toolset and a suite of two requests on it, for the embedded model: its tool list
/// is long enough (over 256 tokens) for the prefix cache to keep.
const TINY_TOOLSET: &str = r#"format = 1
name = "tiny"

[[tool]]
name = "get_weather"
description = "Current weather conditions for one city as observed right now: temperature in degrees Celsius, sky, wind speed and direction, humidity and the chance of rain in the next hour. Use it for questions about the present moment only; forecasts for later days are another tool's job."
[tool.inputSchema]
type = "object"
required = ["city"]
properties.city = { type = "string" }

[[tool]]
name = "convert_currency"
description = "Convert an amount of money from one currency into another at today's mid-market exchange rate, as published by the central bank each morning. Returns the converted amount rounded to two decimals, the rate used and the time it was published. Currencies are ISO 4217 codes such as EUR, USD or JPY."
[tool.inputSchema]
type = "object"
required = ["amount"]
properties.amount = { type = "number" }

[[tool]]
name = "set_alarm"
description = "Set an alarm clock on the user's phone for a given local time, optionally repeating on chosen weekdays and with a label that is shown when it rings. Returns the alarm's identifier so that it can be changed or deleted later. Times are written as HH:MM in the 24-hour clock."
[tool.inputSchema]
type = "object"
required = ["time"]
properties.time = { type = "string" }
"#;

const TINY_SUITE: &str = r#"format = 1
suite = "tiny"
toolset = "tiny"

[[task]]
id = "rain"
prompt = "Is it raining in Oslo?"
expect = [{ tool = "get_weather" }]

[[task]]
id = "alarm"
prompt = "Wake me at 7."
expect = [{ tool = "set_alarm" }]
"#;

/// Four more, for `improve`, which splits a suite in two.
const MORE_TASKS: &str = r#"
[[task]]
id = "wind"
prompt = "How windy is it in Lisbon now?"
expect = [{ tool = "get_weather" }]

[[task]]
id = "yen"
prompt = "How many yen is 40 euros?"
expect = [{ tool = "convert_currency" }]

[[task]]
id = "dollars"
prompt = "Turn 15 pounds into dollars."
expect = [{ tool = "convert_currency" }]

[[task]]
id = "nap"
prompt = "Ring in twenty minutes, I am taking a nap."
expect = [{ tool = "set_alarm" }]
"#;

#[test]
fn nothing_outside_the_folders_mcpick_owns_is_written_or_deleted() {
    let sandbox = Sandbox::new();
    let work = &sandbox.work;
    std::fs::create_dir_all(work.join("tiny")).unwrap();
    std::fs::write(work.join("tiny/tiny.toml"), TINY_TOOLSET).unwrap();
    std::fs::write(work.join("tiny/suite.toml"), TINY_SUITE).unwrap();
    let six = TINY_SUITE.replace("suite = \"tiny\"", "suite = \"tiny6\"") + MORE_TASKS;
    std::fs::write(work.join("tiny/six.toml"), six).unwrap();
    let before = snapshot(&sandbox.top);

    let ok = |(code, said): (Option<i32>, String), args: &str| {
        assert!(matches!(code, Some(0 | 1)), "{args}: {said}");
    };
    ok(sandbox.mcpick(&["validate"]), "validate");
    ok(sandbox.mcpick(&["lint", "toolsets/travel.toml"]), "lint");
    let offline = [
        "run",
        "tasks/travel.toml",
        "--backend",
        "bm25",
        "--backend",
        "random",
        "--backend",
        "oracle",
        "--no-progress",
        "--out",
        "runs/offline",
    ];
    ok(sandbox.mcpick(&offline), "run");
    ok(
        sandbox.mcpick(&[
            "run",
            "tiny/suite.toml",
            "--backend",
            "local:score:smollm2-135m",
            "--threads",
            "1",
            "--no-progress",
            "--out",
            "runs/local",
        ]),
        "run local",
    );
    ok(
        sandbox.mcpick(&[
            "sweep",
            "tasks/travel.toml",
            "--sizes",
            "5,10",
            "--backend",
            "bm25",
            "--no-progress",
            "--out",
            "runs/sweep",
        ]),
        "sweep",
    );
    ok(sandbox.mcpick(&["report", "runs/offline"]), "report");
    ok(
        sandbox.mcpick(&["compare", "runs/offline", "runs/offline"]),
        "compare",
    );
    ok(sandbox.mcpick(&["models"]), "models");
    ok(sandbox.mcpick(&["models", "--clear-kv-cache"]), "clear");
    // Set but empty: the default folder, not the current one.
    let (code, said) =
        sandbox.mcpick_with(&["models", "--clear-kv-cache"], &[("MCPICK_KV_CACHE", "")]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("home/.cache/mcpick/kv"), "{said}");

    // A draft into a folder of its own; one into a suite written by hand is refused.
    let requests = |items: serde_json::Value| Script::Requests(items.as_array().unwrap().clone());
    let drafter = DrafterProvider::start(
        HashMap::from([(
            "tool:get_weather".to_string(),
            requests(
                json!([{"request": "Is it raining in Lisbon right now?", "arguments": {"city": "Lisbon"}}]),
            ),
        )]),
        Duration::ZERO,
    );
    let draft = |out: &str| {
        sandbox.mcpick(&[
            "draft",
            "tiny/tiny.toml",
            "--drafter",
            "openai:drafter-mock",
            "--base-url",
            &drafter.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--per-tool",
            "1",
            "--no-call",
            "0",
            "--no-progress",
            "-o",
            out,
        ])
    };
    ok(draft("drafts/tiny"), "draft");
    assert_eq!(draft("mine").0, Some(2));
    assert_eq!(sandbox.mcpick(&["review", "drafts/tiny"]).0, Some(2));

    let script: RewriteScript = Box::new(
        |_: &str| json!({"wordings": [{"description": "Current weather conditions in a city right now.", "params": {}}]}),
    );
    let rewriter = RewriterProvider::start(script);
    ok(
        sandbox.mcpick(&[
            "improve",
            "tiny/six.toml",
            "--backend",
            "bm25",
            "--rewriter",
            "openai:rewriter-mock",
            "--base-url",
            &rewriter.base_url,
            "--api-key-env",
            "MCPICK_TEST_KEY",
            "--rounds",
            "1",
            "--no-progress",
            "-o",
            "improved",
        ]),
        "improve",
    );

    // Every file outside what mcpick was given is as it was.
    let owned = [
        work.join("runs"),
        work.join("drafts"),
        work.join("improved"),
        sandbox.top.join("models"),
        sandbox.top.join("home/.cache/mcpick"),
    ];
    let after = snapshot(&sandbox.top);
    let outside = |map: &BTreeMap<PathBuf, _>| -> Vec<PathBuf> {
        map.keys()
            .filter(|path| !owned.iter().any(|o| path.starts_with(o)))
            .cloned()
            .collect()
    };
    // The shared prefix cache may gain the cache's own entries (a key folder holding its marker
    // and `<64 hex>.kv` files), nothing else.
    let cache_own = |path: &PathBuf| {
        path.strip_prefix(sandbox.top.join("shared"))
            .is_ok_and(|rest| {
                let parts: Vec<String> = rest
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                parts.len() == 2
                    && parts[0].len() == 16
                    && (parts[1] == ".mcpick-kv-key"
                        || (parts[1].len() == 67 && parts[1].ends_with(".kv")))
            })
    };
    let added: Vec<PathBuf> = outside(&after)
        .into_iter()
        .filter(|p| !before.contains_key(p) && !cache_own(p))
        .collect();
    assert!(
        added.is_empty(),
        "written outside the owned folders: {added:?}"
    );
    for path in outside(&before) {
        let now = after.get(&path);
        assert!(now.is_some(), "{} was deleted", path.display());
        assert!(now == before.get(&path), "{} was changed", path.display());
    }
    // Inside the owned folders, other programs' files are still there too.
    for kept in [
        "home/.cache/mcpick/notes.txt",
        "models/video.mp4.partial",
        "models/other-model.gguf.123.partial",
    ] {
        let path = sandbox.top.join(kept);
        assert_eq!(after.get(&path), before.get(&path), "{kept}");
    }
}
