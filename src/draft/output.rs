//! What `mcpick draft` writes: the suite (`suite.toml` naming the toolset and who drafted it, and
//! `tasks.jsonl`, one kept candidate per line with `review` and `provenance`), in the formats
//! `validate`, `run`, `ab` and `sweep` read, and `DRAFT.md`: every candidate kept or dropped, with
//! why, counted per reason. Each file is replaced whole (temporary file, sync, rename), and the
//! suite file last, so a folder never holds a suite whose task file is half written.

use super::asks::Intent;
use super::candidate::{Candidate, DropReason, Fate};
use super::folder::EarlierTasks;
use crate::document::markdown::markdown_document;
use crate::document::{Document, Part, Section, Table};
use crate::file_replace::replace;
use crate::spec::{DraftedBySpec, Located, SuiteFile, task_line, toml_text};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Who drafted a suite, as `[drafted_by]` and each task's `provenance` say.
#[derive(Debug, Clone)]
pub struct Authorship {
    pub drafter: String,
    pub model: String,
    pub prompt_template: String,
    pub seed: u64,
}

/// What goes into the folder besides the candidates.
pub struct SuiteHeader<'a> {
    pub suite: &'a str,
    pub toolset_name: &'a str,
    /// The toolset file, referred to from the suite by a path relative to the folder.
    pub toolset_file: &'a Path,
    pub tools: usize,
    pub authorship: &'a Authorship,
    /// Asks whose reply could not be used, with why.
    pub failed_asks: &'a [(String, String)],
    pub seconds: f64,
    /// The pickers of the agreement check, in column order.
    pub pickers: Vec<String>,
    /// Tasks the folder held before, kept ahead of the new ones.
    pub earlier: usize,
}

/// Writes `tasks.jsonl` (the `earlier` tasks as they were, then the kept candidates, each under
/// an id no earlier task has), `DRAFT.md` and `suite.toml` into `dir`.
pub fn write_suite(
    dir: &Path,
    header: &SuiteHeader<'_>,
    candidates: &[Candidate],
    earlier: &EarlierTasks,
) -> std::io::Result<()> {
    let mut lines = String::new();
    for line in &earlier.lines {
        lines.push_str(line);
        lines.push('\n');
    }
    for candidate in candidates.iter().filter(|c| c.kept()) {
        let mut record = task_record(candidate, header.authorship);
        record["id"] = Value::String(earlier.free_id(&candidate.task_id()));
        lines.push_str(&task_line(&record).map_err(std::io::Error::other)?);
    }
    replace(&dir.join("tasks.jsonl"), lines.as_bytes())?;
    replace(
        &dir.join("DRAFT.md"),
        markdown_document(&draft_report(header, candidates)).as_bytes(),
    )?;
    replace(&dir.join("suite.toml"), suite_file(dir, header)?.as_bytes())
}

/// Writes `DRAFT.md` alone: when no candidate was kept, there is no suite to write.
pub fn write_report(
    dir: &Path,
    header: &SuiteHeader<'_>,
    candidates: &[Candidate],
) -> std::io::Result<()> {
    replace(
        &dir.join("DRAFT.md"),
        markdown_document(&draft_report(header, candidates)).as_bytes(),
    )
}

fn task_record(candidate: &Candidate, authorship: &Authorship) -> Value {
    let (doubtful, picks) = match &candidate.fate {
        Fate::Kept { doubtful, picks } => (*doubtful, picks.clone()),
        _ => (false, BTreeMap::new()),
    };
    let kind = match candidate.intent {
        Intent::Tool(_) => "single",
        Intent::Pair { .. } => "pair",
        Intent::NoCall => "no-call",
    };
    let mut record = json!({
        "id": candidate.task_id(),
        "prompt": candidate.request,
        "lang": candidate.style.lang,
        "tags": ["drafted", kind, candidate.style.label],
    });
    match candidate.intent.tool() {
        Some(tool) => {
            let args = super::support::expected_args(
                &candidate.request,
                &candidate.input_schema,
                &candidate.arguments,
            );
            record["expect"] = json!([{"tool": tool, "args": args}]);
        }
        None => record["expect_no_call"] = json!(true),
    }
    record["review"] = json!(if doubtful { "doubtful" } else { "draft" });
    record["provenance"] = json!({
        "drafted_by": authorship.drafter,
        "model": authorship.model,
        "prompt_template": authorship.prompt_template,
        "seed": authorship.seed,
        "ask": candidate.ask,
        "item": candidate.item,
        "style": candidate.style.label,
        "picks": picks,
    });
    record
}

fn suite_file(dir: &Path, header: &SuiteHeader<'_>) -> std::io::Result<String> {
    let toolset = relative_path(dir, header.toolset_file);
    let a = header.authorship;
    let mut suite = SuiteFile::new(header.suite, &toolset.to_string_lossy());
    suite.description = Some(format!(
        "Requests for the {} tools drafted by {} with `mcpick draft`: review them (`mcpick review`) before trusting a figure",
        header.toolset_name, a.drafter
    ));
    suite.tasks_file = Some(Located::new("tasks.jsonl".to_string()));
    suite.drafted_by = Some(DraftedBySpec {
        drafter: a.drafter.clone(),
        model: a.model.clone(),
        prompt_template: a.prompt_template.clone(),
        seed: a.seed,
        mcpick: Some(env!("CARGO_PKG_VERSION").to_string()),
    });
    toml_text(&suite).map_err(std::io::Error::other)
}

/// `to` as seen from `from` (both made absolute); `to` itself when they share no root.
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let (Ok(from), Ok(to)) = (std::path::absolute(from), std::path::absolute(to)) else {
        return to.to_path_buf();
    };
    fn clean(p: &Path) -> Vec<Component<'_>> {
        p.components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect()
    }
    let (from, to_parts) = (clean(&from), clean(&to));
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0
        || to_parts[..common]
            .iter()
            .any(|c| matches!(c, Component::ParentDir))
    {
        return to;
    }
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for part in &to_parts[common..] {
        path.push(part);
    }
    path
}

