//! What the protocol benchmarks share: the same two tools served by mcpick (`tools.toml`) and by a
//! server written with the official Rust SDK, `rmcp` (`RmcpPeer`, same names, schemas and answers);
//! the requests both are sent; and the clients that drive both — a newline-JSON client for pipes and
//! an HTTP client for Streamable HTTP — written here, neutral, so a comparison measures the servers
//! and never one side's own client. Every answer is checked, so a benchmark cannot time errors.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use std::path::PathBuf;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The toolset mcpick serves in every side-by-side benchmark.
pub fn toolset_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/side_by_side/tools.toml")
}

/// The protocol version both servers are asked for (each supports it).
pub const PROTOCOL_VERSION: &str = "2025-06-18";

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpick-bench","version":"0"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// What every 2026-07-28 request carries in `params` instead of a session.
const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// `request` in the 2026-07-28 era: its params with the per-request `_meta`.
pub fn modern(request: &str) -> String {
    if request.contains(r#""params":{"#) {
        request.replacen(r#""params":{"#, &format!(r#""params":{{{MODERN_META},"#), 1)
    } else {
        request.replacen(
            r#""method":"#,
            &format!(r#""params":{{{MODERN_META}}},"method":"#),
            1,
        )
    }
}

/// A tools/list request.
pub fn list_tools(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#)
}
/// Text every answer to `list_tools` contains.
pub const LIST_ANSWER: &str = "file_expense_report";

/// A tools/call with a one-string argument object.
pub fn small_call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"city":"Paris"}}}}}}"#
    )
}
/// Text every answer to `small_call` contains.
pub const SMALL_ANSWER: &str = "Paris: 18 degrees, light rain";

/// A tools/call whose arguments are a nested object of about 2 KB: 16 itemised costs.
pub fn large_call(id: u64) -> String {
    let items: Vec<String> = (0..16)
        .map(|i| {
            let category = ["airfare", "lodging", "meals", "ground_transport", "other"][i % 5];
            format!(
                r#"{{"date":"2026-03-{:02}","category":"{category}","amount":{}.{:02},"currency":"EUR","note":"receipt {i} of the Lyon customer visit"}}"#,
                10 + i % 5,
                40 + i * 7,
                i * 3 % 100
            )
        })
        .collect();
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"file_expense_report","arguments":{{"employee_id":"E123456","approver":"dana.schulz@example.com","urgent":false,"tags":["customer","q1","lyon"],"trip":{{"origin":"Berlin","destination":"Lyon","depart":"2026-03-10","return":"2026-03-14","purpose":"customer visit"}},"items":[{}]}}}}}}"#,
        items.join(",")
    )
}
/// Text every answer to `large_call` contains.
pub const LARGE_ANSWER: &str =
    "Expense report for E123456 filed; dana.schulz@example.com will review it.";

/// The rmcp server: the same tools as `tools.toml`, arguments checked the way rmcp checks them
/// (deserialised into typed structs, which is what a server written with it does).
#[derive(Debug, Clone)]
pub struct RmcpPeer {
    #[allow(dead_code, reason = "read by the code tool_handler generates")]
    tool_router: ToolRouter<Self>,
}

impl Default for RmcpPeer {
    fn default() -> Self {
        RmcpPeer {
            tool_router: Self::tool_router(),
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct WeatherRequest {
    #[schemars(description = "City name such as 'Paris'")]
    city: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ExpenseReport {
    /// Employee number, 'E' and six digits
    #[schemars(regex(pattern = r"^E[0-9]{6}$"))]
    employee_id: String,
    /// Approver's e-mail address
    approver: String,
    /// Ask for approval within a day
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "deserialised and checked, as the schema asks; not echoed"
    )]
    urgent: bool,
    /// Free labels for filtering reports
    #[serde(default)]
    #[allow(dead_code, reason = "deserialised and checked; not echoed")]
    tags: Vec<String>,
    #[allow(dead_code, reason = "deserialised and checked; not echoed")]
    trip: Trip,
    /// The costs, one per receipt
    #[schemars(length(min = 1))]
    #[allow(dead_code, reason = "deserialised and checked; not echoed")]
    items: Vec<ExpenseItem>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "deserialised and checked; not echoed")]
pub struct Trip {
    origin: String,
    destination: String,
    depart: String,
    #[serde(rename = "return")]
    return_date: String,
    purpose: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "deserialised and checked; not echoed")]
