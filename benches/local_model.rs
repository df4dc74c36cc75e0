//! How close a `local` trial comes to llama.cpp's own speed, per catalogue model. For each model it
//! measures llama.cpp itself — the same library and build mcpick links, called directly: prompt
//! evaluation of 512 tokens from an empty context, then of 64 tokens on top of the travel suite's
//! tool list (the position a trial's request is evaluated at), and generation at that position,
//! with the thread counts and context settings `local` uses (flash attention off), and once more
//! with llama.cpp's default flash attention for comparison — and then `local` (score mode) and `local:generate` trials
//! on the travel suite through the same code a run uses. For every trial it takes what llama.cpp
//! computed (tokens evaluated in batches after the reused prefix, tokens generated) and the time
//! llama.cpp needs for exactly that at the measured rates; the ratio of the trial's time to that is
//! mcpick's overhead (the goal: within 1.5×). Score mode runs twice: pruned (only the candidates
//! that can still win are scored) and with every action scored (`--graded`, which `ab` uses), and
//! the table after gives what scoring every candidate costs a trial. Then the prefix cache: the
//! first trial of a fresh backend evaluating the tool list, the same trial of another fresh
//! backend restoring it from the cache, and of one whose list has one tool's description changed
//! (a variant), with the tokens each evaluated and restored. A recorded benchmark: `cargo bench --bench
//! local_model` prints the tables `benches/README.md` keeps. Models come from `$MCPICK_MODEL_DIR`
//! (or the default folder), fetched once; `MCPICK_BENCH_MODELS=a,b` picks which and
//! `MCPICK_BENCH_TASKS=N` how many trials each mode gets (default 12).

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_sys_2::{
    LLAMA_FLASH_ATTN_TYPE_AUTO, LLAMA_FLASH_ATTN_TYPE_DISABLED, llama_flash_attn_type,
};
use mcpick::backend::{AnyBackend, BackendOptions, ChatMessage, LocalOptions, TrialLabel, Turn};
use mcpick::load::Workspace;
use mcpick::mcp::ServedTools;
use mcpick::model::TaskInput;
use serde_json::Value;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Instant;

