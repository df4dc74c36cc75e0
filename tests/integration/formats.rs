//! The file formats round-trip what users and servers wrote: a captured `tools/list` loads as a
//! toolset and serialises back to the same MCP tool objects; TOML behaviours mean what the docs say.

use mcpick::load::Workspace;
use mcpick::model::{Response, fill_template};
use serde_json::{Value, json};

fn load(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let workspace = Workspace::load(&[dir.path().to_path_buf()]);
    (dir, workspace)
}

#[test]
fn a_captured_tools_list_loads_and_serialises_back_verbatim() {
    let tools = json!([
        {
            "name": "get_weather",
            "title": "Weather",
            "description": "Current weather for one city.",
            "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                            "properties": {"city": {"type": "string", "description": "City"}}, "required": ["city"],
                            "$defs": {"unit": {"enum": ["c", "f"]}}, "additionalProperties": false},
            "outputSchema": {"type": "object", "properties": {"t": {"type": "number"}}},
            "annotations": {"readOnlyHint": true, "openWorldHint": true},
            "icons": [{"src": "data:image/png;base64,AA==", "mimeType": "image/png"}],
            "execution": {"taskSupport": "forbidden"},
            "_meta": {"vendor/x": 1}
        },
        {"name": "ping_server", "description": "Checks the server answers.", "inputSchema": {"type": "object", "additionalProperties": false}}
    ]);
    let response = json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": tools}});
    let text = serde_json::to_string_pretty(&response).unwrap();
    let (_dir, workspace) = load(&[("captured.json", &text)]);
    let problems: Vec<String> = workspace
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .map(|d| d.to_string())
        .collect();
    // The output schema is declared but a capture has no behaviour: that is reported, not ignored,
    // and the tool answers as `import` would have made it (a plain tools/list result loads).
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0]
            .contains("warning: tool \"get_weather\" declares an outputSchema but has no behavior"),
        "{problems:#?}"
    );
    assert!(!workspace.has_errors());
    let get_weather = &workspace.toolsets[0].tools[0];
    assert_eq!(
        serde_json::to_value(get_weather).unwrap(),
        tools[0],
        "served as captured"
    );
    assert!(
        matches!(&get_weather.behavior.default, Response::Structured(s) if s.is_object()),
        "{:?}",
        get_weather.behavior.default
    );

    let mut without_output = tools.clone();
    without_output[0]
        .as_object_mut()
        .unwrap()
        .remove("outputSchema");
    let text =
        serde_json::to_string(&json!({"tools": without_output, "nextCursor": null})).unwrap();
    let (_dir, workspace) = load(&[("captured.json", &text)]);
    assert!(!workspace.has_errors(), "{:#?}", workspace.files);
    let toolset = &workspace.toolsets[0];
    assert_eq!(toolset.name, "captured");
    let served: Vec<Value> = toolset
        .tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    assert_eq!(Value::Array(served), without_output);
    assert!(matches!(toolset.tools[0].behavior.default, Response::Echo));
}

