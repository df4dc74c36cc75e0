//! The llama.cpp side of the local model: one loaded model and one context reused trial after trial.
//! Sequence 0 of the KV cache holds the last prompt; a new prompt evaluates only what differs from
//! it (trials of one suite share the whole tool list, so usually only the request is new), from the
//! last whole chunk (`EVALUATION_CHUNK`), so its numbers do not depend on what came before; a
//! prefix worth keeping (the system turn with the tool list) is restored from, and saved to, the
//! persistent prefix cache (`warm_start`) when the memory holds none of it.
//! Continuations — candidate tool names — are scored together: each gets its own sequence sharing
//! the prompt's cells, and one batch evaluates all their tokens. Generation (`generation`) samples
//! greedily (or at a temperature from a seeded stream), optionally under a GBNF grammar.

mod generation;
mod warm_start;

pub use generation::{ANY_JSON_OBJECT, Sampling};
pub use warm_start::prefix_cache_key;

use super::prefix_cache::PrefixCache;
use crate::backend::BackendError;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;
use std::collections::HashMap;

/// The unit a prompt is evaluated and its cached cells are reused in. llama.cpp's numbers for a
/// position depend on which tokens share its micro-batch: the same prompt evaluated cold (from
/// position 0, in micro-batches of 512) and warm (all but its last token reused) gave first-pick
/// probabilities up to 2 points apart on Qwen2.5-Coder-0.5B. So a prompt is evaluated in calls of
/// one chunk each at positions that are multiples of the chunk, up to the chunk that holds the
/// first position whose logits are read, which goes with the rest of the prompt in one call; and
/// cells are reused only up to a multiple of the chunk. Every position is then computed with the
/// same neighbours whatever the cache held — or the prefix cache restored: the same prompt gives
/// the same numbers, bit for bit, cold or warm. The price is re-evaluating up to a chunk's worth
/// of reused tokens per prompt; measured on the 0.5B over a 4,486-token tool list, a score trial
/// took 3.4 s with chunks of 32, 3.6 s with 64 and 16.1 s with 512, and the list itself about as
/// long with each. (Setting llama.cpp's micro-batch to the chunk instead splits the scoring of
/// candidate names, one batch of many sequences, into chunks too: a warm 0.5B score trial on the
/// smart-home tools took 5.7 s at the median that way, 4.0 s this way.)
pub const EVALUATION_CHUNK: usize = 32;

/// Sequences scored in one batch (sequence 0 holds the prompt).
pub const CANDIDATES_PER_BATCH: usize = 63;

/// Which candidates `score_continuations` scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scope {
    /// Every one (a calibrated choice needs all the scores).
    All,
    /// Only those that can still be the best.
    Best,
    /// Those that can still be the best, and every one whose first token has at least this
    /// probability; the others keep their first token's log-probability, an upper bound on their
    /// own below the floor. A distribution over the candidates, accurate to the floor, at little
    /// more than `Best`'s cost: most names are unlikely from their first token on.
    Mass(f64),
}

/// One token of the candidates' trie.
struct TrieNode {
    token: LlamaToken,
    position: usize,
    sequences: Vec<i32>,
}

/// Log-probabilities of continuations of one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Continuations {
    /// log p of each candidate's own tokens, summed.
    pub candidates: Vec<f64>,
    /// The probability that the reply's first token is one of the `openers` asked for.
    pub opener_mass: f64,
}

/// Tokens llama.cpp computed: evaluated in batches (prompts after the reused prefix, candidate
/// tokens) and generated one at a time, and the prompt tokens restored from the prefix cache
/// instead. What a trial really cost, beside what it was billed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    pub batched: u64,
    pub generated: u64,
    /// Prompt tokens whose cells came from the persistent prefix cache instead.
    pub restored: u64,
}

