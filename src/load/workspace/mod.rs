//! Everything `validate`, `lint` and `list` load at once: files found under the given paths, sorted
//! by kind, references resolved (a suite's `toolset`, a variant's `base`, a `tasks_file`), and one
//! report per file. A file that fails never stops the others from being checked.
//!
//! This file holds what a load produced (the workspace, its reports and totals); `loader` finds
//! the files, loads them in dependency order and resolves their references (`toolset_search`:
//! where a suite's toolset is looked for; `file_identity`: when two paths are one file);
//! `needed_files` which files' errors a command must stop for; `worded_toolset` is the one rule
//! for which toolset and variant a name means.
//!
//! A toolset in a folder named `bystanders` (`toolsets/bystanders/`: the tool lists of servers
//! people install beside their own) is loaded and checked like any other, but kept apart: it is
//! no distractor of a sweep, counts in no total of toolsets or tools, enters no run's manifest, and
//! is used only when asked for — by its file (`lint`, `serve`) or by `sweep --bystanders`.

mod file_identity;
mod loader;
mod needed_files;
mod toolset_search;
mod worded_toolset;

pub use worded_toolset::{NotLoaded, WordedToolset, looks_like_path};

use super::Diagnostic;
use super::variant::LoadedVariant;
use crate::model::{Expectation, Suite, Toolset};
use loader::Loader;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// What a file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Toolset,
    /// A toolset under a `bystanders` folder: loaded and checked, used only when asked for.
    Bystander,
    Variant,
    Suite,
    TaskRecords,
    Unknown,
}

/// The outcome for one file: a one-line summary and its diagnostics.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FileReport {
    pub path: PathBuf,
    pub kind: FileKind,
    pub summary: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl FileReport {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }
}

/// Everything loaded, and a report per file in the order the files were found.
#[derive(Debug, Default)]
pub struct Workspace {
    pub toolsets: Vec<Toolset>,
    /// The bystander servers' toolsets (files under a `bystanders` folder), kept out of
    /// `toolsets`.
    pub bystanders: Vec<Toolset>,
    pub variants: Vec<LoadedVariant>,
    pub suites: Vec<Suite>,
    pub files: Vec<FileReport>,
}

/// Totals over what loaded.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct WorkspaceCounts {
    pub files: usize,
    pub toolsets: usize,
    pub tools: usize,
    /// Bystander servers and their tools: not among `toolsets` and `tools`.
    pub bystanders: usize,
    pub bystander_tools: usize,
    pub variants: usize,
    pub suites: usize,
    pub tasks: usize,
    pub no_call_tasks: usize,
    pub any_of_tasks: usize,
    pub all_of_tasks: usize,
    pub multi_step_tasks: usize,
    /// Tasks that name their own tool list instead of showing the whole toolset.
    pub own_tool_list_tasks: usize,
    pub languages: Vec<String>,
    pub errors: usize,
    pub warnings: usize,
}

impl Workspace {
    /// Loads every toolset, variant, suite and task file under `paths` (files or directories).
    pub fn load(paths: &[PathBuf]) -> Workspace {
        let mut loader = Loader::default();
        for path in paths {
            loader.discover(path);
        }
        loader.run()
    }

    pub fn toolset(&self, name: &str) -> Option<&Toolset> {
        self.toolsets.iter().find(|t| t.name == name)
    }

    pub fn bystander(&self, name: &str) -> Option<&Toolset> {
        self.bystanders.iter().find(|t| t.name == name)
    }

    pub fn variant(&self, name: &str) -> Option<&LoadedVariant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// Every error any file's report holds, in file order.
    pub fn error_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files
            .iter()
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.is_error())
    }

    /// The variants' names, in load order (for a message naming what there is).
    pub fn variant_names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name.as_str()).collect()
    }

    pub fn has_errors(&self) -> bool {
        self.files.iter().any(|f| f.errors() > 0)
    }

    pub fn counts(&self) -> WorkspaceCounts {
        let tasks = self.suites.iter().flat_map(|s| &s.tasks);
        let languages: BTreeSet<String> = tasks.clone().map(|t| t.lang.clone()).collect();
        WorkspaceCounts {
            files: self.files.len(),
            toolsets: self.toolsets.len(),
            tools: self.toolsets.iter().map(|t| t.tools.len()).sum(),
            bystanders: self.bystanders.len(),
            bystander_tools: self.bystanders.iter().map(|t| t.tools.len()).sum(),
            variants: self.variants.len(),
            suites: self.suites.len(),
            tasks: tasks.clone().count(),
            no_call_tasks: tasks
                .clone()
                .filter(|t| matches!(t.expectation, Expectation::NoCall))
                .count(),
            any_of_tasks: tasks
                .clone()
                .filter(|t| matches!(t.expectation, Expectation::AnyOf(_)))
                .count(),
            all_of_tasks: tasks
                .clone()
                .filter(|t| matches!(t.expectation, Expectation::AllOf(_)))
                .count(),
            multi_step_tasks: tasks
                .clone()
                .filter(|t| matches!(&t.expectation, Expectation::Calls(c) if c.len() > 1))
                .count(),
            own_tool_list_tasks: tasks.filter(|t| t.tools.is_some()).count(),
            languages: languages.into_iter().collect(),
            errors: self.files.iter().map(FileReport::errors).sum(),
            warnings: self.files.iter().map(FileReport::warnings).sum(),
        }
    }
}
