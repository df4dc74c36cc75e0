//! What a command wrote reads back as written: each format file in a folder is read through the
//! `spec` type that reads it and written again by the same type, and the text must come out the
//! same (leading `#` comment lines aside, which a command may put above the document). A file a
//! command wrote by hand, or a field the reader drops, fails here.

use mcpick::spec::{
    SuiteFile, TaskSpec, ToolsetDocument, ToolsetFile, VariantFile, json_text, toml_text,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::Path;

fn without_leading_comments(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn toml_round_trip<T: DeserializeOwned + Serialize>(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let read: T = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        toml_text(&read).unwrap(),
        without_leading_comments(&text),
        "{} does not read back as written",
        path.display()
    );
}

fn json_round_trip<T: DeserializeOwned + Serialize>(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let read: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        json_text(&read).unwrap(),
        text,
        "{} does not read back as written",
        path.display()
    );
}

/// Every task line read as a task and written again gives the same JSON value.
pub fn tasks_round_trip(path: &Path) {
    for (n, line) in std::fs::read_to_string(path).unwrap().lines().enumerate() {
        let read: TaskSpec = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
        let written: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            serde_json::to_value(&read).unwrap(),
            written,
            "{}:{} does not read back as written",
            path.display(),
            n + 1
        );
    }
}

/// Checks every format file under `dir` (recursively, run folders aside) and returns how many it
/// checked, so a caller can say it expected some.
pub fn assert_reads_back_as_written(dir: &Path) -> usize {
    let mut checked = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                // Run folders and improve's state are records, not formats users write.
                if !matches!(name.as_str(), "runs" | ".improve") {
                    stack.push(path);
                }
                continue;
            }
            if assert_file_reads_back(&path) {
                checked += 1;
            }
        }
    }
    checked
}

/// Checks one file if it is a format file (by its name and what it holds); whether it was one.
pub fn assert_file_reads_back(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let document = without_leading_comments(&text);
    match name.as_str() {
        "tasks.jsonl" | "rejected.jsonl" => tasks_round_trip(path),
        _ if name.ends_with(".json") && text.contains("\"tools\"") => {
            json_round_trip::<ToolsetDocument>(path)
        }
        _ if name.ends_with(".toml") && document.contains("\nbase = ") => {
            toml_round_trip::<VariantFile>(path)
        }
        _ if name.ends_with(".toml") && document.contains("\ntoolset = ") => {
            toml_round_trip::<SuiteFile>(path)
        }
        _ if name.ends_with(".toml") && document.contains("[[tools]]") => {
            toml_round_trip::<ToolsetFile>(path)
        }
        _ => return false,
    }
    true
}
