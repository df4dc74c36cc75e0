//! Loading a workspace: files found under the given paths (each once, however it was reached) and
//! classified by extension and keys; toolsets loaded first, then variants, suites and task files; a
//! toolset a variant or suite names loaded from disk when it was not among them; one report per
//! file.

use super::file_identity::{file_key, lexical};
use super::toolset_search::toolset_file;
use super::{FileKind, FileReport, Workspace};
use crate::load::Diagnostic;
use crate::load::source::SourceText;
use crate::load::suite::{
    check_unreferenced_task_file, load_suite, parse_suite, tasks_file_path, unknown_suite_keys,
};
use crate::load::toolset::{Loaded, load_json_toolset, load_toml_toolset};
use crate::load::variant::{LoadedVariant, apply_variant, parse_variant};
use crate::model::{Expectation, Suite, Toolset};
use crate::spec::{SuiteFile, VariantFile};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

#[derive(Default)]
pub struct Loader {
    /// Files in discovery order, de-duplicated.
    found: Vec<PathBuf>,
    /// The `file_key` of every file found or loaded on the way.
    seen: BTreeSet<PathBuf>,
    workspace: Workspace,
    /// Reports for paths that could not even be listed.
    unreadable: Vec<FileReport>,
    /// Files in the order their reports are shown (files loaded on the way are appended).
    order: Vec<PathBuf>,
    reports: HashMap<PathBuf, FileReport>,
}

enum Parsed {
    Toolset(Loaded<Toolset>),
    Variant(Result<VariantFile, Diagnostic>),
    // Boxed: a suite file's parsed form is the largest by far.
    Suite(Box<Result<SuiteFile, Diagnostic>>),
    TaskRecords,
    Unknown(Diagnostic),
}

