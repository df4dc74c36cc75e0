//! The bystander servers shipped in `toolsets/bystanders/` (snapshots of official MCP servers'
//! tool lists, captured by `scripts/capture-bystanders`): each one validates, lints without a load
//! error, records its package, version, licence and capture date, was taken from the version the
//! test peers install, and is served back by `mcpick serve` with exactly the `tools/list` the
//! package's own server sends today. The shipped workspace keeps them apart (they are no
//! toolsets of its totals), and `sweep --bystanders` shows them beside travel's tools with bm25
//! and names the servers whose tools took its picks.

use crate::common::mcpick_in;
use crate::common::published_servers::{
    import_server, listed_tools, npm_manifest, npm_server_command, pypi_server_command,
    pypi_version, served_back,
};
use mcpick::load::Workspace;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where a bystander's package is published.
#[derive(Clone, Copy)]
enum Registry {
    Npm,
    PyPi,
}

/// (snapshot name, registry, package, arguments after the server's entry point) — as
/// `scripts/capture-bystanders` captured them.
const BYSTANDERS: [(&str, Registry, &str, &[&str]); 7] = [
    (
        "everything",
        Registry::Npm,
        "@modelcontextprotocol/server-everything",
        &[],
    ),
    (
        "filesystem",
        Registry::Npm,
        "@modelcontextprotocol/server-filesystem",
        &["."],
    ),
    (
        "memory",
        Registry::Npm,
        "@modelcontextprotocol/server-memory",
        &[],
    ),
    (
        "sequential-thinking",
        Registry::Npm,
        "@modelcontextprotocol/server-sequential-thinking",
        &[],
    ),
    ("fetch", Registry::PyPi, "mcp-server-fetch", &[]),
    ("git", Registry::PyPi, "mcp-server-git", &[]),
    (
        "time",
        Registry::PyPi,
        "mcp-server-time",
        &["--local-timezone", "UTC"],
    ),
];

fn snapshot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("toolsets/bystanders/{name}.json"))
}

/// The installed package's version and the command that starts its server.
fn installed(registry: Registry, package: &str, args: &[&str]) -> (String, String) {
    match registry {
        Registry::Npm => (
            npm_manifest(package)["version"]
                .as_str()
                .unwrap()
                .to_string(),
            npm_server_command(package, args),
        ),
        Registry::PyPi => (pypi_version(package), pypi_server_command(package, args)),
    }
}

/// One bystander checked end to end: (name, tools in its snapshot).
fn check_bystander(
    dir: &Path,
    (name, registry, package, args): (&str, Registry, &str, &[&str]),
) -> usize {
    let file = snapshot(name);
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let recorded = &document["imported"]["package"];
    let (version, command) = installed(registry, package, args);
    assert_eq!(recorded["name"], package, "{name}: {recorded}");
    assert_eq!(
        recorded["version"], version,
        "{name}: the snapshot was taken from another version than the peers install: rerun scripts/capture-bystanders"
    );
    assert!(
        recorded["licence"].as_str().is_some_and(|l| !l.is_empty()),
        "{name}: no licence recorded: {recorded}"
    );
    assert!(
        document["imported"]["importedOn"]
            .as_str()
            .is_some_and(|d| d.len() == 10),
        "{name}: no import date"
    );

    let path = file.to_str().unwrap();
    let (code, text) = mcpick_in(dir, &["validate", path], &[]);
    assert_eq!(code, 0, "{name}: validate: {text}");
    assert!(text.contains("bystander toolset"), "{name}: {text}");
    // Findings are fine; a refusal to lint (exit 2) is not.
    let (code, text) = mcpick_in(dir, &["lint", path], &[]);
    assert!(code == 0 || code == 1, "{name}: lint exited {code}: {text}");

    let snapshot_tools = listed_tools(&file);
    assert!(!snapshot_tools.is_empty(), "{name}: no tools");
    let live = dir.join(format!("live/{name}.json"));
    import_server(dir, &command, &live, &format!("{name}: its own server"));
    assert_eq!(
        listed_tools(&live),
        snapshot_tools,
        "{name}: the package's own server lists other tools than the snapshot: rerun scripts/capture-bystanders"
    );
    assert_eq!(
        served_back(dir, &file, name),
        snapshot_tools,
        "{name}: `serve` must list exactly the tools the snapshot holds"
    );
    snapshot_tools.len()
}

