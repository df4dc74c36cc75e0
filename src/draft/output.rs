//! What `mcpick draft` writes: the suite (`suite.toml` naming the toolset and who drafted it, and
//! `tasks.jsonl`, one kept candidate per line with `review` and `provenance`), in the formats
//! `validate`, `run`, `ab` and `sweep` read, and `DRAFT.md`: every candidate kept or dropped, with
//! why, counted per reason. Each file is replaced whole (temporary file, sync, rename), and the
//! suite file last, so a folder never holds a suite whose task file is half written.

use super::asks::Intent;
use super::candidate::{Candidate, DropReason, Fate};
use super::folder::EarlierTasks;
use crate::file_replace::replace;
use crate::spec::{DraftedBySpec, Located, SuiteFile, toml_text};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
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
        lines.push_str(&record.to_string());
        lines.push('\n');
    }
    replace(&dir.join("tasks.jsonl"), lines.as_bytes())?;
    replace(
        &dir.join("DRAFT.md"),
        draft_report(header, candidates).as_bytes(),
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
        draft_report(header, candidates).as_bytes(),
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

fn draft_report(header: &SuiteHeader<'_>, candidates: &[Candidate]) -> String {
    let a = header.authorship;
    let mut md = String::new();
    let _ = writeln!(md, "# Draft: {} ({} tools)\n", header.suite, header.tools);
    let _ = writeln!(
        md,
        "Drafted by `{}` (model {}), prompt templates `{}`, seed {}, in {:.0} s. Every request below was checked by code: leakage of the tool's name, the expected call against the tool's schema and the request's own words, near-duplicates, the suite's own load checks; then put to the offline pickers ({}). Nothing was relabelled: a request no picker maps to its intended tool is kept as `doubtful`.\n",
        a.drafter,
        a.model,
        &a.prompt_template[..a.prompt_template.len().min(12)],
        a.seed,
        header.seconds,
        header.pickers.join(", ")
    );
    if header.earlier > 0 {
        let _ = writeln!(
            md,
            "The folder held {} tasks from before (accepted, edited or pending): they are kept as they were, ahead of the new ones, and no request already there or rejected in a review was kept again.\n",
            header.earlier
        );
    }
    md.push_str("## Counts\n\n| kind | written | kept | of which doubtful |");
    for reason in DropReason::ALL {
        let _ = write!(md, " dropped: {} |", reason.as_str());
    }
    md.push_str("\n|---|---:|---:|---:|");
    md.push_str(&"---:|".repeat(DropReason::ALL.len()));
    md.push('\n');
    for kind in ["per tool", "pairs", "no call", "all"] {
        let of_kind: Vec<&Candidate> = candidates
            .iter()
            .filter(|c| kind == "all" || c.kind() == kind)
            .collect();
        let doubtful = of_kind
            .iter()
            .filter(|c| matches!(c.fate, Fate::Kept { doubtful: true, .. }))
            .count();
        let kept = of_kind.iter().filter(|c| c.kept()).count();
        let _ = write!(md, "| {kind} | {} | {kept} | {doubtful} |", of_kind.len());
        for reason in DropReason::ALL {
            let n = of_kind
                .iter()
                .filter(|c| matches!(&c.fate, Fate::Dropped { reason: r, .. } if *r == reason))
                .count();
            let _ = write!(md, " {n} |");
        }
        md.push('\n');
    }
    if !header.failed_asks.is_empty() {
        let _ = writeln!(
            md,
            "\n{} asks brought no usable reply (their requests are not counted above):\n",
            header.failed_asks.len()
        );
        for (ask, why) in header.failed_asks {
            let _ = writeln!(md, "- `{ask}`: {}", cell(why));
        }
    }
    let _ = write!(md, "\n## Kept\n\n| task | review | request | expected |");
    for picker in &header.pickers {
        let _ = write!(md, " {picker} |");
    }
    md.push_str("\n|---|---|---|---|");
    md.push_str(&"---|".repeat(header.pickers.len()));
    md.push('\n');
    for c in candidates.iter().filter(|c| c.kept()) {
        let Fate::Kept { doubtful, picks } = &c.fate else {
            continue;
        };
        let expected = c.intent.tool().unwrap_or("no call");
        let _ = write!(
            md,
            "| `{}` | {} | {} | `{}` |",
            cell(&c.task_id()),
            if *doubtful { "doubtful" } else { "draft" },
            cell(&c.request),
            cell(expected)
        );
        for picker in &header.pickers {
            let pick = picks.get(picker).map_or("—", String::as_str);
            let _ = write!(md, " `{}` |", cell(pick));
        }
        md.push('\n');
    }
    md.push_str("\n## Dropped\n\n| ask | request | reason | detail |\n|---|---|---|---|\n");
    for c in candidates {
        if let Fate::Dropped { reason, detail } = &c.fate {
            let _ = writeln!(
                md,
                "| `{}` #{} | {} | {} | {} |",
                c.ask,
                c.item + 1,
                cell(&c.request),
                reason.as_str(),
                cell(detail)
            );
        }
    }
    md
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text safe in a Markdown table cell: one line, hidden characters escaped, at most 300
/// characters.
fn cell(text: &str) -> String {
    one_line(&crate::untrusted_text::shown(text, 300)).replace('|', "\\|")
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
