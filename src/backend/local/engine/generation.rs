//! Generation: tokens drawn one at a time after a prompt — greedily, or at a temperature from a
//! seeded stream — optionally held to a GBNF grammar (a tool's arguments, or any JSON object). Under
//! a grammar a token is drawn first and the grammar asked about that one token, as llama.cpp's own
//! samplers do: checking every token of the vocabulary at every step is what makes grammars slow.

use super::Engine;
use crate::backend::BackendError;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

/// How one generation draws its tokens.
#[derive(Debug, Clone, Copy)]
pub struct Sampling {
    pub temperature: f32,
    pub seed: u32,
    pub max_tokens: u32,
}

impl Engine {
    /// Generation after `prompt`, optionally under a GBNF grammar: the text and its token count.
    pub fn generate(
        &mut self,
        prompt: &[LlamaToken],
        grammar: Option<&str>,
        sampling: Sampling,
    ) -> Result<(String, u64), BackendError> {
        self.check_fits(prompt.len())?;
        self.evaluate(prompt, &[prompt.len().saturating_sub(1)])?;
        let mut grammar = match grammar {
            // A grammar llama.cpp cannot use (a schema construct its converter gets wrong) falls
            // back to "any JSON object": the reply still parses, the schema is checked by the tool.
            Some(grammar) => Some(
                LlamaSampler::grammar(self.model, grammar, "root")
                    .or_else(|_| LlamaSampler::grammar(self.model, ANY_JSON_OBJECT, "root"))
                    .map_err(|e| {
                        BackendError::BadRequest(format!("no JSON grammar could be built: {e}"))
                    })?,
            ),
            None => None,
        };
        // Free sampling at a temperature goes through llama.cpp's sampler chain; under a grammar,
        // `sample_under` draws first and checks the one token drawn (a grammar over the whole
        // vocabulary costs a pass of 150,000 tokens per token: seconds per reply).
        let mut chain = (sampling.temperature > 0.0 && grammar.is_none()).then(|| {
            LlamaSampler::chain_simple([
                LlamaSampler::temp(sampling.temperature),
                LlamaSampler::dist(sampling.seed),
            ])
        });
        let mut stream = u64::from(sampling.seed);
        let started = std::time::Instant::now();
        let mut bytes = Vec::new();
        let mut position = prompt.len();
        let limit = (self.context.n_ctx() as usize).saturating_sub(1);
        let mut generated = 0;
        while generated < u64::from(sampling.max_tokens) && position < limit {
            let token = match (&mut chain, &mut grammar) {
                // `sample` also advances the samplers' state (the grammar) past the token.
                (Some(chain), _) => chain.sample(&self.context, -1),
                (None, Some(grammar)) if sampling.temperature > 0.0 => {
                    stream = crate::hashing::splitmix64(stream);
                    self.sample_under(grammar, sampling.temperature, stream)
                }
                (None, Some(grammar)) => self.greedy_under(grammar),
                (None, None) => argmax_token(self.context.get_logits_ith(-1)),
            };
            if self.model.vocab().is_eog(token) {
                break;
            }
            // Special tokens are kept: `<tool_call>` is one in Qwen's vocabulary.
            bytes.extend(self.model.vocab().token_to_piece(token, true, None));
            generated += 1;
            let mut batch = LlamaBatch::new(1, 1);
            batch
                .add(token, position as i32, &[0], true)
                .map_err(|e| BackendError::Transient(format!("llama.cpp batch: {e}")))?;
            self.context
                .decode(&mut batch)
                .map_err(|e| BackendError::Transient(format!("llama.cpp decode failed: {e}")))?;
            self.work.generated += 1;
            self.cached.push(token);
            position += 1;
        }
        tracing::debug!(generated, elapsed = ?started.elapsed(), "tokens generated");
        Ok((String::from_utf8_lossy(&bytes).into_owned(), generated))
    }
}

