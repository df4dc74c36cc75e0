//! `local[:MODE]`: a small instruct model run inside mcpick through llama.cpp (`llama-cpp-2`), so a
//! run measures a real language model with no key and no server. The default model is
//! SmolLM2-135M-Instruct (fetched once, see `model_store`); `--model PATH` takes any GGUF, whose own
//! chat template formats the prompts. Decoding is greedy by default (`--temperature` above 0 samples
//! from a stream seeded by `--seed` and the trial), so a trial's result depends only on its inputs:
//! two runs give identical trials.
//!
//! Modes:
//! - `score` (default): multiple choice. Every tool name, and `none`, is scored by the
//!   log-probability the model gives it (followed by the end-of-turn token) as the reply to the
//!   request, minus half the log-probability it gives the same name when the request is left out —
//!   a prior that tempers the model's taste for some names regardless of the request. The prompt is
//!   evaluated once and kept in the KV cache; each candidate only adds its own few tokens. The
//!   winner's arguments are then generated under a grammar built from its `inputSchema`, so they
//!   always parse.
//! - `generate`: the model writes the call itself as `{"name": …, "arguments": {…}}` or answers in
//!   text; what it writes is parsed like any hosted model's reply (unparseable → `malformed_call`).
//! - `generate-json`: the same, with the reply held to that JSON shape by a grammar.
//!
//! The model acts once per trial (one call, then it reports back), like the other offline baselines.

use super::hosted::parse_arguments;
use super::{BackendError, Reply, ToolCallRequest, Turn, last_user_text, tool_results};
use crate::score::CallArguments;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LocalMode {
    Score,
    Generate,
    GenerateJson,
}

impl LocalMode {
    pub fn parse(text: &str) -> Option<LocalMode> {
        match text {
            "score" => Some(LocalMode::Score),
            "generate" => Some(LocalMode::Generate),
            "generate-json" => Some(LocalMode::GenerateJson),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LocalMode::Score => "score",
            LocalMode::Generate => "generate",
            LocalMode::GenerateJson => "generate-json",
        }
    }
}

/// How to run the local model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LocalOptions {
    pub model: PathBuf,
    /// Threads for generating tokens. One is the default: on a busy 2-core machine two threads made
    /// generation ten times slower.
    pub threads: u32,
    /// Threads for evaluating prompts (this does gain from more).
    pub threads_batch: u32,
    pub ctx_size: u32,
    /// Longest generated reply, in tokens.
    pub max_tokens: u32,
    /// 0 decodes greedily; above 0, tokens are drawn at this temperature from a stream seeded by
    /// `seed` and the trial, so a rerun draws the same tokens.
    pub temperature: f32,
    pub seed: u32,
}

/// How one generation draws its tokens.
#[derive(Debug, Clone, Copy)]
struct Sampling {
    temperature: f32,
    seed: u32,
    max_tokens: u32,
}

/// The loaded model and one context, reused trial after trial (its KV cache cleared each time).
struct Engine {
    model: &'static LlamaModel,
    context: LlamaContext<'static>,
    template: LlamaChatTemplate,
    /// Tokens of the last prompt evaluated (reported as input tokens).
    last_prompt_tokens: u64,
    /// The tokens sequence 0 of the KV cache holds, for reuse by the next prompt.
    cached: Vec<LlamaToken>,
}

pub struct LocalBackend {
    pub mode: LocalMode,
    pub options: LocalOptions,
    engine: Mutex<Engine>,
    /// Prior log-probabilities per tool list (the request left out), computed once per list.
    priors: Mutex<HashMap<String, Vec<f64>>>,
}

impl std::fmt::Debug for LocalBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalBackend")
            .field("mode", &self.mode)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// llama.cpp's global state, initialised once per process.
fn llama_backend() -> Result<&'static LlamaBackend, String> {
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

