//! The protocol core in-process, side by side with the official Rust SDK where both do the same work:
//!
//! - `dispatch`: one tools/call as bytes → decode → route → argument validation → behaviour →
//!   encoded answer, small and large arguments; mcpick's session called directly, mcpick over an
//!   in-memory duplex pipe, and an `rmcp` server over the same pipe.
//! - `trial_session`: what a trial pays for its session — open a pipe and a server session, list
//!   the tools, make one call — in the 2025-11-25 era (`initialize` first) and in 2026-07-28's
//!   (no handshake, `_meta` on each request), for mcpick and rmcp alike. The `dispatch` group also
//!   times a single modern call on each.
//! - `validation`: every shipped tool's compiled validator on a valid and an invalid instance, and
//!   compiling per call, so the gain of compiling once is visible.
//! - `tools_list`: a tools/list answer at N = 10 … 10,000 tools, whole and paged.
//! - `registry`: building the served tool set (validators compiled, listing serialised) from N tools.
//!
//! `cargo bench --bench protocol` measures and prints the mcpick/rmcp ratios; `cargo test` runs each
//! benchmark once as a check.

#[allow(dead_code, reason = "each bench target uses part of the shared module")]
mod side_by_side;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use mcpick::gold_arguments::example_instance;
use mcpick::load::Workspace;
use mcpick::mcp::methods::answer;
use mcpick::mcp::protocol::jsonrpc::Message;
use mcpick::mcp::{McpServer, Outbox, ServedTools, ServerConfig, Session};
use mcpick::model::Tool;
use mcpick::registry::{ToolRegistry, compile_object_schema};
use rmcp::ServiceExt;
use serde_json::{Value, json};
use side_by_side::{
    LARGE_ANSWER, LIST_ANSWER, LineClient, Ratio, RmcpPeer, SMALL_ANSWER, large_call, list_tools,
    modern, small_call,
};
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

// The allocator the mcpick binary runs with (src/main.rs), so these figures are the binary's; the
// rmcp server measured in the same process gets it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut criterion = Criterion::default()
        .output_directory(&side_by_side::criterion_dir())
        .configure_from_args();
    dispatch(&mut criterion);
    trial_session(&mut criterion);
    validation(&mut criterion);
    tools_list(&mut criterion);
    registry(&mut criterion);
    criterion.final_summary();
    let ratio = |label, ours, value| Ratio {
        label,
        group: "dispatch",
        ours,
        theirs: "rmcp duplex",
        value,
    };
    side_by_side::print_ratios(
        "dispatch: in-process tools/call, mcpick vs rmcp (medians of this run)",
        &[
            ratio(
                "small arguments, mcpick direct vs rmcp duplex",
                "mcpick direct",
                "small",
            ),
            ratio(
                "small arguments, both over the duplex pipe",
                "mcpick duplex",
                "small",
            ),
            ratio(
                "large arguments, mcpick direct vs rmcp duplex",
                "mcpick direct",
                "large",
            ),
            ratio(
                "large arguments, both over the duplex pipe",
                "mcpick duplex",
                "large",
            ),
            Ratio {
                label: "small arguments, 2026-07-28 (`_meta`, no session), both over the pipe",
                group: "dispatch",
                ours: "mcpick duplex modern",
                theirs: "rmcp duplex modern",
                value: "small",
            },
            Ratio {
                label: "large arguments, 2026-07-28, both over the pipe",
                group: "dispatch",
                ours: "mcpick duplex modern",
                theirs: "rmcp duplex modern",
                value: "large",
            },
        ],
    );
    let era = |label, ours, theirs| Ratio {
        label,
        group: "trial_session",
        ours,
        theirs,
        value: "open, list, call",
    };
    side_by_side::print_ratios(
        "trial_session: a trial's session (open, tools/list, one call), per era",
        &[
            era(
                "2025-11-25, mcpick vs rmcp",
                "mcpick 2025-11-25",
                "rmcp 2025-11-25",
            ),
            era(
                "2026-07-28, mcpick vs rmcp",
                "mcpick 2026-07-28",
                "rmcp 2026-07-28",
            ),
            era(
                "mcpick, 2026-07-28 vs 2025-11-25 (what no handshake buys)",
                "mcpick 2026-07-28",
                "mcpick 2025-11-25",
            ),
            era(
                "rmcp, 2026-07-28 vs 2025-11-25",
                "rmcp 2026-07-28",
                "rmcp 2025-11-25",
            ),
        ],
    );
}

