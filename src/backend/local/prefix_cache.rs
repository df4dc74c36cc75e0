//! The persistent prefix cache: KV states of prompt prefixes worth keeping (a system turn with its
//! tool list) saved to disk, so a later run — or a later lane, variant or candidate — restores them
//! instead of evaluating thousands of tokens again. This file owns the folder and the entry files;
//! what goes in an entry (llama.cpp's sequence state) and when is `engine`'s business.
//!
//! The folder is `$MCPICK_KV_CACHE` (set but empty counts as unset), else `~/.cache/mcpick/kv`.
//! Entries live in one sub-folder per key — everything besides the tokens that determines the
//! numbers (the model file's SHA-256, the context settings, llama.cpp's build) hashed, 16 hex
//! digits — marked as the cache's by a `KEY_MARKER` file holding the key, and are named by the
//! SHA-256 of their tokens. An entry is `MAGIC`, a header (its key, its tokens, the state's length
//! and SHA-256) and the state; it is written to a temporary file, synced and renamed, so a reader
//! sees a whole entry or none, and two processes sharing the folder at worst write the same entry
//! twice. An entry whose magic, header, length, key or checksum is wrong is deleted with a warning
//! and never handed to llama.cpp; its claimed lengths are checked against the file and the cache's
//! size before anything is allocated, and its state is checksummed as it streams from disk before
//! it is read into memory. The folder is kept under `$MCPICK_KV_CACHE_MAX` bytes (default 4 GiB)
//! by deleting the least recently used entries; a restore counts as a use.
//!
//! The cache owns only what it wrote: eviction, `usage`, `clear` and the sweep of temporaries
//! left by killed writes look only in marked key folders (real folders, not links; a folder an
//! earlier version wrote without a marker is known by an entry whose key hashes to its name), at
//! regular files with the names it gives (`<64 hex>.kv`, and `file_replace`'s
//! `.<64 hex>.kv.PID-N.tmp`) that begin with `MAGIC`; an unusable file is deleted only if it so
//! begins. Another program's files in a shared folder are neither counted nor deleted.

use crate::hashing::{hex, sha256_hex};
use sha2::{Digest, Sha256};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The first bytes of every entry; the digit is the format's version.
const MAGIC: &[u8; 10] = b"MCPICK-KV1";

/// The file that marks a key folder as the cache's; it holds the key's text.
const KEY_MARKER: &str = ".mcpick-kv-key";

/// The longest header an entry may claim: its key and tokens as JSON (a million tokens of seven
/// digits fit with room to spare).
const MAX_HEADER_BYTES: u64 = 16 << 20;

/// What the folder may hold unless `$MCPICK_KV_CACHE_MAX` says otherwise: about twenty tool-list
/// prefixes of the default model (about 28 KiB a token).
pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;

/// The cache folder: `$MCPICK_KV_CACHE`, else `~/.cache/mcpick/kv`. A variable set but empty is
/// unset: it must not put the cache in the current folder.
pub fn default_folder() -> PathBuf {
    std::env::var_os("MCPICK_KV_CACHE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/mcpick/kv")))
        .unwrap_or_else(|| PathBuf::from(".mcpick-kv"))
}

/// `$MCPICK_KV_CACHE_MAX` in bytes (a number, optionally with K, M or G for binary units), else
/// `DEFAULT_MAX_BYTES`; a value that does not parse is an error naming it.
pub fn max_bytes_from_env() -> Result<u64, String> {
    match std::env::var("MCPICK_KV_CACHE_MAX") {
        Ok(text) => parse_size(&text).ok_or_else(|| {
            format!("$MCPICK_KV_CACHE_MAX = {text:?} is not a size (like 4G, 500M or 1048576)")
        }),
        Err(_) => Ok(DEFAULT_MAX_BYTES),
    }
}

fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (number, shift) = match text.chars().last()?.to_ascii_uppercase() {
        'K' => (&text[..text.len() - 1], 10),
        'M' => (&text[..text.len() - 1], 20),
        'G' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    number.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Where the cache lives and how large it may grow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheLocation {
    pub folder: PathBuf,
    pub max_bytes: u64,
    /// Whether new prefixes are saved (restoring is always on).
    pub saves: bool,
}

impl CacheLocation {
    /// `$MCPICK_KV_CACHE` (else `~/.cache/mcpick/kv`) and `$MCPICK_KV_CACHE_MAX`.
    pub fn from_env() -> Result<CacheLocation, String> {
        Ok(CacheLocation {
            folder: default_folder(),
            max_bytes: max_bytes_from_env()?,
            saves: true,
        })
    }
}

/// An entry read back whole and checked.
#[derive(Debug)]
pub struct Entry {
    pub tokens: Vec<i32>,
    pub state: Vec<u8>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Header {
    key: String,
    tokens: Vec<i32>,
    state_bytes: u64,
    state_sha256: String,
}

/// The entries of one key.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    root: PathBuf,
    folder: PathBuf,
    key: String,
    max_bytes: u64,
    saves: bool,
}

impl PrefixCache {
    /// The cache in `root` for entries made under `key` (every setting that changes the numbers,
    /// as text).
    pub fn new(root: &Path, key: &str, max_bytes: u64) -> PrefixCache {
        PrefixCache {
            root: root.to_path_buf(),
            folder: root.join(&sha256_hex(key.as_bytes())[..16]),
            key: key.to_string(),
            max_bytes,
            saves: true,
        }
    }

    /// The same cache, saved to or (`false`) only restored from.
    pub fn saving(self, saves: bool) -> PrefixCache {
        PrefixCache { saves, ..self }
    }

    /// Whether new prefixes are saved.
    pub fn saves(&self) -> bool {
        self.saves
    }

    fn path_of(&self, tokens: &[i32]) -> PathBuf {
        self.folder.join(format!("{}.kv", tokens_sha256(tokens)))
    }

    /// Whether an entry for exactly these tokens is stored (not checked).
    pub fn holds(&self, tokens: &[i32]) -> bool {
        self.path_of(tokens).is_file()
    }

    /// The stored entry sharing the longest prefix with `tokens`, if that prefix is longer than
    /// `at_least`: its path and the shared length. Reads only the headers.
    pub fn longest_prefix(&self, tokens: &[i32], at_least: usize) -> Option<(PathBuf, usize)> {
        let mut best: Option<(PathBuf, usize)> = None;
        for path in entry_files(&self.folder) {
            let header = match read_header(&path) {
                Ok((header, _)) if header.key == self.key => header,
                Ok(_) => {
                    self.discard(&path, "it was made under other settings");
                    continue;
                }
                Err(why) => {
                    self.discard(&path, &why);
                    continue;
                }
            };
            let shared = header
                .tokens
                .iter()
                .zip(tokens)
                .take_while(|(a, b)| a == b)
                .count();
            if shared > at_least && best.as_ref().is_none_or(|(_, b)| shared > *b) {
                best = Some((path, shared));
            }
        }
        best
    }

    /// Reads the entry at `path` whole, checks it, and marks it used. A damaged entry is deleted
    /// and reported as `None`.
    pub fn load(&self, path: &Path) -> Option<Entry> {
        match read_entry(path, &self.key, self.max_bytes) {
            Ok(entry) => {
                // Least recently used goes first: a restore is a use.
                if let Ok(file) = std::fs::File::options().append(true).open(path) {
                    let _ = file.set_modified(std::time::SystemTime::now());
                }
                Some(entry)
            }
            Err(why) => {
                self.discard(path, &why);
                None
            }
        }
    }

    /// Stores the state of `tokens`, then keeps the folder under its size.
    pub fn store(&self, tokens: &[i32], state: &[u8]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.folder)?;
        let marker = self.folder.join(KEY_MARKER);
        if !marker.is_file() {
            crate::file_replace::replace(&marker, self.key.as_bytes())?;
        }
        let header = serde_json::to_vec(&Header {
            key: self.key.clone(),
            tokens: tokens.to_vec(),
            state_bytes: state.len() as u64,
            state_sha256: sha256_hex(state),
        })?;
        crate::file_replace::replace_with(&self.path_of(tokens), |file| {
            file.write_all(MAGIC)?;
            file.write_all(&(header.len() as u32).to_le_bytes())?;
            file.write_all(&header)?;
            file.write_all(state)
        })?;
        evict(&self.root, self.max_bytes);
        Ok(())
    }

    /// Deletes an unusable entry — one that begins as the cache's entries do, so the cache wrote
    /// it; a file under an entry's name that does not is left where it is, and never read.
    fn discard(&self, path: &Path, why: &str) {
        if !begins_with_magic(path) {
            tracing::warn!(
                "prefix cache: {} is not an entry of this cache ({why}); left alone, the prefix is evaluated instead",
                path.display()
            );
            return;
        }
        tracing::warn!(
            "prefix cache: {} is unusable ({why}); deleted, the prefix is evaluated instead",
            path.display()
        );
        let _ = std::fs::remove_file(path);
    }
}