#[test]
fn each_bystander_validates_lints_and_serves_back_what_its_package_lists() {
    let workspace = tempfile::tempdir().unwrap();
    let dir = workspace.path();
    std::fs::create_dir_all(dir.join("live")).unwrap();
    // Seven servers, each started twice (its own, then `serve`): in parallel, two at a time.
    let counts: Vec<usize> = std::thread::scope(|scope| {
        let halves = BYSTANDERS.chunks(BYSTANDERS.len().div_ceil(2));
        let workers: Vec<_> = halves
            .map(|half| scope.spawn(move || half.iter().map(|b| check_bystander(dir, *b)).sum()))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let tools: usize = counts.iter().sum();
    assert!(tools >= 45, "only {tools} tools across the bystanders");
}

#[test]
fn the_shipped_workspace_keeps_bystanders_apart_from_its_toolsets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = Workspace::load(&[root.join("toolsets"), root.join("tasks")]);
    let mut names: Vec<&str> = workspace
        .bystanders
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    names.sort();
    let mut expected: Vec<&str> = BYSTANDERS.iter().map(|b| b.0).collect();
    expected.sort();
    assert_eq!(names, expected, "every snapshot is a bystander");
    for name in &expected {
        assert!(
            workspace.toolset(name).is_none(),
            "{name} is among the toolsets"
        );
    }
    let counts = workspace.counts();
    assert_eq!(counts.bystanders, BYSTANDERS.len());
    assert_eq!(
        counts.tools,
        workspace
            .toolsets
            .iter()
            .map(|t| t.tools.len())
            .sum::<usize>()
    );
    // The README's table names every snapshot with its version.
    let readme = std::fs::read_to_string(root.join("toolsets/bystanders/README.md")).unwrap();
    for bystander in &workspace.bystanders {
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(&bystander.source).unwrap()).unwrap();
        let package = &document["imported"]["package"];
        let row = format!(
            "| {} | {} | {} |",
            bystander.name,
            package["name"].as_str().unwrap(),
            package["version"].as_str().unwrap()
        );
        assert!(readme.contains(&row), "README lacks {row}");
    }
}

fn sweep_beside(out: &Path, bystanders: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        "sweep",
        "tasks/travel.toml",
        "--bystanders",
        bystanders,
        "--backend",
        "bm25",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    mcpick_in(Path::new(env!("CARGO_MANIFEST_DIR")), &args, &[])
}

#[test]
fn a_sweep_beside_the_bystanders_shows_their_tools_and_names_the_servers_that_took_picks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    let (code, text) = sweep_beside(&out, "all", &[]);
    assert_eq!(code, 0, "{text}");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let records = manifest["suites"][0]["bystanders"].as_array().unwrap();
    assert_eq!(records.len(), BYSTANDERS.len(), "{records:#?}");
    // travel has its own convert_time: the time server's is served under its server's prefix.
    let time = records.iter().find(|r| r["server"] == "time").unwrap();
    assert_eq!(time["renamed"]["time__convert_time"], "convert_time");
    let bystander_tools: Vec<(&str, &str)> = records
        .iter()
        .flat_map(|r| {
            r["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |t| (r["server"].as_str().unwrap(), t.as_str().unwrap()))
        })
        .collect();
    // The files of the servers shown are among the run's inputs.
    assert!(
        manifest["files"]
            .as_object()
            .unwrap()
            .keys()
            .any(|f| f.ends_with("bystanders/git.json")),
        "{}",
        manifest["files"]
    );

    let trials = crate::common::read_trials(&out);
    assert_eq!(trials.len(), 53);
    let travel_tools = 25;
    let mut taken = 0;
    for trial in &trials {
        let shown = trial["tools_shown"].as_array().unwrap();
        assert_eq!(shown.len(), travel_tools + bystander_tools.len());
        for (_, tool) in &bystander_tools {
            assert!(shown.iter().any(|s| s == tool), "{tool} not shown");
        }
        let first = trial["first_tool"].as_str().unwrap_or_default();
        let expects_call = !trial["expected_tools"].as_array().unwrap().is_empty();
        if expects_call && bystander_tools.iter().any(|(_, t)| *t == first) {
            taken += 1;
        }
    }
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("Picks taken by bystander server"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("| bm25 | (all bystanders) | 52 | {taken} of 44 |")),
        "{taken} picks taken: {summary}"
    );
    assert!(taken > 0, "bm25 lost no pick to 52 bystander tools");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Picks taken by bystander server"));
    // Who steals your picks, drawn: a chart for bm25 with a bar for each of the seven servers.
    assert!(html.contains("data-chart=\"thieves\""), "no thieves chart");
    assert_eq!(
        html.matches("<rect class=\"thief\" data-server=").count(),
        7,
        "one bar per server"
    );

    // Two servers by name: only theirs are shown.
    let out = dir.path().join("two");
    let (code, text) = sweep_beside(&out, "git,time", &[]);
    assert_eq!(code, 0, "{text}");
    let trials = crate::common::read_trials(&out);
    assert_eq!(
        trials[0]["tools_shown"].as_array().unwrap().len(),
        travel_tools + 12 + 2
    );
}

#[test]
fn bystanders_that_cannot_be_shown_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = sweep_beside(&dir.path().join("a"), "git,nosuch", &[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("--bystanders nosuch: no such bystander server (loaded: everything, fetch"),
        "{text}"
    );
    let (code, text) = sweep_beside(&dir.path().join("b"), "all", &["--sizes", "5"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--bystanders with --sizes"), "{text}");
    let (code, text) = sweep_beside(&dir.path().join("c"), "all,git", &[]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("`all` names every server"), "{text}");
}
