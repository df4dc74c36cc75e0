//! The response cache: hosted models' replies in an embedded SQLite file, keyed by the SHA-256 of
//! everything that determines a reply (backend, model, parameters, system prompt, messages, tools), so
//! rerunning a plan makes no network calls and costs nothing. A cache that cannot be opened or
//! written is reported once and the run goes on without it: it is an accelerator, never a source of
//! failures.

use crate::backend::Reply;
use rusqlite::{Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// mcpick's cache folder: `$MCPICK_CACHE_DIR`, else `$XDG_CACHE_HOME/mcpick`, else
/// `~/.cache/mcpick` (the response cache and `improve`'s held-out ledger live here).
pub fn cache_folder() -> PathBuf {
    std::env::var_os("MCPICK_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("mcpick")))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("mcpick"))
        })
        .unwrap_or_else(|| PathBuf::from(".mcpick-cache"))
}

pub struct ResponseCache {
    pub path: PathBuf,
    connection: Mutex<Connection>,
}

impl ResponseCache {
    pub fn open(path: &Path) -> Result<ResponseCache, String> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let connection =
            Connection::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        // WAL lets two runs share the file; the busy timeout makes the second wait, not fail.
        connection
            .busy_timeout(std::time::Duration::from_secs(10))
            .and_then(|_| {
                connection.pragma_update(None, "journal_mode", "WAL")?;
                connection.execute_batch(
                    "CREATE TABLE IF NOT EXISTS replies (
                         key TEXT PRIMARY KEY,
                         reply TEXT NOT NULL,
                         created TEXT NOT NULL DEFAULT (datetime('now'))
                     )",
                )
            })
            .map_err(|e| format!("{} is not a usable cache: {e}", path.display()))?;
        Ok(ResponseCache {
            path: path.to_path_buf(),
            connection: Mutex::new(connection),
        })
    }

    /// The default location: `responses.sqlite` in `cache_folder()`.
    pub fn default_path() -> PathBuf {
        cache_folder().join("responses.sqlite")
    }

    /// The content address of a request.
    pub fn key(request: &serde_json::Value) -> String {
        crate::hashing::sha256_hex(request.to_string().as_bytes())
    }

    pub fn get(&self, key: &str) -> Option<Reply> {
        let connection = self.connection.lock().ok()?;
        let text: Option<String> = connection
            .query_row("SELECT reply FROM replies WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()
            .unwrap_or_else(|e| {
                tracing::warn!(cache = %self.path.display(), %e, "cache read failed");
                None
            });
        // A row this build cannot read is a miss, not an error.
        text.and_then(|t| serde_json::from_str(&t).ok())
    }

    pub fn put(&self, key: &str, reply: &Reply) {
        let Ok(text) = serde_json::to_string(reply) else {
            return;
        };
        let Ok(connection) = self.connection.lock() else {
            return;
        };
        if let Err(e) = connection.execute(
            "INSERT OR REPLACE INTO replies (key, reply) VALUES (?1, ?2)",
            [key, text.as_str()],
        ) {
            tracing::warn!(cache = %self.path.display(), %e, "cache write failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replies_round_trip_by_content_address() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("cache.sqlite");
        let cache = ResponseCache::open(&path).unwrap();
        let key = ResponseCache::key(&json!({"model": "m", "messages": ["hi"]}));
        assert_eq!(key.len(), 64);
        assert_ne!(
            key,
            ResponseCache::key(&json!({"model": "m", "messages": ["ho"]}))
        );
        assert_eq!(cache.get(&key), None);
        let reply = Reply {
            text: Some("hello".into()),
            input_tokens: 3,
            ..Reply::default()
        };
        cache.put(&key, &reply);
        drop(cache);
        // Reopened: the reply survived.
        assert_eq!(ResponseCache::open(&path).unwrap().get(&key), Some(reply));
    }

    #[test]
    fn a_file_that_is_not_a_database_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.sqlite");
        std::fs::write(
            &path,
            "this is not sqlite, just text long enough to have a header",
        )
        .unwrap();
        let error = ResponseCache::open(&path).err().unwrap();
        assert!(error.contains("cache.sqlite"), "{error}");
    }
}
