//! `local[:MODE[:MODEL]]`: an instruct model run inside mcpick through llama.cpp (`llama-cpp-2`), so
//! a run measures a real language model with no key and no server. The default model is
//! Qwen2.5-Coder-1.5B-Instruct from the catalogue (`crate::catalogue`); `--model NAME|PATH` takes
//! another catalogue model or any GGUF. Decoding is greedy by default (`--temperature` above 0
//! samples from a stream seeded by `--seed` and the trial), so a trial's result depends only on its
//! inputs: two runs give identical trials.
//!
//! A model whose chat template shows tools (Qwen's) sees them as real deployments show them, and
//! answers in its own call syntax (`prompt`); other models get mcpick's instructed prompt.
//!
//! Modes:
//! - `score` (default): multiple choice (`choice`), then the winner's arguments written under a
//!   grammar built from its `inputSchema`, so they always parse. Acts once per trial.
//! - `generate`: the model writes its reply freely; `<tool_call>` blocks, fenced or bare JSON are
//!   read as calls (`reply_text`), unparseable ones are `malformed_call`, text is an answer. With a
//!   native template the conversation goes on: tool results come back in the model's own format.
//! - `generate-json`: the instructed prompt with the reply held to `{"name", "arguments"}` by a
//!   grammar.

mod chat_template;
mod choice;
mod engine;
mod model_file;
pub mod prefix_cache;
mod prompt;
mod reply_text;

use reply_text::parse_reply;

use super::{BackendError, Reply, Turn, last_user_text, tool_results};
use chat_template::ChatTemplate;
pub use engine::Work;
use engine::{ANY_JSON_OBJECT, Engine, Sampling};
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate};
pub use model_file::llama_backend;
use model_file::{check_gguf, loaded_model};
pub use prefix_cache::CacheLocation;
use prompt::{CallSyntax, generation_prompt, native_messages, native_tools};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::PathBuf;
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

/// How a `write_json` reply is drawn: temperature 0 is greedy.
#[derive(Debug, Clone, Copy)]
pub struct JsonSampling {
    pub temperature: f32,
    pub seed: u32,
    pub max_tokens: u32,
}

/// How to run the local model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LocalSettings {
    pub model: PathBuf,
    /// The catalogue name, when the model is one.
    pub model_name: Option<String>,
    /// Threads for generating tokens. The run's default divides the cores among its local models:
    /// threads beyond the free cores made generation ten times slower on a busy 2-core machine.
    pub threads: u32,
    /// Threads for evaluating prompts (this does gain from more).
    pub threads_batch: u32,
    /// Context size in tokens; `None`: the model's own, at most `DEFAULT_CTX_SIZE`.
    pub ctx_size: Option<u32>,
    /// Longest generated reply, in tokens.
    pub max_tokens: u32,
    /// 0 decodes greedily; above 0, tokens are drawn at this temperature from a stream seeded by
    /// `seed` and the trial, so a rerun draws the same tokens.
    pub temperature: f32,
    pub seed: u32,
    /// In `score` mode, score every action (not only those that can still win) and return each
    /// one's probability with the reply, for the graded measures of an A/B test.
    pub action_probabilities: bool,
    /// In `score` mode, reply with the pick and `{}` for its arguments, writing none.
    pub pick_only: bool,
    /// Where prompt prefixes are saved and restored across runs; `None`: nowhere.
    #[serde(skip)]
    pub prefix_cache: Option<CacheLocation>,
}

