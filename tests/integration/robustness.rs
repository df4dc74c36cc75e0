//! Damaged input never panics: every shipped file, cut short at many points and with bytes changed,
//! loads into diagnostics (or, by luck, into something valid) — never a crash.

use mcpick::load::Workspace;
use std::path::{Path, PathBuf};

fn shipped_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["toolsets", "toolsets/variants", "tasks"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("toml" | "json" | "jsonl")
            ) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A small deterministic generator, so a failure reproduces.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

/// Bytes that matter to the TOML and JSON grammars, plus one that is not UTF-8.
const PALETTE: &[u8] = b"{}[]\"=,:\n\\#x0\xff";

fn load_damaged(name: &str, bytes: &[u8]) -> Workspace {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    Workspace::load(&[path])
}

#[test]
fn truncated_and_corrupted_files_give_diagnostics_not_panics() {
    let files = shipped_files();
    assert!(files.len() >= 12, "{files:?}");
    let mut rng = Lcg(0x5eed);
    let mut loads = 0;
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read(&file).unwrap();
        for _ in 0..12 {
            let cut = rng.next(text.len());
            let workspace = load_damaged(&name, &text[..cut]);
            assert!(!workspace.files.is_empty());
            loads += 1;
        }
        for _ in 0..12 {
            let mut damaged = text.clone();
            for _ in 0..3 {
                let at = rng.next(damaged.len());
                damaged[at] = PALETTE[rng.next(PALETTE.len())];
            }
            let workspace = load_damaged(&name, &damaged);
            for report in &workspace.files {
                for d in &report.diagnostics {
                    assert!(!d.message.is_empty(), "{d:?}");
                }
            }
            loads += 1;
        }
    }
    assert!(loads >= 12 * 24);
}
