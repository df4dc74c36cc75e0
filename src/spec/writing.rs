//! The one way a format file becomes text: a spec struct (whose constructor stamped the format
//! version) out as TOML or pretty JSON, ending in a newline, which its reader takes back as it was.
//! No other module spells a format header.

use serde::Serialize;

/// `file` as TOML text.
pub fn toml_text<T: Serialize>(file: &T) -> Result<String, String> {
    toml::to_string(file).map_err(|e| format!("cannot write as TOML: {e}"))
}

/// A task as one line of a task file (JSON Lines), with its newline: the task read through
/// `TaskSpec` and written back by it, so what a command builds as JSON lands in the file exactly as
/// the reader will take it.
pub fn task_line(task: &serde_json::Value) -> Result<String, String> {
    let spec: crate::spec::TaskSpec = serde_json::from_value(task.clone())
        .map_err(|e| format!("task {}: not a task: {e}", task["id"]))?;
    serde_json::to_string(&spec)
        .map(|line| line + "\n")
        .map_err(|e| format!("cannot write task {}: {e}", task["id"]))
}

/// `file` as pretty-printed JSON, with a final newline.
pub fn json_text<T: Serialize>(file: &T) -> Result<String, String> {
    serde_json::to_string_pretty(file)
        .map(|text| text + "\n")
        .map_err(|e| format!("cannot write as JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{SuiteFile, TaskSpec, ToolsetDocument, ToolsetFile, VariantFile};
    use serde::de::DeserializeOwned;
    use std::path::{Path, PathBuf};

    fn shipped(folder: &str) -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml" || e == "jsonl"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}", dir.display());
        files
    }

    /// Read, written, read again: the second reading equals the first (compared as JSON values,
    /// which is what every field is made of), and writing it once more gives the same text.
    fn round_trip_toml<T: DeserializeOwned + Serialize>(path: &Path) {
        let text = std::fs::read_to_string(path).unwrap();
        let first: T = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let written = toml_text(&first).unwrap();
        let second: T = toml::from_str(&written)
            .unwrap_or_else(|e| panic!("{} as written: {e}\n{written}", path.display()));
        assert_eq!(
            serde_json::to_value(&first).unwrap(),
            serde_json::to_value(&second).unwrap(),
            "{}",
            path.display()
        );
        assert_eq!(toml_text(&second).unwrap(), written, "{}", path.display());
    }

    #[test]
    fn every_shipped_toolset_variant_and_suite_reads_back_as_written() {
        for path in shipped("toolsets") {
            round_trip_toml::<ToolsetFile>(&path);
        }
        for path in shipped("toolsets/variants") {
            round_trip_toml::<VariantFile>(&path);
        }
        for path in shipped("tasks") {
            if path.extension().is_some_and(|e| e == "toml") {
                round_trip_toml::<SuiteFile>(&path);
                continue;
            }
            // A task file: one task per line, each written back as one line of JSON.
            for (n, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
                let first: TaskSpec = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
                let written = serde_json::to_string(&first).unwrap();
                let second: TaskSpec = serde_json::from_str(&written).unwrap();
                assert_eq!(
                    serde_json::to_value(&first).unwrap(),
                    serde_json::to_value(&second).unwrap()
                );
            }
        }
    }

    #[test]
    fn a_new_file_carries_the_format_this_build_reads() {
        let suite = toml_text(&SuiteFile::new("s", "t.toml")).unwrap();
        assert!(suite.starts_with(&format!("format = {}\n", crate::spec::FORMAT_VERSION)));
        let variant: VariantFile =
            toml::from_str(&toml_text(&VariantFile::new("v", "t")).unwrap()).unwrap();
        assert_eq!(variant.format.value, crate::spec::FORMAT_VERSION);
        let document = json_text(&ToolsetDocument::new("t", None, Vec::new())).unwrap();
        let read: ToolsetDocument = serde_json::from_str(&document).unwrap();
        assert_eq!(read.format, crate::spec::FORMAT_VERSION);
        assert!(document.ends_with("}\n"));
    }
}