pub struct Engine {
    pub model: &'static LlamaModel,
    context: LlamaContext<'static>,
    /// The tokens sequence 0 of the KV cache holds, for reuse by the next prompt.
    cached: Vec<LlamaToken>,
    /// What was computed since `take_work`.
    work: Work,
    bos_text: String,
    /// Where prefixes worth keeping are saved and restored from; `None` with `--no-kv-cache`.
    prefix_cache: Option<PrefixCache>,
    /// The tokens of the latest prompt's system turn: a prompt that starts with them keeps them.
    keepable: Vec<LlamaToken>,
}

impl Work {
    pub fn add(&mut self, other: Work) {
        self.batched += other.batched;
        self.generated += other.generated;
        self.restored += other.restored;
    }
}

impl Engine {
    pub fn new(
        model: &'static LlamaModel,
        context: LlamaContext<'static>,
        prefix_cache: Option<PrefixCache>,
    ) -> Engine {
        let bos = model.vocab().bos();
        let bos_text =
            String::from_utf8_lossy(&model.vocab().token_to_piece(bos, true, None)).into_owned();
        Engine {
            model,
            context,
            cached: Vec::new(),
            work: Work::default(),
            bos_text,
            prefix_cache,
            keepable: Vec::new(),
        }
    }

    /// Marks `tokens` (a prompt's system turn) as a prefix worth keeping across runs.
    pub fn keep_prefix(&mut self, tokens: &[LlamaToken]) {
        if self.keepable != tokens {
            self.keepable = tokens.to_vec();
        }
    }

    /// After a trial that panicked mid-computation the cache is in an unknown state.
    pub fn reset(&mut self) {
        self.cached.clear();
        self.context.clear_kv_cache();
    }

    /// The work done since the last call.
    pub fn take_work(&mut self) -> Work {
        std::mem::take(&mut self.work)
    }

    /// The text's tokens, special tokens (`<tool_call>`, `<|im_end|>`) parsed as such. A prompt
    /// gets the model's BOS token unless the template already printed it.
    pub fn tokenize(&self, text: &str, prompt: bool) -> Vec<LlamaToken> {
        let add_bos = prompt
            && self.model.vocab().should_add_bos()
            && !(self.bos_text.is_empty() || text.starts_with(&self.bos_text));
        self.model.vocab().tokenize(text.as_bytes(), add_bos, true)
    }

    /// How many of `tokens` it takes for their text to reach `bytes` bytes.
    pub fn tokens_covering(&self, tokens: &[LlamaToken], bytes: usize) -> usize {
        let mut length = 0;
        for (i, token) in tokens.iter().enumerate() {
            if length >= bytes {
                return i;
            }
            length += self.model.vocab().token_to_piece(*token, true, None).len();
        }
        tokens.len()
    }

    /// A prompt too long for the context is the trial's error, said plainly.
    pub fn check_fits(&self, tokens: usize) -> Result<(), BackendError> {
        let limit = self.context.n_ctx() as usize;
        if tokens + 64 > limit {
            return Err(BackendError::BadRequest(format!(
                "the prompt is {tokens} tokens, more than the context of {limit} allows; raise --ctx-size"
            )));
        }
        Ok(())
    }

    /// The token that ends an assistant turn (`<|im_end|>` for ChatML models).
    pub fn end_of_turn(&self) -> LlamaToken {
        let eot = self.model.vocab().eot();
        if eot.0 >= 0 {
            eot
        } else {
            self.model.vocab().eos()
        }
    }

