//! mcpick's GitHub Action (`action.yml`, its scripts in `deploy/action/`) run the way GitHub runs a
//! composite action, with no GitHub: the step runner of `tests/common/composite_action.rs` reads
//! `action.yml` itself and runs its `run:` steps with their `env:`, `if:` and outputs, skipping the
//! `uses:` steps (actions/cache) — so what is tested is the action file, not a copy of its logic.
//! The pull request is a real git repository with a base and a head commit, the backend bm25, the
//! mcpick these tests built (through the action's `mcpick` input); GitHub's REST API is
//! `tests/data/github-action/fake_github_api.py`, which records every call.

use crate::common::composite_action::{FakeGitHub, Outcome, Runner, TOKEN, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "<!-- mcpick-report -->";
const PR: u64 = 7;

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
    // pages), an mcpick comment on another pull request, which is not this one's, and a person's
    // comment that opens with the marker, which the action must never edit.
    let seed = serde_json::json!([
        {"id": 1, "issue": PR, "body": "Looks good to me", "user": {"login": "alice"}},
        {"id": 2, "issue": PR, "body": "> <!-- mcpick-report -->\nquoting the bot", "user": {"login": "bob"}},
        {"id": 3, "issue": PR, "body": "One more thing", "user": {"login": "alice"}},
        {"id": 4, "issue": 8, "body": format!("{MARKER}\nanother pull request's report"), "user": {"login": "github-actions[bot]"}},
        {"id": 5, "issue": PR, "body": format!("{MARKER}\na person's comment opening with the marker"), "user": {"login": "mallory"}},
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
    assert!(
        !first_body.contains("/actions/runs/"),
        "a link to the run changes every push: {first_body}"
    );
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
        .filter(|c| {
            c["issue"] == PR
                && c["user"]["login"] == "github-actions[bot]"
                && c["body"].as_str().unwrap().starts_with(MARKER)
        })
        .collect();
    assert_eq!(
        ours.len(),
        1,
        "exactly one mcpick comment on the pull request"
    );
    let mallory = github
        .comments()
        .into_iter()
        .find(|c| c["id"] == 5)
        .unwrap();
    assert!(
        mallory["body"]
            .as_str()
            .unwrap()
            .ends_with("a person's comment opening with the marker"),
        "a person's comment was edited: {mallory}"
    );
    let second_body = ours[0]["body"].as_str().unwrap();
    assert_ne!(
        second_body, first_body,
        "the comment now says the second run's result"
    );
    assert_eq!(github.comments().len(), 6, "five seeded and one posted");
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

    // A key variable named in run-args is read indirectly: a name that is not one (bash would
    // run the command in its subscript) is refused before anything runs.
    let canary = pr.temp.join("injected");
    let run_args = format!("--api-key-env x[$(touch {})]", canary.display());
    let outcome = pr.run_action(
        &github,
        &event,
        &[
            ("backends", "bm25 openai:gpt-4.1-mini"),
            ("run-args", &run_args),
        ],
    );
    assert_eq!(outcome.code, 1, "{}", outcome.log);
    assert!(
        outcome.log.contains("is not a variable name"),
        "{}",
        outcome.log
    );
    assert!(!canary.exists(), "the subscript ran: {}", outcome.log);
}