/// The tools of `path` (a toolset file or a directory of them).
fn load_tools(path: PathBuf) -> Vec<Tool> {
    let workspace = Workspace::load(&[path]);
    assert!(
        !workspace.has_errors(),
        "the benchmark's toolsets must load"
    );
    workspace
        .toolsets
        .into_iter()
        .flat_map(|t| t.tools)
        .collect()
}

fn shipped_tools() -> Vec<Tool> {
    load_tools(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("toolsets"))
}

fn serve(tools: Vec<Tool>, page_size: Option<usize>) -> Arc<McpServer> {
    let config = ServerConfig {
        page_size,
        ..ServerConfig::default()
    };
    McpServer::new(config, ServedTools::new(tools).expect("the tools compile"))
}

/// A session driven without any transport: bytes in, the encoded answer out.
struct DirectSession {
    session: Arc<Session>,
    outbox: Outbox,
    outgoing: mpsc::UnboundedReceiver<String>,
}

impl DirectSession {
    fn open(server: Arc<McpServer>) -> DirectSession {
        let (outbox, outgoing) = mpsc::unbounded_channel();
        let mut direct = DirectSession {
            session: Session::new(server),
            outbox,
            outgoing,
        };
        side_by_side::check(
            direct
                .answer(side_by_side::INITIALIZE.as_bytes())
                .as_bytes(),
            "protocolVersion",
        )
        .unwrap();
        let initialized = Message::parse(side_by_side::INITIALIZED.as_bytes()).unwrap();
        answer(&direct.session, initialized, &direct.outbox);
        direct
    }

    /// Decodes, dispatches and returns the answer, which these requests always get at once.
    fn answer(&mut self, request: &[u8]) -> String {
        let message = Message::parse(request).expect("the benchmark's requests are valid");
        answer(&self.session, message, &self.outbox);
        self.outgoing.try_recv().expect("answered without waiting")
    }
}

fn current_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

type DuplexClient = LineClient<
    tokio::io::ReadHalf<tokio::io::DuplexStream>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
>;

/// A line client on an in-memory pipe whose other end `serve` is given (inside `runtime`): after
/// the `initialize` handshake (`legacy`), or none (2026-07-28).
fn duplex_client(
    runtime: &tokio::runtime::Runtime,
    legacy: bool,
    serve: impl FnOnce(tokio::io::DuplexStream),
) -> DuplexClient {
    runtime.block_on(async {
        let (client_end, server_end) = tokio::io::duplex(256 * 1024);
        serve(server_end);
        let (read, write) = tokio::io::split(client_end);
        if legacy {
            LineClient::connect(read, write).await.expect("handshake")
        } else {
            LineClient::stateless(read, write)
        }
    })
}

fn dispatch(c: &mut Criterion) {
    let mut group = c.benchmark_group("dispatch");
    group.throughput(Throughput::Elements(1));
    let server = serve(load_tools(side_by_side::toolset_path()), None);
    let runtime = current_thread_runtime();
    let mut direct = DirectSession::open(Arc::clone(&server));
    let mcpick_on = |end: tokio::io::DuplexStream| {
        let (read, write) = tokio::io::split(end);
        tokio::spawn(mcpick::mcp::transport::stdio::serve_stream(
            Arc::clone(&server),
            read,
            write,
        ));
    };
    let rmcp_on = |end: tokio::io::DuplexStream| {
        tokio::spawn(async move {
            let running = RmcpPeer::default().serve(end).await.expect("rmcp serves");
            let _ = running.waiting().await;
        });
    };
    let mut ours = duplex_client(&runtime, true, mcpick_on);
    let mut theirs = duplex_client(&runtime, true, rmcp_on);
    let mut ours_modern = duplex_client(&runtime, false, mcpick_on);
    let mut theirs_modern = duplex_client(&runtime, false, rmcp_on);
    for (size, request, expected) in [
        ("small", small_call(1), SMALL_ANSWER),
        ("large", large_call(1), LARGE_ANSWER),
    ] {
        let request = request.as_bytes();
        group.bench_function(BenchmarkId::new("mcpick direct", size), |b| {
            side_by_side::check(direct.answer(request).as_bytes(), expected).unwrap();
            b.iter(|| direct.answer(black_box(request)))
        });
        let modern_request = modern(std::str::from_utf8(request).unwrap_or_default());
        for (name, client, request) in [
            ("mcpick duplex", &mut ours, request),
            ("rmcp duplex", &mut theirs, request),
            (
                "mcpick duplex modern",
                &mut ours_modern,
                modern_request.as_bytes(),
            ),
            (
                "rmcp duplex modern",
                &mut theirs_modern,
                modern_request.as_bytes(),
            ),
        ] {
            group.bench_function(BenchmarkId::new(name, size), |b| {
                b.iter_custom(|iterations| {
                    runtime.block_on(async {
                        let started = Instant::now();
                        for _ in 0..iterations {
                            client.round_trip(request, expected).await.unwrap();
                        }
                        started.elapsed()
                    })
                })
            });
        }
    }
    group.finish();
}