impl LocalBackend {
    /// Loads the model. Every failure names the file: missing, unreadable, not a GGUF, no chat
    /// template.
    pub fn load(mode: LocalMode, options: LocalOptions) -> Result<LocalBackend, String> {
        let path = &options.model;
        check_gguf(path)?;
        let backend = llama_backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| {
                format!(
                    "{}: llama.cpp could not load it ({e}); is it a complete GGUF model?",
                    path.display()
                )
            })?;
        // The model lives as long as the process: contexts borrow it for their whole life.
        let model: &'static LlamaModel = Box::leak(Box::new(model));
        let template = model.chat_template(None).map_err(|e| {
            format!(
                "{}: the GGUF carries no chat template ({e}); use an instruct model",
                path.display()
            )
        })?;
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(options.ctx_size.max(256)))
            .with_n_batch(options.ctx_size.max(256))
            .with_n_threads(options.threads.max(1) as i32)
            .with_n_threads_batch(options.threads_batch.max(1) as i32)
            // Candidates are scored as parallel sequences sharing the prompt's cells.
            .with_n_seq_max(CANDIDATES_PER_BATCH as u32 + 1)
            .with_kv_unified(true);
        let context = model
            .new_context(backend, params)
            .map_err(|e| format!("{}: cannot create a context: {e}", path.display()))?;
        Ok(LocalBackend {
            mode,
            options,
            engine: Mutex::new(Engine {
                model,
                context,
                template,
                last_prompt_tokens: 0,
                cached: Vec::new(),
            }),
            priors: Mutex::new(HashMap::new()),
        })
    }

    pub fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        if tool_results(turn.messages) > 0 || turn.tools.is_empty() {
            return Ok(Reply {
                text: Some("Done.".into()),
                ..Reply::default()
            });
        }
        let request = last_user_text(turn.messages).to_string();
        let sampling = Sampling {
            temperature: self.options.temperature,
            // Each trial its own stream, the same on every run.
            seed: self.options.seed ^ (turn.seed as u32) ^ ((turn.seed >> 32) as u32),
            max_tokens: self.options.max_tokens,
        };
        // A trial that panicked mid-computation left the cache in an unknown state: start afresh.
        let mut engine = self.engine.lock().unwrap_or_else(|poisoned| {
            self.engine.clear_poison();
            let mut engine = poisoned.into_inner();
            engine.cached.clear();
            engine.context.clear_kv_cache();
            engine
        });
        let reply = match self.mode {
            LocalMode::Score => self.score(&mut engine, turn.tools, &request, sampling),
            LocalMode::Generate | LocalMode::GenerateJson => {
                self.generate_call(&mut engine, turn.tools, &request, sampling)
            }
        }?;
        Ok(reply)
    }

    fn score(
        &self,
        engine: &mut Engine,
        tools: &[Value],
        request: &str,
        sampling: Sampling,
    ) -> Result<Reply, BackendError> {
        let names: Vec<String> = tools
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .chain(std::iter::once("none".to_string()))
            .collect();
        let system = choice_prompt(tools);
        let prior = self
            .priors
            .lock()
            .ok()
            .and_then(|p| p.get(&system).cloned());
        let prior = match prior {
            Some(prior) => prior,
            None => {
                let prior =
                    engine.candidate_logprobs(&[("system", &system), ("user", "")], &names)?;
                if let Ok(mut priors) = self.priors.lock() {
                    priors.insert(system.clone(), prior.clone());
                }
                prior
            }
        };
        let given = engine.candidate_logprobs(&[("system", &system), ("user", request)], &names)?;
        let mut input_tokens = engine.last_prompt_tokens;
        let (best, _) = given
            .iter()
            .zip(&prior)
            .map(|(g, p)| g - PRIOR_WEIGHT * p)
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |(bi, bs), (i, s)| {
                if s > bs { (i, s) } else { (bi, bs) }
            });
        if best == names.len() - 1 {
            return Ok(Reply {
                text: Some("No tool fits this request.".into()),
                input_tokens,
                ..Reply::default()
            });
        }
        let schema = &tools[best]["inputSchema"];
        let grammar = llama_cpp_2::json_schema_to_grammar(&schema.to_string())
            .unwrap_or_else(|_| ANY_JSON_OBJECT.to_string());
        // The arguments are asked for as a follow-up in the same conversation, so the tool list
        // and the request already in the KV cache are not evaluated again.
        let follow_up = format!(
            "Now write the arguments for `{}` as one JSON object matching this JSON Schema, with values from my request:\n{}",
            names[best], schema
        );
        let (text, output_tokens) = engine.generate(
            &[
                ("system", &system),
                ("user", request),
                ("assistant", &names[best]),
                ("user", &follow_up),
            ],
            Some(&grammar),
            sampling,
        )?;
        input_tokens += engine.last_prompt_tokens;
        Ok(Reply {
            text: None,
            calls: vec![ToolCallRequest {
                id: "call_1".into(),
                tool: names[best].clone(),
                arguments: parse_arguments(&Value::String(text)),
            }],
            input_tokens,
            output_tokens,
        })
    }

    fn generate_call(
        &self,
        engine: &mut Engine,
        tools: &[Value],
        request: &str,
        sampling: Sampling,
    ) -> Result<Reply, BackendError> {
        let system = generation_prompt(tools);
        let grammar = match self.mode {
            LocalMode::GenerateJson => {
                let mut names: Vec<Value> = tools.iter().map(|t| t["name"].clone()).collect();
                names.push(json!("none"));
                let shape = json!({
                    "type": "object",
                    "properties": {"name": {"enum": names}, "arguments": {"type": "object"}},
                    "required": ["name", "arguments"],
                    "additionalProperties": false
                });
                Some(
                    llama_cpp_2::json_schema_to_grammar(&shape.to_string())
                        .unwrap_or_else(|_| ANY_JSON_OBJECT.to_string()),
                )
            }
            _ => None,
        };
        let (text, output_tokens) = engine.generate(
            &[("system", &system), ("user", request)],
            grammar.as_deref(),
            sampling,
        )?;
        let mut reply = parse_generated_call(&text);
        reply.input_tokens = engine.last_prompt_tokens;
        reply.output_tokens = output_tokens;
        Ok(reply)
    }
}

