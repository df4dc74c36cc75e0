//! `manifest.json` read back: its text (which `report.html` embeds as it is) and its document, from
//! which `--resume` takes the settings a run was started with and its plan hash, and the report the
//! order the run named its arms and exposure strategies in. Writing it is the plan's and the command's (`RunFolder::write`).

use crate::settings::RunSettings;
use crate::tool_exposure::Exposure;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A run's manifest, read once.
#[derive(Debug, Clone, Default)]
pub struct StoredManifest {
    pub path: PathBuf,
    pub text: String,
    /// The parsed document; `Null` when the text is not JSON.
    pub document: Value,
}

impl StoredManifest {
    /// Reads the folder's `manifest.json`.
    pub fn read(folder: &Path) -> Result<StoredManifest, String> {
        let path = folder.join("manifest.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let document = serde_json::from_str(&text).unwrap_or(Value::Null);
        Ok(StoredManifest {
            path,
            text,
            document,
        })
    }

    /// The settings the run was started with, for `--resume`.
    pub fn settings(&self) -> Result<RunSettings, String> {
        if self.document.is_null() {
            return Err(format!("{}: not JSON", self.path.display()));
        }
        serde_json::from_value(self.document["options"].clone()).map_err(|e| {
            format!(
                "{}: the `options` field is not a run plan this version reads: {e}",
                self.path.display()
            )
        })
    }

    /// The arms in the order the run named them (empty without variants or a readable manifest).
    pub fn named_arms(&self) -> Vec<String> {
        serde_json::from_value(self.document["options"]["variants"].clone()).unwrap_or_default()
    }

    /// The exposure strategies in the order the run named them, as labels (empty without any).
    pub fn named_exposures(&self) -> Vec<String> {
        let named: Vec<Exposure> =
            serde_json::from_value(self.document["options"]["exposures"].clone())
                .unwrap_or_default();
        named.into_iter().map(Exposure::label).collect()
    }
}
