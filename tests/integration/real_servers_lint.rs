//! The lint on eight real MCP servers' tool lists (`tests/data/servers`, as `mcpick import` wrote
//! them): the false positives it used to report there are gone (real verbs, Playwright's
//! `browser_` namespace, `thought` next to `thoughtNumber`, desktop-commander's tools paired through
//! their boilerplate), the smells it should find are still found, and what a person allows — on
//! the command line, in `mcpick.toml`, in the toolset file — is counted apart and does not fail
//! `--fail-on`. docs/lint.md has the before/after table these tests hold to.

use mcpick::lint::{Finding, lint};
use mcpick::load::ToolsetTarget;
use std::path::{Path, PathBuf};
use std::process::Command;

fn snapshot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/servers/{name}.json"))
}

fn findings(name: &str) -> Vec<Finding> {
    let target = ToolsetTarget {
        toolset: snapshot(name).display().to_string(),
        variant: None,
    };
    let toolset = target
        .load()
        .unwrap_or_else(|errors| panic!("{name} does not load: {errors:?}"));
    lint(&toolset)
}

/// The tools a rule flags, in order (a pair finding by its first tool).
fn flagged(findings: &[Finding], rule: &str) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.tool.clone().unwrap_or_default())
        .collect()
}

fn finding<'a>(findings: &'a [Finding], tool: &str, rule: &str) -> &'a Finding {
    findings
        .iter()
        .find(|f| f.tool.as_deref() == Some(tool) && f.rule == rule)
        .unwrap_or_else(|| panic!("no {rule} finding on {tool}: {findings:#?}"))
}

#[test]
fn real_verbs_are_verbs() {
    assert!(flagged(&findings("context7"), "name-not-verb-first").is_empty());
    assert!(flagged(&findings("desktop-commander"), "name-not-verb-first").is_empty());
    // `simulate-research-query` is a verb now; `gzip`, which WordNet does not know, is still not.
    assert_eq!(
        flagged(&findings("everything"), "name-not-verb-first"),
        ["gzip-file-as-resource"]
    );
}

#[test]
fn a_prefix_every_tool_shares_is_a_namespace() {
    let playwright = findings("playwright");
    assert_eq!(
        flagged(&playwright, "name-not-verb-first"),
        ["browser_tabs"]
    );
    let tabs = finding(&playwright, "browser_tabs", "name-not-verb-first");
    assert!(tabs.message.contains("\"browser\""), "{}", tabs.message);
    assert!(
        tabs.suggestion.contains("\"list_tabs\""),
        "{}",
        tabs.suggestion
    );
}

#[test]
fn parameter_names_sharing_a_word_do_not_overlap() {
    assert!(flagged(&findings("sequential-thinking"), "overlapping-params").is_empty());
    assert!(flagged(&findings("playwright"), "overlapping-params").is_empty());
    // Two paths of one tool, two patterns of another, each a string: a model may fill the wrong one.
    let desktop = findings("desktop-commander");
    assert_eq!(
        flagged(&desktop, "overlapping-params"),
        ["write_pdf", "start_search"]
    );
    assert!(
        finding(&desktop, "write_pdf", "overlapping-params")
            .message
            .contains("\"outputPath\"")
    );
}

#[test]
fn boilerplate_is_flagged_once_and_no_longer_pairs_tools() {
    let desktop = findings("desktop-commander");
    let repeated: Vec<&Finding> = desktop.iter().filter(|f| f.rule == "boilerplate").collect();
    assert_eq!(repeated.len(), 2, "{repeated:#?}");
    assert!(repeated[0].tool.is_none());
    assert!(
        repeated[0].message.starts_with("26 of 26 tools")
            && repeated[0]
                .message
                .contains("This command can be referenced as"),
        "{}",
        repeated[0].message
    );
    assert!(
        repeated[1].message.starts_with("11 of 26 tools")
            && repeated[1].message.contains("Always use absolute paths"),
        "{}",
        repeated[1].message
    );
    assert!(repeated[0].suggestion.contains("`instructions`"));
    // Once paired through the path boilerplate alone.
    let pairs: Vec<(String, String)> = desktop
        .iter()
        .filter(|f| f.rule == "similar-descriptions")
        .map(|f| {
            (
                f.tool.clone().unwrap_or_default(),
                f.other_tool.clone().unwrap_or_default(),
            )
        })
        .collect();
    for (a, b) in [
        ("create_directory", "move_file"),
        ("read_multiple_files", "create_directory"),
        ("create_directory", "get_file_info"),
        ("read_multiple_files", "move_file"),
        ("read_multiple_files", "get_file_info"),
        ("move_file", "get_file_info"),
    ] {
        assert!(
            !pairs.contains(&(a.to_string(), b.to_string())),
            "{a} and {b} are still paired: {pairs:?}"
        );
    }
    // No other server repeats a run of words in three tools.
    for name in [
        "context7",
        "everything",
        "filesystem",
        "memory",
        "playwright",
        "sequential-thinking",
    ] {
        assert!(flagged(&findings(name), "boilerplate").is_empty(), "{name}");
    }
}

#[test]
fn real_smells_are_still_found() {
    let filesystem = findings("filesystem");
    assert!(
        finding(&filesystem, "read_file", "deprecated-tool")
            .message
            .contains("read_text_file")
    );
    assert!(
        finding(&filesystem, "directory_tree", "name-not-verb-first")
            .suggestion
            .contains("\"get_directory_tree\"")
    );
    assert_eq!(
        flagged(&filesystem, "similar-descriptions"),
        ["list_directory", "read_file"]
    );
    assert_eq!(
        flagged(&findings("memory"), "similar-descriptions"),
        ["delete_entities", "create_entities"]
    );
    assert_eq!(
        flagged(&findings("sequential-thinking"), "name-not-verb-first"),
        ["sequentialthinking"]
    );
    assert_eq!(
        flagged(&findings("playwright"), "short-description").len(),
        14
    );
}

