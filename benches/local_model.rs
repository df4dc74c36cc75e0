//! How fast the embedded models run on this machine: llama.cpp's prompt evaluation and generation
//! in tokens per second for SmolLM2-135M (one and two threads), seconds per `local` trial in both
//! modes on the travel suite (25 tools), and milliseconds per `embed` trial. A recorded benchmark:
//! `cargo bench --bench local_model` prints the table that `benches/README.md` keeps.
//!
//! The model files come from `$MCPICK_MODEL_DIR` (or the default model folder), fetched once.

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::sampling::LlamaSampler;
use mcpick::backend::model_store::{SMOLLM2, ensure};
use mcpick::backend::{AnyBackend, ChatMessage, HostedOptions, Turn};
use mcpick::load::Workspace;
use mcpick::mcp::ServedTools;
use mcpick::model::TaskInput;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: then measure briefly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let model_path = ensure(&SMOLLM2).expect("the default model").remove(0);
    println!("| measure | threads | figure |\n|---|---|---|");
    llama_speed(&model_path, quick);
    trial_speed(quick);
}

/// Prompt evaluation and greedy generation, straight through llama.cpp.
fn llama_speed(model_path: &PathBuf, quick: bool) {
    let mut backend = LlamaBackend::init().unwrap();
    backend.void_logs();
    let model =
        LlamaModel::load_from_file(&backend, model_path, &LlamaModelParams::default()).unwrap();
    let text =
        "The quick brown fox jumps over the lazy dog while the weather stays mild. ".repeat(40);
    let prompt = model.vocab().tokenize(text.as_bytes(), true, false);
    let prompt = &prompt[..prompt.len().min(512)];
    let generate = if quick { 8 } else { 128 };
    for threads in [1, 2] {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(2048))
            .with_n_batch(2048)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let mut context = model.new_context(&backend, params).unwrap();
        let mut batch = LlamaBatch::new(prompt.len(), 1);
        for (i, token) in prompt.iter().enumerate() {
            batch
                .add(*token, i as i32, &[0], i + 1 == prompt.len())
                .unwrap();
        }
        let started = Instant::now();
        context.decode(&mut batch).unwrap();
        let prompt_rate = prompt.len() as f64 / started.elapsed().as_secs_f64();
        let mut sampler = LlamaSampler::greedy();
        let started = Instant::now();
        for i in 0..generate {
            let token = sampler.sample(&context, -1);
            let mut one = LlamaBatch::new(1, 1);
            one.add(token, (prompt.len() + i) as i32, &[0], true)
                .unwrap();
            context.decode(&mut one).unwrap();
        }
        let generate_rate = generate as f64 / started.elapsed().as_secs_f64();
        println!(
            "| llama.cpp prompt evaluation ({} tokens) | {threads} | {prompt_rate:.0} tokens/s |",
            prompt.len()
        );
        println!(
            "| llama.cpp generation ({generate} tokens) | {threads} | {generate_rate:.1} tokens/s |"
        );
    }
}

/// Seconds per trial of the backends, through the same code a run uses (tool lists from the MCP
/// server's own serialisation).
fn trial_speed(quick: bool) {
    let workspace = Workspace::load(&[
        PathBuf::from("toolsets"),
        PathBuf::from("tasks/travel.toml"),
    ]);
    let suite = &workspace.suites[0];
    let toolset = workspace.toolset(&suite.toolset).unwrap();
    let listed = ServedTools::new(toolset.tools.clone()).unwrap();
    let listed: serde_json::Value =
        serde_json::from_str(&listed.list_page(None, None).unwrap()).unwrap();
    let tools = listed["tools"].as_array().unwrap().clone();
    let tasks = if quick { 2 } else { 20 };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    for spec in ["local", "local:generate", "embed"] {
        let backend = AnyBackend::parse(spec, &HostedOptions::default()).unwrap();
        // One warm-up trial: the first one also evaluates the shared tool list once.
        let mut times = Vec::new();
        for (i, task) in suite.tasks.iter().take(tasks + 1).enumerate() {
            let TaskInput::Prompt(prompt) = &task.input else {
                continue;
            };
            let messages = vec![ChatMessage::User {
                content: prompt.clone(),
            }];
            let turn = Turn {
                messages: &messages,
                tools: &tools,
                task,
                suite: &suite.name,
                seed: 0,
                repeat: 0,
            };
            let started = Instant::now();
            runtime.block_on(backend.complete(turn)).unwrap();
            if i > 0 {
                times.push(started.elapsed().as_secs_f64());
            }
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!(
            "| `{spec}` trial on travel (25 tools), median of {} | default | {} |",
            times.len(),
            if median < 1.0 {
                format!("{:.0} ms", median * 1000.0)
            } else {
                format!("{median:.2} s")
            }
        );
    }
}
