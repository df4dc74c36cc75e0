//! Models from where people keep them: the Hugging Face Hub. A file is
//! `{endpoint}/{ORG}/{REPO}/resolve/main/{FILE}` (`$HF_ENDPOINT` names a mirror; the default is
//! `https://huggingface.co`), and one already in the Hub's local cache (`$HF_HUB_CACHE`, else
//! `$HF_HOME/hub`, else `~/.cache/huggingface/hub`: `models--ORG--REPO/snapshots/*/FILE`) is used
//! where it lies. A download follows the Hub's redirects by hand (the first answer carries the
//! file's SHA-256 as `X-Linked-Etag`), writes to a `.partial` file beside its target and, when cut
//! off, resumes with a range request from where it stopped — unless the file changed meanwhile
//! (`If-Range` with the ETag kept beside it). The whole file is checked against the SHA-256 pinned
//! in the catalogue, or for any other file the one the Hub announces, before it gets its final
//! name: a file for which the Hub announces no SHA-256 (one not kept in LFS) is refused, never
//! kept unchecked. The body is received under `transfer`'s bounds: no more than the pinned or
//! announced size (`X-Linked-Size`, else the length of the answer), no slower than its minimum
//! rate, no later than its deadline.

use super::transfer::{FileSize, MAX_MODEL_BYTES, TransferLimits, check_room, receive};
use crate::hashing::file_sha256;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Redirects a download follows (the Hub answers a resolve URL with one to its file host).
const MAX_REDIRECTS: usize = 10;
/// Attempts per file; each after the first resumes what the one before left.
const ATTEMPTS: u32 = 3;

/// Where the Hub is, where its local cache lies, and the bounds every download of a fetch keeps
/// (the Hub's and PyPI's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hub {
    pub endpoint: String,
    pub cache: PathBuf,
    pub limits: TransferLimits,
}

/// What a file must be, when the caller knows: its SHA-256 and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin<'a> {
    pub sha256: &'a str,
    pub size: u64,
}

/// `ORG/REPO/FILE`: a file in a model repository (FILE may hold folders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubFile {
    pub repo: String,
    pub file: String,
}

impl HubFile {
    /// `ORG/REPO/FILE`, every part checked: the organisation and repository as the Hub names them
    /// (letters, digits, `.`, `_`, `-`), and FILE as folders and a name, none empty, `.` or `..`,
    /// none holding a backslash or a control character — so the path it becomes stays inside the
    /// folder it is placed in.
    pub fn parse(text: &str) -> Result<HubFile, String> {
        let refuse = |why: &str| {
            Err(format!(
                "{:?} is not ORG/REPO/FILE (a file in a Hugging Face model repository): {why}",
                crate::untrusted_text::shown(text, 200)
            ))
        };
        let mut pieces = text.splitn(3, '/');
        let (Some(org), Some(repo), Some(file)) = (pieces.next(), pieces.next(), pieces.next())
        else {
            return refuse("it has fewer than three parts");
        };
        for name in [org, repo] {
            let hub_name = !name.is_empty()
                && name != "."
                && name != ".."
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
            if !hub_name {
                return refuse(
                    "an organisation or repository name is letters, digits, '.', '_' and '-'",
                );
            }
        }
        if let Some(part) = file.split('/').find(|part| !path_component(part)) {
            return refuse(&format!(
                "the file part {:?} is not a folder or file name (empty, '.', '..', or holding '\\' or a control character)",
                crate::untrusted_text::shown(part, 80)
            ));
        }
        Ok(HubFile {
            repo: format!("{org}/{repo}"),
            file: file.to_string(),
        })
    }

    /// FILE's folders and name, each one checked component, for joining under a folder.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.file.split('/')
    }
}

/// Whether `part` is one plain component of a relative path: not empty, `.` or `..`, without a
/// separator of any system, a drive colon or a control character.
pub fn path_component(part: &str) -> bool {
    !part.is_empty()
        && part != "."
        && part != ".."
        && !part.contains(['/', '\\', ':'])
        && !part.chars().any(char::is_control)
        && matches!(
            Path::new(part).components().collect::<Vec<_>>().as_slice(),
            [std::path::Component::Normal(_)]
        )
}

impl std::fmt::Display for HubFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.repo, self.file)
    }
}

impl Hub {
    /// `$HF_ENDPOINT` and the Hub cache as Hugging Face's own tools find them.
    pub fn from_env() -> Hub {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let cache = var("HF_HUB_CACHE")
            .map(PathBuf::from)
            .or_else(|| var("HF_HOME").map(|h| PathBuf::from(h).join("hub")))
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache/huggingface/hub")))
            .unwrap_or_else(|| PathBuf::from(".cache/huggingface/hub"));
        Hub {
            endpoint: std::env::var("HF_ENDPOINT")
                .ok()
                .filter(|e| !e.is_empty())
                .unwrap_or_else(|| "https://huggingface.co".into())
                .trim_end_matches('/')
                .to_string(),
            cache,
            limits: TransferLimits::default(),
        }
    }

