//! A composite GitHub Action run the way GitHub runs one, with no GitHub, for
//! tests/integration/github_action.rs: `Runner` reads an `action.yml` itself, fills in
//! `${{ inputs.* }}`, `${{ steps.*.outputs.* }}`, `${{ github.* }}`, `${{ runner.* }}` and
//! `${{ env.* }}`, honours `if:` (comparisons with a quoted literal joined by `&&`), runs each
//! `run:` step with `bash --noprofile --norc -eo pipefail` (GitHub's line for `shell: bash`) and
//! its `env:`, hands on `$GITHUB_OUTPUT`, `$GITHUB_ENV` and `$GITHUB_PATH`, and skips `uses:` steps
//! saying so. An expression or condition it does not know fails the test. `FakeGitHub` is
//! `tests/data/github-action/fake_github_api.py`, started on a free port, with its record of calls.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// What `${{ github.token }}` gives, and the only token the fake GitHub accepts.
pub const TOKEN: &str = "ghs_fakeTokenForTheActionTest0123456789";

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn peer(path: &str) -> PathBuf {
    let path = root().join("tests/peers").join(path);
    assert!(
        path.exists(),
        "{} is missing: run tests/peers/install.sh (the README's test command does)",
        path.display()
    );
    path
}

pub fn python() -> PathBuf {
    peer(".venv/bin/python")
}

/// A YAML file as JSON, read by PyYAML (installed with the test peers).
pub fn yaml_as_json(path: &Path) -> Value {
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

// ---------------------------------------------------------------- the composite-action runner

/// What one run of the action gave: its exit code (0, or the failing step's), everything its
/// steps printed, the action's outputs as `outputs:` maps them, and what became of each step.
pub struct Outcome {
    pub code: i32,
    pub log: String,
    pub outputs: BTreeMap<String, String>,
    pub steps: Vec<(String, &'static str)>,
}

pub struct Runner {
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
    pub fn new(
        workspace: &Path,
        temp: &Path,
        given: &[(&str, &str)],
        env: &[(&str, &str)],
    ) -> Runner {
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

    pub fn run(mut self) -> Outcome {
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
pub fn parse_assignments(file: &Path) -> BTreeMap<String, String> {
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
pub struct FakeGitHub {
    child: Child,
    pub url: String,
    state: PathBuf,
}

impl FakeGitHub {
    pub fn start(state: &Path, seed: &Value, extra: &[&str]) -> FakeGitHub {
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

    pub fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(self.state.join("calls.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn comments(&self) -> Vec<Value> {
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
