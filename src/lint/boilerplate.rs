//! Boilerplate: the same run of words repeated in the descriptions of several of a server's tools
//! (desktop-commander repeats ~600 characters about absolute paths and Docker mounts in eleven).
//! A model reads it once per tool on every listing and learns nothing from it that tells the tools
//! apart; what is said of every tool belongs in the server's `instructions`. Flagged once per
//! repeated text, and cut from the descriptions before their similarity is measured, so tools are
//! not paired as alike through what they all say.

use super::{Finding, LintSeverity, Rule, push};
use crate::model::Toolset;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

/// A run of words counts as repeated text when every stretch of this many consecutive words in
/// it is in other tools' descriptions too: long enough that a shared phrase ("the path of the
/// file to read") is not boilerplate, short enough to catch one repeated sentence.
pub const RUN_WORDS: usize = 8;

/// In at least this many tools' descriptions: two tools sharing a sentence may be a pair meant to
/// be read together; three is a pattern.
pub const MIN_TOOLS: usize = 3;

/// And in at least this share of the toolset's tools: what a server says in many of its tools
/// belongs in its `instructions`, but a note a family of tools shares (four file tools of
/// `toolsets/files.toml`'s 26 saying how `path` is written) is what the chapter asks a
/// description to say, and those tools are alike.
pub const MIN_SHARE: f64 = 0.25;

/// How many tools must hold a text for it to be boilerplate, in a toolset of `tools` tools.
pub fn min_holders(tools: usize) -> usize {
    MIN_TOOLS.max((tools as f64 * MIN_SHARE).ceil() as usize)
}

/// One repeated text.
#[derive(Debug, Clone, PartialEq)]
pub struct Boilerplate {
    /// The text as the first tool that has it writes it, its whitespace collapsed.
    pub text: String,
    /// The tools (by position) whose descriptions hold it.
    pub tools: Vec<usize>,
}

impl Boilerplate {
    /// Characters it adds to one `tools/list`: its length in every tool that holds it.
    pub fn characters_per_listing(&self) -> usize {
        self.text.chars().count() * self.tools.len()
    }
}

