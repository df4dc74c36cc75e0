//! A Hub that lies or stalls, over real HTTP: a file without a SHA-256, a body that never ends, a
//! size beyond reason, a byte every few hundred milliseconds; and what lies in the model
//! directory without a download's check. Each must be refused with nothing left that could pass
//! for the model, and nothing written outside the directory.

use super::*;
use crate::catalogue::ensure_hub_file_in;
use futures_util::StreamExt;
use std::time::{Duration, Instant};

/// How the fake Hub answers every resolve URL.
#[derive(Clone, Copy)]
enum Answer {
    /// The file, with no `X-Linked-Etag` and an `ETag` that is no SHA-256 (a file outside LFS).
    NoSha256,
    /// A SHA-256 and `X-Linked-Size: 1000`, then a body that never ends.
    Endless,
    /// `X-Linked-Size` of 100 GiB, then a body that never ends.
    Huge,
    /// A SHA-256, 1000 bytes announced, then one byte every 100 ms.
    Drip,
    /// The 1000 bytes announced, whole, with their SHA-256.
    Honest,
}

fn content() -> Vec<u8> {
    (0..1000u32).map(|i| (i % 251) as u8).collect()
}

fn hostile_hub(answer: Answer) -> (String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let app = axum::Router::new().fallback(move || async move {
        use axum::http::{HeaderValue, StatusCode, header};
        use axum::response::IntoResponse;
        let sha = sha256_hex(&content());
        let endless = || {
            axum::body::Body::from_stream(
                futures_util::stream::repeat(vec![7u8; 1024]).map(Ok::<_, std::io::Error>),
            )
        };
        let (body, size, linked) = match answer {
            Answer::NoSha256 => (axum::body::Body::from(content()), None, None),
            Answer::Endless => (endless(), Some(1000u64), Some(sha)),
            Answer::Huge => (endless(), Some(100u64 << 30), Some(sha)),
            Answer::Drip => (
                axum::body::Body::from_stream(futures_util::stream::iter(content()).then(
                    |byte| async move {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        Ok::<_, std::io::Error>(vec![byte])
                    },
                )),
                Some(1000),
                Some(sha),
            ),
            Answer::Honest => (axum::body::Body::from(content()), Some(1000), Some(sha)),
        };
        let mut response = (StatusCode::OK, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::ETAG, HeaderValue::from_static("\"a1b2c3\""));
        if let Some(sha) = linked {
            let etag = format!("\"{sha}\"");
            headers.insert("x-linked-etag", HeaderValue::from_str(&etag).unwrap());
        }
        if let Some(size) = size {
            headers.insert("x-linked-size", HeaderValue::from(size));
        }
        response
    });
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, app).await });
    (base, runtime)
}

/// A Hub at `base` whose downloads must keep 2,000 bytes a second over each 300 ms.
fn impatient_hub(base: &str, cache: &Path) -> Hub {
    Hub {
        limits: TransferLimits {
            min_rate: 2_000,
            window: Duration::from_millis(300),
            stall: Duration::from_secs(2),
            grace: Duration::from_secs(2),
        },
        ..hub_at(base, cache)
    }
}

/// Every file under `dir`, relative.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn a_file_without_an_announced_sha256_is_refused_and_nothing_is_kept() {
    let (base, _server) = hostile_hub(Answer::NoSha256);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let hub = impatient_hub(&base, &dir.path().join("hf-cache"));
    let error = ensure_hub_file_in(&store, &hub, "Org/Repo/model.gguf").unwrap_err();
    assert!(error.contains("announced no SHA-256"), "{error}");
    assert!(
        files_under(dir.path()).is_empty(),
        "{:?}",
        files_under(dir.path())
    );
}

#[test]
fn an_endless_body_or_a_size_beyond_reason_stops_at_the_bound() {
    for (answer, expected) in [
        (Answer::Endless, "more than the 1000 bytes"),
        (Answer::Huge, "more than the 64 GB"),
    ] {
        let (base, _server) = hostile_hub(answer);
        let dir = tempfile::tempdir().unwrap();
        let store = ModelStore::new(dir.path().join("models"));
        let hub = impatient_hub(&base, &dir.path().join("hf-cache"));
        let started = Instant::now();
        let error = ensure_hub_file_in(&store, &hub, "Org/Repo/model.gguf").unwrap_err();
        assert!(error.contains(expected), "{error}");
        assert!(started.elapsed() < Duration::from_secs(10));
        // Nothing was kept: neither a model nor a partial file that a later fetch would resume.
        assert!(
            files_under(dir.path()).is_empty(),
            "{:?}",
            files_under(dir.path())
        );
    }
}

#[test]
fn a_body_that_drips_is_stopped_by_the_minimum_rate() {
    let (base, _server) = hostile_hub(Answer::Drip);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let hub = impatient_hub(&base, &dir.path().join("hf-cache"));
    let started = Instant::now();
    let error = ensure_hub_file_in(&store, &hub, "Org/Repo/model.gguf").unwrap_err();
    // Three attempts, each stopped after its first window (plus the waits between them).
    assert!(error.contains("bytes a second"), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !store
            .hub_path(&HubFile::parse("Org/Repo/model.gguf").unwrap())
            .exists()
    );
}

#[test]
fn a_file_in_the_model_directory_is_used_only_with_its_download_stamp() {
    let (base, _server) = hostile_hub(Answer::Honest);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let hub = impatient_hub(&base, &dir.path().join("hf-cache"));
    let file = HubFile::parse("Org/Repo/sub/model.gguf").unwrap();
    let target = store.hub_path(&file);
    assert_eq!(
        target,
        dir.path().join("models/hf/Org/Repo/sub/model.gguf"),
        "the path is built from checked components inside the directory"
    );
    // A file planted where the download would go is not the model: it is downloaded and checked.
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, b"planted").unwrap();
    let got = ensure_hub_file_in(&store, &hub, "Org/Repo/sub/model.gguf").unwrap();
    assert_eq!(got, target);
    assert_eq!(std::fs::read(&got).unwrap(), content());
    // Once verified, it is used without the network; changed afterwards, it is not.
    let offline = impatient_hub("http://127.0.0.1:9", &dir.path().join("hf-cache"));
    assert_eq!(
        ensure_hub_file_in(&store, &offline, "Org/Repo/sub/model.gguf").unwrap(),
        target
    );
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&target, b"changed after the check").unwrap();
    assert!(store.verified_hub_file(&file).is_none());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Whatever a spec says, a path it is accepted for stays inside the model directory.
    #[test]
    fn an_accepted_spec_never_leaves_the_model_directory(
        org in "[A-Za-z0-9._/-]{0,6}",
        repo in "[A-Za-z0-9._/\\\\ :-]{0,6}",
        file in proptest::collection::vec(
            proptest::prop_oneof!["[a-z.]{0,3}", proptest::strategy::Just("..".to_string()),
                proptest::strategy::Just(String::new()), "[/\\\\:\\x00-\\x1f.a]{1,3}"],
            1..5,
        ),
    ) {
        let spec = format!("{org}/{repo}/{}", file.join("/"));
        if let Ok(parsed) = HubFile::parse(&spec) {
            let store = ModelStore::new("/models");
            let path = store.hub_path(&parsed);
            proptest::prop_assert!(path.starts_with("/models/hf"), "{spec:?} → {path:?}");
            proptest::prop_assert!(
                path.components().skip(1).all(|c| matches!(c, std::path::Component::Normal(_))),
                "{spec:?} → {path:?}"
            );
        }
    }
}
