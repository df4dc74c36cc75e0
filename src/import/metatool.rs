//! MetaTool's tool-selection data: a CSV of `Query,Tool` rows (`all_clean_data.csv`) and a JSON map
//! of tool name → description (`plugin_des.json`). Every row becomes one task expecting a call of
//! its tool; every described tool becomes one tool of a single toolset, so a sweep can show subsets
//! of it. MetaTool's tools are ChatGPT plugins known by name and description only, so each takes no
//! parameters and a call is judged on the tool alone — which is what MetaTool measures.

use super::{Imported, Skipped};
use serde_json::{Map, Value, json};

/// Translates MetaTool's CSV (`queries`) and tool descriptions (`descriptions`) into a suite named
/// `name`. A file that cannot be read as a whole (not a JSON object, no `Query` and `Tool` columns)
/// is an error; a row that cannot be used is reported in the import.
pub fn import_metatool(queries: &str, descriptions: &str, name: &str) -> Result<Imported, String> {
    let described: Map<String, Value> = match serde_json::from_str(descriptions) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            return Err("the descriptions file is not a JSON object of name → description".into());
        }
        Err(e) => return Err(format!("the descriptions file is not JSON: {e}")),
    };
    let mut imported = Imported {
        name: name.to_string(),
        description: format!(
            "MetaTool tool selection ({name}), imported by mcpick import-metatool: one task per query, one tool per plugin"
        ),
        ..Imported::default()
    };
    for (tool, description) in &described {
        let Some(description) = description.as_str() else {
            imported.note(format!(
                "tool {tool:?}: description is not a string, left out"
            ));
            continue;
        };
        imported.tools.push(json!({
            "name": tool,
            "description": description,
            "inputSchema": {"type": "object", "properties": {}},
        }));
    }

    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(queries.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| format!("the queries file has no header row: {e}"))?
        .clone();
    let column = |wanted: &str| {
        headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(wanted))
    };
    let (Some(query_column), Some(tool_column)) = (column("Query"), column("Tool")) else {
        return Err(format!(
            "the queries file needs `Query` and `Tool` columns; its header is {:?}",
            headers.iter().collect::<Vec<_>>()
        ));
    };
    for (index, row) in reader.records().enumerate() {
        imported.records += 1;
        let row_number = index + 1;
        let record = format!("row {row_number}");
        let row = match row {
            Ok(row) => row,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                imported.skipped.push(Skipped {
                    record,
                    line,
                    reason: format!("not a CSV row: {e}"),
                });
                continue;
            }
        };
        let line = row.position().map_or(0, |p| p.line() as usize);
        let query = row.get(query_column).unwrap_or_default().trim();
        let tool = row.get(tool_column).unwrap_or_default().trim();
        let reason = if query.is_empty() {
            Some("the query is empty".to_string())
        } else if tool.is_empty() {
            Some("the tool is empty".to_string())
        } else if !imported.tools.iter().any(|t| t["name"] == tool) {
            Some(format!(
                "tool {tool:?} has no description in the descriptions file"
            ))
        } else {
            None
        };
        if let Some(reason) = reason {
            imported.skipped.push(Skipped {
                record,
                line,
                reason,
            });
            continue;
        }
        imported.tasks.push(json!({
            "id": format!("metatool-{row_number}"),
            "prompt": query,
            "tags": ["metatool"],
            "expect": [{"tool": tool}],
        }));
    }
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESCRIPTIONS: &str = r#"{
        "ResearchFinder": "Find research papers on any topic.",
        "SEOTool": "Analyse and improve the SEO of a website.",
        "WeatherTool": "Current weather and forecasts."
    }"#;

    #[test]
    fn rows_become_tasks_and_descriptions_become_tools() {
        let csv = "Query,Tool\nCan you find me the latest paper on [topic]?,ResearchFinder\n\"Sure, analyse my site, please.\",SEOTool\nWhat time is it?,ClockTool\n,SEOTool\n";
        let imported = import_metatool(csv, DESCRIPTIONS, "metatool").unwrap();
        assert_eq!(imported.records, 4);
        assert_eq!(imported.tools.len(), 3);
        assert_eq!(imported.tasks.len(), 2);
        assert_eq!(
            imported.tasks[1]["prompt"],
            "Sure, analyse my site, please."
        );
        assert_eq!(imported.tasks[1]["expect"][0]["tool"], "SEOTool");
        assert_eq!(imported.skipped.len(), 2);
        assert_eq!(imported.skipped[0].record, "row 3");
        assert_eq!(imported.skipped[0].line, 4);
        assert!(imported.skipped[0].reason.contains("ClockTool"));
        assert!(imported.skipped[1].reason.contains("query is empty"));
    }

    #[test]
    fn unusable_files_are_errors_that_say_why() {
        let no_columns = import_metatool("question,answer\na,b\n", DESCRIPTIONS, "m").unwrap_err();
        assert!(no_columns.contains("`Query` and `Tool`"), "{no_columns}");
        let not_a_map = import_metatool("Query,Tool\n", "[1, 2]", "m").unwrap_err();
        assert!(not_a_map.contains("not a JSON object"), "{not_a_map}");
        let not_json = import_metatool("Query,Tool\n", "{", "m").unwrap_err();
        assert!(not_json.contains("not JSON"), "{not_json}");
    }
}