#[test]
fn chrome_devtools_names_are_judged_on_their_verbs() {
    let chrome = findings("chrome-devtools");
    assert_eq!(
        flagged(&chrome, "name-not-verb-first"),
        [
            "lighthouse_audit",
            "new_page",
            "performance_analyze_insight",
            "performance_start_trace",
            "performance_stop_trace",
            "screencast_start",
            "screencast_stop",
        ]
    );
    assert!(
        finding(&chrome, "screencast_start", "name-not-verb-first")
            .suggestion
            .contains("\"start_screencast\"")
    );
    assert!(
        finding(&chrome, "new_page", "name-not-verb-first")
            .suggestion
            .contains("\"open_new_page\"")
    );
}

/// Runs the binary in `dir`; exit code and stdout.
fn mcpick(args: &[&str], dir: &Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run mcpick");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The everything server's five warnings, allowed: three rules, one of them for one tool.
const EVERYTHING_ALLOWED: [&str; 3] = [
    "short-description",
    "param-without-description",
    "gzip-file-as-resource:name-not-verb-first",
];

fn with_everything() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(snapshot("everything"), dir.path().join("everything.json")).expect("copy");
    dir
}

#[test]
fn allowed_findings_are_counted_and_do_not_fail() {
    let dir = with_everything();
    let (code, said) = mcpick(
        &["lint", "everything.json", "--fail-on", "warning"],
        dir.path(),
    );
    assert_eq!(code, Some(1), "{said}");

    let mut args = vec!["lint", "everything.json", "--fail-on", "warning"];
    for allowed in EVERYTHING_ALLOWED {
        args.extend(["--allow", allowed]);
    }
    let (code, said) = mcpick(&args, dir.path());
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("0 findings (0 errors, 0 warnings, 0 info); 5 findings allowed (name-not-verb-first 1, param-without-description 1, short-description 3)"),
        "{said}"
    );

    args.extend(["--format", "json"]);
    let (code, said) = mcpick(&args, dir.path());
    assert_eq!(code, Some(0), "{said}");
    let report: serde_json::Value = serde_json::from_str(&said).expect("JSON");
    assert_eq!(report["findings"], serde_json::json!([]));
    assert_eq!(report["allowed"]["count"], 5);
    assert_eq!(report["allowed"]["by_rule"]["short-description"], 3);
    assert_eq!(
        report["allowed"]["allowances"],
        serde_json::json!(EVERYTHING_ALLOWED)
    );
}

#[test]
fn a_tool_allowance_covers_that_tool_only() {
    let dir = with_everything();
    let (code, said) = mcpick(
        &[
            "lint",
            "everything.json",
            "--allow",
            "echo:short-description",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(code, Some(0), "{said}");
    let report: serde_json::Value = serde_json::from_str(&said).expect("JSON");
    assert_eq!(report["allowed"]["count"], 1);
    let short: Vec<&str> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["rule"] == "short-description")
        .filter_map(|f| f["tool"].as_str())
        .collect();
    assert_eq!(short, ["get-sum", "get-tiny-image"]);
}

#[test]
fn the_workspace_config_and_the_toolset_file_allow_too() {
    let dir = with_everything();
    std::fs::write(
        dir.path().join("mcpick.toml"),
        "[lint]\nallow = [\"short-description\"]\n\n[lint.toolset.everything]\nallow = [\"param-without-description\", \"gzip-file-as-resource:name-not-verb-first\"]\n\n[lint.toolset.other]\nallow = [\"too-many-tools\"]\n",
    )
    .expect("write");
    let (code, said) = mcpick(
        &["lint", "everything.json", "--fail-on", "warning"],
        dir.path(),
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("5 findings allowed"), "{said}");
    std::fs::remove_file(dir.path().join("mcpick.toml")).expect("remove");

    // An imported JSON toolset carries its own `lint.allow`.
    let path = dir.path().join("everything.json");
    let mut toolset: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    toolset["lint"] = serde_json::json!({ "allow": EVERYTHING_ALLOWED });
    std::fs::write(&path, toolset.to_string()).expect("write");
    let (code, said) = mcpick(
        &["lint", "everything.json", "--fail-on", "warning"],
        dir.path(),
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("5 findings allowed"), "{said}");
}

#[test]
fn an_allowance_naming_no_rule_or_no_tool_is_refused() {
    let dir = with_everything();
    let (code, said) = mcpick(
        &["lint", "everything.json", "--allow", "short-descriptions"],
        dir.path(),
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("\"short-descriptions\" is not a lint rule"),
        "{said}"
    );

    let (code, said) = mcpick(
        &[
            "lint",
            "everything.json",
            "--allow",
            "ecco:short-description",
        ],
        dir.path(),
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("has no tool \"ecco\""), "{said}");

    std::fs::write(
        dir.path().join("mcpick.toml"),
        "[lint]\nallow = [\"no-such-rule\"]\n",
    )
    .expect("write");
    let (code, said) = mcpick(&["lint", "everything.json"], dir.path());
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("mcpick.toml") && said.contains("\"no-such-rule\""),
        "{said}"
    );

    std::fs::write(
        dir.path().join("t.toml"),
        "format = 1\n[lint]\nallow = [\"no-such-rule\"]\n[[tool]]\nname = \"get_weather\"\ndescription = \"Current weather for a city, from the nearest station.\"\ninputSchema = { type = \"object\" }\n",
    )
    .expect("write");
    let (code, said) = mcpick(&["lint", "t.toml"], dir.path());
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("t.toml") && said.contains("\"no-such-rule\" is not a lint rule"),
        "{said}"
    );
}
