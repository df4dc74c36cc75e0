//! The report's part on the client profile a run showed its tools as (`--client`): which profile,
//! its sources and the date they were checked, the fields no source settles ("unknown", applied as
//! nothing), the rule that defers tools and, size by size, how many trials it deferred and into
//! which exposure, beside each size's right picks — for `summary.json` and the summary's text. It
//! reads the manifest's profile and the stored trials, nothing else.

use crate::client_profile::ClientProfile;
use crate::document::Table;
use crate::document::markdown::markdown_table;
use crate::record::StoredTrial;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// One size's trials under the client (0: the whole toolset).
#[derive(Default)]
struct SizeRow {
    trials: usize,
    deferred: BTreeMap<String, usize>,
    tool_tasks: usize,
    right: usize,
}

/// The client's part of `summary.json`, and its text for the summary.
pub fn client_part(profile: &ClientProfile, trials: &[StoredTrial]) -> (Value, String) {
    let mut sizes: BTreeMap<(String, u32), SizeRow> = BTreeMap::new();
    for trial in trials {
        let row = sizes
            .entry((trial.backend.clone(), trial.size.unwrap_or(0)))
            .or_default();
        row.trials += 1;
        if let Some(exposure) = &trial.client_exposure {
            *row.deferred.entry(exposure.clone()).or_default() += 1;
        }
        if !trial.expected_tools.is_empty() {
            row.tool_tasks += 1;
            row.right += usize::from(trial.verdict.selection_correct == Some(true));
        }
    }
    let deferred_text = |row: &SizeRow| {
        if row.deferred.is_empty() {
            "none".to_string()
        } else {
            row.deferred
                .iter()
                .map(|(exposure, n)| format!("{n} to {exposure}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let unknown = profile.unknown_fields();
    let by_size: Vec<Value> = sizes
        .iter()
        .map(|((backend, size), row)| {
            json!({
                "backend": backend,
                "size": size,
                "trials": row.trials,
                "deferred": row.deferred,
                "tool_tasks": row.tool_tasks,
                "right_picks": row.right,
            })
        })
        .collect();
    let value = json!({
        "name": profile.name,
        "title": profile.title,
        "source": profile.source,
        "checked": profile.checked,
        "unknown": unknown,
        "naming": profile.naming.template,
        "deferral": profile.deferral_rule(),
        "deferral_shape": profile.deferral.shape,
        "by_size": by_size,
    });
    let table = Table {
        caption: format!("client {} by size", profile.name),
        header: [
            "client",
            "backend",
            "N",
            "trials",
            "deferred",
            "right picks (tool tasks)",
        ]
        .map(String::from)
        .to_vec(),
        rows: sizes
            .iter()
            .map(|((backend, size), row)| {
                vec![
                    profile.name.clone(),
                    backend.clone(),
                    if *size == 0 {
                        "all".into()
                    } else {
                        size.to_string()
                    },
                    row.trials.to_string(),
                    deferred_text(row),
                    format!("{} of {}", row.right, row.tool_tasks),
                ]
            })
            .collect(),
    };
    let mut text = format!(
        "\n## Client: {}\n\nTools shown as {} (`--client {}`), its profile checked {} against: {}.\n\nNaming: {}. Deferral: {}.\n",
        profile.title,
        profile.title,
        profile.name,
        profile.checked,
        profile.source.join("; "),
        profile.naming.template.known().map_or(
            "unknown (tools keep the server's names)".to_string(),
            |t| format!("`{t}`")
        ),
        profile.deferral_rule(),
    );
    if !unknown.is_empty() {
        text.push_str(&format!(
            "Unknown in this profile (no source settles them; nothing is applied for them): {}.\n",
            unknown.join(", ")
        ));
    }
    text.push('\n');
    text.push_str(&markdown_table(&table));
    (value, text)
}
