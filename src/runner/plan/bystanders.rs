//! The bystander servers a run shows beside each suite's own tools (`--bystanders NAME,...|all`):
//! which of the workspace's bystanders (`toolsets/bystanders/`) the names mean, and their tools as
//! the trials' server lists them. Every tool of every chosen server is shown, under the name its
//! own server lists it by — except where that name is already shown (by the suite's toolset or an
//! earlier server), which a client listing two servers' tools flat cannot do either: that tool is
//! served as `SERVER__TOOL` and the manifest records the rename. The suite's own tools never
//! change name, so its tasks are scored as they are written.

use crate::load::Workspace;
use crate::model::{Tool, Toolset};
use crate::record::BystanderRecord;
use crate::settings::RunSettings;
use std::collections::{BTreeMap, HashSet};

/// What `--bystanders` names every server with.
const ALL: &str = "all";

/// The bystander servers `--bystanders` names, in the order named (`all`: every one, by name);
/// a name no bystander has, or a combination not supported, is a problem.
pub(super) fn chosen<'a>(
    options: &RunSettings,
    workspace: &'a Workspace,
    problems: &mut Vec<String>,
) -> Vec<&'a Toolset> {
    if options.bystanders.is_empty() {
        return Vec::new();
    }
    if !options.sizes.is_empty() {
        problems.push(
            "--bystanders with --sizes: a size sweep beside bystander servers is not supported yet; sweep the sizes, or show the bystanders, in separate runs".into(),
        );
    }
    let mut available: Vec<&Toolset> = workspace.bystanders.iter().collect();
    available.sort_by(|a, b| a.name.cmp(&b.name));
    let names: Vec<&str> = available.iter().map(|t| t.name.as_str()).collect();
    if available.is_empty() {
        problems.push(
            "--bystanders: no bystander server is loaded (their toolsets live in toolsets/bystanders/; `mcpick validate toolsets/bystanders` shows any that fail to load)".into(),
        );
        return Vec::new();
    }
    if options.bystanders.iter().any(|name| name == ALL) {
        if options.bystanders.len() > 1 {
            problems.push(format!(
                "--bystanders {}: `all` names every server; give it alone",
                options.bystanders.join(",")
            ));
        }
        return available;
    }
    let mut servers = Vec::new();
    for name in &options.bystanders {
        match available.iter().find(|t| &t.name == name) {
            Some(server) if servers.iter().any(|s: &&Toolset| s.name == server.name) => {
                problems.push(format!("--bystanders: {name} is named twice"))
            }
            Some(server) => servers.push(*server),
            None => problems.push(format!(
                "--bystanders {name}: no such bystander server (loaded: {}; or `all`)",
                names.join(", ")
            )),
        }
    }
    servers
}

/// The `servers`' tools as served beside `own` (the suite's tools), with each server's record;
/// an error when a clash cannot be resolved (the prefixed name is taken too).
pub(super) fn beside(
    own: &[Tool],
    servers: &[&Toolset],
) -> Result<(Vec<Tool>, Vec<BystanderRecord>), String> {
    let mut shown: HashSet<String> = own.iter().map(|t| t.name.clone()).collect();
    let mut tools = Vec::new();
    let mut records = Vec::new();
    for server in servers {
        let mut record = BystanderRecord {
            server: server.name.clone(),
            source: server.source.display().to_string(),
            tools: Vec::new(),
            renamed: BTreeMap::new(),
        };
        for tool in &server.tools {
            let mut served = tool.clone();
            if shown.contains(&tool.name) {
                served.name = format!("{}__{}", server.name, tool.name);
                if shown.contains(&served.name) {
                    return Err(format!(
                        "bystander {}: tool {} clashes with a tool already shown, and so does {}",
                        server.name, tool.name, served.name
                    ));
                }
                record
                    .renamed
                    .insert(served.name.clone(), tool.name.clone());
            }
            shown.insert(served.name.clone());
            record.tools.push(served.name.clone());
            tools.push(served);
        }
        records.push(record);
    }
    Ok((tools, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> Tool {
        Tool::in_code(
            name,
            format!("Does {name}."),
            serde_json::json!({"type": "object"}),
        )
    }

    fn server(name: &str, tools: &[&str]) -> Toolset {
        Toolset {
            name: name.into(),
            description: None,
            instructions: None,
            source: format!("toolsets/bystanders/{name}.json").into(),
            variant: None,
            tools: tools.iter().map(|t| tool(t)).collect(),
            lint_allow: Vec::new(),
            registry: None,
        }
    }

    #[test]
    fn a_clashing_bystander_tool_is_served_under_its_servers_prefix() {
        let own = [tool("convert_time"), tool("get_weather")];
        let time = server("time", &["get_current_time", "convert_time"]);
        let other = server("clock", &["get_current_time"]);
        let (tools, records) = beside(&own, &[&time, &other]).unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "get_current_time",
                "time__convert_time",
                "clock__get_current_time"
            ]
        );
        assert_eq!(records[0].renamed["time__convert_time"], "convert_time");
        assert_eq!(records[1].tools, ["clock__get_current_time"]);
        // The served copy keeps everything but its name.
        assert_eq!(tools[1].description.as_deref(), Some("Does convert_time."));
    }

    #[test]
    fn an_unresolvable_clash_is_an_error() {
        let own = [tool("echo"), tool("x__echo")];
        let x = server("x", &["echo"]);
        let error = beside(&own, &[&x]).unwrap_err();
        assert!(error.contains("x__echo"), "{error}");
    }
}
