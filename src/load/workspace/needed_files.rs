//! Which files' errors a command on the loaded suites must stop for. A toolset or variant file that
//! no suite and no chosen variant uses (a server imported into `toolsets/` for another day, a
//! half-edited variant) does not stop a run: its errors are set aside and shown as a warning
//! naming the file. A file whose use cannot be ruled out — a suite's toolset that did not load
//! could be any broken toolset — stops it as before.

use super::file_identity::file_key;
use super::{FileKind, FileReport, Workspace};
use crate::load::Diagnostic;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// A workspace's errors split by whether the command needs the file they are in.
#[derive(Debug, Default)]
pub struct ErrorsForSuites<'a> {
    pub blocking: Vec<&'a Diagnostic>,
    /// Files with errors that nothing asked for uses.
    pub set_aside: Vec<&'a FileReport>,
}

impl ErrorsForSuites<'_> {
    /// One line per set-aside file, for the command's notices.
    pub fn set_aside_notices(&self) -> Vec<String> {
        self.set_aside
            .iter()
            .map(|file| {
                format!(
                    "{} has {} error(s) and is not used here, so it was skipped (`mcpick validate {}` shows them)",
                    file.path.display(),
                    file.errors(),
                    file.path.display()
                )
            })
            .collect()
    }
}

impl Workspace {
    /// The errors a command on every loaded suite under `variants` (names or paths of variant
    /// files; the base arm left out) must stop for.
    pub fn errors_for_suites(&self, variants: &[&str]) -> ErrorsForSuites<'_> {
        let toolsets_found = self
            .suites
            .iter()
            .all(|suite| self.toolset(&suite.toolset).is_some());
        let names = |variant: &crate::load::LoadedVariant, name: &str| {
            variant.name == name || file_key(&variant.source) == file_key(name.as_ref())
        };
        let variants_found = variants
            .iter()
            .all(|name| self.variants.iter().any(|v| names(v, name)));
        let mut needed: BTreeSet<PathBuf> = BTreeSet::new();
        for suite in &self.suites {
            if let Some(toolset) = self.toolset(&suite.toolset) {
                needed.insert(file_key(&toolset.source));
            }
        }
        for variant in &self.variants {
            if variants.iter().any(|name| names(variant, name)) {
                needed.insert(file_key(&variant.source));
            }
        }
        let mut errors = ErrorsForSuites::default();
        for file in self.files.iter().filter(|f| f.errors() > 0) {
            let optional = match file.kind {
                FileKind::Toolset => toolsets_found,
                // Used only when asked for; `sweep --bystanders` checks the ones it takes.
                FileKind::Bystander => true,
                FileKind::Variant => variants_found,
                _ => false,
            };
            if optional && !self.suites.is_empty() && !needed.contains(&file_key(&file.path)) {
                errors.set_aside.push(file);
            } else {
                errors
                    .blocking
                    .extend(file.diagnostics.iter().filter(|d| d.is_error()));
            }
        }
        errors
    }
}