pub struct ExpenseItem {
    date: String,
    category: Category,
    #[schemars(range(min = 0))]
    amount: f64,
    #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
    currency: String,
    note: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Airfare,
    Lodging,
    Meals,
    GroundTransport,
    Other,
}

#[tool_router]
impl RmcpPeer {
    #[tool(description = "Current weather for one city; not forecasts.")]
    async fn get_weather(
        &self,
        Parameters(WeatherRequest { city }): Parameters<WeatherRequest>,
    ) -> String {
        format!("{city}: 18 degrees, light rain")
    }

    #[tool(
        description = "File one business trip's expense report, itemised, for an approver to review. Not for reimbursing a single receipt."
    )]
    async fn file_expense_report(&self, Parameters(report): Parameters<ExpenseReport>) -> String {
        format!(
            "Expense report for {} filed; {} will review it.",
            report.employee_id, report.approver
        )
    }
}

#[tool_handler]
impl ServerHandler for RmcpPeer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A newline-delimited JSON client on a byte stream (a pipe to a child process, or an in-memory duplex).
pub struct LineClient<R, W> {
    reader: BufReader<R>,
    writer: W,
    line: Vec<u8>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineClient<R, W> {
    /// Connects and completes the MCP handshake.
    pub async fn connect(reader: R, writer: W) -> std::io::Result<Self> {
        let mut client = LineClient {
            reader: BufReader::with_capacity(64 * 1024, reader),
            writer,
            line: Vec::with_capacity(4096),
        };
        client.send(INITIALIZE.as_bytes()).await?;
        let answer = client.receive().await?;
        check(answer, "\"protocolVersion\"")?;
        client.send(INITIALIZED.as_bytes()).await?;
        Ok(client)
    }

    /// Connects without a handshake, as a 2026-07-28 client does.
    pub fn stateless(reader: R, writer: W) -> Self {
        LineClient {
            reader: BufReader::with_capacity(64 * 1024, reader),
            writer,
            line: Vec::with_capacity(4096),
        }
    }

    /// Writes one message (without its newline) and flushes.
    pub async fn send(&mut self, message: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(message).await?;
        self.writer.write_all(b"\n").await?;
        self.writer.flush().await
    }

    /// The next response line, skipping any notification or server request.
    pub async fn receive(&mut self) -> std::io::Result<&[u8]> {
        loop {
            self.line.clear();
            if self.reader.read_until(b'\n', &mut self.line).await? == 0 {
                return Err(std::io::Error::other("the server closed its output"));
            }
            if !contains(&self.line, b"\"method\"") {
                return Ok(&self.line);
            }
        }
    }

    /// One request, one answer, which must contain `expected`.
    pub async fn round_trip(&mut self, request: &[u8], expected: &str) -> std::io::Result<()> {
        self.send(request).await?;
        let answer = self.receive().await?;
        check(answer, expected)
    }

    /// `count` calls made by `make_request(id)`, keeping `in_flight` outstanding at a time.
    pub async fn pipelined(
        &mut self,
        count: u64,
        in_flight: u64,
        make_request: fn(u64) -> String,
        expected: &str,
    ) -> std::io::Result<()> {
        let mut sent = 0;
        while sent < in_flight.min(count) {
            sent += 1;
            self.send(make_request(sent).as_bytes()).await?;
        }
        for _ in 0..count {
            let answer = self.receive().await?;
            check(answer, expected)?;
            if sent < count {
                sent += 1;
                self.send(make_request(sent).as_bytes()).await?;
            }
        }
        Ok(())
    }
}

/// A Streamable HTTP client: one session, JSON or SSE answers, connections pooled (so calls from
/// several tasks run on several connections at once).
#[derive(Clone)]
pub struct HttpClient {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
}

impl HttpClient {
    pub async fn connect(url: &str) -> std::io::Result<HttpClient> {
        let mut client = HttpClient {
            http: reqwest::Client::builder()
                .tcp_nodelay(true)
                .pool_max_idle_per_host(64)
                .build()
                .map_err(std::io::Error::other)?,
            url: url.to_string(),
            session: None,
        };
        let response = client.post(INITIALIZE.to_string()).await?;
        client.session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = response.text().await.map_err(std::io::Error::other)?;
        check(body.as_bytes(), "\"protocolVersion\"")?;
        let response = client.post(INITIALIZED.to_string()).await?;
        if !response.status().is_success() {
            return Err(std::io::Error::other(format!(
                "notifications/initialized: HTTP {}",
                response.status()
            )));
        }
        Ok(client)
    }