impl Engine {
    /// The most likely token the grammar allows. The most likely token overall is tried first —
    /// under a JSON grammar it is nearly always allowed — so the grammar is checked against one
    /// token instead of the whole vocabulary (llama.cpp's own samplers do the same).
    fn greedy_under(&self, grammar: &mut LlamaSampler) -> LlamaToken {
        let logits = self.context.get_logits_ith(-1);
        let best = argmax_token(logits);
        let mut one = LlamaTokenDataArray::new(
            vec![LlamaTokenData::new(best, logits[best.0 as usize], 0.0)],
            false,
        );
        grammar.apply(&mut one);
        let token = if one.data[0].logit().is_finite() {
            best
        } else {
            let mut all = self.context.token_data_array_ith(-1);
            grammar.apply(&mut all);
            all.data
                .iter()
                .filter(|d| d.logit().is_finite())
                .max_by(|a, b| a.logit().total_cmp(&b.logit()))
                .map_or(self.model.vocab().eos(), |d| d.id())
        };
        grammar.accept(token);
        token
    }
}

/// Tokens a draw at a temperature chooses among: the most likely ones (llama.cpp's default top-k).
const SAMPLE_TOP_K: usize = 40;

impl Engine {
    /// A token drawn at `temperature` from the `SAMPLE_TOP_K` most likely ones, by `draw` (a
    /// uniform 64-bit number), that the grammar allows. The token drawn is checked alone first;
    /// only when the grammar refuses it are all tokens checked, and the draw repeated among the
    /// most likely of those it allows.
    fn sample_under(&self, grammar: &mut LlamaSampler, temperature: f32, draw: u64) -> LlamaToken {
        let logits = self.context.get_logits_ith(-1);
        let candidates: Vec<(LlamaToken, f32)> = top_k(
            logits
                .iter()
                .enumerate()
                .map(|(i, &l)| (LlamaToken(i as i32), l)),
        );
        let drawn = draw_token(&candidates, temperature, draw);
        let mut one = LlamaTokenDataArray::new(
            vec![LlamaTokenData::new(drawn, logits[drawn.0 as usize], 0.0)],
            false,
        );
        grammar.apply(&mut one);
        let token = if one.data[0].logit().is_finite() {
            drawn
        } else {
            let mut all = self.context.token_data_array_ith(-1);
            grammar.apply(&mut all);
            let allowed = top_k(
                all.data
                    .iter()
                    .filter(|d| d.logit().is_finite())
                    .map(|d| (d.id(), d.logit())),
            );
            if allowed.is_empty() {
                self.model.vocab().eos()
            } else {
                draw_token(&allowed, temperature, crate::hashing::splitmix64(draw))
            }
        };
        grammar.accept(token);
        token
    }
}

/// The `SAMPLE_TOP_K` entries with the highest logits, highest first.
fn top_k(tokens: impl Iterator<Item = (LlamaToken, f32)>) -> Vec<(LlamaToken, f32)> {
    let mut all: Vec<(LlamaToken, f32)> = tokens.collect();
    let k = SAMPLE_TOP_K.min(all.len());
    if k < all.len() {
        all.select_nth_unstable_by(k, |a, b| b.1.total_cmp(&a.1));
        all.truncate(k);
    }
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.0.cmp(&b.0.0)));
    all
}

/// One of `candidates` (highest logit first), drawn with probability softmax(logit / temperature).
fn draw_token(candidates: &[(LlamaToken, f32)], temperature: f32, draw: u64) -> LlamaToken {
    let top = candidates[0].1;
    let weights: Vec<f64> = candidates
        .iter()
        .map(|(_, l)| f64::from((l - top) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    // 53 random bits as a fraction in [0, 1).
    let mut target = (draw >> 11) as f64 / (1u64 << 53) as f64 * total;
    for ((token, _), weight) in candidates.iter().zip(&weights) {
        if target < *weight {
            return *token;
        }
        target -= weight;
    }
    candidates[candidates.len() - 1].0
}

/// The token with the highest logit.
fn argmax_token(logits: &[f32]) -> LlamaToken {
    let mut best = 0;
    for (i, &l) in logits.iter().enumerate() {
        if l > logits[best] {
            best = i;
        }
    }
    LlamaToken(best as i32)
}

/// A JSON object of anything, for schemas llama.cpp's converter does not take.
pub const ANY_JSON_OBJECT: &str = r#"root ::= object
value ::= object | array | string | number | ("true" | "false" | "null") ws
object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}" ws
array ::= "[" ws ( value ("," ws value)* )? "]" ws
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) )* "\"" ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws
ws ::= | " " | "\n" [ \t]{0,20}
"#;
