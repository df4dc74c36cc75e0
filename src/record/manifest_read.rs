//! Reading `manifest.json` back, as outside input: the file (at most 16 MiB), UTF-8, JSON, this
//! version's `Manifest`, and then checked against itself (`manifest_check`). What cannot be taken
//! is a `ManifestError` saying why — missing, damaged (keeping the command its text still holds,
//! so the run can be started again), or read but not holding together.

use super::manifest::{MANIFEST_FILE, Manifest};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The largest manifest read: 16 MiB (a plan of 10,000 suites' task ids is well below it).
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// Why a folder's manifest could not be taken.
#[derive(Debug, Clone, PartialEq)]
pub enum ManifestError {
    /// There is none (or it cannot be read at all).
    Missing { path: PathBuf, reason: String },
    /// It is there but does not read as a manifest: truncated, not JSON, or not this shape. What
    /// could still be read of its text: the command that started the run.
    Damaged {
        path: PathBuf,
        reason: String,
        command: Option<Vec<String>>,
    },
    /// It reads, but does not hold together: a number out of bounds, a shard outside its split, a
    /// plan hash its settings and files no longer give. Each problem, one sentence each.
    Inconsistent {
        path: PathBuf,
        problems: Vec<String>,
    },
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ManifestError::Missing { path, reason } => {
                write!(f, "cannot read {}: {reason}", path.display())
            }
            ManifestError::Damaged { path, reason, .. } => {
                write!(f, "{} is damaged: {reason}", path.display())
            }
            ManifestError::Inconsistent { path, problems } => {
                write!(
                    f,
                    "{} cannot be trusted: {}",
                    path.display(),
                    problems.join("; ")
                )
            }
        }
    }
}

impl Manifest {
    /// Reads the manifest of the run folder at `folder`, with its text as it is on disk (which
    /// `report.html` shows as it is), and checks it holds together (`manifest_check`): a manifest
    /// edited or forged since the run wrote it is `Inconsistent`, never acted on.
    pub fn read(folder: &Path) -> Result<(Manifest, String), ManifestError> {
        let path = folder.join(MANIFEST_FILE);
        let missing = |e: std::io::Error| ManifestError::Missing {
            path: path.clone(),
            reason: e.to_string(),
        };
        let damaged = |reason: String, text: &str| ManifestError::Damaged {
            path: path.clone(),
            reason,
            command: recorded_command(text),
        };
        // A manifest is a few kilobytes; one far larger was not written by mcpick.
        let size = std::fs::metadata(&path).map_err(missing)?.len();
        if size > MAX_MANIFEST_BYTES {
            return Err(damaged(
                format!("{size} bytes, more than a manifest can be ({MAX_MANIFEST_BYTES})"),
                "",
            ));
        }
        let bytes = std::fs::read(&path).map_err(missing)?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
                return Err(damaged("not UTF-8 text".into(), &lossy));
            }
        };
        match serde_json::from_str::<Value>(&text).and_then(|value| {
            let manifest = Manifest::deserialize(&value)?;
            Ok((manifest, value))
        }) {
            Ok((manifest, value)) => {
                let problems = super::manifest_check::problems(&manifest, &value);
                if problems.is_empty() {
                    Ok((manifest, text))
                } else {
                    Err(ManifestError::Inconsistent {
                        path: path.clone(),
                        problems,
                    })
                }
            }
            Err(e) if e.is_syntax() || e.is_eof() => Err(damaged(format!("not JSON ({e})"), &text)),
            Err(e) => Err(damaged(
                format!("not a run manifest this version reads ({e})"),
                &text,
            )),
        }
    }
}

/// The command line a damaged manifest still holds: `command` is written second, so a manifest cut
/// short usually keeps it whole.
fn recorded_command(text: &str) -> Option<Vec<String>> {
    let at = text.find("\"command\"")?;
    let rest = text[at + "\"command\"".len()..].trim_start();
    let rest = rest.strip_prefix(':')?;
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Vec<String>>();
    values.next()?.ok().filter(|words| !words.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREVIOUS_FORMAT: &str = include_str!("../../tests/data/manifests/typeless.json");

    #[test]
    fn a_damaged_manifest_keeps_its_command() {
        let dir = tempfile::tempdir().unwrap();
        let cut = &PREVIOUS_FORMAT[..PREVIOUS_FORMAT.len() / 2];
        std::fs::write(dir.path().join(MANIFEST_FILE), cut).unwrap();
        let Err(ManifestError::Damaged {
            reason, command, ..
        }) = Manifest::read(dir.path())
        else {
            panic!("a manifest cut in half is damaged")
        };
        assert!(reason.starts_with("not JSON"), "{reason}");
        let command = command.expect("the command is near the start");
        assert_eq!(command[1], "run");
        std::fs::write(dir.path().join(MANIFEST_FILE), b"\xff\xfe{").unwrap();
        assert!(matches!(
            Manifest::read(dir.path()),
            Err(ManifestError::Damaged { command: None, .. })
        ));
        assert!(matches!(
            Manifest::read(&dir.path().join("nowhere")),
            Err(ManifestError::Missing { .. })
        ));
    }

    /// A manifest as a run writes it reads back: with a temperature (an `f32`, hashed widened by
    /// the plan and written short) too. One setting edited after is named.
    #[test]
    fn a_written_manifest_holds_together_and_an_edit_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest: Manifest = serde_json::from_str(PREVIOUS_FORMAT).unwrap();
        manifest.options.backend.local.temperature = Some(0.8);
        let files = serde_json::to_value(&manifest.files).unwrap();
        manifest.plan_hash =
            super::super::plan_hash(&serde_json::to_value(&manifest.options).unwrap(), &files);
        let written: Value = serde_json::from_str(&manifest.to_json()).unwrap();
        manifest.setting_hashes = super::super::setting_hashes(&written["options"]);
        std::fs::write(dir.path().join(MANIFEST_FILE), manifest.to_json()).unwrap();
        assert!(Manifest::read(dir.path()).is_ok());
        manifest.options.concurrency = 2;
        std::fs::write(dir.path().join(MANIFEST_FILE), manifest.to_json()).unwrap();
        let Err(ManifestError::Inconsistent { problems, .. }) = Manifest::read(dir.path()) else {
            panic!("an edited manifest is refused")
        };
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("the setting(s) `concurrency` (now 2) changed"),
            "{problems:?}"
        );
    }
}