/// Threads for prompts and for generation: what a run with one local model uses on this 2-core
/// machine (the cores divided among the run's local models).
const THREADS_BATCH: i32 = 2;
const THREADS: i32 = 2;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: then measure briefly.
    let quick = !std::env::args().any(|a| a == "--bench");
    // A prefix cache of the bench's own, empty, so that what is timed as cold is cold.
    let kv_cache = tempfile::tempdir().unwrap();
    // SAFETY: no other thread runs yet.
    unsafe { std::env::set_var("MCPICK_KV_CACHE", kv_cache.path()) };
    let models: Vec<String> = std::env::var("MCPICK_BENCH_MODELS")
        .map(|m| m.split(',').map(str::to_string).collect())
        .unwrap_or_else(|_| {
            ["smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
                .map(String::from)
                .to_vec()
        });
    let tools = travel_tools();
    let backend = mcpick::backend::llama_backend().unwrap();
    println!(
        "| model | llama.cpp prompt, 512 tokens | llama.cpp prompt, 64 tokens after the tool list | llama.cpp generation there | mode | trials | evaluated / generated tokens a trial (median) | trial (median) | llama.cpp for those tokens | ratio (median) |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut attention = Vec::new();
    let mut scoring = Vec::new();
    let mut warm_starts = Vec::new();
    for name in &models {
        let path = mcpick::catalogue::ensure(name)
            .expect("the model")
            .remove(0);
        let speed = llama_speed(
            backend,
            &path,
            &tools,
            name,
            quick,
            LLAMA_FLASH_ATTN_TYPE_DISABLED,
        );
        let default = llama_speed(
            backend,
            &path,
            &tools,
            name,
            quick,
            LLAMA_FLASH_ATTN_TYPE_AUTO,
        );
        attention.push((name, default, "llama.cpp's default (flash attention on)"));
        for mode in ["score", "generate"] {
            let trials = trial_work(&format!("local:{mode}:{name}"), &tools, quick, false);
            report(name, mode, &speed, &trials);
            if mode == "score" {
                let every = trial_work(&format!("local:{mode}:{name}"), &tools, quick, true);
                report(name, "score, every action (--graded)", &speed, &every);
                scoring.push((name, median_seconds(&trials), median_seconds(&every)));
            }
        }
        attention.push((name, speed, "mcpick's (flash attention off)"));
        // Earlier trials saved this model's tool list: start from an empty cache.
        mcpick::backend::prefix_cache::clear(kv_cache.path()).unwrap();
        warm_starts.push((name, warm_start(&format!("local:score:{name}"), &tools)));
    }
    println!(
        "\n| model | score mode trial, pruned scoring (median) | every action scored, --graded (median) | ratio |\n|---|---|---|---|"
    );
    for (name, pruned, every) in scoring {
        println!(
            "| {name} | {pruned:.2} s | {every:.2} s | {:.2}× |",
            every / pruned
        );
    }
    println!(
        "\n| model | first trial, tool list evaluated | the same, tool list restored from the prefix cache | one tool's description changed (of 25; the 13th) |\n|---|---|---|---|"
    );
    for (name, [cold, warm, variant]) in warm_starts {
        let cell = |t: &TrialWork| {
            format!(
                "{:.2} s: {} tokens evaluated, {} restored",
                t.seconds, t.batched, t.restored
            )
        };
        println!(
            "| {name} | {} | {} | {} |",
            cell(&cold),
            cell(&warm),
            cell(&variant)
        );
    }
    println!(
        "\n| model | context settings | prompt, 512 tokens | 16 tokens after the tool list | 64 tokens there | generation there |\n|---|---|---|---|---|---|"
    );
    for (name, speed, settings) in attention {
        println!(
            "| {name} | {settings} | {:.0} tokens/s | {:.0} tokens/s | {:.0} tokens/s | {:.1} tokens/s |",
            speed.prompt, speed.prompt_small, speed.prompt_deep, speed.generate_deep
        );
    }
}

/// llama.cpp's rates, tokens per second.
struct Speed {
    prompt: f64,
    prompt_small: f64,
    prompt_deep: f64,
    generate_deep: f64,
    depth: usize,
}

/// One trial: seconds, tokens evaluated in batches, tokens generated, prompt tokens restored from
/// the prefix cache.
struct TrialWork {
    seconds: f64,
    batched: u64,
    generated: u64,
    restored: u64,
}

/// The first trial of three fresh backends of `spec` sharing an empty prefix cache: the
/// first evaluates the tool list (and saves it), the second restores it, the third gets the list
/// with the middle tool's description changed and restores what comes before that tool.
fn warm_start(spec: &str, tools: &[Value]) -> [TrialWork; 3] {
    let mut variant = tools.to_vec();
    let middle = variant.len() / 2;
    variant[middle]["description"] = Value::from("A description rewritten for an A/B test.");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let first = |tools: &[Value]| {
        let backend = AnyBackend::load(spec, &bench_options(false)).unwrap();
        let seconds = timed_turn(
            &runtime,
            &backend,
            tools,
            "What's the weather in Lisbon right now?",
            "bench",
        );
        let work = backend.local_work().unwrap();
        TrialWork {
            seconds,
            batched: work.batched,
            generated: work.generated,
            restored: work.restored,
        }
    };
    [first(tools), first(tools), first(&variant)]
}

/// The seconds `backend` takes for a first turn on `prompt` with `tools`.
fn timed_turn(
    runtime: &tokio::runtime::Runtime,
    backend: &AnyBackend,
    tools: &[Value],
    prompt: &str,
    task: &str,
) -> f64 {
    let messages = vec![ChatMessage::User {
        content: prompt.to_string(),
    }];
    let turn = Turn {
        messages: &messages,
        tools,
        trial: TrialLabel {
            suite: "travel",
            variant: None,
            task,
        },
        seed: 0,
        repeat: 0,
        deferred_tools: false,
    };
    let started = Instant::now();
    runtime.block_on(backend.complete(turn)).unwrap();
    started.elapsed().as_secs_f64()
}

fn bench_options(graded: bool) -> BackendOptions {
    BackendOptions {
        local: LocalOptions {
            threads: Some(THREADS as u32),
            threads_batch: Some(THREADS_BATCH as u32),
            graded: Some(graded),
            ..LocalOptions::default()
        },
        ..BackendOptions::default()
    }
}

/// The travel suite's tools as its MCP server lists them.
fn travel_tools() -> Vec<Value> {
    let workspace = Workspace::load(&[
        PathBuf::from("toolsets"),
        PathBuf::from("tasks/travel.toml"),
    ]);
    let toolset = workspace
        .toolset(&workspace.suites[0].toolset)
        .expect("travel");
    let listed = ServedTools::new(toolset.tools.clone()).unwrap();
    let listed: Value = serde_json::from_str(&listed.list_page(None, None).unwrap()).unwrap();
    listed["tools"].as_array().unwrap().clone()
}

/// Prompt evaluation from empty and after the tool list, and generation after it, straight
/// through llama.cpp, in a context set up as `local` sets up its own but for `flash_attention`.
fn llama_speed(
    backend: &LlamaBackend,
    path: &PathBuf,
    tools: &[Value],
    name: &str,
    quick: bool,
    flash_attention: llama_flash_attn_type,
) -> Speed {
    let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).unwrap();
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(16384))
        .with_n_batch(16384)
        .with_n_threads(THREADS)
        .with_n_threads_batch(THREADS_BATCH)
        .with_n_seq_max(64)
        .with_kv_unified(true)
        .with_flash_attention_policy(flash_attention);
    let mut context = model.new_context(backend, params).unwrap();
    let text =
        "The quick brown fox jumps over the lazy dog while the weather stays mild. ".repeat(80);
    let filler = model.vocab().tokenize(text.as_bytes(), false, false);
    let decode =
        |context: &mut llama_cpp_2::context::LlamaContext, tokens: &[LlamaToken], start: usize| {
            let mut batch = LlamaBatch::new(tokens.len(), 1);
            for (i, token) in tokens.iter().enumerate() {
                batch
                    .add(*token, (start + i) as i32, &[0], i + 1 == tokens.len())
                    .unwrap();
            }
            let started = Instant::now();
            context.decode(&mut batch).unwrap();
            started.elapsed().as_secs_f64()
        };
    let prompt = decode(&mut context, &filler[..512], 0);
    context.clear_kv_cache();
    // The tool list as the model's template shows it: about what a trial's prompt holds.
    let listing = serde_json::to_string(tools).unwrap();
    let mut deep = model.vocab().tokenize(listing.as_bytes(), false, false);
    if name.starts_with("smollm2") {
        // The instructed prompt lists tools in a line each: about a quarter of the JSON.
        deep.truncate(deep.len() / 4);
    }
    let depth = deep.len();
    decode(&mut context, &deep, 0);
    let prompt_small = decode(&mut context, &filler[..16], depth);
    context
        .clear_kv_cache_seq(Some(0), Some(depth as u32), None)
        .unwrap();
    let prompt_deep = decode(&mut context, &filler[..64], depth);
    let generate = if quick { 4 } else { 48 };
    let started = Instant::now();
    let mut token = filler[0];
    for i in 0..generate {
        decode(&mut context, &[token], depth + 64 + i);
        token = filler[(i + 1) % filler.len()];
    }
    let generate_deep = generate as f64 / started.elapsed().as_secs_f64();
    Speed {
        prompt: 512.0 / prompt,
        prompt_small: 16.0 / prompt_small,
        prompt_deep: 64.0 / prompt_deep,
        generate_deep,
        depth,
    }
}

