//! The model file of the `local` backend: checked to be a GGUF before llama.cpp sees it, and loaded
//! once per process (as is llama.cpp's own global state) and shared by every context that needs
//! it.

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// llama.cpp's global state, initialised once per process (llama.cpp refuses a second start, so
/// whatever else in the process calls llama.cpp directly — the benchmark — takes it from here).
pub fn llama_backend() -> Result<&'static LlamaBackend, String> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            let mut backend = LlamaBackend::init().map_err(|e| e.to_string())?;
            // llama.cpp logs every tensor it loads on stderr; mcpick's own log says what matters.
            backend.void_logs();
            Ok(backend)
        })
        .as_ref()
        .map_err(|e| format!("llama.cpp failed to start: {e}"))
}

/// The model in `path`, loaded once per process and kept for its life: contexts borrow it for
/// theirs, and a command that starts many runs (`improve`'s candidates, `draft`'s agreement run
/// beside its drafter) would otherwise hold one copy of the weights per run.
pub(super) fn loaded_model(
    backend: &'static LlamaBackend,
    path: &Path,
) -> Result<&'static LlamaModel, String> {
    static MODELS: OnceLock<Mutex<HashMap<PathBuf, &'static LlamaModel>>> = OnceLock::new();
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut models = MODELS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(model) = models.get(&key) {
        return Ok(model);
    }
    let model =
        LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).map_err(|e| {
            format!(
                "{}: llama.cpp could not load it ({e}); is it a complete GGUF model?",
                path.display()
            )
        })?;
    let model: &'static LlamaModel = Box::leak(Box::new(model));
    models.insert(key, model);
    Ok(model)
}

/// Refuses a file that is not a GGUF model, by name, before llama.cpp is given it.
pub(super) fn check_gguf(path: &Path) -> Result<(), String> {
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut magic)
    });
    match read {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("{}: no such model file", path.display()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(format!(
            "{}: not a GGUF model (the file is shorter than a header)",
            path.display()
        )),
        Err(e) => Err(format!("{}: cannot read: {e}", path.display())),
        Ok(()) if &magic != b"GGUF" => Err(format!(
            "{}: not a GGUF model (it does not start with the GGUF magic bytes)",
            path.display()
        )),
        Ok(()) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_are_not_gguf_models_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.gguf");
        assert!(
            check_gguf(&missing)
                .unwrap_err()
                .contains("no such model file")
        );
        let text = dir.path().join("notes.gguf");
        std::fs::write(&text, "hello world").unwrap();
        assert!(check_gguf(&text).unwrap_err().contains("GGUF magic"));
        let short = dir.path().join("short.gguf");
        std::fs::write(&short, "GG").unwrap();
        assert!(
            check_gguf(&short)
                .unwrap_err()
                .contains("shorter than a header")
        );
    }
}
