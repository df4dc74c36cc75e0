//! Helpers shared by integration tests.

#![allow(dead_code)]

pub mod batch_provider;
pub mod bfcl_mutations;
pub mod composite_action;
pub mod drafter_provider;
pub mod hosted_run;
pub mod mock_provider;
pub mod native_search_provider;
pub mod published_servers;
pub mod rewriter_provider;
pub mod suggestible_provider;
pub mod swayed_provider;
pub mod written_files;

/// Runs the mcpick under test in `dir` with `args` (and `env` set on top of the test's own):
/// its exit code, and its stdout followed by its stderr.
pub fn mcpick_in(
    dir: &std::path::Path,
    args: &[&str],
    env: &[(&str, &std::path::Path)],
) -> (i32, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code().unwrap_or(-1), text)
}

/// The records of a run folder's `trials.jsonl`, each line parsed (a line that does not parse
/// fails the test).
pub fn read_trials(folder: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(folder.join("trials.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `command` to its end and returns its output with the highest resident memory it was
/// seen to reach (read from /proc every 20 ms while it lives).
pub fn output_with_peak_memory(command: &mut std::process::Command) -> (std::process::Output, u64) {
    let child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let watching = std::thread::spawn(move || {
        let high_water = || -> Option<u64> {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? << 10)
        };
        let mut peak = 0;
        while let Some(now) = high_water() {
            peak = peak.max(now);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        peak
    });
    let output = child.wait_with_output().unwrap();
    (output, watching.join().unwrap())
}
