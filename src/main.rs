//! The `mcpick` binary: parse arguments, set up logging on stderr, run the command, exit with its code.

use clap::Parser;
use mcpick::cli::Cli;
use mcpick::commands::ExitStatus;
use std::process::ExitCode;

// Every JSON-RPC message becomes a tree of small allocations; with mimalloc instead of glibc's
// malloc a trial took 37% less time here and a large tools/call 19% less (benches/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let level = match cli.verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCPICK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();

    // Not locked for the whole run: `serve` writes protocol messages to stdout from another thread.
    let mut stdout = std::io::stdout();
    match mcpick::commands::run(cli.command, &mut stdout) {
        Ok(outcome @ (ExitStatus::Interrupted | ExitStatus::Incomplete)) => {
            exit_leaving_threads_running(outcome.exit_code())
        }
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        // A closed pipe (`mcpick validate | head`) is not a failure worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcpick: {e}");
            ExitCode::from(1)
        }
    }
}

/// Exits at once, for a run that stopped with trials abandoned (Ctrl-C, a spent budget): a model
/// call may still be running inside llama.cpp on a thread the run no longer waits for, and the C++
/// static destructors that `exit` runs would free the state under it — the process then died of a
/// segmentation fault after writing its summary, instead of exiting 130. Everything mcpick writes
/// is written by now; only the standard streams are flushed here.
fn exit_leaving_threads_running(code: u8) -> ExitCode {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process without running anything else; nothing is left to run.
    unsafe {
        libc::_exit(i32::from(code))
    }
    #[cfg(not(unix))]
    ExitCode::from(code)
}