/// A JSON object of anything, for schemas llama.cpp's converter does not take.
const ANY_JSON_OBJECT: &str = r#"root ::= object
value ::= object | array | string | number | ("true" | "false" | "null") ws
object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}" ws
array ::= "[" ws ( value ("," ws value)* )? "]" ws
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) )* "\"" ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws
ws ::= | " " | "\n" [ \t]{0,20}
"#;

fn check_gguf(path: &Path) -> Result<(), String> {
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

/// The multiple-choice prompt: the tools, one a line, and `none`.
fn choice_prompt(tools: &[Value]) -> String {
    let mut prompt =
        String::from("You choose the one tool that fulfils the user's request.\nTools:\n");
    for tool in tools {
        let parameters: Vec<&str> = tool["inputSchema"]["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        prompt.push_str(&format!(
            "- {}: {} (parameters: {})\n",
            tool["name"].as_str().unwrap_or(""),
            one_line(tool["description"].as_str().unwrap_or("")),
            if parameters.is_empty() {
                "none".to_string()
            } else {
                parameters.join(", ")
            }
        ));
    }
    prompt
        .push_str("- none: no tool fits; answer without a tool\nReply with the tool's name only.");
    prompt
}

/// The prompt for a model that writes its own call. Parameters are listed one per line (type,
/// allowed values, required) rather than as JSON Schema: shorter, and easier for a small model.
fn generation_prompt(tools: &[Value]) -> String {
    let mut prompt = String::from("You can call these tools:\n");
    for tool in tools {
        prompt.push_str(&format!(
            "- {}: {}\n",
            tool["name"].as_str().unwrap_or(""),
            one_line(tool["description"].as_str().unwrap_or(""))
        ));
        let schema = &tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            let mut line = format!(
                "    {name} ({}{})",
                property["type"].as_str().unwrap_or("any"),
                if required.contains(&name.as_str()) {
                    ", required"
                } else {
                    ""
                }
            );
            if let Some(values) = property["enum"].as_array() {
                let values: Vec<String> = values.iter().map(Value::to_string).collect();
                line.push_str(&format!(" one of {}", values.join(", ")));
            }
            if let Some(description) = property["description"].as_str() {
                line.push_str(&format!(": {}", one_line(description)));
            }
            prompt.push_str(&line);
            prompt.push('\n');
        }
    }
    prompt.push_str("To call a tool, reply with only a JSON object: {\"name\": \"TOOL\", \"arguments\": {...}}. If no tool fits, reply {\"name\": \"none\", \"arguments\": {}} or answer in plain text.");
    prompt
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads a generated reply: a JSON object naming a tool is a call; text without one is an answer;
/// an object that does not parse is a malformed call (never an abstention).
pub fn parse_generated_call(text: &str) -> Reply {
    let trimmed = text.trim();
    let Some(start) = trimmed.find('{') else {
        return Reply {
            text: Some(trimmed.to_string()),
            ..Reply::default()
        };
    };
    let candidate = &trimmed[start..trimmed.rfind('}').map_or(trimmed.len(), |e| e + 1)];
    match serde_json::from_str::<Value>(candidate) {
        Ok(Value::Object(object)) => {
            let name = object
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if name == "none" {
                return Reply {
                    text: Some(trimmed.to_string()),
                    ..Reply::default()
                };
            }
            let arguments = match object.get("arguments") {
                Some(arguments) => parse_arguments(arguments),
                None => CallArguments::Malformed {
                    raw: candidate.to_string(),
                    reason: "no \"arguments\" field".into(),
                },
            };
            Reply {
                calls: vec![ToolCallRequest {
                    id: "call_1".into(),
                    tool: name,
                    arguments,
                }],
                ..Reply::default()
            }
        }
        _ => {
            // The tool's name may still be readable in a broken object.
            let name = regex::Regex::new(r#""name"\s*:\s*"([^"]*)""#)
                .ok()
                .and_then(|r| r.captures(candidate).map(|c| c[1].to_string()))
                .unwrap_or_default();
            Reply {
                calls: vec![ToolCallRequest {
                    id: "call_1".into(),
                    tool: name,
                    arguments: CallArguments::Malformed {
                        raw: candidate.to_string(),
                        reason: "the reply is not a JSON object".into(),
                    },
                }],
                ..Reply::default()
            }
        }
    }
}

/// How much of the prior is subtracted. Measured with SmolLM2-135M on the shipped travel and
/// smart-home suites (110 tasks), selection accuracy was 19.4% with no calibration, 32.3% with half
/// the prior subtracted and about 20% with all of it: the full prior over-corrects towards names the
/// model finds unlikely on their own.
const PRIOR_WEIGHT: f64 = 0.5;

/// Sequences scored in one batch (sequence 0 holds the prompt).
const CANDIDATES_PER_BATCH: usize = 63;

impl Engine {
    /// The chat-formatted conversation, ready for the assistant's reply.
    fn prompt_tokens(&mut self, chat: &[(&str, &str)]) -> Result<Vec<LlamaToken>, BackendError> {
        let chat: Vec<LlamaChatMessage> = chat
            .iter()
            .map(|(role, content)| {
                LlamaChatMessage::new(role.to_string(), content.to_string())
                    .map_err(|e| BackendError::BadRequest(format!("cannot build the prompt: {e}")))
            })
            .collect::<Result<_, _>>()?;
        let text = self
            .model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| BackendError::BadRequest(format!("the chat template failed: {e}")))?;
        let tokens = self.model.vocab().tokenize(text.as_bytes(), true, true);
        let limit = self.context.n_ctx() as usize;
        if tokens.len() + 64 > limit {
            return Err(BackendError::BadRequest(format!(
                "the prompt is {} tokens, more than the context of {limit} allows; raise --ctx-size",
                tokens.len()
            )));
        }
        Ok(tokens)
    }

    /// Puts `prompt` in sequence 0 of the KV cache, evaluating only what differs from what is
    /// there already: trials of one suite share the whole tool list, so usually only the request is
    /// new. Returns the batch row that holds the last token's logits.
    fn evaluate_prompt(&mut self, prompt: &[LlamaToken]) -> Result<i32, BackendError> {
        let common = self
            .cached
            .iter()
            .zip(prompt)
            .take_while(|(a, b)| a == b)
            .count()
            // At least one token is decoded, for its logits.
            .min(prompt.len().saturating_sub(1));
        self.context
            .clear_kv_cache_seq(Some(0), Some(common as u32), None)
            .map_err(|e| BackendError::Transient(format!("llama.cpp cache: {e}")))?;
        self.cached.truncate(common);
        let started = std::time::Instant::now();
        self.decode(&prompt[common..], common)?;
        tracing::debug!(
            reused = common,
            evaluated = prompt.len() - common,
            elapsed = ?started.elapsed(),
            "prompt evaluated"
        );
        self.cached = prompt.to_vec();
        self.last_prompt_tokens = prompt.len() as u64;
        Ok((prompt.len() - common - 1) as i32)
    }

    /// Evaluates `tokens` from position `start` in sequence 0, with logits for the last one.
    fn decode(&mut self, tokens: &[LlamaToken], start: usize) -> Result<(), BackendError> {
        let mut batch = LlamaBatch::new(tokens.len().max(1), 1);
        for (i, token) in tokens.iter().enumerate() {
            batch
                .add(*token, (start + i) as i32, &[0], i + 1 == tokens.len())
                .map_err(|e| BackendError::Transient(format!("llama.cpp batch: {e}")))?;
        }
        self.context
            .decode(&mut batch)
            .map_err(|e| BackendError::Transient(format!("llama.cpp decode failed: {e}")))
    }

    /// Log-probability of each candidate (its tokens, then end of turn) as the reply to `chat`.
    /// Candidates are scored together: each gets its own sequence sharing the prompt's cache
    /// cells, and one batch evaluates all their tokens.
    fn candidate_logprobs(
        &mut self,
        chat: &[(&str, &str)],
        candidates: &[String],
    ) -> Result<Vec<f64>, BackendError> {
        let prompt = self.prompt_tokens(chat)?;
        let last_row = self.evaluate_prompt(&prompt)?;
        let first_row = self.context.get_logits_ith(last_row).to_vec();
        let end = end_of_turn(self.model);
        let sequences: Vec<Vec<LlamaToken>> = candidates
            .iter()
            .map(|c| {
                let mut tokens = self.model.vocab().tokenize(c.as_bytes(), false, false);
                tokens.push(end);
                tokens
            })
            .collect();
        let started = std::time::Instant::now();
        let mut scores = Vec::with_capacity(candidates.len());
        for chunk in sequences.chunks(CANDIDATES_PER_BATCH) {
            let size: usize = chunk.iter().map(|t| t.len() - 1).sum();
            let mut batch = LlamaBatch::new(size.max(1), chunk.len() as i32 + 1);
            // (index in the batch of each token's logits) per candidate.
            let mut rows: Vec<Vec<i32>> = Vec::with_capacity(chunk.len());
            for (k, tokens) in chunk.iter().enumerate() {
                let seq = k as i32 + 1;
                self.context
                    .kv_cache_seq_cp(0, seq, None, None)
                    .map_err(|e| BackendError::Transient(format!("llama.cpp cache: {e}")))?;
                let mut candidate_rows = Vec::new();
                // The last token (end of turn) is only scored, never evaluated.
                for (i, token) in tokens[..tokens.len() - 1].iter().enumerate() {
                    candidate_rows.push(batch.n_tokens());
                    batch
                        .add(*token, (prompt.len() + i) as i32, &[seq], true)
                        .map_err(|e| BackendError::Transient(format!("llama.cpp batch: {e}")))?;
                }
                rows.push(candidate_rows);
            }
            if batch.n_tokens() > 0 {
                self.context.decode(&mut batch).map_err(|e| {
                    BackendError::Transient(format!("llama.cpp decode failed: {e}"))
                })?;
            }
            for (tokens, candidate_rows) in chunk.iter().zip(&rows) {
                let mut total = log_prob(&first_row, tokens[0]);
                for (row, next) in candidate_rows.iter().zip(&tokens[1..]) {
                    total += log_prob(self.context.get_logits_ith(*row), *next);
                }
                scores.push(total);
            }
            for k in 0..chunk.len() {
                self.context
                    .clear_kv_cache_seq(Some(k as u32 + 1), None, None)
                    .map_err(|e| BackendError::Transient(format!("llama.cpp cache: {e}")))?;
            }
        }
        tracing::debug!(candidates = candidates.len(), elapsed = ?started.elapsed(), "candidates scored");
        Ok(scores)
    }

    /// Greedy generation after `chat`, optionally under a GBNF grammar; returns the text and its
    /// token count.
    fn generate(
        &mut self,
        chat: &[(&str, &str)],
        grammar: Option<&str>,
        sampling: Sampling,
    ) -> Result<(String, u64), BackendError> {
        let prompt = self.prompt_tokens(chat)?;
        self.evaluate_prompt(&prompt)?;
        let mut samplers = Vec::new();
        if let Some(grammar) = grammar {
            // A grammar llama.cpp cannot use (a schema construct its converter gets wrong) falls
            // back to "any JSON object": the reply still parses, the schema is checked by the tool.
            let constrained = LlamaSampler::grammar(self.model, grammar, "root")
                .or_else(|_| LlamaSampler::grammar(self.model, ANY_JSON_OBJECT, "root"))
                .map_err(|e| {
                    BackendError::BadRequest(format!("no JSON grammar could be built: {e}"))
                })?;
            samplers.push(constrained);
        }
        if sampling.temperature > 0.0 {
            samplers.push(LlamaSampler::temp(sampling.temperature));
            samplers.push(LlamaSampler::dist(sampling.seed));
        } else {
            samplers.push(LlamaSampler::greedy());
        }
        let max_tokens = sampling.max_tokens;
        let mut sampler = LlamaSampler::chain_simple(samplers);
        let mut bytes = Vec::new();
        let mut position = prompt.len();
        let limit = (self.context.n_ctx() as usize).saturating_sub(1);
        let mut generated = 0;
        while generated < max_tokens as u64 && position < limit {
            // `sample` also advances the samplers' state (the grammar) past the token.
            let token = sampler.sample(&self.context, -1);
            if self.model.vocab().is_eog(token) {
                break;
            }
            bytes.extend(self.model.vocab().token_to_piece(token, false, None));
            generated += 1;
            self.decode(&[token], position)?;
            self.cached.push(token);
            position += 1;
        }
        Ok((String::from_utf8_lossy(&bytes).into_owned(), generated))
    }
}