/// Which server a trial session is opened on.
#[derive(Clone, Copy)]
enum Peer {
    Mcpick,
    Rmcp,
}

/// Opens a session on a fresh pipe, lists the tools and makes one call, in the era `legacy` says.
async fn one_trial_session(server: &Arc<McpServer>, peer: Peer, legacy: bool) {
    let (client_end, server_end) = tokio::io::duplex(256 * 1024);
    match peer {
        Peer::Mcpick => {
            let (read, write) = tokio::io::split(server_end);
            tokio::spawn(mcpick::mcp::transport::stdio::serve_stream(
                Arc::clone(server),
                read,
                write,
            ));
        }
        Peer::Rmcp => {
            tokio::spawn(async move {
                if let Ok(running) = RmcpPeer::default().serve(server_end).await {
                    let _ = running.waiting().await;
                }
            });
        }
    }
    let (read, write) = tokio::io::split(client_end);
    let (list, call) = (list_tools(1), small_call(2));
    let mut client = if legacy {
        LineClient::connect(read, write).await.expect("handshake")
    } else {
        LineClient::stateless(read, write)
    };
    let (list, call) = if legacy {
        (list, call)
    } else {
        (modern(&list), modern(&call))
    };
    client
        .round_trip(list.as_bytes(), LIST_ANSWER)
        .await
        .unwrap();
    client
        .round_trip(call.as_bytes(), SMALL_ANSWER)
        .await
        .unwrap();
}

fn trial_session(c: &mut Criterion) {
    let mut group = c.benchmark_group("trial_session");
    group.throughput(Throughput::Elements(1));
    let server = serve(load_tools(side_by_side::toolset_path()), None);
    let runtime = current_thread_runtime();
    for (name, peer, legacy) in [
        ("mcpick 2025-11-25", Peer::Mcpick, true),
        ("mcpick 2026-07-28", Peer::Mcpick, false),
        ("rmcp 2025-11-25", Peer::Rmcp, true),
        ("rmcp 2026-07-28", Peer::Rmcp, false),
    ] {
        group.bench_function(BenchmarkId::new(name, "open, list, call"), |b| {
            b.iter_custom(|iterations| {
                runtime.block_on(async {
                    let started = Instant::now();
                    for _ in 0..iterations {
                        one_trial_session(&server, peer, legacy).await;
                    }
                    started.elapsed()
                })
            })
        });
    }
    group.finish();
}

/// A copy of a valid instance with its first property given a value of a type it cannot have, or
/// `None` when the schema has no property to break.
fn broken_instance(valid: &Value, schema: &Value) -> Option<Value> {
    let (name, property) = schema.get("properties")?.as_object()?.iter().next()?;
    let wrong = match property.get("type").and_then(Value::as_str) {
        Some("string") => json!(12345),
        Some(_) => json!("not the right type"),
        None => return None,
    };
    let mut instance = valid.clone();
    instance.as_object_mut()?.insert(name.clone(), wrong);
    Some(instance)
}