fn tokens_sha256(tokens: &[i32]) -> String {
    let mut hasher = Sha256::new();
    for token in tokens {
        hasher.update(token.to_le_bytes());
    }
    hex(&hasher.finalize())
}

/// The entries in a key folder: regular files (not links) with the names the cache gives.
fn entry_files(folder: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    read.filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| e.file_name().to_str().is_some_and(is_entry_name))
        .map(|e| e.path())
        .collect()
}

/// `<64 hex>.kv`: the name `path_of` gives.
fn is_entry_name(name: &str) -> bool {
    name.strip_suffix(".kv")
        .is_some_and(|hash| is_hex(hash, 64))
}

/// `.<64 hex>.kv.PID-N.tmp`: the name `file_replace` gives an entry being written.
fn is_temporary_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((entry, writer)) = rest.rsplit_once('.') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    is_entry_name(entry)
        && writer
            .split_once('-')
            .is_some_and(|(p, n)| digits(p) && digits(n))
}

fn is_hex(text: &str, length: usize) -> bool {
    text.len() == length && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The key folders under `root` the cache made: real folders named by 16 hex digits, holding its
/// marker.
fn key_folders(root: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    read.filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| e.file_name().to_str().is_some_and(|n| is_hex(n, 16)))
        .map(|e| e.path())
        .filter(|folder| {
            std::fs::symlink_metadata(folder.join(KEY_MARKER)).is_ok_and(|m| m.is_file())
                || written_before_markers(folder)
        })
        .collect()
}

/// Whether `folder`, without a marker, is a key folder an earlier mcpick wrote (before folders
/// were marked): it holds an entry whose header's key hashes to the folder's name.
fn written_before_markers(folder: &Path) -> bool {
    let name = folder.file_name().and_then(|n| n.to_str()).unwrap_or("");
    entry_files(folder).iter().any(|path| {
        read_header(path).is_ok_and(|(header, _)| sha256_hex(header.key.as_bytes())[..16] == *name)
    })
}

/// Whether the file at `path` begins as an entry does.
fn begins_with_magic(path: &Path) -> bool {
    let mut opening = [0u8; MAGIC.len()];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut opening))
        .is_ok_and(|()| &opening == MAGIC)
}

/// The header and where the state starts.
fn read_header(path: &Path) -> Result<(Header, u64), String> {
    let mut file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut opening = [0u8; MAGIC.len() + 4];
    file.read_exact(&mut opening)
        .map_err(|_| "shorter than an entry's opening".to_string())?;
    if &opening[..MAGIC.len()] != MAGIC {
        return Err("not a prefix-cache entry of this version".into());
    }
    let length = u32::from_le_bytes(opening[MAGIC.len()..].try_into().expect("4 bytes")) as u64;
    let size = file.metadata().map_err(|e| e.to_string())?.len();
    let start = opening.len() as u64 + length;
    if length > MAX_HEADER_BYTES {
        return Err(format!(
            "its header claims {length} bytes, more than the {MAX_HEADER_BYTES} a header may have"
        ));
    }
    if start > size {
        return Err("truncated in its header".into());
    }
    let mut text = vec![0u8; length as usize];
    file.read_exact(&mut text).map_err(|e| e.to_string())?;
    let header: Header =
        serde_json::from_slice(&text).map_err(|e| format!("its header does not parse: {e}"))?;
    let promised = start.checked_add(header.state_bytes);
    if promised != Some(size) {
        return Err(format!(
            "{size} bytes where its header promises {}",
            promised.map_or_else(|| "more than a file may hold".into(), |p| p.to_string())
        ));
    }
    Ok((header, start))
}

