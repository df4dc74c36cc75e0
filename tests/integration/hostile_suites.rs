//! Suites built to attack the loader's search for satisfying arguments (issue 47's cases): a
//! 100,000-value enum under a regex matcher, an open required array of a billion items, strings of
//! a million characters, a pattern too large to compile small, 200 regex alternatives under a
//! pattern, a format and a length, and a suite of 1,300 such tasks under 1 MB. `validate` answers each
//! in bounded memory — a call found, "impossible" only where no value exists, or a warning that
//! names the expectation it could not decide — and never aborts. How long each takes is a figure in
//! docs/hostile-input.md, not a timed test.

use crate::common;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// A toolset of one tool `t` with these properties, all required.
fn toolset(dir: &Path, name: &str, properties: Value) {
    let required: Vec<&String> = properties.as_object().unwrap().keys().collect();
    let schema = json!({"type": "object", "properties": properties, "required": required});
    let document = json!({"format": 1, "name": name, "tool": [{"name": "t",
        "description": "A tool whose schema tests the search's bounds.", "inputSchema": schema}]});
    let text = toml::to_string(&document).unwrap();
    std::fs::write(dir.join(format!("{name}.toml")), text).unwrap();
}

/// A JSON value as a TOML inline value (JSON's string escapes are TOML's).
fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(inline).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{ {} }}",
            map.iter()
                .map(|(k, v)| format!("{} = {}", Value::from(k.as_str()), inline(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// A suite on toolset `name` whose tasks expect `t` with these argument matchers, each task on
/// a few lines as a person writes them.
fn suite(dir: &Path, name: &str, tasks: &[Value]) -> std::path::PathBuf {
    let mut text = format!("format = 1\nsuite = \"{name}-suite\"\ntoolset = \"{name}\"\n");
    for (k, args) in tasks.iter().enumerate() {
        text.push_str(&format!(
            "\n[[task]]\nid = \"task-{k}\"\nprompt = \"do the thing, please\"\nexpect = [{{ tool = \"t\", args = {} }}]\n",
            inline(args)
        ));
    }
    let path = dir.join(format!("{name}-suite.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `validate`s the suite; exit code, what it said, its peak memory.
fn validate(dir: &Path, suite: &Path, toolset: &str) -> (Option<i32>, String, u64) {
    let (output, peak) = common::output_with_peak_memory(
        Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .current_dir(dir)
            .arg("validate")
            .arg(suite)
            .arg(format!("{toolset}.toml")),
    );
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(!said.contains("panicked"), "{said}");
    assert!(peak < 1 << 30, "validate peaked at {peak} bytes:\n{said}");
    (output.status.code(), said, peak)
}

#[test]
fn each_hostile_schema_is_answered_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let enum_values: Vec<String> = (0..100_000).map(|i| format!("v{i:06}")).collect();
    // (name, properties, matchers, what validate must say)
    let cases: Vec<(&str, Value, Value, &str)> = vec![
        (
            "big-enum",
            json!({"p": {"type": "string", "enum": enum_values}}),
            json!({"p": {"regex": "^v"}}),
            "ok",
        ),
        (
            "billion-items",
            json!({"p": {"type": "string"}, "q": {"type": "array", "minItems": 1_000_000_000u64, "items": {"type": "string"}}}),
            json!({"p": "x"}),
            "cannot tell",
        ),
        (
            "million-characters",
            json!({"p": {"type": "string", "minLength": 1_000_000}, "q": {"type": "string", "minLength": 1_000_000}}),
            json!({"p": {"regex": "a"}}),
            "ok",
        ),
        (
            "huge-pattern",
            json!({"p": {"type": "string", "pattern": "^\\w{50000}$"}}),
            json!({"p": {"regex": "^a"}}),
            "cannot tell",
        ),
        (
            "alternatives",
            json!({"p": {"type": "string", "pattern": "^[a-z0-9]+@[a-z]+\\.com$", "format": "email", "minLength": 60}}),
            json!({"p": (0..200).map(|i| json!({"regex": format!("^user{i}[a-z]*@example\\.com$")})).collect::<Vec<_>>()}),
            "ok",
        ),
        (
            "impossible",
            json!({"p": {"type": "string", "pattern": "^[0-9]+$"}}),
            json!({"p": {"regex": "^[a-z]+$"}}),
            "error",
        ),
    ];
    for (name, properties, matchers, expected) in cases {
        toolset(dir.path(), name, properties);
        let path = suite(dir.path(), name, &[matchers]);
        let (code, said, peak) = validate(dir.path(), &path, name);
        println!("{name}: exit {code:?}, peak {} MB", peak >> 20);
        match expected {
            "ok" => assert!(
                code == Some(0) && !said.contains("warning:"),
                "{name}: {said}"
            ),
            "cannot tell" => assert!(
                code == Some(0) && said.contains("warning: task \"task-0\": cannot tell"),
                "{name}: {said}"
            ),
            _ => assert!(
                code == Some(2) && said.contains("error: task \"task-0\""),
                "{name}: {said}"
            ),
        }
    }
}

#[test]
fn a_megabyte_of_hostile_tasks_is_answered_task_by_task() {
    let dir = tempfile::tempdir().unwrap();
    toolset(
        dir.path(),
        "hard",
        json!({"p": {"type": "string", "pattern": "^[a-z]{70}$"},
               "r": {"type": "string", "minLength": 50, "format": "email"}}),
    );
    // Each task: twenty alternatives none of which fits the pattern (each holds digits), and one
    // the search cannot settle quickly.
    let tasks: Vec<Value> = (0..1300)
        .map(|i| {
            let alternatives: Vec<Value> = (0..20)
                .map(|k| json!({"regex": format!("^u{i}{k}[a-z]*q$")}))
                .collect();
            json!({"p": alternatives, "r": {"regex": format!("^x{i}.*@")}})
        })
        .collect();
    let path = suite(dir.path(), "hard", &tasks);
    assert!(std::fs::metadata(&path).unwrap().len() < 1 << 20);
    let (code, said, peak) = validate(dir.path(), &path, "hard");
    println!(
        "1,300 hostile tasks ({} bytes): exit {code:?}, peak {} MB",
        std::fs::metadata(&path).unwrap().len(),
        peak >> 20
    );
    assert_eq!(code, Some(2), "the impossible alternatives are errors");
    // Every task is answered: an error (impossible, proven) or a warning naming it.
    for i in [0, 650, 1299] {
        assert!(
            said.contains(&format!("task \"task-{i}\"")),
            "task-{i} is not named:\n{}",
            &said[..said.len().min(3000)]
        );
    }
    assert!(said.contains("can never be right"), "{}", &said[..3000]);
    assert!(said.contains("cannot tell"), "{}", &said[..3000]);
}