impl Loader {
    pub fn discover(&mut self, path: &Path) {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
                Ok(dir) => dir.filter_map(|e| e.ok().map(|e| e.path())).collect(),
                Err(e) => {
                    self.unreadable.push(unreadable(path, &e.to_string()));
                    return;
                }
            };
            entries.sort();
            for entry in entries {
                let data_file = matches!(
                    entry.extension().and_then(|e| e.to_str()),
                    Some("toml" | "json" | "jsonl")
                );
                // A folder whose name starts with a dot is a tool's own (`.git`, a draft's
                // `.draft` working files), not the user's toolsets and suites.
                let hidden = entry
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'));
                if (entry.is_dir() && !hidden) || data_file {
                    self.discover(&entry);
                }
            }
        } else if path.exists() {
            if self.seen.insert(file_key(path)) {
                self.found.push(lexical(path));
            }
        } else {
            self.unreadable
                .push(unreadable(path, "no such file or directory"));
        }
    }

    pub fn run(mut self) -> Workspace {
        let mut sources = Vec::new();
        let mut pending_reports: Vec<FileReport> = std::mem::take(&mut self.unreadable);
        for path in std::mem::take(&mut self.found) {
            match SourceText::read(&path) {
                Ok(source) => sources.push(source),
                Err(d) => pending_reports.push(FileReport {
                    path: path.clone(),
                    kind: FileKind::Unknown,
                    summary: "unreadable".into(),
                    diagnostics: vec![d],
                }),
            }
        }
        let parsed: Vec<(SourceText, Parsed)> = sources
            .into_iter()
            .map(|s| {
                let p = classify(&s);
                (s, p)
            })
            .collect();

        // Toolsets first: variants and suites refer to them.
        let mut variants = Vec::new();
        let mut suites = Vec::new();
        let mut task_files = Vec::new();
        for (source, parsed) in parsed {
            self.order.push(source.path.clone());
            match parsed {
                Parsed::Toolset(loaded) => self.add_toolset(&source, loaded),
                Parsed::Variant(file) => variants.push((source, file)),
                Parsed::Suite(file) => suites.push((source, *file)),
                Parsed::TaskRecords => task_files.push(source),
                Parsed::Unknown(d) => self.record(FileReport {
                    path: source.path.clone(),
                    kind: FileKind::Unknown,
                    summary: "not loaded".into(),
                    diagnostics: vec![d],
                }),
            }
        }
        for (source, file) in variants {
            let report = self.add_variant(&source, file);
            self.record(report);
        }
        let mut referenced = BTreeSet::new();
        for (source, file) in suites {
            if let Ok(SuiteFile {
                tasks_file: Some(tasks_file),
                ..
            }) = &file
            {
                referenced.insert(file_key(&tasks_file_path(&source.path, tasks_file)));
            }
            let report = self.add_suite(&source, file);
            self.record(report);
        }
        for source in task_files {
            let report = task_file_report(
                &source,
                referenced.contains(&file_key(&source.path)),
                &self.workspace.suites,
            );
            self.record(report);
        }
        let mut files = pending_reports;
        for path in std::mem::take(&mut self.order) {
            if let Some(report) = self.reports.remove(&path) {
                files.push(report);
            }
        }
        self.workspace.files = files;
        self.workspace
    }

    fn record(&mut self, report: FileReport) {
        self.reports.insert(report.path.clone(), report);
    }

    fn add_toolset(&mut self, source: &SourceText, loaded: Loaded<Toolset>) {
        let mut diagnostics = loaded.diagnostics;
        let bystander = in_bystanders_folder(&source.path);
        let summary = match loaded.value {
            Some(toolset) => {
                let kind = if bystander {
                    "bystander toolset"
                } else {
                    "toolset"
                };
                let summary = format!("{kind} {}: {} tools", toolset.name, toolset.tools.len());
                let other = self
                    .workspace
                    .toolset(&toolset.name)
                    .or_else(|| self.workspace.bystander(&toolset.name));
                if let Some(other) = other {
                    diagnostics.push(source.error(None, format!("toolset name {:?} is already used by {}", toolset.name, other.source.display())).help(
                        "toolset names must be unique; set `name = \"...\"` in one of the files",
                    ));
                } else if bystander {
                    self.workspace.bystanders.push(toolset);
                } else {
                    self.workspace.toolsets.push(toolset);
                }
                summary
            }
            None => "toolset not loaded".into(),
        };
        self.record(FileReport {
            path: source.path.clone(),
            kind: if bystander {
                FileKind::Bystander
            } else {
                FileKind::Toolset
            },
            summary,
            diagnostics,
        });
    }

    /// Finds a toolset by name among those loaded, else on disk near `near` (loading it on the way).
    fn resolve_toolset(&mut self, reference: &str, near: &Path) -> Result<usize, String> {
        let is_path =
            reference.contains('/') || reference.ends_with(".toml") || reference.ends_with(".json");
        if !is_path
            && let Some(i) = self
                .workspace
                .toolsets
                .iter()
                .position(|t| t.name == reference)
        {
            return Ok(i);
        }
        let found = toolset_file(reference, is_path, near);
        let Some(path) = found.map(|p| lexical(&p)) else {
            let loaded: Vec<&str> = self
                .workspace
                .toolsets
                .iter()
                .map(|t| t.name.as_str())
                .collect();
            return Err(if loaded.is_empty() {
                "no toolsets are loaded".to_string()
            } else {
                format!("loaded toolsets: {}", loaded.join(", "))
            });
        };
        let key = file_key(&path);
        if let Some(i) = self
            .workspace
            .toolsets
            .iter()
            .position(|t| file_key(&t.source) == key)
        {
            return Ok(i);
        }
        if !self.seen.insert(key.clone()) {
            return Err(format!("{} did not load; see its errors", path.display()));
        }
        let source = SourceText::read(&path).map_err(|d| d.message)?;
        let loaded = if path.extension().is_some_and(|e| e == "json") {
            load_json_toolset(&source)
        } else {
            load_toml_toolset(&source)
        };
        self.order.push(path.clone());
        self.add_toolset(&source, loaded);
        self.workspace
            .toolsets
            .iter()
            .position(|t| file_key(&t.source) == key)
            .ok_or_else(|| format!("{} did not load; see its errors", path.display()))
    }

    fn add_variant(
        &mut self,
        source: &SourceText,
        file: Result<VariantFile, Diagnostic>,
    ) -> FileReport {
        let report = |summary: String, diagnostics| FileReport {
            path: source.path.clone(),
            kind: FileKind::Variant,
            summary,
            diagnostics,
        };
        let file = match file {
            Ok(file) => file,
            Err(d) => return report("variant not loaded".into(), vec![d]),
        };
        let base = match self.resolve_toolset(&file.base, &source.path) {
            Ok(i) => i,
            Err(why) => {
                let d = source
                    .error(
                        file.base.span.as_ref(),
                        format!(
                            "variant {:?}: base toolset {:?} not found",
                            file.variant.value, file.base.value
                        ),
                    )
                    .help(why);
                return report("variant not loaded".into(), vec![d]);
            }
        };
        let loaded = apply_variant(source, file, &self.workspace.toolsets[base]);
        let mut diagnostics = loaded.diagnostics;
        let summary = match loaded.value {
            Some(v) => {
                let summary = format!(
                    "variant {} of {}: {} tools ({} described, {} renamed, {} removed, {} added)",
                    v.name,
                    v.base,
                    v.toolset.tools.len(),
                    v.described,
                    v.renamed.len(),
                    v.removed.len(),
                    v.added
                );
                if let Some(other) = self.workspace.variant(&v.name) {
                    diagnostics.push(
                        source
                            .error(
                                None,
                                format!(
                                    "variant name {:?} is already used by {}",
                                    v.name,
                                    other.source.display()
                                ),
                            )
                            .help("variant names must be unique"),
                    );
                } else {
                    self.workspace.variants.push(v);
                }
                summary
            }
            None => "variant not loaded".into(),
        };
        report(summary, diagnostics)
    }

    fn add_suite(
        &mut self,
        source: &SourceText,
        file: Result<SuiteFile, Diagnostic>,
    ) -> FileReport {
        // Every unknown key, whatever else is wrong with the file.
        let unknown_keys = unknown_suite_keys(source);
        let report = |summary: String, diagnostics: Vec<Diagnostic>| FileReport {
            path: source.path.clone(),
            kind: FileKind::Suite,
            summary,
            diagnostics: unknown_keys.iter().cloned().chain(diagnostics).collect(),
        };
        let file = match file {
            Ok(file) => file,
            Err(d) => return report("suite not loaded".into(), vec![d]),
        };
        let toolset = match self.resolve_toolset(&file.toolset, &source.path) {
            Ok(i) => i,
            Err(why) => {
                let d = source
                    .error(
                        file.toolset.span.as_ref(),
                        format!(
                            "suite {:?}: toolset {:?} not found",
                            file.suite.value, file.toolset.value
                        ),
                    )
                    .help(why);
                return report("suite not loaded".into(), vec![d]);
            }
        };
        let toolset = &self.workspace.toolsets[toolset];
        let variants: Vec<&LoadedVariant> = self
            .workspace
            .variants
            .iter()
            .filter(|v| v.base == toolset.name)
            .collect();
        let loaded = load_suite(source, file, toolset, &variants);
        let mut diagnostics = loaded.diagnostics;
        let summary = match loaded.value {
            Some(suite) => {
                let summary = suite_summary(&suite, variants.len());
                if let Some(other) = self.workspace.suites.iter().find(|s| s.name == suite.name) {
                    diagnostics.push(
                        source
                            .error(
                                None,
                                format!(
                                    "suite name {:?} is already used by {}",
                                    suite.name,
                                    other.source.display()
                                ),
                            )
                            .help("suite names must be unique"),
                    );
                } else {
                    self.workspace.suites.push(suite);
                }
                summary
            }
            None => "suite not loaded".into(),
        };
        report(summary, diagnostics)
    }
}