/// The largest index at most `index` that starts a character of `text` (`str::floor_char_boundary`
/// is newer than the toolchain mcpick supports).
fn floor_char_boundary(text: &str, index: usize) -> usize {
    (0..=index.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The context a model gets unless `--ctx-size` says otherwise (or the model was trained on less):
/// room for the travel suite's rich descriptions (8,221 tokens in Qwen's template) and a few turns.
pub const DEFAULT_CTX_SIZE: u32 = 16384;

/// How prompts are made from the conversation.
enum Renderer {
    /// The GGUF's Jinja template; `syntax` is set when it shows tools (the native style).
    Jinja {
        // Boxed: a compiled template is large beside llama.cpp's handle.
        template: Box<ChatTemplate>,
        syntax: Option<CallSyntax>,
    },
    /// llama.cpp's built-in rendering of the template's family, for Jinja that does not compile
    /// here: roles and contents only, so the instructed style.
    Builtin(LlamaChatTemplate),
}

pub struct LocalBackend {
    pub mode: LocalMode,
    pub options: LocalSettings,
    renderer: Renderer,
    engine: Mutex<Engine>,
    /// Prior log-probabilities per prompt without the request, computed once per tool list.
    priors: Mutex<HashMap<String, Vec<f64>>>,
    /// The tokens that can open a written call (`engine::call_openers`), found once.
    openers: OnceLock<Vec<llama_cpp_2::token::LlamaToken>>,
    /// What the last turn computed (for the benchmark's comparison with llama.cpp's own speed).
    last_work: Mutex<Work>,
    /// What every turn so far computed (the run reports it).
    total_work: Mutex<Work>,
}

impl std::fmt::Debug for LocalBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalBackend")
            .field("mode", &self.mode)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl LocalBackend {
    /// Loads the model. Every failure names the file: missing, unreadable, not a GGUF, no chat
    /// template.
    pub fn load(mode: LocalMode, options: LocalSettings) -> Result<LocalBackend, String> {
        let path = &options.model;
        check_gguf(path)?;
        let backend = llama_backend()?;
        let model = loaded_model(backend, path)?;
        let builtin = model.chat_template(None).map_err(|e| {
            format!(
                "{}: the GGUF carries no chat template ({e}); use an instruct model",
                path.display()
            )
        })?;
        let piece = |token| {
            String::from_utf8_lossy(&model.vocab().token_to_piece(token, true, None)).into_owned()
        };
        let (bos, eos) = (piece(model.vocab().bos()), piece(model.vocab().eos()));
        let renderer = match builtin
            .to_str()
            .map_err(|e| e.to_string())
            .and_then(|source| ChatTemplate::new(source, &bos, &eos))
        {
            Ok(template) => Renderer::Jinja {
                syntax: CallSyntax::of(&template),
                template: Box::new(template),
            },
            Err(e) => {
                tracing::warn!(
                    "{}: {e}; using llama.cpp's built-in template",
                    path.display()
                );
                Renderer::Builtin(builtin)
            }
        };
        let ctx_size = options
            .ctx_size
            .unwrap_or_else(|| model.n_ctx_train().min(DEFAULT_CTX_SIZE))
            .max(256);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(ctx_size))
            .with_n_batch(ctx_size)
            .with_n_threads(options.threads.max(1) as i32)
            .with_n_threads_batch(options.threads_batch.max(1) as i32)
            // Candidates are scored as parallel sequences sharing the prompt's cells.
            .with_n_seq_max(engine::CANDIDATES_PER_BATCH as u32 + 1)
            .with_kv_unified(true)
            // llama.cpp's CPU flash attention takes its fast tiled path only for batches of 64
            // tokens or more; a trial's batches (a request's tail, candidate names, one generated
            // token) are smaller and sit behind a 5,000-token tool list, where the plain path is
            // up to twice as fast (`benches/README.md`). The tool list itself, evaluated once a
            // run, is the one batch that would gain from it.
            .with_flash_attention_policy(llama_cpp_sys_2::LLAMA_FLASH_ATTN_TYPE_DISABLED);
        let context = model
            .new_context(backend, params)
            .map_err(|e| format!("{}: cannot create a context: {e}", path.display()))?;
        let prefix_cache = options.prefix_cache.as_ref().map(|location| {
            let key = engine::prefix_cache_key(&options, ctx_size);
            prefix_cache::PrefixCache::new(&location.folder, &key, location.max_bytes)
                .saving(location.saves)
        });
        Ok(LocalBackend {
            mode,
            options,
            renderer,
            engine: Mutex::new(Engine::new(model, context, prefix_cache)),
            priors: Mutex::new(HashMap::new()),
            openers: OnceLock::new(),
            last_work: Mutex::new(Work::default()),
            total_work: Mutex::new(Work::default()),
        })
    }

    /// `native` when the model's own template shows the tools, `instructed` otherwise.
    pub fn prompt_style(&self) -> &'static str {
        match self.native_syntax() {
            Some(_) => "native",
            None => "instructed",
        }
    }

    fn call_openers(&self, engine: &Engine) -> &[llama_cpp_2::token::LlamaToken] {
        self.openers
            .get_or_init(|| engine::call_openers(engine.model))
    }

    fn native_syntax(&self) -> Option<&CallSyntax> {
        match &self.renderer {
            Renderer::Jinja { syntax, .. } => syntax.as_ref(),
            Renderer::Builtin(_) => None,
        }
    }

    pub fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        let native = self.native_syntax().is_some() && self.mode != LocalMode::GenerateJson;
        // Score mode and the instructed format act once; a native conversation goes on.
        let acts_once = !(native && self.mode == LocalMode::Generate);
        if turn.tools.is_empty() || (acts_once && tool_results(turn.messages) > 0) {
            return Ok(Reply {
                text: Some("Done.".into()),
                ..Reply::default()
            });
        }
        let sampling = Sampling {
            temperature: self.options.temperature,
            // Each trial its own stream, the same on every run.
            seed: self.options.seed ^ (turn.seed as u32) ^ ((turn.seed >> 32) as u32),
            max_tokens: self.options.max_tokens,
        };
        let mut engine = self.lock_engine();
        engine.take_work();
        let reply = match (self.mode, self.native_syntax().filter(|_| native)) {
            (LocalMode::Score, Some(syntax)) => {
                self.score_native(&mut engine, &turn, syntax, sampling)
            }
            (LocalMode::Score, None) => self.score_instructed(&mut engine, &turn, sampling),
            (_, Some(_)) => self.generate_native(&mut engine, &turn, sampling),
            (_, None) => self.generate_instructed(&mut engine, &turn, sampling),
        };
        let work = engine.take_work();
        tracing::debug!(?work, "local turn done");
        if let Ok(mut last) = self.last_work.lock() {
            *last = work;
        }
        if let Ok(mut total) = self.total_work.lock() {
            total.add(work);
        }
        reply
    }

    /// A JSON value the model writes for a plain instruction, no tools shown (`mcpick draft`): the
    /// `system` and `user` turns in the model's chat template, the reply held by a grammar to
    /// `schema` (any JSON object when llama.cpp cannot convert it), sampled at `temperature` from a
    /// stream seeded by `seed`. Returns the text as written; the caller parses and checks it.
    pub fn write_json(
        &self,
        system: &str,
        user: &str,
        schema: &Value,
        sampling: JsonSampling,
    ) -> Result<String, BackendError> {
        let grammar =
            llama_cpp_2::json_schema_to_grammar(&schema.to_string()).unwrap_or_else(|e| {
                tracing::warn!(
                    "llama.cpp cannot hold a reply to this schema ({e}); any JSON object"
                );
                ANY_JSON_OBJECT.to_string()
            });
        let messages = [
            json!({"role": "system", "content": system}),
            json!({"role": "user", "content": user}),
        ];
        let mut engine = self.lock_engine();
        engine.take_work();
        let prompt = self.prompt(&mut engine, &messages, None);
        let written = prompt.and_then(|prompt| {
            let sampling = Sampling {
                temperature: sampling.temperature,
                seed: sampling.seed,
                max_tokens: sampling.max_tokens,
            };
            engine.generate(&prompt, Some(&grammar), sampling)
        });
        let work = engine.take_work();
        if let Ok(mut total) = self.total_work.lock() {
            total.add(work);
        }
        written.map(|(text, _)| text)
    }

    /// The engine, for one turn. A turn that panicked mid-computation left its cache in an unknown
    /// state: it starts afresh.
    fn lock_engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(|poisoned| {
            self.engine.clear_poison();
            let mut engine = poisoned.into_inner();
            engine.reset();
            engine
        })
    }

    /// What llama.cpp computed over every turn so far.
    pub fn total_work(&self) -> Work {
        self.total_work
            .lock()
            .map_or_else(|_| Work::default(), |w| *w)
    }

    /// What llama.cpp computed for the last turn.
    pub fn last_work(&self) -> Work {
        self.last_work
            .lock()
            .map_or_else(|_| Work::default(), |w| *w)
    }

    /// The prompt's tokens for OpenAI-shaped `messages` (and `tools`, for the native style). Its
    /// system turn — the tool list, and a task's own system message — is marked as a prefix worth
    /// keeping across runs.
    fn prompt(
        &self,
        engine: &mut Engine,
        messages: &[Value],
        tools: Option<&[Value]>,
    ) -> Result<Vec<llama_cpp_2::token::LlamaToken>, BackendError> {
        let text = self.render(engine, messages, tools, true)?;
        let tokens = engine.tokenize(&text, true);
        let system_turns = messages
            .iter()
            .take_while(|m| m["role"] == "system")
            .count();
        let kept = match system_turns {
            0 => 0,
            n => {
                let system = self.render(engine, &messages[..n], tools, false)?;
                let shared_bytes = system
                    .bytes()
                    .zip(text.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                // Tokens at the boundary may merge differently alone: the common tokens count.
                let system_tokens =
                    engine.tokenize(&text[..floor_char_boundary(&text, shared_bytes)], true);
                system_tokens
                    .iter()
                    .zip(&tokens)
                    .take_while(|(a, b)| a == b)
                    .count()
            }
        };
        engine.keep_prefix(&tokens[..kept]);
        Ok(tokens)
    }

    fn render(
        &self,
        engine: &Engine,
        messages: &[Value],
        tools: Option<&[Value]>,
        add_generation_prompt: bool,
    ) -> Result<String, BackendError> {
        Ok(match &self.renderer {
            Renderer::Jinja { template, .. } => template
                .render(messages, tools, add_generation_prompt)
                .map_err(BackendError::BadRequest)?,
            Renderer::Builtin(template) => {
                let chat: Vec<LlamaChatMessage> = messages
                    .iter()
                    .map(|m| {
                        LlamaChatMessage::new(
                            m["role"].as_str().unwrap_or("user").to_string(),
                            m["content"].as_str().unwrap_or_default().to_string(),
                        )
                        .map_err(|e| {
                            BackendError::BadRequest(format!("cannot build the prompt: {e}"))
                        })
                    })
                    .collect::<Result<_, _>>()?;
                engine
                    .model
                    .apply_chat_template(template, &chat, add_generation_prompt)
                    .map_err(|e| {
                        BackendError::BadRequest(format!("the chat template failed: {e}"))
                    })?
            }
        })
    }

    /// The whole conversation in the model's own format; the reply read like a hosted model's.
    fn generate_native(
        &self,
        engine: &mut Engine,
        turn: &Turn<'_>,
        sampling: Sampling,
    ) -> Result<Reply, BackendError> {
        let tools = native_tools(turn.tools);
        let prompt = self.prompt(engine, &native_messages(turn.messages), Some(&tools))?;
        let (text, output_tokens) = engine.generate(&prompt, None, sampling)?;
        tracing::debug!(text, "generated");
        Ok(Reply {
            input_tokens: prompt.len() as u64,
            output_tokens,
            ..parse_reply(&text)
        })
    }

    /// mcpick's instructed prompt; `generate-json` holds the reply to the call shape.
    fn generate_instructed(
        &self,
        engine: &mut Engine,
        turn: &Turn<'_>,
        sampling: Sampling,
    ) -> Result<Reply, BackendError> {
        let messages = [
            json!({"role": "system", "content": generation_prompt(turn.tools)}),
            json!({"role": "user", "content": last_user_text(turn.messages)}),
        ];
        let grammar = (self.mode == LocalMode::GenerateJson).then(|| {
            let mut names: Vec<Value> = turn.tools.iter().map(|t| t["name"].clone()).collect();
            names.push(json!("none"));
            let shape = json!({
                "type": "object",
                "properties": {"name": {"enum": names}, "arguments": {"type": "object"}},
                "required": ["name", "arguments"],
                "additionalProperties": false
            });
            llama_cpp_2::json_schema_to_grammar(&shape.to_string())
                .unwrap_or_else(|_| ANY_JSON_OBJECT.to_string())
        });
        let prompt = self.prompt(engine, &messages, None)?;
        let (text, output_tokens) = engine.generate(&prompt, grammar.as_deref(), sampling)?;
        Ok(Reply {
            input_tokens: prompt.len() as u64,
            output_tokens,
            ..parse_reply(&text)
        })
    }
}
