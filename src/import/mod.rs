//! Importers of public tool-selection data sets: each turns a data set's files into one mcpick
//! toolset (`toolset.json`), one suite (`suite.toml`) and its tasks (`tasks.jsonl`), plus
//! `IMPORT.md`, which lists what was translated with a change and every record that could not be
//! translated and why — a record is never dropped silently. The importers check their own output
//! with the same code that serves and scores it (schemas compile, every acceptable value satisfies
//! its parameter's schema, the oracle's call for every gold answer validates and matches), so an
//! import passes `mcpick validate` and the `oracle` backend scores 100% on it.
//!
//! `bfcl` reads the Berkeley Function Calling Leaderboard's single-turn files; `metatool` reads
//! MetaTool's tool-selection CSV and tool descriptions. Neither reaches the network. `live_server`
//! is the other kind of import: a running MCP server's tools, snapshotted into a toolset, the server
//! named on the command line (`server_command`) or by a client's config file (`client_config`).

pub mod bfcl;
pub mod client_config;
pub mod live_server;
pub mod metatool;
pub mod server_command;

use crate::document::markdown::markdown_document;
use crate::document::{Document, Part, Section, Table};
use crate::model::ScoringProfile;
use crate::spec::{Located, SuiteFile, ToolsetDocument, json_text, task_line, toml_text};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A data set translated into mcpick's formats, with the record of what happened to each record.
#[derive(Debug, Default)]
pub struct Imported {
    /// The name of the suite and of its toolset.
    pub name: String,
    pub description: String,
    /// MCP tool definitions, names unique.
    pub tools: Vec<Value>,
    /// One task per translated record, in the suite file's JSON Lines form.
    pub tasks: Vec<Value>,
    /// Records read (lines or rows, blank lines not counted).
    pub records: usize,
    /// Records that could not be translated, and why.
    pub skipped: Vec<Skipped>,
    /// Translations that changed something, counted by kind (e.g. a BFCL type served as string).
    pub notes: Vec<(String, usize)>,
    /// The scoring profile the suite names (`None`: the default, `mcp`).
    pub scoring: Option<ScoringProfile>,
}

/// A record left out of the import.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The record's id, or its line when it has none.
    pub record: String,
    /// 1-based line (or CSV row) in the file it came from.
    pub line: usize,
    pub reason: String,
}

impl Imported {
    /// Counts one more translation note of this kind.
    pub fn note(&mut self, kind: impl Into<String>) {
        let kind = kind.into();
        match self.notes.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, count)) => *count += 1,
            None => self.notes.push((kind, 1)),
        }
    }

    /// Writes `toolset.json`, `suite.toml`, `tasks.jsonl` and `IMPORT.md` into `dir` (created if
    /// missing) and returns their paths.
    pub fn write(&self, dir: &Path, source: &str) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let toolset = ToolsetDocument::new(
            &self.name,
            Some(self.description.clone()),
            self.tools.clone(),
        );
        let mut suite = SuiteFile::new(&self.name, &self.name);
        suite.description = Some(self.description.clone());
        suite.tasks_file = Some(Located::new("tasks.jsonl".to_string()));
        suite.scoring = self
            .scoring
            .map(|profile| Located::new(profile.as_str().to_string()));
        let suite = format!(
            "# Imported by mcpick from {source}; see IMPORT.md.\n{}",
            toml_text(&suite).map_err(std::io::Error::other)?
        );
        let mut tasks = String::new();
        for task in &self.tasks {
            tasks.push_str(&task_line(task).map_err(std::io::Error::other)?);
        }
        let paths = [
            (
                "toolset.json",
                json_text(&toolset).map_err(std::io::Error::other)?,
            ),
            ("suite.toml", suite),
            ("tasks.jsonl", tasks),
            ("IMPORT.md", markdown_document(&self.report(source))),
        ];
        let mut written = Vec::new();
        for (file, text) in paths {
            let path = dir.join(file);
            std::fs::write(&path, text)?;
            written.push(path);
        }
        Ok(written)
    }

    /// The account of the import as a document: counts, notes, and every skipped record with its
    /// reason.
    pub fn report(&self, source: &str) -> Document {
        let mut opening = vec![Part::Paragraph(format!(
            "{} records read: {} tasks written, {} not translated. {} tools in toolset `{}`.",
            self.records,
            self.tasks.len(),
            self.records - self.tasks.len(),
            self.tools.len(),
            self.name
        ))];
        if let Some(profile) = self.scoring {
            opening.push(Part::Paragraph(format!(
                "The suite is scored with the `{}` profile (`scoring` in suite.toml; `--scoring mcp` for mcpick's own rules).",
                profile.as_str()
            )));
        }
        let mut sections = Vec::new();
        if !self.notes.is_empty() {
            let rows = self
                .notes
                .iter()
                .map(|(kind, count)| vec![kind.clone(), count.to_string()])
                .collect();
            sections.push(Section::new(
                "changed",
                "Translated with a change",
                vec![Part::Table(Table {
                    caption: String::new(),
                    header: vec!["what".into(), "count".into()],
                    rows,
                })],
            ));
        }
        if !self.skipped.is_empty() {
            let rows = self
                .skipped
                .iter()
                .map(|s| vec![s.record.clone(), s.line.to_string(), s.reason.clone()])
                .collect();
            sections.push(Section::new(
                "skipped",
                "Not translated",
                vec![Part::Table(Table {
                    caption: String::new(),
                    header: vec!["record".into(), "line".into(), "why".into()],
                    rows,
                })],
            ));
        }
        Document {
            title: format!("Import of {source}"),
            opening,
            sections,
        }
    }

    /// One line for the terminal.
    pub fn summary(&self) -> String {
        let not_translated = self.records - self.tasks.len();
        let other = self.skipped.len().saturating_sub(not_translated);
        let mut line = format!(
            "{} records: {} tasks, {not_translated} not translated; {} tools",
            self.records,
            self.tasks.len(),
            self.tools.len()
        );
        if other > 0 {
            // Only answers can be skipped without being a record: unreadable or unmatched ones.
            line.push_str(&format!("; {other} answers not used (see IMPORT.md)"));
        }
        line
    }
}

/// A suite or toolset name from a file name: lowercase, with `_` for anything outside `[a-z0-9_-]`.
pub fn name_from_path(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_else(|| "imported".into());
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