    /// Puts `tokens` in sequence 0, evaluating only what differs from what is there, with logits
    /// at the positions `wanted` (ascending; llama.cpp computes the output layer, a 151,936-wide
    /// product on Qwen, only for rows that ask). Returns the batch rows of those positions.
    fn evaluate(
        &mut self,
        tokens: &[LlamaToken],
        wanted: &[usize],
    ) -> Result<Vec<i32>, BackendError> {
        let first_wanted = wanted.first().copied().unwrap_or(tokens.len());
        let common = self
            .cached
            .iter()
            .zip(tokens)
            .take_while(|(a, b)| a == b)
            .count()
            // Positions that need logits are decoded again.
            .min(first_wanted);
        // Only whole chunks are reused, so every position is computed in the same chunk, cold
        // or warm (see `EVALUATION_CHUNK`).
        let mut common = common / EVALUATION_CHUNK * EVALUATION_CHUNK;
        self.context
            .clear_kv_cache_seq(Some(0), Some(common as u32), None)
            .map_err(|e| BackendError::Transient(format!("llama.cpp cache: {e}")))?;
        self.cached.truncate(common);
        // The system turn, in whole chunks, before any position that needs logits.
        let keep = if tokens.starts_with(&self.keepable) {
            self.keepable.len().min(first_wanted) / EVALUATION_CHUNK * EVALUATION_CHUNK
        } else {
            0
        };
        if keep > common {
            common = self.restore_prefix(tokens, common, first_wanted)?;
            if keep > common {
                // Evaluated up to the kept prefix's end, saved, then the rest: the same calls,
                // chunk by chunk, as without the save, so the same numbers.
                self.decode_from(common, &tokens[..keep], &[])?;
                self.save_prefix(&tokens[..keep]);
                common = keep;
            }
        }
        self.decode_from(common, tokens, wanted)
    }

    /// Evaluates `tokens[from..]` into sequence 0 (which holds `tokens[..from]`), with logits at
    /// the positions `wanted`; returns their batch rows.
    fn decode_from(
        &mut self,
        from: usize,
        tokens: &[LlamaToken],
        wanted: &[usize],
    ) -> Result<Vec<i32>, BackendError> {
        let started = std::time::Instant::now();
        // Whole chunks, one call each, up to the chunk of the first position read; the rest in
        // one call, whose rows hold the logits asked for (see `EVALUATION_CHUNK`).
        let last_call = wanted
            .first()
            .map_or(tokens.len(), |&w| w / EVALUATION_CHUNK * EVALUATION_CHUNK)
            .max(from);
        let mut start = from;
        while start < tokens.len() {
            let end = if start < last_call {
                ((start / EVALUATION_CHUNK + 1) * EVALUATION_CHUNK).min(last_call)
            } else {
                tokens.len()
            };
            let mut batch = LlamaBatch::new(end - start, 1);
            for (position, token) in tokens.iter().enumerate().take(end).skip(start) {
                batch
                    .add(*token, position as i32, &[0], wanted.contains(&position))
                    .map_err(|e| BackendError::Transient(format!("llama.cpp batch: {e}")))?;
            }
            self.context
                .decode(&mut batch)
                .map_err(|e| BackendError::Transient(format!("llama.cpp decode failed: {e}")))?;
            if end == tokens.len() {
                break;
            }
            start = end;
        }
        tracing::debug!(reused = from, evaluated = tokens.len() - from, elapsed = ?started.elapsed(), "prompt evaluated");
        self.work.batched += (tokens.len() - from) as u64;
        self.cached = tokens.to_vec();
        Ok(wanted.iter().map(|&p| (p - start) as i32).collect())
    }