    /// The file's URL; its folders and name percent-encoded (a `#`, `?` or `%` in a name is a
    /// character of it, not a part of the URL).
    pub fn resolve_url(&self, file: &HubFile) -> String {
        let path: Vec<String> = file.components().map(percent_encoded).collect();
        format!(
            "{}/{}/resolve/main/{}",
            self.endpoint,
            file.repo,
            path.join("/")
        )
    }

    /// A copy of `file` in the Hub's local cache, from any snapshot.
    pub fn cached(&self, file: &HubFile) -> Option<PathBuf> {
        let snapshots = self
            .cache
            .join(format!("models--{}", file.repo.replace('/', "--")))
            .join("snapshots");
        let mut found: Vec<PathBuf> = std::fs::read_dir(snapshots)
            .ok()?
            .filter_map(Result::ok)
            .map(|s| {
                file.components()
                    .fold(s.path(), |path, part| path.join(part))
            })
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        found.pop()
    }

    /// Downloads `file` to `target`: it must have the pinned SHA-256 and size, or without a pin
    /// the SHA-256 the Hub announces. `announce` says so on stderr first. Returns the path and the
    /// SHA-256 it was checked against.
    pub fn download(
        &self,
        file: &HubFile,
        target: &Path,
        pin: Option<Pin<'_>>,
        announce: bool,
    ) -> Result<(PathBuf, String), String> {
        let url = self.resolve_url(file);
        let dir = target.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let partial = with_suffix(target, ".partial");
        let etag_path = with_suffix(target, ".partial.etag");
        if announce {
            let check = match pin {
                Some(_) => "checked against its pinned SHA-256",
                None => "checked against the SHA-256 the Hub announces",
            };
            eprintln!("mcpick: fetching {file} from {url} (once; {check})");
        }
        let mut last = String::new();
        let mut hub_sha256 = None;
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(500 * 2u64.pow(attempt)));
            }
            let job = Attempt {
                url: &url,
                partial: &partial,
                etag_path: &etag_path,
                pin,
                limits: &self.limits,
            };
            match blocking(|| job.run()) {
                Ok(linked) => {
                    hub_sha256 = linked.or(hub_sha256);
                    last.clear();
                    break;
                }
                Err((reason, retryable)) => {
                    last = reason;
                    if !retryable {
                        break;
                    }
                }
            }
        }
        let refuse = |why: String| {
            let _ = std::fs::remove_file(&partial);
            let _ = std::fs::remove_file(&etag_path);
            Err(why)
        };
        if !last.is_empty() {
            return refuse(format!("cannot download {url}: {last}"));
        }
        let got = file_sha256(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
        let Some(wanted) = pin.map(|p| p.sha256.to_string()).or(hub_sha256) else {
            return refuse(format!(
                "{url}: the Hub announced no SHA-256 for it (a file not kept in LFS), and mcpick keeps no model file it cannot check; download it yourself and pass its path as --model PATH"
            ));
        };
        if wanted != got {
            return refuse(format!(
                "{url} downloaded with SHA-256 {got}, not {wanted}: refusing it (it was deleted)"
            ));
        }
        std::fs::rename(&partial, target).map_err(|e| format!("{}: {e}", target.display()))?;
        let _ = std::fs::remove_file(&etag_path);
        Ok((target.to_path_buf(), wanted))
    }
}

/// `part` with every byte but RFC 3986's unreserved ones written as `%XX`.
fn percent_encoded(part: &str) -> String {
    part.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Runs `work` on a thread of its own with its own runtime, so callers inside a tokio runtime (a
/// run resolving its model) or outside it fetch alike.
fn blocking<T: Send>(
    work: impl FnOnce() -> Result<T, (String, bool)> + Send,
) -> Result<T, (String, bool)> {
    std::thread::scope(|scope| {
        scope
            .spawn(work)
            .join()
            .unwrap_or_else(|_| Err(("the download thread panicked".into(), false)))
    })
}

/// A SHA-256 in an ETag (`"…"`, `W/"…"`), as the Hub gives for files kept in LFS.
fn sha256_in(etag: &str) -> Option<String> {
    let bare = etag.trim().trim_start_matches("W/").trim_matches('"');
    (bare.len() == 64 && bare.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| bare.to_ascii_lowercase())
}

/// Whether a partial answer starts where the partial file ends (`Content-Range: bytes N-…`).
fn resumes_at(response: &reqwest::Response, have: u64) -> bool {
    response
        .headers()
        .get("content-range")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes "))
        .and_then(|v| v.split('-').next())
        .and_then(|start| start.trim().parse::<u64>().ok())
        == Some(have)
}

/// The size a header announces: `X-Linked-Size` (the Hub's, for a file kept in LFS), the total
/// of a `Content-Range`, or the `Content-Length` of a whole answer.
fn announced_size(headers: &reqwest::header::HeaderMap, status: u16) -> Option<u64> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let number = |v: &str| v.trim().parse::<u64>().ok();
    text("x-linked-size")
        .and_then(number)
        .or_else(|| {
            text("content-range")
                .and_then(|v| v.rsplit('/').next())
                .and_then(number)
        })
        .or_else(|| (status == 200).then(|| text("content-length").and_then(number))?)
}

/// One attempt at a download: resumes `partial` when it holds bytes of the same file (its ETag
/// beside it), else starts over.
struct Attempt<'a> {
    url: &'a str,
    partial: &'a Path,
    etag_path: &'a Path,
    pin: Option<Pin<'a>>,
    limits: &'a TransferLimits,
}