/// Trials of `spec` on travel's first tasks (after one warm-up trial, which evaluates the shared
/// tool list once), with what llama.cpp computed for each.
fn trial_work(spec: &str, tools: &[Value], quick: bool, graded: bool) -> Vec<TrialWork> {
    let workspace = Workspace::load(&[
        PathBuf::from("toolsets"),
        PathBuf::from("tasks/travel.toml"),
    ]);
    let suite = &workspace.suites[0];
    let tasks = if quick {
        2
    } else {
        std::env::var("MCPICK_BENCH_TASKS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(12)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let backend = AnyBackend::load(spec, &bench_options(graded)).unwrap();
    let AnyBackend::Local(local) = &backend else {
        panic!("{spec} is not a local backend");
    };
    let mut trials = Vec::new();
    let prompts = suite.tasks.iter().filter_map(|task| match &task.input {
        TaskInput::Prompt(prompt) => Some((task, prompt)),
        TaskInput::Messages(_) => None,
    });
    for (i, (task, prompt)) in prompts.take(tasks + 1).enumerate() {
        let seconds = timed_turn(&runtime, &backend, tools, prompt, &task.id);
        let work = local.last_work();
        if i > 0 {
            trials.push(TrialWork {
                seconds,
                batched: work.batched,
                generated: work.generated,
                restored: work.restored,
            });
        }
    }
    trials
}

fn median_seconds(trials: &[TrialWork]) -> f64 {
    median(trials.iter().map(|t| t.seconds).collect())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn report(name: &str, mode: &str, speed: &Speed, trials: &[TrialWork]) {
    let needed = |t: &TrialWork| {
        t.batched as f64 / speed.prompt_deep + t.generated as f64 / speed.generate_deep
    };
    let ratio = median(trials.iter().map(|t| t.seconds / needed(t)).collect());
    println!(
        "| {name} | {:.0} tokens/s | {:.0} tokens/s (after {} tokens) | {:.1} tokens/s | {mode} | {} | {:.0} / {:.0} | {:.2} s | {:.2} s | {ratio:.2}× |",
        speed.prompt,
        speed.prompt_deep,
        speed.depth,
        speed.generate_deep,
        trials.len(),
        median(trials.iter().map(|t| t.batched as f64).collect()),
        median(trials.iter().map(|t| t.generated as f64).collect()),
        median(trials.iter().map(|t| t.seconds).collect()),
        median(trials.iter().map(needed).collect()),
    );
}
