//! One bad file per error class: each must produce a diagnostic naming the file, the line (or JSONL
//! record) and a message a user can act on — and never a panic.

use mcpick::load::{Diagnostic, Workspace};
use std::path::{Path, PathBuf};

const TOOLSET: &str = r#"format = 1
name = "weather"

[[tool]]
name = "get_weather"
description = "Current weather for one city. Not for forecasts; use get_weather_forecast for future days."
[tool.inputSchema]
type = "object"
required = ["city"]
additionalProperties = false
properties.city = { type = "string", description = "City name such as 'Paris'" }
properties.days = { type = "integer", minimum = 1, maximum = 14, description = "Unused here", default = 1 }

[[tool]]
name = "get_weather_forecast"
description = "Forecast for the next 1-14 days in one city. Not for current conditions."
[tool.inputSchema]
type = "object"
required = ["city"]
properties.city = { type = "string", description = "City name such as 'Paris'" }
"#;

struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    /// Paths to load, relative to the temp dir.
    load: &'static [&'static str],
    /// The file the error must name.
    file: &'static str,
    line: Option<usize>,
    record: Option<usize>,
    /// Substrings the message must contain.
    wording: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "a task id with a control character",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"rain\\u0000now\"\nprompt = \"Rain in Oslo?\"\nexpect = [{ tool = \"get_weather\" }]\n",
                ),
            ],
            load: &["toolsets/weather.toml", "tasks/s.toml"],
            file: "tasks/s.toml",
            line: Some(6),
            record: None,
            wording: &[
                "task id \"rain\\u{0}now\" holds a control",
                "every report file",
            ],
        },
        Case {
            name: "TOML syntax error",
            files: &[("toolsets/bad.toml", "format = 1\n\n[[tool]\nname = \"a\"\n")],
            load: &["toolsets/bad.toml"],
            file: "toolsets/bad.toml",
            line: Some(3),
            record: None,
            wording: &["unclosed array table, expected `]`"],
        },
        Case {
            name: "unknown key (typo)",
            files: &[(
                "toolsets/bad.toml",
                "format = 1\n[[tool]]\nname = \"get_x\"\ndescripton = \"typo\"\n",
            )],
            load: &["toolsets/bad.toml"],
            file: "toolsets/bad.toml",
            line: Some(4),
            record: None,
            wording: &["unknown key `descripton`", "did you mean `description`?"],
        },
        Case {
            name: "missing required field",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\n\n[[task]]\nid = \"a\"\nprompt = \"hi\"\nexpect_no_call = true\n",
                ),
            ],
            load: &["tasks/s.toml"],
            file: "tasks/s.toml",
            line: Some(1),
            record: None,
            wording: &["missing field `toolset`"],
        },
        Case {
            name: "wrong type",
            files: &[(
                "toolsets/bad.toml",
                "format = 1\n[[tool]]\nname = \"get_x\"\ndescription = 42\n",
            )],
            load: &["toolsets/bad.toml"],
            file: "toolsets/bad.toml",
            line: Some(4),
            record: None,
            wording: &["invalid type: integer `42`, expected a string"],
        },
        Case {
            name: "duplicate tool name",
            files: &[(
                "toolsets/bad.toml",
                "format = 1\n[[tool]]\nname = \"get_x\"\ndescription = \"First one.\"\n\n[[tool]]\nname = \"get_x\"\ndescription = \"Second one.\"\n",
            )],
            load: &["toolsets/bad.toml"],
            file: "toolsets/bad.toml",
            line: Some(7),
            record: None,
            wording: &["duplicate tool name \"get_x\"", "first defined on line 3"],
        },
        Case {
            name: "duplicate task id",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"hi\"\nexpect_no_call = true\n\n[[task]]\nid = \"a\"\nprompt = \"bye\"\nexpect_no_call = true\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(11),
            record: None,
            wording: &["duplicate task id \"a\"", "first defined at line 6"],
        },
        Case {
            name: "expected tool missing from the toolset",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"Weather in Paris?\"\nexpect = [{ tool = \"get_wether\", args = { city = \"Paris\" } }]\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(8),
            record: None,
            wording: &[
                "expects tool \"get_wether\", which toolset \"weather\" does not have",
                "did you mean \"get_weather\"",
            ],
        },
        Case {
            name: "expected argument not in the schema",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"Weather in Paris?\"\nexpect = [{ tool = \"get_weather\", args = { location = \"Paris\" } }]\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(8),
            record: None,
            wording: &[
                "expects argument \"location\", but tool \"get_weather\" has no such parameter",
                "parameters are: city, days",
            ],
        },
        Case {
            // Beside a value that can be right, a dead one is only a warning (tests/integration/suite_checks.rs).
            name: "acceptable value the schema rejects",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"Weather in Paris?\"\nexpect = [\n  { tool = \"get_weather\", args = { city = \"Paris\", days = \"3\" } },\n]\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(9),
            record: None,
            wording: &[
                "the value \"3\" can never be right",
                "is not of type \"integer\"",
            ],
        },
        Case {
            name: "invalid JSON Schema",
            files: &[(
                "toolsets/bad.toml",
                "format = 1\n[[tool]]\nname = \"get_x\"\ndescription = \"Gets x.\"\n[tool.inputSchema]\ntype = \"object\"\nproperties.a = { type = \"strnig\" }\n",
            )],
            load: &["toolsets/bad.toml"],
            file: "toolsets/bad.toml",
            line: Some(5),
            record: None,
            wording: &["tool \"get_x\": inputSchema: invalid JSON Schema", "strnig"],
        },
        Case {
            name: "root type not object",
            files: &[(
                "toolsets/bad.json",
                "{\"tools\": [\n  {\"name\": \"get_x\", \"description\": \"Gets x.\",\n   \"inputSchema\": {\"type\": \"string\"}}\n]}\n",
            )],
            load: &["toolsets/bad.json"],
            file: "toolsets/bad.json",
            line: Some(2),
            record: None,
            wording: &["root \"type\" must be \"object\""],
        },
        Case {
            name: "JSONL line that is not JSON",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\ntasks_file = \"s.jsonl\"\n",
                ),
                (
                    "tasks/s.jsonl",
                    "{\"id\": \"a\", \"prompt\": \"hi\", \"expect_no_call\": true}\n\n{\"id\": \"b\", \"prompt\": \"hi\" \"expect_no_call\": true}\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.jsonl",
            line: Some(3),
            record: Some(2),
            wording: &["not valid JSON", "expected `,` or `}`"],
        },
        Case {
            name: "variant names a tool that does not exist",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "toolsets/variants/v.toml",
                    "format = 1\nvariant = \"v\"\nbase = \"weather\"\n\n[describe.get_weather_now]\ndescription = \"Now.\"\n",
                ),
            ],
            load: &["toolsets"],
            file: "toolsets/variants/v.toml",
            line: Some(5),
            record: None,
            wording: &[
                "names tool \"get_weather_now\", which toolset \"weather\" does not have",
                "get_weather, get_weather_forecast",
            ],
        },
        Case {
            name: "unreadable path",
            files: &[],
            load: &["toolsets/nope.toml"],
            file: "toolsets/nope.toml",
            line: None,
            record: None,
            wording: &["cannot read", "no such file or directory"],
        },
        Case {
            name: "structured content that breaks the outputSchema",
            files: &[(
                "toolsets/bad.toml",
                "format = 1\n[[tool]]\nname = \"get_x\"\ndescription = \"Gets x.\"\n[tool.outputSchema]\ntype = \"object\"\nrequired = [\"n\"]\nproperties.n = { type = \"integer\" }\n[tool.behavior]\nstructured = { n = \"many\" }\n",
            )],
            load: &["toolsets/bad.toml"],
            file: "toolsets/bad.toml",
            line: Some(9),
            record: None,
            wording: &["`structured` does not match the outputSchema at /n"],
        },
        Case {
            name: "variant removes a tool a task expects",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "toolsets/variants/v.toml",
                    "format = 1\nvariant = \"v\"\nbase = \"weather\"\nremove = [\"get_weather\"]\n",
                ),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"Weather in Paris?\"\nexpect = [{ tool = \"get_weather\" }]\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(8),
            record: None,
            wording: &["which variant \"v\" removes"],
        },
        Case {
            name: "task with two answers",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"hi\"\nexpect_no_call = true\nexpect = [{ tool = \"get_weather\" }]\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(6),
            record: None,
            wording: &["more than one of expect / expect_any_of / expect_all_of / expect_no_call"],
        },
        Case {
            name: "task's own list names a tool the toolset lacks",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\ntasks_file = \"s.jsonl\"\n",
                ),
                (
                    "tasks/s.jsonl",
                    "{\"id\": \"a\", \"prompt\": \"Rain?\", \"tools\": [\"get_wether\"], \"expect_no_call\": true}\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.jsonl",
            line: Some(1),
            record: Some(1),
            wording: &[
                "lists tool \"get_wether\", which toolset \"weather\" does not have",
                "did you mean \"get_weather\"?",
            ],
        },
        Case {
            name: "task expects a tool outside its own list",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"Rain tomorrow?\"\ntools = [\"get_weather\"]\nexpect = [{ tool = \"get_weather_forecast\" }]\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(9),
            record: None,
            wording: &["expects tool \"get_weather_forecast\", which the task's `tools`"],
        },
        Case {
            name: "task shows two tools under one name",
            files: &[
                ("toolsets/weather.toml", TOOLSET),
                (
                    "tasks/s.toml",
                    "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"a\"\nprompt = \"Rain?\"\ntools = [\"get_weather\", { tool = \"get_weather_forecast\", as = \"get_weather\" }]\nexpect_all_of = [{ tool = \"get_weather\" }]\n",
                ),
            ],
            load: &["toolsets", "tasks"],
            file: "tasks/s.toml",
            line: Some(6),
            record: None,
            wording: &["shows two tools named \"get_weather\"", "its own `as` name"],
        },
    ]
}

fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn every_error_class_names_file_line_and_what_to_do() {
    let mut failures = Vec::new();
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        write_files(dir.path(), case.files);
        let paths: Vec<PathBuf> = case.load.iter().map(|p| dir.path().join(p)).collect();
        let workspace = Workspace::load(&paths);
        let errors: Vec<&Diagnostic> = workspace
            .files
            .iter()
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.is_error())
            .collect();
        let expected_path = dir.path().join(case.file);
        // The wording may be in the message or in its advice.
        let found = errors.iter().find(|d| {
            d.path == expected_path && case.wording.iter().all(|w| d.to_string().contains(w))
        });
        let Some(d) = found else {
            let got = errors
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n");
            failures.push(format!(
                "case {:?}: no error in {} containing {:?}; got:\n{got}",
                case.name, case.file, case.wording
            ));
            continue;
        };
        if (d.line, d.record) != (case.line, case.record) {
            failures.push(format!(
                "case {:?}: expected line {:?} record {:?}, got {d}",
                case.name, case.line, case.record
            ));
            continue;
        }
        assert!(
            d.help.as_deref().is_some_and(|h| !h.is_empty()),
            "case {:?}: no advice in {d}",
            case.name
        );
        let shown = d.to_string();
        assert!(
            shown.starts_with(&expected_path.display().to_string()),
            "case {:?}: display must start with the path: {shown}",
            case.name
        );
        assert!(workspace.has_errors(), "case {:?}", case.name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_valid_workspace_has_no_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("toolsets/weather.toml", TOOLSET),
            (
                "toolsets/variants/terse.toml",
                "format = 1\nvariant = \"terse\"\nbase = \"weather\"\n[describe.get_weather]\ndescription = \"查询天气\"\nparams = { city = \"城市\" }\n[rename]\nget_weather_forecast = \"forecast\"\n",
            ),
            (
                "tasks/s.toml",
                "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\ntasks_file = \"s.jsonl\"\n\n[[task]]\nid = \"a\"\nprompt = \"Weather in Paris?\"\nexpect = [{ tool = \"get_weather\", args = { city = [\"Paris\", \"Paris, France\"], days = [1, \"\"] } }]\n",
            ),
            (
                "tasks/s.jsonl",
                "{\"id\": \"b\", \"lang\": \"zh\", \"prompt\": \"谢谢\", \"expect_no_call\": true}\n{\"id\": \"c\", \"prompt\": \"Rain in Lyon this week?\", \"expect_any_of\": [{\"tool\": \"get_weather_forecast\"}, {\"tool\": \"get_weather\"}]}\n",
            ),
        ],
    );
    let workspace = Workspace::load(&[dir.path().join("toolsets"), dir.path().join("tasks")]);
    let diagnostics: Vec<String> = workspace
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .map(|d| d.to_string())
        .collect();
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let counts = workspace.counts();
    assert_eq!(
        (
            counts.toolsets,
            counts.variants,
            counts.suites,
            counts.tasks,
            counts.no_call_tasks,
            counts.any_of_tasks
        ),
        (1, 1, 1, 3, 1, 1)
    );
    let variant = workspace.variant("terse").unwrap();
    assert_eq!(variant.map_tool("get_weather_forecast"), Some("forecast"));
    let described = variant.toolset.tool("get_weather").unwrap();
    assert_eq!(described.description.as_deref(), Some("查询天气"));
    assert_eq!(
        described.input_schema["properties"]["city"]["description"],
        "城市"
    );
}