/// The words of a text (lowercase letters and digits) and where each stands in it.
fn words(text: &str) -> Vec<(String, Range<usize>)> {
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((text[from..at].to_lowercase(), from..at));
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// For each tool, the byte ranges of its description that are repeated text.
fn repeated_ranges(descriptions: &[&str]) -> Vec<Vec<Range<usize>>> {
    let required = min_holders(descriptions.len());
    let words: Vec<Vec<(String, Range<usize>)>> = descriptions.iter().map(|d| words(d)).collect();
    let window = |ws: &[(String, Range<usize>)]| {
        ws.iter()
            .map(|(w, _)| w.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut holders: HashMap<String, BTreeSet<usize>> = HashMap::new();
    for (tool, ws) in words.iter().enumerate() {
        for run in ws.windows(RUN_WORDS) {
            holders.entry(window(run)).or_default().insert(tool);
        }
    }
    words
        .iter()
        .map(|ws| {
            let mut covered = vec![false; ws.len()];
            for (at, run) in ws.windows(RUN_WORDS).enumerate() {
                if holders
                    .get(&window(run))
                    .is_some_and(|t| t.len() >= required)
                {
                    covered[at..at + RUN_WORDS].fill(true);
                }
            }
            let mut ranges: Vec<Range<usize>> = Vec::new();
            let mut previous = false;
            for ((_, span), covered) in ws.iter().zip(covered) {
                match (covered, previous, ranges.last_mut()) {
                    (true, true, Some(last)) => last.end = span.end,
                    (true, _, _) => ranges.push(span.clone()),
                    _ => {}
                }
                previous = covered;
            }
            ranges
        })
        .collect()
}

fn descriptions(toolset: &Toolset) -> Vec<&str> {
    toolset
        .tools
        .iter()
        .map(|t| t.description.as_deref().unwrap_or(""))
        .collect()
}

/// The repeated texts of a toolset, each once, most widely repeated first. A run repeated with
/// differences (one tool's copy runs on into a sentence three others also repeat) is taken apart:
/// the most widely held text is reported, and what is left of the run around it is weighed again.
pub fn boilerplate(toolset: &Toolset) -> Vec<Boilerplate> {
    let descriptions = descriptions(toolset);
    let normalised: Vec<String> = descriptions
        .iter()
        .map(|d| format!(" {} ", joined(&words(d))))
        .collect();
    let holders = |key: &str| -> Vec<usize> {
        let needle = format!(" {key} ");
        (0..normalised.len())
            .filter(|&t| normalised[t].contains(&needle))
            .collect()
    };
    let mut candidates: Vec<(String, Vec<usize>)> = Vec::new();
    for (tool, ranges) in repeated_ranges(&descriptions).into_iter().enumerate() {
        for range in ranges {
            let key = joined(&words(&descriptions[tool][range]));
            if !candidates.iter().any(|(k, _)| *k == key) {
                let tools = holders(&key);
                candidates.push((key, tools));
            }
        }
    }
    let mut chosen: Vec<(String, Vec<usize>)> = Vec::new();
    while !candidates.is_empty() {
        candidates.sort_by(|a, b| a.1.len().cmp(&b.1.len()).then(a.0.len().cmp(&b.0.len())));
        let Some((key, tools)) = candidates.pop() else {
            break;
        };
        if tools.len() < min_holders(descriptions.len()) {
            continue;
        }
        let chosen_keys: Vec<&str> = chosen.iter().map(|(k, _)| k.as_str()).collect();
        let left = outside_runs_of(&key, &chosen_keys);
        if left.len() == 1 && left[0] == key {
            chosen.push((key, tools));
            continue;
        }
        for fragment in left {
            if !candidates.iter().any(|(k, _)| *k == fragment) {
                let tools = holders(&fragment);
                candidates.push((fragment, tools));
            }
        }
    }
    chosen
        .into_iter()
        .filter_map(|(key, tools)| {
            let text = original_text(descriptions[*tools.first()?], &key)?;
            Some(Boilerplate { text, tools })
        })
        .collect()
}

/// The parts (as normalised words) of a repeated text that share no run of `RUN_WORDS` words with
/// texts already reported, each at least `RUN_WORDS` words long.
fn outside_runs_of(key: &str, reported: &[&str]) -> Vec<String> {
    let words: Vec<&str> = key.split(' ').collect();
    let mut inside = vec![false; words.len()];
    for (at, run) in words.windows(RUN_WORDS).enumerate() {
        let run = format!(" {} ", run.join(" "));
        if reported.iter().any(|r| format!(" {r} ").contains(&run)) {
            inside[at..at + RUN_WORDS].fill(true);
        }
    }
    let mut parts = Vec::new();
    let mut part: Vec<&str> = Vec::new();
    for (word, inside) in words.iter().zip(inside.iter().chain([&true])) {
        if *inside {
            if part.len() >= RUN_WORDS {
                parts.push(part.join(" "));
            }
            part.clear();
        } else {
            part.push(word);
        }
    }
    if part.len() >= RUN_WORDS {
        parts.push(part.join(" "));
    }
    parts
}

/// A repeated text as a description writes it (whitespace collapsed): the stretch of the
/// description from the first to the last of its words.
fn original_text(description: &str, key: &str) -> Option<String> {
    let words = words(description);
    let wanted: Vec<&str> = key.split(' ').collect();
    let at = words.windows(wanted.len()).position(|run| {
        run.iter()
            .map(|(w, _)| w.as_str())
            .eq(wanted.iter().copied())
    })?;
    let span = words[at].1.start..words[at + wanted.len() - 1].1.end;
    Some(
        description[span]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    )
}

fn joined(words: &[(String, Range<usize>)]) -> String {
    words
        .iter()
        .map(|(w, _)| w.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each tool's description with the text it repeats from other tools cut out: what tells the
/// tools apart, which the similarity check compares.
pub fn distinct_descriptions(toolset: &Toolset) -> Vec<String> {
    let descriptions = descriptions(toolset);
    repeated_ranges(&descriptions)
        .into_iter()
        .zip(&descriptions)
        .map(|(ranges, description)| {
            let mut kept = String::new();
            let mut from = 0;
            for range in ranges {
                kept.push_str(&description[from..range.start]);
                kept.push(' ');
                from = range.end;
            }
            kept.push_str(&description[from..]);
            kept
        })
        .collect()
}

/// The most of a repeated text a finding quotes.
const QUOTED_CHARACTERS: usize = 120;

pub(super) fn lint_boilerplate(toolset: &Toolset, findings: &mut Vec<Finding>) {
    let total = toolset.tools.len();
    for repeated in boilerplate(toolset) {
        let length = repeated.text.chars().count();
        let quoted: String = if length > QUOTED_CHARACTERS {
            let head: String = repeated.text.chars().take(QUOTED_CHARACTERS).collect();
            format!("{head}…")
        } else {
            repeated.text.clone()
        };
        let names: Vec<&str> = repeated
            .tools
            .iter()
            .map(|&t| toolset.tools[t].name.as_str())
            .collect();
        push(
            findings,
            None,
            Rule::Boilerplate,
            LintSeverity::Warning,
            format!(
                "{} of {total} tools repeat the same {length} characters in their descriptions, {} characters per tools/list: {quoted:?} ({})",
                repeated.tools.len(),
                repeated.characters_per_listing(),
                names.join(", ")
            ),
            "say it once in the server's `instructions` (hosts put them in the prompt), or drop it; keep in each description only what tells that tool from the others".into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Tool;
    use serde_json::json;

    const SHARED: &str =
        "Always use absolute paths for reliability, relative paths may fail in containers.";

    fn toolset(descriptions: &[&str]) -> Toolset {
        Toolset {
            name: "t".into(),
            description: None,
            instructions: None,
            source: "t.toml".into(),
            variant: None,
            lint_allow: Vec::new(),
            registry: None,
            tools: descriptions
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    Tool::in_code(&format!("tool_{i}"), (*d).into(), json!({"type": "object"}))
                })
                .collect(),
        }
    }

    #[test]
    fn a_sentence_in_three_tools_is_boilerplate_once() {
        let toolset = toolset(&[
            &format!("Read a file. {SHARED}"),
            &format!("Write a file.\n   {SHARED}"),
            &format!("{SHARED} Move a file."),
            "Search the web.",
        ]);
        let found = boilerplate(&toolset);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].text, SHARED.trim_end_matches('.'));
        assert_eq!(found[0].tools, vec![0, 1, 2]);
        assert_eq!(
            found[0].characters_per_listing(),
            3 * found[0].text.chars().count()
        );
    }

    #[test]
    fn a_sentence_two_tools_share_is_not() {
        let toolset = toolset(&[
            &format!("Read a file. {SHARED}"),
            &format!("Write a file. {SHARED}"),
            "Move a file.",
        ]);
        assert!(boilerplate(&toolset).is_empty());
    }

    #[test]
    fn a_run_repeated_with_differences_is_taken_apart() {
        const EVERYWHERE: &str =
            "This command can be referenced by its short name in your instructions.";
        let toolset = toolset(&[
            &format!("Read one file. {SHARED} {EVERYWHERE}"),
            &format!("Write to a folder. {SHARED} {EVERYWHERE}"),
            &format!("Move the archive. {SHARED} {EVERYWHERE}"),
            &format!("Search the web. {EVERYWHERE}"),
            &format!("Send an email. {EVERYWHERE}"),
        ]);
        let found = boilerplate(&toolset);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].text, EVERYWHERE.trim_end_matches('.'));
        assert_eq!(found[0].tools, vec![0, 1, 2, 3, 4]);
        assert!(
            found[1].text.starts_with("Always use absolute paths"),
            "{found:?}"
        );
        assert_eq!(found[1].tools, vec![0, 1, 2]);
    }

    #[test]
    fn a_sentence_a_small_family_of_a_large_toolset_shares_is_not() {
        let mut descriptions = vec![
            format!("Read one file. {SHARED}"),
            format!("Write to a folder. {SHARED}"),
            format!("Move the archive. {SHARED}"),
        ];
        descriptions.extend((0..10).map(|i| format!("Tool number {i} of the rest.")));
        let descriptions: Vec<&str> = descriptions.iter().map(String::as_str).collect();
        assert_eq!(min_holders(13), 4);
        let toolset = toolset(&descriptions);
        assert!(boilerplate(&toolset).is_empty());
        // Nor is it cut before similarity: those three tools are alike.
        assert!(distinct_descriptions(&toolset)[0].contains("absolute paths"));
    }

    #[test]
    fn a_short_phrase_in_every_tool_is_not() {
        let toolset = toolset(&[
            "Read the file at the path.",
            "Write the file at the path.",
            "Move the file at the path.",
        ]);
        assert!(boilerplate(&toolset).is_empty());
    }

    #[test]
    fn repeated_text_is_cut_before_similarity_is_measured() {
        let toolset = toolset(&[
            &format!("Read one file. {SHARED}"),
            &format!("Write to a folder. {SHARED}"),
            &format!("Move the archive. {SHARED}"),
        ]);
        let distinct = distinct_descriptions(&toolset);
        assert_eq!(
            distinct[0].split_whitespace().collect::<Vec<_>>(),
            ["Read", "one", "file.", "."]
        );
        assert!(!distinct.iter().any(|d| d.contains("absolute")));
    }
}
