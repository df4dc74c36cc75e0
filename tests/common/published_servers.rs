//! MCP servers published on npm and PyPI, as the test peers install them (pinned, by
//! `tests/peers/install.sh`): where they are, the command line that starts one, and the two views
//! of a tool list a test compares — what a toolset file holds and what `mcpick serve` lists for it.
//! A peer that is not installed fails the test with the command that installs it.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// `tests/peers`, checked to hold Node 22 and the npm servers.
pub fn npm_peers() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    assert!(
        dir.join("wild/node_modules/.installed").exists()
            && dir.join("node_modules/.bin/node").exists(),
        "the npm servers are not installed: run tests/peers/install.sh (the README's test command does)"
    );
    dir
}

/// The command line that starts an npm package's server: Node 22 from the peers and the script its
/// `package.json` names as its first `bin`, then `args`.
pub fn npm_server_command(package: &str, args: &[&str]) -> String {
    let root = npm_peers().join("wild/node_modules").join(package);
    let manifest = npm_manifest(package);
    let script = match &manifest["bin"] {
        Value::String(path) => path.clone(),
        Value::Object(bins) => {
            let first = bins.values().next().unwrap();
            first.as_str().unwrap().to_string()
        }
        other => panic!("{package}: no bin in its package.json: {other}"),
    };
    let mut command = vec![
        npm_peers()
            .join("node_modules/.bin/node")
            .display()
            .to_string(),
        root.join(script).display().to_string(),
    ];
    command.extend(args.iter().map(|a| a.to_string()));
    command.join(" ")
}

/// An installed npm package's `package.json`.
pub fn npm_manifest(package: &str) -> Value {
    let path = npm_peers()
        .join("wild/node_modules")
        .join(package)
        .join("package.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run tests/peers/install.sh)", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The command line that starts a PyPI package's server from the peers' virtual environment: the
/// console script named like the package, then `args`.
pub fn pypi_server_command(package: &str, args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers/.venv/bin")
        .join(package);
    assert!(
        script.exists(),
        "{package} is not installed in tests/peers/.venv: run tests/peers/install.sh (the README's test command does)"
    );
    let mut command = vec![script.display().to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    command.join(" ")
}

/// The version of a PyPI package installed in the peers' virtual environment, read from its
/// `*.dist-info` folder's name.
pub fn pypi_version(package: &str) -> String {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/.venv/lib");
    let wanted = format!("{}-", package.replace('-', "_"));
    for python in std::fs::read_dir(&lib).unwrap().flatten() {
        let site = python.path().join("site-packages");
        for entry in std::fs::read_dir(&site).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(rest) = name.strip_prefix(&wanted)
                && let Some(version) = rest.strip_suffix(".dist-info")
            {
                return version.to_string();
            }
        }
    }
    panic!("{package} is not installed in tests/peers/.venv: run tests/peers/install.sh")
}

/// The tools a toolset file lists, without `behavior` (mcpick's simulation, not part of what a
/// server lists).
pub fn listed_tools(path: &Path) -> Vec<Value> {
    let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut tools = document["tools"].as_array().unwrap().clone();
    for tool in &mut tools {
        tool.as_object_mut().unwrap().remove("behavior");
    }
    tools
}

/// Imports the server `command` starts into `dir/out` (run in `dir`, with `HOME` there: some
/// servers keep settings under it), failing the test with its output when it does not.
pub fn import_server(dir: &Path, command: &str, out: &Path, what: &str) {
    let (code, text) = super::mcpick_in(
        dir,
        &["import", "--stdio", command, "-o", out.to_str().unwrap()],
        &[("HOME", dir)],
    );
    assert_eq!(code, 0, "{what}: import: {text}");
}

/// `serve FILE` imported back (into `dir/back/NAME.json`): the tools a client sees from mcpick's
/// server.
pub fn served_back(dir: &Path, file: &Path, name: &str) -> Vec<Value> {
    std::fs::create_dir_all(dir.join("back")).unwrap();
    let back = dir.join(format!("back/{name}.json"));
    let command = format!("{} serve {}", env!("CARGO_BIN_EXE_mcpick"), file.display());
    import_server(dir, &command, &back, &format!("{name}: serve"));
    listed_tools(&back)
}