fn validation(c: &mut Criterion) {
    let tools = shipped_tools();
    let cases: Vec<(&Value, jsonschema::Validator, Value, Option<Value>)> = tools
        .iter()
        .map(|tool| {
            let schema = &tool.input_schema;
            let validator = compile_object_schema(schema).expect("shipped schemas compile");
            let valid = example_instance(schema, schema);
            assert!(
                validator.is_valid(&valid),
                "{}: example instance {valid} is invalid",
                tool.name
            );
            let invalid = broken_instance(&valid, schema).filter(|i| !validator.is_valid(i));
            (schema, validator, valid, invalid)
        })
        .collect();
    let invalid_cases = cases.iter().filter(|c| c.3.is_some()).count();
    let mut group = c.benchmark_group("validation");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function(
        format!("compiled once/valid ({} tools)", cases.len()),
        |b| {
            b.iter(|| {
                for (_, validator, valid, _) in &cases {
                    assert!(validator.is_valid(black_box(valid)));
                }
            })
        },
    );
    group.bench_function(
        format!("compiled per call/valid ({} tools)", cases.len()),
        |b| {
            b.iter(|| {
                for (schema, _, valid, _) in &cases {
                    let validator = compile_object_schema(black_box(schema)).unwrap();
                    assert!(validator.is_valid(black_box(valid)));
                }
            })
        },
    );
    group.throughput(Throughput::Elements(invalid_cases as u64));
    // What the server does with invalid arguments: check, then describe up to five errors.
    group.bench_function(
        format!("compiled once/invalid ({invalid_cases} tools)"),
        |b| {
            b.iter(|| {
                for (_, validator, _, invalid) in &cases {
                    if let Some(invalid) = invalid {
                        assert!(!validator.is_valid(black_box(invalid)));
                        let described: usize = validator
                            .iter_errors(invalid)
                            .take(5)
                            .map(|e| e.to_string().len())
                            .sum();
                        assert!(described > 0);
                    }
                }
            })
        },
    );
    group.finish();
}

/// `count` distinct tools made from the shipped ones (cycled, the K-th renamed `name_K`).
fn synthetic_tools(shipped: &[Tool], count: usize) -> Vec<Tool> {
    (0..count)
        .map(|i| {
            let mut tool = shipped[i % shipped.len()].clone();
            // Toolsets share some names, so the index alone keeps them apart.
            tool.name = format!("{}_{i}", tool.name);
            tool
        })
        .collect()
}

const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

fn next_cursor(answer: &str) -> Option<&str> {
    let start = answer.rfind("\"nextCursor\":\"")? + "\"nextCursor\":\"".len();
    let end = start + answer[start..].find('"')?;
    Some(&answer[start..end])
}

fn tools_list(c: &mut Criterion) {
    let shipped = shipped_tools();
    let mut group = c.benchmark_group("tools_list");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    const PAGE: usize = 100;
    for count in [10, 100, 1_000, 10_000] {
        let tools = synthetic_tools(&shipped, count);
        let mut whole = DirectSession::open(serve(tools.clone(), None));
        let mut paged = DirectSession::open(serve(tools, Some(PAGE)));
        let answer = whole.answer(LIST);
        assert_eq!(
            serde_json::from_str::<Value>(&answer).unwrap()["result"]["tools"]
                .as_array()
                .map(Vec::len),
            Some(count)
        );
        group.throughput(Throughput::Bytes(answer.len() as u64));
        group.bench_function(BenchmarkId::new("whole list", count), |b| {
            b.iter(|| whole.answer(black_box(LIST)))
        });
        group.bench_function(BenchmarkId::new("first page of 100", count), |b| {
            b.iter(|| paged.answer(black_box(LIST)))
        });
        group.bench_function(BenchmarkId::new("every page of 100", count), |b| {
            b.iter(|| {
                let mut answer = paged.answer(LIST);
                let mut pages = 1;
                while let Some(cursor) = next_cursor(&answer) {
                    let request = format!(
                        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"cursor":"{cursor}"}}}}"#
                    );
                    answer = paged.answer(request.as_bytes());
                    pages += 1;
                }
                assert_eq!(pages, count.div_ceil(PAGE));
            })
        });
    }
    group.finish();
}

fn registry(c: &mut Criterion) {
    let shipped = shipped_tools();
    let mut group = c.benchmark_group("registry");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for count in [10, 100, 1_000, 10_000] {
        let tools = synthetic_tools(&shipped, count);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(BenchmarkId::new("compile validators", count), |b| {
            b.iter_batched(
                || tools.clone(),
                |tools| ToolRegistry::build(tools).unwrap(),
                BatchSize::LargeInput,
            )
        });
        group.bench_function(
            BenchmarkId::new("compile and serialise the listing", count),
            |b| {
                b.iter_batched(
                    || tools.clone(),
                    |tools| ServedTools::new(tools).unwrap(),
                    BatchSize::LargeInput,
                )
            },
        );
    }
    group.finish();
}