/// The token that ends an assistant turn (`<|im_end|>` for ChatML models).
fn end_of_turn(model: &LlamaModel) -> LlamaToken {
    let eot = model.vocab().eot();
    if eot.0 >= 0 { eot } else { model.vocab().eos() }
}

/// log softmax(logits)[token], in one pass over the vocabulary (plain loops: this runs for every
/// candidate token, and the crate is tested unoptimised).
fn log_prob(logits: &[f32], token: LlamaToken) -> f64 {
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
    fn generated_replies_are_read_like_any_model_reply() {
        let call = parse_generated_call(
            "Sure: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}",
        );
        assert_eq!(call.calls[0].tool, "get_weather");
        assert!(matches!(call.calls[0].arguments, CallArguments::Parsed(_)));
        let text = parse_generated_call("The weather is nice.");
        assert!(text.calls.is_empty());
        let none = parse_generated_call("{\"name\": \"none\", \"arguments\": {}}");
        assert!(none.calls.is_empty());
        let broken = parse_generated_call("{\"name\": \"get_weather\", \"arguments\": {\"city\": ");
        assert_eq!(broken.calls[0].tool, "get_weather");
        assert!(matches!(
            broken.calls[0].arguments,
            CallArguments::Malformed { .. }
        ));
    }

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

    #[test]
    fn log_probabilities_sum_to_one() {
        let logits = [1.0, 2.0, 3.0];
        let total: f64 = (0..3).map(|i| log_prob(&logits, LlamaToken(i)).exp()).sum();
        assert!((total - 1.0).abs() < 1e-6, "{total}");
        assert_eq!(log_prob(&logits, LlamaToken(7)), f64::NEG_INFINITY);
    }
}
