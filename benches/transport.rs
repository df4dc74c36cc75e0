//! tools/call round trips over real transports, mcpick against an `rmcp` server with the same tool:
//!
//! - stdio: the server is a second process (`mcpick serve --stdio`, or this benchmark binary
//!   re-run as the rmcp server), the client writes to its stdin pipe and reads its stdout pipe;
//! - HTTP: Streamable HTTP on 127.0.0.1 (port 0), the server in this process, the client over TCP;
//!
//! each sequentially (one call at a time) and with 8 calls in flight. The client is the same neutral
//! one for both servers (`side_by_side`). `cargo bench --bench transport` prints the ratios.

#[allow(dead_code, reason = "each bench target uses part of the shared module")]
mod side_by_side;

use criterion::{BenchmarkId, Criterion, Throughput};
use mcpick::load::Workspace;
use mcpick::mcp::{McpServer, ServedTools, ServerConfig};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use side_by_side::{HttpClient, LineClient, Ratio, RmcpPeer, SMALL_ANSWER, small_call};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Set in the environment of a child this binary starts to serve rmcp on its stdio.
const SERVE_RMCP_STDIO: &str = "MCPICK_BENCH_SERVE_RMCP_STDIO";

/// Calls kept outstanding in the concurrent benchmarks.
const IN_FLIGHT: u64 = 8;

// The allocator the mcpick binary runs with (src/main.rs), so these figures are the binary's; the
// rmcp server measured in the same process gets it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::var_os(SERVE_RMCP_STDIO).is_some() {
        serve_rmcp_stdio();
        return;
    }
    let mut criterion = Criterion::default()
        .output_directory(&side_by_side::criterion_dir())
        .configure_from_args();
    stdio(&mut criterion);
    http(&mut criterion);
    criterion.final_summary();
    let ratio = |label, group, value| Ratio {
        label,
        group,
        ours: "mcpick",
        theirs: "rmcp",
        value,
    };
    side_by_side::print_ratios(
        "transport: tools/call round trips, mcpick vs rmcp (medians of this run)",
        &[
            ratio("stdio, sequential", "transport/stdio", "sequential"),
            ratio("stdio, 8 in flight", "transport/stdio", "8 in flight"),
            ratio("HTTP, sequential", "transport/http", "sequential"),
            ratio("HTTP, 8 in flight", "transport/http", "8 in flight"),
        ],
    );
}

fn serve_rmcp_stdio() {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        let running = RmcpPeer::default()
            .serve(rmcp::transport::stdio())
            .await
            .expect("rmcp serves on stdio");
        let _ = running.waiting().await;
    });
}

fn multi_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A server process and the line client on its pipes.
struct StdioPeer {
    _child: Child,
    client: LineClient<ChildStdout, ChildStdin>,
}

async fn spawn_stdio(mut command: Command) -> StdioPeer {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the server process starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let stdin = child.stdin.take().expect("piped stdin");
    let client = LineClient::connect(stdout, stdin)
        .await
        .expect("handshake over stdio");
    StdioPeer {
        _child: child,
        client,
    }
}

fn stdio(c: &mut Criterion) {
    let runtime = multi_thread_runtime();
    let mut ours = runtime.block_on(async {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
        command
            .arg("serve")
            .arg(side_by_side::toolset_path())
            .arg("--stdio");
        spawn_stdio(command).await
    });
    let mut theirs = runtime.block_on(async {
        let mut command = Command::new(std::env::current_exe().expect("this benchmark's own path"));
        command.env(SERVE_RMCP_STDIO, "1");
        spawn_stdio(command).await
    });
    let mut group = c.benchmark_group("transport/stdio");
    group.throughput(Throughput::Elements(1));
    let request = small_call(1);
    for (name, peer) in [("mcpick", &mut ours), ("rmcp", &mut theirs)] {
        group.bench_function(BenchmarkId::new(name, "sequential"), |b| {
            b.iter_custom(|iterations| {
                runtime.block_on(async {
                    let started = Instant::now();
                    for _ in 0..iterations {
                        peer.client
                            .round_trip(request.as_bytes(), SMALL_ANSWER)
                            .await
                            .unwrap();
                    }
                    started.elapsed()
                })
            })
        });
        group.bench_function(BenchmarkId::new(name, "8 in flight"), |b| {
            b.iter_custom(|iterations| {
                runtime.block_on(async {
                    let started = Instant::now();
                    peer.client
                        .pipelined(iterations, IN_FLIGHT, small_call, SMALL_ANSWER)
                        .await
                        .unwrap();
                    started.elapsed()
                })
            })
        });
    }
    group.finish();
}

/// Starts mcpick's Streamable HTTP server on 127.0.0.1, port 0, and returns its URL.
async fn start_mcpick_http() -> String {
    let workspace = Workspace::load(&[side_by_side::toolset_path()]);
    let tools = workspace
        .toolsets
        .into_iter()
        .flat_map(|t| t.tools)
        .collect();
    let server = McpServer::new(
        ServerConfig::default(),
        ServedTools::new(tools).expect("the tools compile"),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(mcpick::mcp::transport::http::serve_http(
        server,
        listener,
        std::future::pending(),
    ));
    url
}

/// Starts the rmcp server's Streamable HTTP service the way its documentation shows (axum), with
/// the same socket option mcpick sets, and returns its URL.
async fn start_rmcp_http() -> String {
    let service: StreamableHttpService<RmcpPeer, LocalSessionManager> = StreamableHttpService::new(
        || Ok(RmcpPeer::default()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

fn http(c: &mut Criterion) {
    let runtime = multi_thread_runtime();
    let ours = runtime.block_on(async {
        HttpClient::connect(&start_mcpick_http().await)
            .await
            .expect("mcpick over HTTP")
    });
    let theirs = runtime.block_on(async {
        HttpClient::connect(&start_rmcp_http().await)
            .await
            .expect("rmcp over HTTP")
    });
    let mut group = c.benchmark_group("transport/http");
    group
        .throughput(Throughput::Elements(1))
        .measurement_time(Duration::from_secs(5));
    for (name, client) in [("mcpick", ours), ("rmcp", theirs)] {
        group.bench_function(BenchmarkId::new(name, "sequential"), |b| {
            b.iter_custom(|iterations| {
                runtime.block_on(async {
                    let started = Instant::now();
                    for i in 0..iterations {
                        client
                            .round_trip(small_call(i), SMALL_ANSWER)
                            .await
                            .unwrap();
                    }
                    started.elapsed()
                })
            })
        });
        let client = Arc::new(client);
        group.bench_function(BenchmarkId::new(name, "8 in flight"), |b| {
            b.iter_custom(|iterations| {
                runtime.block_on(async {
                    let started = Instant::now();
                    let mut callers = tokio::task::JoinSet::new();
                    for caller in 0..IN_FLIGHT {
                        // Spread the calls evenly; ids are unique across callers.
                        let calls = (iterations + IN_FLIGHT - 1 - caller) / IN_FLIGHT;
                        let client = Arc::clone(&client);
                        callers.spawn(async move {
                            for i in 0..calls {
                                let id = i * IN_FLIGHT + caller;
                                client.round_trip(small_call(id), SMALL_ANSWER).await?;
                            }
                            std::io::Result::Ok(())
                        });
                    }
                    while let Some(joined) = callers.join_next().await {
                        joined.expect("caller task").unwrap();
                    }
                    started.elapsed()
                })
            })
        });
    }
    group.finish();
}
