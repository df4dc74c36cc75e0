//! Models from where people keep them: the Hugging Face Hub. A file is
//! `{endpoint}/{ORG}/{REPO}/resolve/main/{FILE}` (`$HF_ENDPOINT` names a mirror; the default is
//! `https://huggingface.co`), and one already in the Hub's local cache (`$HF_HUB_CACHE`, else
//! `$HF_HOME/hub`, else `~/.cache/huggingface/hub`: `models--ORG--REPO/snapshots/*/FILE`) is used
//! where it lies. A download follows the Hub's redirects by hand (the first answer carries the
//! file's SHA-256 as `X-Linked-Etag`), writes to a `.partial` file beside its target and, when cut
//! off, resumes with a range request from where it stopped — unless the file changed meanwhile
//! (`If-Range` with the ETag kept beside it). The whole file is checked against the SHA-256 pinned
//! in the catalogue, or for any other file the Hub's own, before it gets its final name.

use crate::hashing::file_sha256;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Redirects a download follows (the Hub answers a resolve URL with one to its file host).
const MAX_REDIRECTS: usize = 10;
/// Attempts per file; each after the first resumes what the one before left.
const ATTEMPTS: u32 = 3;

/// Where the Hub is and where its local cache lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hub {
    pub endpoint: String,
    pub cache: PathBuf,
}

/// `ORG/REPO/FILE`: a file in a model repository (FILE may hold folders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubFile {
    pub repo: String,
    pub file: String,
}

impl HubFile {
    pub fn parse(text: &str) -> Result<HubFile, String> {
        let mut pieces = text.splitn(3, '/');
        match (pieces.next(), pieces.next(), pieces.next()) {
            (Some(org), Some(repo), Some(file))
                if !org.is_empty()
                    && !repo.is_empty()
                    && !file.is_empty()
                    && !text.split('/').any(|p| p == ".." || p == ".") =>
            {
                Ok(HubFile {
                    repo: format!("{org}/{repo}"),
                    file: file.to_string(),
                })
            }
            _ => Err(format!(
                "{text:?} is not ORG/REPO/FILE (a file in a Hugging Face model repository)"
            )),
        }
    }
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
        }
    }

    pub fn resolve_url(&self, file: &HubFile) -> String {
        format!("{}/{}/resolve/main/{}", self.endpoint, file.repo, file.file)
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
            .map(|s| s.path().join(&file.file))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        found.pop()
    }

    /// Downloads `file` to `target`: it must have SHA-256 `expected`, or without one the Hub's.
    /// `announce` says so on stderr first.
    pub fn download(
        &self,
        file: &HubFile,
        target: &Path,
        expected: Option<&str>,
        announce: bool,
    ) -> Result<PathBuf, String> {
        let url = self.resolve_url(file);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let partial = with_suffix(target, ".partial");
        let etag_path = with_suffix(target, ".partial.etag");
        if announce {
            eprintln!("mcpick: fetching {file} from {url} (once; checked by SHA-256)");
        }
        let mut last = String::new();
        let mut hub_sha256 = None;
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(500 * 2u64.pow(attempt)));
            }
            match blocking(|| attempt_download(&url, &partial, &etag_path)) {
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
        if !last.is_empty() {
            return Err(format!("cannot download {url}: {last}"));
        }
        let got = file_sha256(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
        let wanted = expected.map(str::to_string).or(hub_sha256);
        if let Some(wanted) = wanted.filter(|w| *w != got) {
            let _ = std::fs::remove_file(&partial);
            let _ = std::fs::remove_file(&etag_path);
            return Err(format!(
                "{url} downloaded with SHA-256 {got}, not {wanted}: refusing it (it was deleted)"
            ));
        }
        std::fs::rename(&partial, target).map_err(|e| format!("{}: {e}", target.display()))?;
        let _ = std::fs::remove_file(&etag_path);
        Ok(target.to_path_buf())
    }
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

/// One attempt: resumes `partial` when it holds bytes of the same file (its ETag beside it),
/// else starts over. Returns the SHA-256 the Hub announced, if it did. Errors say whether another
/// attempt may help.
fn attempt_download(
    url: &str,
    partial: &Path,
    etag_path: &Path,
) -> Result<Option<String>, (String, bool)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| (e.to_string(), false))?;
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(Duration::from_secs(60))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| (e.to_string(), false))?;
        let kept_etag = std::fs::read_to_string(etag_path).ok();
        let have = match (&kept_etag, std::fs::metadata(partial)) {
            (Some(_), Ok(m)) => m.len(),
            _ => 0,
        };
        let mut url = reqwest::Url::parse(url).map_err(|e| (e.to_string(), false))?;
        let mut linked = None;
        let mut redirects = 0;
        let response = loop {
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
        let mut file = match status.as_u16() {
            // The partial file is already whole.
            416 if have > 0 => return Ok(linked),
            206 if have > 0 && resumes_at(&response, have) => std::fs::OpenOptions::new()
                .append(true)
                .open(partial)
                .map_err(|e| (format!("{}: {e}", partial.display()), false))?,
            200 => std::fs::File::create(partial)
                .map_err(|e| (format!("{}: {e}", partial.display()), false))?,
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
        let mut response = response;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => file
                    .write_all(&chunk)
                    .map_err(|e| (format!("{}: {e}", partial.display()), false))?,
                Ok(None) => break,
                // What arrived stays in the partial file for the next attempt to resume.
                Err(e) => return Err((format!("cut off: {e}"), true)),
            }
        }
        file.sync_all()
            .map_err(|e| (format!("{}: {e}", partial.display()), false))?;
        Ok(linked)
    })
}

#[cfg(test)]
mod tests;