fn read_entry(path: &Path, key: &str, max_bytes: u64) -> Result<Entry, String> {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return Err("it is not a regular file".into());
    }
    let (header, start) = read_header(path)?;
    if header.key != key {
        return Err("it was made under other settings".into());
    }
    if path.file_stem().and_then(|s| s.to_str()) != Some(tokens_sha256(&header.tokens).as_str()) {
        return Err("its name is not the hash of its tokens".into());
    }
    if header.state_bytes > max_bytes {
        return Err(format!(
            "its state claims {} bytes, more than the whole cache may hold ({max_bytes})",
            header.state_bytes
        ));
    }
    // The checksum first, streaming: a damaged or planted entry costs no memory.
    let mut file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    file.seek(std::io::SeekFrom::Start(start))
        .map_err(|e| e.to_string())?;
    let mut hasher = Sha256::new();
    let mut piece = vec![0u8; 1 << 20];
    let mut left = header.state_bytes;
    while left > 0 {
        let n = (&mut file)
            .take(left.min(piece.len() as u64))
            .read(&mut piece)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("it changed while being read".into());
        }
        hasher.update(&piece[..n]);
        left -= n as u64;
    }
    if hex(&hasher.finalize()) != header.state_sha256 {
        return Err("its checksum does not match".into());
    }
    // Then the state alone, read once into its own buffer (a tool list's is hundreds of
    // megabytes), through the same open file: writers replace entries by renaming, never in
    // place, so what was checksummed is what is read.
    file.seek(std::io::SeekFrom::Start(start))
        .map_err(|e| e.to_string())?;
    let mut state = Vec::with_capacity(header.state_bytes as usize);
    file.take(header.state_bytes)
        .read_to_end(&mut state)
        .map_err(|e| e.to_string())?;
    if state.len() as u64 != header.state_bytes {
        return Err("it changed while being read".into());
    }
    Ok(Entry {
        tokens: header.tokens,
        state,
    })
}

/// Every entry under `root` with its size and last use, oldest first: the cache's own files
/// only (see the module's last paragraph).
fn all_entries(root: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut entries: Vec<_> = key_folders(root)
        .iter()
        .flat_map(|folder| entry_files(folder))
        .filter(|path| begins_with_magic(path))
        .filter_map(|path| {
            let metadata = std::fs::symlink_metadata(&path).ok()?;
            Some((path, metadata.len(), metadata.modified().ok()?))
        })
        .collect();
    entries.sort_by_key(|(_, _, used)| *used);
    entries
}

/// Deletes the least recently used entries under `root` until they fit in `max_bytes`, and the
/// temporary files of writes killed midway (an hour old: no save takes that long).
pub fn evict(root: &Path, max_bytes: u64) {
    remove_stale_temporaries(root, std::time::Duration::from_secs(3600));
    let entries = all_entries(root);
    let mut total: u64 = entries.iter().map(|(_, size, _)| size).sum();
    for (path, size, _) in entries {
        if total <= max_bytes {
            break;
        }
        tracing::info!(
            "prefix cache: evicting {} ({size} bytes) to stay under {max_bytes} bytes",
            path.display()
        );
        if std::fs::remove_file(&path).is_ok() {
            total -= size;
        }
    }
}

/// The temporary files of entry writes older than `age`, in the cache's key folders.
fn remove_stale_temporaries(root: &Path, age: std::time::Duration) {
    for folder in key_folders(root) {
        let Ok(files) = std::fs::read_dir(&folder) else {
            continue;
        };
        for file in files.filter_map(Result::ok) {
            let ours = file.file_name().to_str().is_some_and(is_temporary_name)
                && file.file_type().is_ok_and(|t| t.is_file());
            let stale = file
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|elapsed| elapsed > age);
            if ours && stale {
                let _ = std::fs::remove_file(file.path());
            }
        }
    }
}

/// The entries under `root` and their total size in bytes.
pub fn usage(root: &Path) -> (usize, u64) {
    let entries = all_entries(root);
    (entries.len(), entries.iter().map(|(_, size, _)| size).sum())
}

/// Deletes every entry under `root`; returns how many.
pub fn clear(root: &Path) -> std::io::Result<usize> {
    let entries = all_entries(root);
    for (path, _, _) in &entries {
        std::fs::remove_file(path)?;
    }
    Ok(entries.len())
}

#[cfg(test)]
mod tests;
