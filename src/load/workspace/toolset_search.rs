//! Where a suite's `toolset` is looked for on disk when no loaded toolset has that name: a path,
//! from the suite's folder; or a name, as a file `NAME.toml` or `NAME.json` in the suite's folder,
//! its parent, `../toolsets` or `./toolsets` — else a file there whose declared `name` it is (as
//! `run`, which loads all of `toolsets/`, finds it). The suite's own file is never its toolset.

use super::file_identity::file_key;
use std::path::{Path, PathBuf};

/// The file `reference` (a path when `is_path`) means for the suite at `near`, if any.
pub fn toolset_file(reference: &str, is_path: bool, near: &Path) -> Option<PathBuf> {
    let dir = near.parent().unwrap_or(Path::new("."));
    if is_path {
        return Some(dir.join(reference)).filter(|p| p.is_file());
    }
    let folders = [
        dir.to_path_buf(),
        dir.join(".."),
        dir.join("../toolsets"),
        PathBuf::from("toolsets"),
    ];
    // `tasks/fs.toml` naming toolset "fs" is a candidate by its name, and not the toolset.
    let own = file_key(near);
    let named = folders
        .iter()
        .flat_map(|folder| ["toml", "json"].map(|ext| folder.join(format!("{reference}.{ext}"))))
        .find(|p| p.is_file() && file_key(p) != own);
    named.or_else(|| declaring_file(&folders, reference, &own))
}

/// The first file in `folders` (other than the one asking) whose top-level `name` is `name`.
fn declaring_file(folders: &[PathBuf], name: &str, own: &Path) -> Option<PathBuf> {
    let declared = |path: &Path| -> Option<String> {
        let text = std::fs::read_to_string(path).ok()?;
        let value = match path.extension()?.to_str()? {
            "json" => serde_json::from_str::<serde_json::Value>(&text).ok()?,
            "toml" => serde_json::to_value(toml::from_str::<toml::Table>(&text).ok()?).ok()?,
            _ => return None,
        };
        Some(value.get("name")?.as_str()?.to_string())
    };
    folders.iter().find_map(|folder| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        files
            .into_iter()
            .find(|p| file_key(p) != own && declared(p).as_deref() == Some(name))
    })
}
