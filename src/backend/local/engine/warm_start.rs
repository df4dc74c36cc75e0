//! Sequence 0's cells to and from the persistent prefix cache (`prefix_cache`): restoring the
//! longest stored prefix of a prompt instead of evaluating it, and saving a prefix worth keeping
//! once evaluated. Restored cells are the ones evaluation would compute: they were computed in the
//! same chunks at the same positions (`EVALUATION_CHUNK`) under the same model, settings and
//! llama.cpp build (the cache's key), so a trial's numbers do not depend on where they came from.

use super::{CANDIDATES_PER_BATCH, EVALUATION_CHUNK, Engine};
use crate::backend::BackendError;
use crate::backend::local::LocalSettings;
use llama_cpp_2::context::session::LlamaStateSeqFlags;
use llama_cpp_2::token::LlamaToken;

/// Prefixes shorter than this are evaluated, not saved: a file's overhead for a second's work.
pub const MIN_KEPT_TOKENS: usize = 256;

/// Everything besides the tokens that determines a prefix's cells, as text: the model file's
/// SHA-256, the context settings `LocalBackend::load` gives llama.cpp (context and batch sizes, the
/// sequences, flash attention off, f16 cells), the threads (a different split of the work may
/// round differently), and llama.cpp's build (ggml's version and commit, the CPU features it was
/// built for).
pub fn prefix_cache_key(options: &LocalSettings, ctx_size: u32) -> String {
    let text = |p: *const std::os::raw::c_char| {
        if p.is_null() {
            return String::from("unknown");
        }
        // SAFETY: llama.cpp returns static NUL-terminated strings.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: plain getters of static strings, no arguments.
    let (version, commit, system) = unsafe {
        (
            text(llama_cpp_sys_2::ggml_version()),
            text(llama_cpp_sys_2::ggml_commit()),
            text(llama_cpp_sys_2::llama_print_system_info()),
        )
    };
    let model = crate::backend::local_model_sha256(options).unwrap_or_else(|| {
        // Without the file's hash nothing could tell two models at one path apart.
        format!("unreadable {}", options.model.display())
    });
    format!(
        "mcpick prefix cache 1; model sha256 {model}; n_ctx {ctx_size}; n_batch {ctx_size}; n_ubatch 512 (the default), prompts in calls of {EVALUATION_CHUNK} tokens; n_seq_max {}; kv unified, f16; flash attention off; threads {} / {}; ggml {version} {commit}; {}",
        CANDIDATES_PER_BATCH + 1,
        options.threads,
        options.threads_batch,
        system.trim()
    )
}

impl Engine {
    /// Restores into sequence 0 the longest stored prefix of `tokens[..limit]` that reaches past
    /// `common` (the tokens sequence 0 already holds) by a whole chunk; returns how many tokens
    /// sequence 0 holds afterwards. An entry that cannot be used is deleted by the cache, and the
    /// prompt is evaluated as if there were none.
    pub(super) fn restore_prefix(
        &mut self,
        tokens: &[LlamaToken],
        common: usize,
        limit: usize,
    ) -> Result<usize, BackendError> {
        let Some(cache) = &self.prefix_cache else {
            return Ok(common);
        };
        let ids: Vec<i32> = tokens[..limit.min(tokens.len())]
            .iter()
            .map(|t| t.0)
            .collect();
        let Some((path, shared)) = cache.longest_prefix(&ids, common + EVALUATION_CHUNK - 1) else {
            return Ok(common);
        };
        let usable = shared / EVALUATION_CHUNK * EVALUATION_CHUNK;
        let started = std::time::Instant::now();
        let Some(entry) = cache.load(&path) else {
            return Ok(common);
        };
        if entry.tokens.get(..usable) != Some(&ids[..usable]) {
            return Ok(common);
        }
        let clear = |e| BackendError::Transient(format!("llama.cpp cache: {e}"));
        self.context
            .clear_kv_cache_seq(Some(0), None, None)
            .map_err(clear)?;
        self.cached.clear();
        // SAFETY: the bytes are llama.cpp's own state of a sequence, saved under this model,
        // these context settings and this build of llama.cpp (the cache key), and checked
        // against their SHA-256 on reading; llama.cpp checks their shape again.
        let restored = unsafe {
            self.context
                .state_seq_set_data_ext(&entry.state, 0, LlamaStateSeqFlags::empty())
        };
        if !restored {
            tracing::warn!(
                "prefix cache: llama.cpp refused {}; deleted, the prefix is evaluated instead",
                path.display()
            );
            let _ = std::fs::remove_file(&path);
            self.context
                .clear_kv_cache_seq(Some(0), None, None)
                .map_err(clear)?;
            return Ok(0);
        }
        // Cells past the first difference (a variant's other description) are dropped.
        self.context
            .clear_kv_cache_seq(Some(0), Some(usable as u32), None)
            .map_err(clear)?;
        self.cached = tokens[..usable].to_vec();
        self.work.restored += usable as u64;
        tracing::info!(
            restored = usable,
            of = entry.tokens.len(),
            elapsed = ?started.elapsed(),
            "prompt prefix restored from the prefix cache"
        );
        Ok(usable)
    }

    /// Saves sequence 0, which holds exactly `prefix`, unless it is short or already stored. A
    /// save that fails costs only the next run's time, so it is a warning.
    pub(super) fn save_prefix(&self, prefix: &[LlamaToken]) {
        let Some(cache) = &self.prefix_cache else {
            return;
        };
        let ids: Vec<i32> = prefix.iter().map(|t| t.0).collect();
        if !cache.saves() || prefix.len() < MIN_KEPT_TOKENS || cache.holds(&ids) {
            return;
        }
        let started = std::time::Instant::now();
        let flags = LlamaStateSeqFlags::empty();
        let size = self.context.state_seq_get_size_ext(0, flags);
        let mut state = vec![0u8; size];
        // SAFETY: `state` has the size llama.cpp asked for, for the sequence it then copies.
        let written = unsafe {
            self.context
                .state_seq_get_data_ext(state.as_mut_ptr(), 0, flags)
        };
        if written != size {
            tracing::warn!("prefix cache: llama.cpp wrote {written} of {size} bytes; not saved");
            return;
        }
        match cache.store(&ids, &state) {
            Ok(()) => tracing::info!(
                tokens = prefix.len(),
                bytes = size,
                elapsed = ?started.elapsed(),
                "prompt prefix saved to the prefix cache"
            ),
            Err(e) => tracing::warn!("prefix cache: cannot save a prefix ({e})"),
        }
    }
}