    /// Scores continuations of `prompt`: `shared` (tokens every candidate starts with), then each
    /// candidate's own tokens. The prompt and the shared tokens stay in sequence 0 afterwards.
    /// With `Scope::Best`, only what can still be the best is scored: a candidate's log-probability
    /// is at most that of its first token, so once the candidates after the likeliest first token
    /// are scored, any candidate whose first token is already less likely than the best of them
    /// cannot win, and its score is left at minus infinity. The best candidate and its score are
    /// exactly those of scoring everything.
    pub fn score_continuations(
        &mut self,
        prompt: &[LlamaToken],
        shared: &[LlamaToken],
        candidates: &[Vec<LlamaToken>],
        openers: &[LlamaToken],
        scope: Scope,
    ) -> Result<Continuations, BackendError> {
        let full: Vec<LlamaToken> = prompt.iter().chain(shared).copied().collect();
        self.check_fits(full.len() + candidates.iter().map(Vec::len).max().unwrap_or(0))?;
        // Logits where the reply starts (is it a call?) and after the shared opening (which name?).
        let at_reply = prompt.len().saturating_sub(1);
        let rows = self.evaluate(&full, &[at_reply, full.len().saturating_sub(1)])?;
        let opener_mass = probability_mass(self.context.get_logits_ith(rows[0]), openers);
        let after_shared = self.context.get_logits_ith(rows[rows.len() - 1]).to_vec();
        let started = std::time::Instant::now();
        let first: Vec<f64> = candidates
            .iter()
            .map(|c| c.first().map_or(0.0, |t| log_prob(&after_shared, *t)))
            .collect();
        let mut scores = vec![f64::NEG_INFINITY; candidates.len()];
        let all: Vec<usize> = (0..candidates.len()).collect();
        match scope {
            Scope::All => {
                self.score_group(full.len(), &after_shared, candidates, &all, &mut scores)?
            }
            Scope::Best | Scope::Mass(_) => {
                let top = all
                    .iter()
                    .copied()
                    .max_by(|&a, &b| first[a].total_cmp(&first[b]))
                    .and_then(|k| candidates[k].first().copied());
                let floor = match scope {
                    Scope::Mass(floor) => floor.ln(),
                    _ => f64::INFINITY,
                };
                let (leading, rest): (Vec<usize>, Vec<usize>) = all
                    .iter()
                    .partition(|&&k| candidates[k].first().copied() == top || first[k] >= floor);
                self.score_group(full.len(), &after_shared, candidates, &leading, &mut scores)?;
                let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let contenders: Vec<usize> =
                    rest.into_iter().filter(|&k| first[k] >= best).collect();
                self.score_group(
                    full.len(),
                    &after_shared,
                    candidates,
                    &contenders,
                    &mut scores,
                )?;
                if matches!(scope, Scope::Mass(_)) {
                    for (k, score) in scores.iter_mut().enumerate() {
                        if *score == f64::NEG_INFINITY {
                            *score = first[k];
                        }
                    }
                }
            }
        }
        tracing::debug!(candidates = candidates.len(), elapsed = ?started.elapsed(), "candidates scored");
        Ok(Continuations {
            candidates: scores,
            opener_mass,
        })
    }

