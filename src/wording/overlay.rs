//! Wordings written as variant files: the starting point (a variant's own file, or an empty overlay
//! on the base toolset) with `[describe.TOOL]` entries set for every reworded tool, so each
//! candidate (`improve`) or leave-one-out wording (`explain`) is a file `ab --variant` and
//! `serve --variant` take as they are. Tools are served under
//! the variant's names; `describe` is keyed by the base toolset's, so renames are undone here.
//! Tools the starting variant adds are not in the base toolset and cannot be described by an
//! overlay: they are not offered as targets, nor measured by `explain`.

use super::Wording;
use crate::load::LoadedVariant;
use crate::spec::{Located, VariantFile, toml_text};
use std::collections::{BTreeMap, BTreeSet};

/// The starting point of every file `improve` writes.
#[derive(Debug, Clone)]
pub struct Overlay {
    start: VariantFile,
    /// Served name → base name, for tools the starting variant renames.
    to_base: BTreeMap<String, String>,
    /// Tools the starting variant adds.
    added: BTreeSet<String>,
}

impl Overlay {
    /// The overlay on `start` (whose file is read again through the variant format, so its
    /// removals, renames and additions carry over), or an empty one on the base toolset `toolset`.
    pub fn new(start: Option<&LoadedVariant>, toolset: &str) -> Result<Overlay, String> {
        let Some(variant) = start else {
            return Ok(Overlay {
                start: VariantFile::new(toolset, toolset),
                to_base: BTreeMap::new(),
                added: BTreeSet::new(),
            });
        };
        let text = std::fs::read_to_string(&variant.source)
            .map_err(|e| format!("{}: {e}", variant.source.display()))?;
        let file: VariantFile = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", variant.source.display(), e.message()))?;
        let added = file
            .add
            .iter()
            .map(|tool| tool.name.value.clone())
            .collect();
        Ok(Overlay {
            start: file,
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
    pub fn render(
        &self,
        name: &str,
        note: &str,
        wordings: &BTreeMap<String, Wording>,
    ) -> Result<String, String> {
        let mut file = self.start.clone();
        file.variant = Located::new(name.to_string());
        file.description = Some(note.to_string());
        for (served, wording) in wordings {
            let base = self.to_base.get(served).unwrap_or(served);
            let entry = file.describe.entry(Located::new(base.clone())).or_default();
            entry.description = Some(wording.description.clone());
            for (param, text) in &wording.params {
                entry
                    .params
                    .insert(Located::new(param.clone()), text.clone());
            }
        }
        toml_text(&file)
    }
}