fn suite_summary(suite: &Suite, variants: usize) -> String {
    let no_call = suite
        .tasks
        .iter()
        .filter(|t| matches!(t.expectation, Expectation::NoCall))
        .count();
    let languages: BTreeSet<&str> = suite.tasks.iter().map(|t| t.lang.as_str()).collect();
    let checked = if variants > 0 {
        format!(", checked against {variants} variant(s)")
    } else {
        String::new()
    };
    format!(
        "suite {} on {}: {} tasks ({} no-call; languages {}){checked}",
        suite.name,
        suite.toolset,
        suite.tasks.len(),
        no_call,
        languages.into_iter().collect::<Vec<_>>().join(", ")
    )
}

fn task_file_report(source: &SourceText, referenced: bool, suites: &[Suite]) -> FileReport {
    let path = source.path.clone();
    if referenced {
        let owner = suites
            .iter()
            .find(|s| s.tasks.iter().any(|t| t.source == path));
        let count = owner.map_or(0, |s| s.tasks.iter().filter(|t| t.source == path).count());
        let summary = match owner {
            Some(suite) => format!("{count} tasks of suite {}", suite.name),
            None => "tasks of a suite that did not load (see the suite's errors)".to_string(),
        };
        return FileReport {
            path,
            kind: FileKind::TaskRecords,
            summary,
            diagnostics: Vec::new(),
        };
    }
    let (count, mut diagnostics) = check_unreferenced_task_file(source);
    diagnostics.push(Diagnostic::warning(&path, "no loaded suite names this file in `tasks_file`; only its syntax and fields were checked").help(
        "reference it from a suite (`tasks_file = \"...\"`) or validate that suite too",
    ));
    FileReport {
        path,
        kind: FileKind::TaskRecords,
        summary: format!("{count} task records"),
        diagnostics,
    }
}

/// Decides what a file is: `.json` → toolset, `.jsonl` → task records, `.toml` → by its keys.
fn classify(source: &SourceText) -> Parsed {
    match source.path.extension().and_then(|e| e.to_str()) {
        Some("json") => Parsed::Toolset(load_json_toolset(source)),
        Some("jsonl") => Parsed::TaskRecords,
        Some("toml") => {
            let table: toml::Table = match source.parse_toml() {
                Ok(t) => t,
                Err(d) => return Parsed::Unknown(d),
            };
            if table.contains_key("suite") {
                Parsed::Suite(Box::new(parse_suite(source)))
            } else if table.contains_key("variant") || table.contains_key("base") {
                Parsed::Variant(parse_variant(source))
            } else {
                Parsed::Toolset(load_toml_toolset(source))
            }
        }
        _ => Parsed::Unknown(
            Diagnostic::error(&source.path, "not a toolset, variant or suite file").help("mcpick reads .toml (toolsets, variants, suites), .json (captured tools/list) and .jsonl (tasks)"),
        ),
    }
}

fn unreadable(path: &Path, reason: &str) -> FileReport {
    FileReport {
        path: path.to_path_buf(),
        kind: FileKind::Unknown,
        summary: "unreadable".into(),
        diagnostics: vec![
            Diagnostic::error(path, format!("cannot read {}: {reason}", path.display()))
                .help("check the path; `mcpick list` shows the files mcpick finds"),
        ],
    }
}

/// Whether a toolset file lies in a folder named `bystanders` (`toolsets/bystanders/`).
fn in_bystanders_folder(path: &Path) -> bool {
    path.parent()
        .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "bystanders"))
}
