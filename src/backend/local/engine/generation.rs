//! Generation: tokens drawn one at a time after a prompt — greedily, or at a temperature from a
//! seeded stream — optionally held to a GBNF grammar (a tool's arguments, or any JSON object).

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
        // Sampling at a temperature goes through llama.cpp's sampler chain, grammar first.
        let mut chain = (sampling.temperature > 0.0).then(|| {
            LlamaSampler::chain_simple(grammar.take().into_iter().chain([
                LlamaSampler::temp(sampling.temperature),
                LlamaSampler::dist(sampling.seed),
            ]))
        });
        let started = std::time::Instant::now();
        let mut bytes = Vec::new();
        let mut position = prompt.len();
        let limit = (self.context.n_ctx() as usize).saturating_sub(1);
        let mut generated = 0;
        while generated < u64::from(sampling.max_tokens) && position < limit {
            let token = match (&mut chain, &mut grammar) {
                // `sample` also advances the samplers' state (the grammar) past the token.
                (Some(chain), _) => chain.sample(&self.context, -1),
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