fn draft_report(header: &SuiteHeader<'_>, candidates: &[Candidate]) -> Document {
    let a = header.authorship;
    let mut opening = vec![Part::Paragraph(format!(
        "Drafted by `{}` (model {}), prompt templates `{}`, seed {}, in {:.0} s. Every request below was checked by code: leakage of the tool's name, the expected call against the tool's schema and the request's own words, near-duplicates, the suite's own load checks; then put to the offline pickers ({}). Nothing was relabelled: a request no picker maps to its intended tool is kept as `doubtful`.",
        a.drafter,
        a.model,
        &a.prompt_template[..a.prompt_template.len().min(12)],
        a.seed,
        header.seconds,
        header.pickers.join(", ")
    ))];
    if header.earlier > 0 {
        opening.push(Part::Paragraph(format!(
            "The folder held {} tasks from before (accepted, edited or pending): they are kept as they were, ahead of the new ones, and no request already there or rejected in a review was kept again.",
            header.earlier
        )));
    }
    Document {
        title: format!("Draft: {} ({} tools)", header.suite, header.tools),
        opening,
        sections: vec![
            Section::new("counts", "Counts", counts(header, candidates)),
            Section::new("kept", "Kept", vec![Part::Table(kept(header, candidates))]),
            Section::new("dropped", "Dropped", vec![Part::Table(dropped(candidates))]),
        ],
    }
}

/// Candidates by kind: written, kept, doubtful, dropped for each reason; then the asks that
/// brought nothing.
fn counts(header: &SuiteHeader<'_>, candidates: &[Candidate]) -> Vec<Part> {
    let mut columns: Vec<String> = ["kind", "written", "kept", "of which doubtful"]
        .map(String::from)
        .to_vec();
    columns.extend(
        DropReason::ALL
            .iter()
            .map(|r| format!("dropped: {}", r.as_str())),
    );
    let rows = ["per tool", "pairs", "no call", "all"]
        .iter()
        .map(|kind| {
            let of_kind: Vec<&Candidate> = candidates
                .iter()
                .filter(|c| *kind == "all" || c.kind() == *kind)
                .collect();
            let doubtful = of_kind
                .iter()
                .filter(|c| matches!(c.fate, Fate::Kept { doubtful: true, .. }))
                .count();
            let kept = of_kind.iter().filter(|c| c.kept()).count();
            let mut row = vec![
                kind.to_string(),
                of_kind.len().to_string(),
                kept.to_string(),
                doubtful.to_string(),
            ];
            row.extend(DropReason::ALL.iter().map(|reason| {
                of_kind
                    .iter()
                    .filter(|c| matches!(&c.fate, Fate::Dropped { reason: r, .. } if r == reason))
                    .count()
                    .to_string()
            }));
            row
        })
        .collect();
    let mut parts = vec![Part::Table(Table {
        caption: String::new(),
        header: columns,
        rows,
    })];
    if !header.failed_asks.is_empty() {
        parts.push(Part::Lines {
            caption: format!(
                "{} asks brought no usable reply (their requests are not counted above)",
                header.failed_asks.len()
            ),
            lines: header
                .failed_asks
                .iter()
                .map(|(ask, why)| format!("`{ask}`: {}", shown(why)))
                .collect(),
        });
    }
    parts
}

/// Every kept request with what each offline picker picked for it.
fn kept(header: &SuiteHeader<'_>, candidates: &[Candidate]) -> Table {
    let mut columns: Vec<String> = ["task", "review", "request", "expected"]
        .map(String::from)
        .to_vec();
    columns.extend(header.pickers.iter().cloned());
    let rows = candidates
        .iter()
        .filter_map(|c| match &c.fate {
            Fate::Kept { doubtful, picks } => Some((c, doubtful, picks)),
            _ => None,
        })
        .map(|(c, doubtful, picks)| {
            let mut row = vec![
                format!("`{}`", shown(&c.task_id())),
                if *doubtful { "doubtful" } else { "draft" }.to_string(),
                shown(&c.request),
                format!("`{}`", shown(c.intent.tool().unwrap_or("no call"))),
            ];
            row.extend(header.pickers.iter().map(|picker| {
                format!("`{}`", shown(picks.get(picker).map_or("—", String::as_str)))
            }));
            row
        })
        .collect();
    Table {
        caption: String::new(),
        header: columns,
        rows,
    }
}

/// Every dropped request with why.
fn dropped(candidates: &[Candidate]) -> Table {
    let rows = candidates
        .iter()
        .filter_map(|c| match &c.fate {
            Fate::Dropped { reason, detail } => Some(vec![
                format!("`{}` #{}", c.ask, c.item + 1),
                shown(&c.request),
                reason.as_str().to_string(),
                shown(detail),
            ]),
            _ => None,
        })
        .collect();
    Table {
        caption: String::new(),
        header: ["ask", "request", "reason", "detail"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}

/// Text from the drafter as a report shows it: hidden characters escaped, at most 300
/// characters (the renderer keeps it on one line and its pipes escaped).
fn shown(text: &str) -> String {
    crate::untrusted_text::shown(text, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toolset_path_is_relative_to_the_suite_folder() {
        assert_eq!(
            relative_path(Path::new("/a/drafts/x"), Path::new("/a/toolsets/t.toml")),
            PathBuf::from("../../toolsets/t.toml")
        );
        assert_eq!(
            relative_path(Path::new("/a/x"), Path::new("/a/x/t.json")),
            PathBuf::from("t.json")
        );
    }
}