#[test]
fn toml_behaviours_answer_as_documented() {
    let toolset = r#"format = 1
[[tool]]
name = "get_weather"
description = "Current weather for one city; not forecasts."
[tool.inputSchema]
type = "object"
required = ["city"]
properties.city = { type = "string", description = "City name" }
properties.units = { type = "string", enum = ["metric", "imperial"], default = "metric", description = "Units" }
[tool.outputSchema]
type = "object"
required = ["temperature"]
properties.temperature = { type = "number" }
[tool.behavior]
text = "{city}: 18 degrees ({units})"
structured = { temperature = 18 }
latency_ms = 40
[[tool.behavior.rule]]
when = { city = ["Atlantis", "Gotham"] }
error = "Unknown city '{city}'. Pass a real city such as 'Paris'."
[[tool.behavior.rule]]
when = { city = { regex = "^[0-9]{5}$" } }
text = "Postal code {city}: 17 degrees"
structured = { temperature = 17 }
latency_ms = 5

[[tool]]
name = "list_airports"
description = "Every airport the service knows, as IATA codes with names."
"#;
    let (_dir, workspace) = load(&[("t.toml", toolset)]);
    assert!(!workspace.has_errors(), "{:#?}", workspace.files);
    let tools = &workspace.toolsets[0].tools;
    let weather = &tools[0];
    let args = |v: Value| v.as_object().unwrap().clone();

    let (response, latency) = weather.behavior.respond(&args(json!({"city": "Atlantis"})));
    let Response::Error(message) = response else {
        panic!("{response:?}")
    };
    let no_defaults = serde_json::Map::new();
    assert_eq!(
        fill_template(message, &args(json!({"city": "Atlantis"})), &no_defaults),
        "Unknown city 'Atlantis'. Pass a real city such as 'Paris'."
    );
    assert_eq!(latency, 40);
    let (response, latency) = weather.behavior.respond(&args(json!({"city": "75001"})));
    assert_eq!(response.structured(), Some(&json!({"temperature": 17})));
    assert_eq!(latency, 5);
    let (response, _) = weather.behavior.respond(&args(json!({"city": "Paris"})));
    let Response::Text { template, .. } = response else {
        panic!("{response:?}")
    };
    let defaults = json!({"units": "metric"});
    assert_eq!(
        fill_template(
            template,
            &args(json!({"city": "Paris"})),
            defaults.as_object().unwrap()
        ),
        "Paris: 18 degrees (metric)"
    );

    // A tool without parameters gets the schema MCP recommends.
    assert_eq!(
        tools[1].input_schema,
        json!({"type": "object", "additionalProperties": false})
    );
}

#[test]
fn unquoted_toml_dates_mean_strings() {
    let toolset = "format = 1\n[[tool]]\nname = \"list_events\"\ndescription = \"Events on one day, oldest first.\"\n[tool.inputSchema]\ntype = \"object\"\nproperties.date = { type = \"string\", format = \"date\", description = \"Day as YYYY-MM-DD\", default = 2026-01-01 }\n";
    let suite = "format = 1\nsuite = \"c\"\ntoolset = \"c\"\n[[task]]\nid = \"a\"\nprompt = \"What's on 14 March 2026?\"\nexpect = [{ tool = \"list_events\", args = { date = [2026-03-14, \"2026-03-15\"] } }]\n";
    let (_dir, workspace) = load(&[("c.toml", toolset), ("s.toml", suite)]);
    assert!(!workspace.has_errors(), "{:#?}", workspace.files);
    let tool = &workspace.toolsets[0].tools[0];
    assert_eq!(
        tool.input_schema["properties"]["date"]["default"],
        json!("2026-01-01")
    );
    let matcher = &workspace.suites[0].tasks[0].expectation.calls()[0].args["date"];
    assert!(matcher.accepts(&json!("2026-03-14")) && matcher.accepts(&json!("2026-03-15")));
    assert!(!matcher.accepts(&json!("2026-03-16")));
}

#[test]
fn placeholders_must_name_parameters_in_text_and_errors() {
    let toolset = "format = 1\n[[tool]]\nname = \"get_x\"\ndescription = \"Gets x by id.\"\n[tool.inputSchema]\ntype = \"object\"\nproperties.id = { type = \"string\", description = \"The id\" }\n[tool.behavior]\ntext = \"x {id}\"\n[[tool.behavior.rule]]\nwhen = { id = \"\" }\nerror = \"Missing {identifier}: pass id\"\n";
    let (_dir, workspace) = load(&[("t.toml", toolset)]);
    let errors: Vec<String> = workspace
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .map(|d| d.to_string())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].contains("t.toml:10:1: error: tool \"get_x\": behavior rule #1: placeholder {identifier} names no parameter"), "{errors:#?}");
}
