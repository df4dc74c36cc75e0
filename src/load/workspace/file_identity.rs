//! When two paths name one file: `toolsets/x.json`, `./toolsets/x.json` and
//! `../ws/toolsets/x.json` from a suite elsewhere are the same toolset. Every comparison of a
//! loaded file with a path asks `file_key`, so one file is one toolset however it is reached.

use std::path::{Component, Path, PathBuf};

/// A path's identity: the canonical path of a file that exists (symbolic links and `..` resolved
/// against the disk), else the path with `.` and `..` removed by their names.
pub fn file_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| lexical(path))
}

/// Removes `.` and `..` components without asking the disk: how a file is named in reports.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_reached_through_two_paths_has_one_key() {
        let dir = tempfile::tempdir().unwrap();
        let toolsets = dir.path().join("ws/toolsets");
        std::fs::create_dir_all(&toolsets).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
        std::fs::write(toolsets.join("x.json"), "{}").unwrap();
        let direct = toolsets.join("x.json");
        let around = dir.path().join("elsewhere/../ws/./toolsets/x.json");
        assert_eq!(file_key(&direct), file_key(&around));
        assert_ne!(file_key(&direct), file_key(&toolsets.join("y.json")));
    }

    #[test]
    fn a_missing_file_is_named_by_its_components() {
        assert_eq!(
            file_key(Path::new("./a/b/../c.toml")),
            PathBuf::from("a/c.toml")
        );
    }
}