    async fn post(&self, body: String) -> std::io::Result<reqwest::Response> {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .body(body);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        request.send().await.map_err(std::io::Error::other)
    }

    /// One request; the whole answer (a JSON body, or an SSE stream the server ends after the
    /// response) must contain `expected`.
    pub async fn round_trip(&self, request: String, expected: &str) -> std::io::Result<()> {
        let response = self.post(request).await?;
        let body = response.bytes().await.map_err(std::io::Error::other)?;
        check(&body, expected)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Fails unless `answer` contains `expected` (so an error answer is never timed as a success).
pub fn check(answer: &[u8], expected: &str) -> std::io::Result<()> {
    if contains(answer, expected.as_bytes()) {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "unexpected answer (wanted {expected:?}): {}",
            String::from_utf8_lossy(&answer[..answer.len().min(400)])
        )))
    }
}

/// Criterion's rule for turning an id into a directory name (its `make_filename_safe`).
fn criterion_file_name(id: &str) -> String {
    id.replace(['?', '"', '/', '\\', '*', '<', '>', ':', '|', '^'], "_")
}

/// Criterion's median estimate, in nanoseconds, for `group/function/value` of the last `cargo bench`.
pub fn criterion_median_ns(group: &str, function: &str, value: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(criterion_file_name(group))
        .join(criterion_file_name(function))
        .join(criterion_file_name(value))
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

/// Where criterion writes its results (its own rule: `$CARGO_TARGET_DIR/criterion`, else `target/criterion`).
pub fn criterion_dir() -> PathBuf {
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR").map(|t| PathBuf::from(t).join("criterion"))
        })
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/criterion"))
}

/// Whether this process is measuring (`cargo bench`) rather than checking each benchmark once
/// (`cargo test --benches`, `cargo test`): criterion's own rule.
pub fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench") && !std::env::args().any(|a| a == "--test")
}

/// One line of a ratio table: benchmarks `group/ours/value` and `group/theirs/value`.
pub struct Ratio<'a> {
    pub label: &'a str,
    pub group: &'a str,
    pub ours: &'a str,
    pub theirs: &'a str,
    pub value: &'a str,
}

/// Prints the mcpick/rmcp ratio table from criterion's medians of this run: throughput ratio =
/// rmcp's time per call / mcpick's.
pub fn print_ratios(title: &str, rows: &[Ratio<'_>]) {
    if !measuring() {
        return;
    }
    println!("\n{title}");
    println!("| benchmark | mcpick median | rmcp median | mcpick/rmcp throughput |");
    println!("|---|---|---|---|");
    for row in rows {
        match (
            criterion_median_ns(row.group, row.ours, row.value),
            criterion_median_ns(row.group, row.theirs, row.value),
        ) {
            (Some(ours), Some(theirs)) => println!(
                "| {} | {} | {} | {:.2}× |",
                row.label,
                human_time(ours),
                human_time(theirs),
                theirs / ours
            ),
            _ => println!("| {} | (not measured in this run) | | |", row.label),
        }
    }
}

/// Nanoseconds as criterion prints them.
pub fn human_time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}