    /// Scores the candidates `which` (after the first `start` positions of sequence 0, whose last
    /// logits are `after_shared`) into `scores`. Candidates that start alike (`get_weather`,
    /// `get_weather_forecast`) share the evaluation of their common tokens: each node of their
    /// token trie is evaluated once, in the sequences of every candidate through it, so each
    /// candidate attends to exactly its own tokens. A candidate's last token is only scored.
    fn score_group(
        &mut self,
        start: usize,
        after_shared: &[f32],
        candidates: &[Vec<LlamaToken>],
        which: &[usize],
        scores: &mut [f64],
    ) -> Result<(), BackendError> {
        for chunk in which.chunks(CANDIDATES_PER_BATCH) {
            let mut nodes: Vec<TrieNode> = Vec::new();
            let mut found: HashMap<(Option<usize>, i32), usize> = HashMap::new();
            let mut paths: Vec<Vec<usize>> = Vec::with_capacity(chunk.len());
            for (k, &candidate) in chunk.iter().enumerate() {
                let tokens = &candidates[candidate];
                let seq = k as i32 + 1;
                self.context
                    .kv_cache_seq_cp(0, seq, None, None)
                    .map_err(|e| BackendError::Transient(format!("llama.cpp cache: {e}")))?;
                let mut parent = None;
                let mut path = Vec::new();
                for (depth, token) in tokens
                    .iter()
                    .take(tokens.len().saturating_sub(1))
                    .enumerate()
                {
                    let node = *found.entry((parent, token.0)).or_insert_with(|| {
                        nodes.push(TrieNode {
                            token: *token,
                            position: start + depth,
                            sequences: Vec::new(),
                        });
                        nodes.len() - 1
                    });
                    nodes[node].sequences.push(seq);
                    path.push(node);
                    parent = Some(node);
                }
                paths.push(path);
            }
            if !nodes.is_empty() {
                let mut batch = LlamaBatch::new(nodes.len(), chunk.len() as i32 + 1);
                for node in &nodes {
                    batch
                        .add(node.token, node.position as i32, &node.sequences, true)
                        .map_err(|e| BackendError::Transient(format!("llama.cpp batch: {e}")))?;
                }
                self.context.decode(&mut batch).map_err(|e| {
                    BackendError::Transient(format!("llama.cpp decode failed: {e}"))
                })?;
                self.work.batched += nodes.len() as u64;
            }
            for (&candidate, path) in chunk.iter().zip(&paths) {
                let tokens = &candidates[candidate];
                let Some(first_token) = tokens.first() else {
                    scores[candidate] = 0.0;
                    continue;
                };
                let mut total = log_prob(after_shared, *first_token);
                // Nodes were added in order, so a node's batch row is its index.
                for (node, next) in path.iter().zip(&tokens[1..]) {
                    total += log_prob(self.context.get_logits_ith(*node as i32), *next);
                }
                scores[candidate] = total;
            }
            for k in 0..chunk.len() {
                self.context
                    .clear_kv_cache_seq(Some(k as u32 + 1), None, None)
                    .map_err(|e| BackendError::Transient(format!("llama.cpp cache: {e}")))?;
            }
        }
        Ok(())
    }
}

/// The total probability of `tokens` under softmax(logits).
fn probability_mass(logits: &[f32], tokens: &[LlamaToken]) -> f64 {
    if tokens.is_empty() {
        return 0.0;
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let total: f64 = logits.iter().map(|&l| f64::from(l - max).exp()).sum();
    let chosen: f64 = tokens
        .iter()
        .filter_map(|t| logits.get(t.0 as usize))
        .map(|&l| f64::from(l - max).exp())
        .sum();
    chosen / total
}

/// Every token whose text could begin a written tool call: a `<tool_call>` tag (whole, or spelt
/// out from its first characters), a code fence, or JSON (`{`, `[`). Leading spaces are ignored.
pub fn call_openers(model: &LlamaModel) -> Vec<LlamaToken> {
    model
        .vocab()
        .tokens()
        .filter(|token| {
            let piece = model.vocab().token_to_piece(*token, true, None);
            let text = String::from_utf8_lossy(&piece);
            let text = text.trim_start();
            !text.is_empty()
                && (TAG.starts_with(text)
                    || text.starts_with(TAG)
                    || FENCE.starts_with(text)
                    || text.starts_with(FENCE)
                    || text.starts_with(['{', '[']))
        })
        .collect()
}

const TAG: &str = "<tool_call>";
const FENCE: &str = "```";

/// log softmax(logits)[token], in one pass over the vocabulary (plain loops: this runs for every
/// candidate token, and the crate is tested unoptimised).
pub fn log_prob(logits: &[f32], token: LlamaToken) -> f64 {
    let mut max = f32::NEG_INFINITY;
    for &l in logits {
        if l > max {
            max = l;
        }
    }
    let mut sum = 0.0f32;
    for &l in logits {
        sum += (l - max).exp();
    }
    let value = logits
        .get(token.0 as usize)
        .copied()
        .unwrap_or(f32::NEG_INFINITY);
    f64::from(value - max) - f64::from(sum).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_probabilities_sum_to_one() {
        let logits = [1.0, 2.0, 3.0];
        let total: f64 = (0..3).map(|i| log_prob(&logits, LlamaToken(i)).exp()).sum();
        assert!((total - 1.0).abs() < 1e-6, "{total}");
        assert_eq!(log_prob(&logits, LlamaToken(7)), f64::NEG_INFINITY);
    }
}
