//! Wordings written as variant files: the starting point (a variant's own file, or an empty overlay
//! on the base toolset) with `[describe.TOOL]` entries set for every reworded tool, so each
//! candidate is a file `ab --variant` and `serve --variant` take as they are. Tools are served under
//! the variant's names; `describe` is keyed by the base toolset's, so renames are undone here.
//! Tools the starting variant adds are not in the base toolset and cannot be described by an
//! overlay: they are not offered as targets.

use super::wording::Wording;
use crate::load::LoadedVariant;
use std::collections::{BTreeMap, BTreeSet};
use toml::{Table, Value};

/// The starting point of every file `improve` writes.
#[derive(Debug, Clone)]
pub struct Overlay {
    table: Table,
    /// Served name → base name, for tools the starting variant renames.
    to_base: BTreeMap<String, String>,
    /// Tools the starting variant adds.
    added: BTreeSet<String>,
}

impl Overlay {
    /// The overlay on `start` (whose file is read again, so its removals, renames and additions
    /// carry over), or an empty one on the base toolset `toolset`.
    pub fn new(start: Option<&LoadedVariant>, toolset: &str) -> Result<Overlay, String> {
        let Some(variant) = start else {
            let mut table = Table::new();
            table.insert("format".into(), Value::Integer(1));
            table.insert("variant".into(), Value::String(toolset.into()));
            table.insert("base".into(), Value::String(toolset.into()));
            return Ok(Overlay {
                table,
                to_base: BTreeMap::new(),
                added: BTreeSet::new(),
            });
        };
        let text = std::fs::read_to_string(&variant.source)
            .map_err(|e| format!("{}: {e}", variant.source.display()))?;
        let table: Table = text
            .parse()
            .map_err(|e| format!("{}: {e}", variant.source.display()))?;
        let added = table
            .get("add")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|tool| tool.get("name").and_then(Value::as_str))
            .map(str::to_string)
            .collect();
        Ok(Overlay {
            table,
            to_base: variant
                .renamed
                .iter()
                .map(|(base, served)| (served.clone(), base.clone()))
                .collect(),
            added,
        })
    }

    /// Whether an overlay can reword this served tool.
    pub fn describable(&self, tool: &str) -> bool {
        !self.added.contains(tool)
    }

    /// The variant file `name`, described by `note`, with `wordings` (by served name) applied.
    pub fn render(&self, name: &str, note: &str, wordings: &BTreeMap<String, Wording>) -> String {
        let mut table = self.table.clone();
        table.insert("variant".into(), Value::String(name.into()));
        table.insert("description".into(), Value::String(note.into()));
        let describe = table
            .entry("describe")
            .or_insert_with(|| Value::Table(Table::new()));
        if let Value::Table(describe) = describe {
            for (served, wording) in wordings {
                let base = self.to_base.get(served).unwrap_or(served);
                let entry = describe
                    .entry(base.clone())
                    .or_insert_with(|| Value::Table(Table::new()));
                let Value::Table(entry) = entry else { continue };
                entry.insert(
                    "description".into(),
                    Value::String(wording.description.clone()),
                );
                if wording.params.is_empty() {
                    continue;
                }
                let params = entry
                    .entry("params")
                    .or_insert_with(|| Value::Table(Table::new()));
                if let Value::Table(params) = params {
                    for (param, text) in &wording.params {
                        params.insert(param.clone(), Value::String(text.clone()));
                    }
                }
            }
        }
        toml::to_string(&table).unwrap_or_default()
    }
}