impl Attempt<'_> {
    /// Returns the SHA-256 the Hub announced, if it did. Errors say whether another attempt may
    /// help.
    fn run(&self) -> Result<Option<String>, (String, bool)> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| (e.to_string(), false))?;
        runtime.block_on(self.run_async())
    }

    async fn run_async(&self) -> Result<Option<String>, (String, bool)> {
        let (partial, etag_path) = (self.partial, self.etag_path);
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(self.limits.stall)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| (e.to_string(), false))?;
        let kept_etag = std::fs::read_to_string(etag_path).ok();
        let have = match (&kept_etag, std::fs::metadata(partial)) {
            (Some(_), Ok(m)) => m.len(),
            _ => 0,
        };
        let mut url = reqwest::Url::parse(self.url).map_err(|e| (e.to_string(), false))?;
        let mut linked = None;
        let mut linked_size = None;
        let mut redirects = 0;
        let mut response = loop {
            let mut request = client.get(url.clone());
            if have > 0 {
                request = request.header("Range", format!("bytes={have}-"));
                if let Some(etag) = &kept_etag {
                    request = request.header("If-Range", etag.trim());
                }
            }
            let response = request.send().await.map_err(|e| (e.to_string(), true))?;
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            if let Some(sha) = header("x-linked-etag").as_deref().and_then(sha256_in) {
                linked = Some(sha);
            }
            if let Some(size) = header("x-linked-size").and_then(|v| v.trim().parse().ok()) {
                linked_size = Some(size);
            }
            if !response.status().is_redirection() {
                break response;
            }
            redirects += 1;
            let location = header("location")
                .filter(|_| redirects <= MAX_REDIRECTS)
                .ok_or_else(|| {
                    (
                        format!("{} without a usable Location", response.status()),
                        false,
                    )
                })?;
            url = url.join(&location).map_err(|e| (e.to_string(), false))?;
        };
        let status = response.status();
        let etag = response
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        linked = linked.or_else(|| etag.as_deref().and_then(sha256_in));
        if self.pin.is_none() && linked.is_none() && status.is_success() {
            // Nothing to check the file against: not a byte of it is kept.
            return Err((
                "the Hub announced no SHA-256 for it (a file not kept in LFS), and mcpick keeps no model file it cannot check; download it yourself and pass its path as --model PATH".into(),
                false,
            ));
        }
        let size = match self
            .pin
            .map(|p| p.size)
            .or(linked_size)
            .or_else(|| announced_size(response.headers(), status.as_u16()))
        {
            Some(size) => FileSize::Exactly(size),
            None => FileSize::AtMost(MAX_MODEL_BYTES),
        };
        if let FileSize::Exactly(size) = size {
            let dir = partial.parent().unwrap_or(Path::new("."));
            check_room(size.saturating_sub(have), dir).map_err(|why| (why, false))?;
        }
        let (mut file, already) = match status.as_u16() {
            // The partial file is already whole.
            416 if have > 0 => return Ok(linked),
            206 if have > 0 && resumes_at(&response, have) => (
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(partial)
                    .map_err(|e| (format!("{}: {e}", partial.display()), false))?,
                have,
            ),
            200 => (
                std::fs::File::create(partial)
                    .map_err(|e| (format!("{}: {e}", partial.display()), false))?,
                0,
            ),
            _ => {
                let retryable = !status.is_client_error();
                return Err((format!("the server answered {status}"), retryable));
            }
        };
        match &etag {
            Some(etag) => std::fs::write(etag_path, etag),
            // Without an ETag nothing can tell the next attempt the file is the same one.
            None => std::fs::remove_file(etag_path).or(Ok(())),
        }
        .map_err(|e| (format!("{}: {e}", etag_path.display()), false))?;
        // What arrived stays in the partial file for the next attempt to resume.
        receive(&mut response, &mut file, already, size, self.limits, |_| {})
            .await
            .map_err(|failure| (failure.reason, failure.retryable))?;
        file.sync_all()
            .map_err(|e| (format!("{}: {e}", partial.display()), false))?;
        Ok(linked)
    }
}

#[cfg(test)]
mod tests;