/// Tool names as `toolsets/README.md` documents them: an empty name is an error; characters outside
/// SEP-986's `A-Z a-z 0-9 _ - .` and names past 64 characters are warnings at the name's line (MCP
/// says SHOULD, and the SDKs accept such tools; provider names are sanitised on the way out).
#[test]
fn tool_names_are_checked_as_the_toolset_readme_says() {
    let long = "a".repeat(65);
    let text = format!(
        "format = 1\nname = \"names\"\n\n[[tool]]\nname = \"get weather!\"\ndescription = \"Current weather for one city.\"\n\n[[tool]]\nname = \"{long}\"\ndescription = \"Current weather for one city.\"\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolsets/names.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    let workspace = Workspace::load(std::slice::from_ref(&path));
    let diagnostics: Vec<&Diagnostic> = workspace
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .collect();
    assert!(!workspace.has_errors(), "{diagnostics:?}");
    let warning = |wording: &str| {
        diagnostics
            .iter()
            .find(|d| !d.is_error() && d.to_string().contains(wording))
            .unwrap_or_else(|| panic!("no warning with {wording:?} in {diagnostics:?}"))
            .line
    };
    assert_eq!(warning("contains ' '"), Some(5));
    assert_eq!(warning("is 65 characters"), Some(9));

    std::fs::write(
        &path,
        "format = 1\n[[tool]]\nname = \"\"\ndescription = \"x\"\n",
    )
    .unwrap();
    let workspace = Workspace::load(std::slice::from_ref(&path));
    assert!(workspace.has_errors());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
    /// Fuzzing the loaders: a valid toolset and suite with a stretch cut out or bytes spliced in
    /// load without a panic, and every error names the damaged file.
    #[test]
    fn damaged_toolsets_and_suites_get_diagnostics_never_a_panic(
        which in 0usize..2,
        at in 0.0f64..1.0,
        cut in 0usize..40,
        splice in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
    ) {
        const SUITE: &str = "format = 1\nsuite = \"s\"\ntoolset = \"weather\"\n\n[[task]]\nid = \"t1\"\nprompt = \"Weather in Paris?\"\nexpect = [{ tool = \"get_weather\", args = { city = \"Paris\" } }]\n\n[[task]]\nid = \"t2\"\nprompt = \"Hello\"\nexpect_no_call = true\n";
        let dir = tempfile::tempdir().unwrap();
        let files = [("toolsets/weather.toml", TOOLSET), ("tasks/s.toml", SUITE)];
        write_files(dir.path(), &files);
        let (damaged, text) = files[which];
        let mut bytes = text.as_bytes().to_vec();
        let start = ((bytes.len() as f64) * at) as usize;
        let end = (start + cut).min(bytes.len());
        bytes.splice(start..end, splice);
        let path = dir.path().join(damaged);
        std::fs::write(&path, &bytes).unwrap();
        let workspace = Workspace::load(&[dir.path().join("toolsets"), dir.path().join("tasks")]);
        for diagnostic in workspace.files.iter().flat_map(|f| &f.diagnostics) {
            if diagnostic.is_error() {
                proptest::prop_assert!(
                    diagnostic.path.starts_with(dir.path()),
                    "{diagnostic}"
                );
            }
        }
    }
}
