//! The output folder of a command that works in steps and resumes (`improve`, `explain`): held by
//! one process at a time (a lock in its state folder, `.COMMAND/lock`), bound to the settings it
//! was started with (`.COMMAND/settings.json`: the same folder with other settings is another
//! experiment, refused rather than mixed), and keeping the time every invocation spent on it
//! (`.COMMAND/seconds`), so a resumed command reports the whole. Files are written whole
//! (`file_replace`).

use std::path::{Path, PathBuf};

/// A command's folder, held for as long as this value lives.
pub struct WorkFolder {
    pub out: PathBuf,
    pub state: PathBuf,
    /// Whether the folder already held this command's work with these settings.
    pub resumed: bool,
    _lock: std::fs::File,
}

impl WorkFolder {
    /// Holds `out` for `command`, bound to `settings`; refused when another process holds it or
    /// it holds work of other settings.
    pub fn open(
        out: &Path,
        command: &str,
        settings: &serde_json::Value,
    ) -> Result<WorkFolder, String> {
        let state = out.join(format!(".{command}"));
        std::fs::create_dir_all(&state).map_err(|e| format!("{}: {e}", state.display()))?;
        let path = state.join("lock");
        let lock = crate::folder_lock::try_hold(&path)?.ok_or_else(|| {
            format!(
                "another {command} is working in {} (it holds {}); wait for it to finish, or give a new -o",
                out.display(),
                path.display()
            )
        })?;
        let recorded = state.join("settings.json");
        let resumed = match std::fs::read_to_string(&recorded) {
            Ok(text)
                if serde_json::from_str::<serde_json::Value>(&text).ok()
                    != Some(settings.clone()) =>
            {
                return Err(format!(
                    "{} holds {command} work of other settings (see {}); give a new -o",
                    out.display(),
                    recorded.display()
                ));
            }
            Ok(_) => true,
            Err(_) => {
                write(&recorded, &settings.to_string())?;
                false
            }
        };
        Ok(WorkFolder {
            out: out.to_path_buf(),
            state,
            resumed,
            _lock: lock,
        })
    }

    /// Adds `seconds` to the time every invocation spent here; returns the total.
    pub fn add_seconds(&self, seconds: f64) -> Result<f64, String> {
        let clock = self.state.join("seconds");
        let earlier: f64 = std::fs::read_to_string(&clock)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0.0);
        let total = earlier + seconds;
        write(&clock, &total.to_string())?;
        Ok(total)
    }
}

/// Writes `text` to `path` whole, creating its folder.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    crate::file_replace::replace(path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_bound_to_its_settings_and_held_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let settings = serde_json::json!({"a": 1});
        let first = WorkFolder::open(dir.path(), "explain", &settings).unwrap();
        assert!(!first.resumed);
        let held = WorkFolder::open(dir.path(), "explain", &settings)
            .err()
            .unwrap();
        assert!(held.contains("another explain is working"), "{held}");
        assert_eq!(first.add_seconds(2.5).unwrap(), 2.5);
        drop(first);
        let again = WorkFolder::open(dir.path(), "explain", &settings).unwrap();
        assert!(again.resumed);
        assert_eq!(again.add_seconds(1.0).unwrap(), 3.5);
        drop(again);
        let other = WorkFolder::open(dir.path(), "explain", &serde_json::json!({"a": 2}));
        assert!(other.err().unwrap().contains("other settings"));
    }
}
