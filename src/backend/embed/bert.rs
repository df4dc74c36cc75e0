//! The BERT encoder `embed` runs (all-MiniLM-L6-v2): embeddings, then self-attention layers, as
//! candle-transformers 0.11.1's `models::bert` computes them — the same candle operations in the
//! same order, so the same vectors to the bit — cut to what a sentence encoder needs. Kept here
//! rather than depended on because that crate compiles a hundred other models with it: 118
//! CPU-seconds of every cold build (docs/build-times.md). candle-transformers is MIT OR
//! Apache-2.0, as mcpick is.

use candle_core::{D, DType, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, Module, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// The fields of a BERT `config.json` the encoder reads (the activation is GELU, as in every
/// sentence-transformers BERT; others are refused when the config is parsed).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: HiddenAct,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f64,
    pub model_type: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HiddenAct {
    /// GELU with the exact error function, as Hugging Face's "gelu".
    Gelu,
}

struct Embeddings {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    layer_norm: LayerNorm,
}

impl Embeddings {
    fn load(vb: VarBuilder, config: &Config) -> Result<Embeddings> {
        Ok(Embeddings {
            words: embedding(
                config.vocab_size,
                config.hidden_size,
                vb.pp("word_embeddings"),
            )?,
            positions: embedding(
                config.max_position_embeddings,
                config.hidden_size,
                vb.pp("position_embeddings"),
            )?,
            token_types: embedding(
                config.type_vocab_size,
                config.hidden_size,
                vb.pp("token_type_embeddings"),
            )?,
            layer_norm: layer_norm(
                config.hidden_size,
                config.layer_norm_eps,
                vb.pp("LayerNorm"),
            )?,
        })
    }

    fn forward(&self, input_ids: &Tensor, token_type_ids: &Tensor) -> Result<Tensor> {
        let (_batch, length) = input_ids.dims2()?;
        let words = self.words.forward(input_ids)?;
        let types = self.token_types.forward(token_type_ids)?;
        let positions: Vec<u32> = (0..length as u32).collect();
        let positions = Tensor::new(&positions[..], input_ids.device())?;
        let sum = (&words + types)?.broadcast_add(&self.positions.forward(&positions)?)?;
        self.layer_norm.forward(&sum)
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    out: Linear,
    out_norm: LayerNorm,
    heads: usize,
    head_size: usize,
}

impl Layer {
    fn load(vb: VarBuilder, config: &Config) -> Result<Layer> {
        let (hidden, eps) = (config.hidden_size, config.layer_norm_eps);
        let head_size = hidden / config.num_attention_heads;
        let all_heads = config.num_attention_heads * head_size;
        let attention = vb.pp("attention");
        let own = attention.pp("self");
        Ok(Layer {
            query: linear(hidden, all_heads, own.pp("query"))?,
            key: linear(hidden, all_heads, own.pp("key"))?,
            value: linear(hidden, all_heads, own.pp("value"))?,
            attention_out: linear(hidden, hidden, attention.pp("output").pp("dense"))?,
            attention_norm: layer_norm(hidden, eps, attention.pp("output").pp("LayerNorm"))?,
            intermediate: linear(
                hidden,
                config.intermediate_size,
                vb.pp("intermediate").pp("dense"),
            )?,
            out: linear(
                config.intermediate_size,
                hidden,
                vb.pp("output").pp("dense"),
            )?,
            out_norm: layer_norm(hidden, eps, vb.pp("output").pp("LayerNorm"))?,
            heads: config.num_attention_heads,
            head_size,
        })
    }

    /// (batch, length, hidden) → (batch, heads, length, head size).
    fn by_head(&self, xs: &Tensor) -> Result<Tensor> {
        let mut shape = xs.dims().to_vec();
        shape.pop();
        shape.push(self.heads);
        shape.push(self.head_size);
        xs.reshape(shape.as_slice())?.transpose(1, 2)?.contiguous()
    }

    fn forward(&self, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let query = self.by_head(&self.query.forward(hidden)?)?;
        let key = self.by_head(&self.key.forward(hidden)?)?;
        let value = self.by_head(&self.value.forward(hidden)?)?;
        let scores = (query.matmul(&key.t()?)? / (self.head_size as f64).sqrt())?;
        let probabilities = candle_nn::ops::softmax(&scores.broadcast_add(mask)?, D::Minus1)?;
        let context = probabilities
            .matmul(&value)?
            .transpose(1, 2)?
            .contiguous()?
            .flatten_from(D::Minus2)?;
        let attended = self
            .attention_norm
            .forward(&(self.attention_out.forward(&context)? + hidden)?)?;
        let intermediate = self.intermediate.forward(&attended)?.gelu_erf()?;
        self.out_norm
            .forward(&(self.out.forward(&intermediate)? + &attended)?)
    }
}

/// The encoder: token ids in, one vector per token out (pooling is the caller's).
pub struct BertModel {
    embeddings: Embeddings,
    layers: Vec<Layer>,
}

impl BertModel {
    /// The weights under `bert.`, under the config's model type, or at the top level, as
    /// checkpoints name them.
    pub fn load(vb: VarBuilder, config: &Config) -> Result<BertModel> {
        let vb = if vb.contains_tensor("bert") {
            vb.pp("bert")
        } else {
            vb
        };
        let load = |vb: VarBuilder| -> Result<BertModel> {
            Ok(BertModel {
                embeddings: Embeddings::load(vb.pp("embeddings"), config)?,
                layers: (0..config.num_hidden_layers)
                    .map(|i| Layer::load(vb.pp("encoder").pp(format!("layer.{i}")), config))
                    .collect::<Result<_>>()?,
            })
        };
        load(vb.clone()).or_else(|err| match &config.model_type {
            Some(model_type) => load(vb.pp(model_type)).map_err(|_| err),
            None => Err(err),
        })
    }

    pub fn forward(
        &self,
        input_ids: &Tensor,
        token_type_ids: &Tensor,
        attention_mask: &Tensor,
    ) -> Result<Tensor> {
        let mut hidden = self.embeddings.forward(input_ids, token_type_ids)?;
        let mask = extended_attention_mask(attention_mask, hidden.dtype())?;
        for layer in &self.layers {
            hidden = layer.forward(&hidden, &mask)?;
        }
        Ok(hidden)
    }
}

/// A (batch, length) mask of 1s and 0s as an additive one: 0 where attended, f32::MIN where not.
fn extended_attention_mask(mask: &Tensor, dtype: DType) -> Result<Tensor> {
    let mask = match mask.rank() {
        3 => mask.unsqueeze(1)?,
        2 => mask.unsqueeze(1)?.unsqueeze(1)?,
        _ => candle_core::bail!("the attention mask must have 2 or 3 dimensions"),
    };
    let mask = mask.to_dtype(dtype)?;
    (mask.ones_like()? - &mask)?.broadcast_mul(
        &Tensor::try_from(f32::MIN)?
            .to_device(mask.device())?
            .to_dtype(dtype)?,
    )
}
