//! The promotion screen (`improve`'s, `mcpick::improve::promotion`) measured, as docs/hostile-input.md
//! reports it: on descriptions written to promote a tool or instruct the model in eleven
//! languages and several disguises (`tests/data/promotion/hostile.tsv`, paraphrases it may miss
//! included), on every description the project ships, and on the 11,000 distinct function and
//! parameter descriptions of BFCL v4 (from the `bfcl-eval` package the tests' peers install),
//! which promote nothing.

use mcpick::improve::promotion;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_screen_finds_promotion_in_eleven_languages_and_passes_honest_descriptions() {
    let hostile = std::fs::read_to_string(root().join("tests/data/promotion/hostile.tsv")).unwrap();
    let lines: Vec<(&str, &str)> = hostile
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_once('\t').unwrap())
        .collect();
    let missed: Vec<&(&str, &str)> = lines
        .iter()
        .filter(|(_, t)| promotion(t).is_empty())
        .collect();
    let languages: std::collections::BTreeSet<&str> = lines.iter().map(|(l, _)| *l).collect();
    println!(
        "hostile: {} of {} found in {} languages; missed: {missed:?}",
        lines.len() - missed.len(),
        lines.len(),
        languages.len()
    );
    assert!(
        missed.len() * 10 <= lines.len(),
        "the screen missed {} of {}: {missed:?}",
        missed.len(),
        lines.len()
    );

    // Every description the project ships: tools and parameters, every toolset and variant.
    let mut shipped: Vec<PathBuf> = ["toolsets", "toolsets/variants"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root().join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    shipped.sort();
    let mut texts = Vec::new();
    for path in &shipped {
        let value: toml::Table = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        collect_descriptions(&serde_json::to_value(value).unwrap(), &mut texts);
    }
    let found = flagged(&texts);
    println!(
        "shipped: {} descriptions, {} flagged",
        texts.len(),
        found.len()
    );
    assert!(texts.len() > 200, "{}", texts.len());
    assert!(found.is_empty(), "{found:?}");

    // BFCL v4's function and parameter descriptions.
    let bfcl = root().join("tests/peers/.venv/lib/python3.11/site-packages/bfcl_eval/data");
    assert!(
        bfcl.is_dir(),
        "bfcl-eval is not installed: run tests/peers/install.sh"
    );
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(&bfcl).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "json") {
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                if let Ok(record) = serde_json::from_str::<Value>(line) {
                    collect_descriptions(&record["function"], &mut texts);
                }
            }
        }
    }
    texts.sort();
    texts.dedup();
    let found = flagged(&texts);
    println!(
        "BFCL v4: {} distinct descriptions, {} flagged: {found:?}",
        texts.len(),
        found.len()
    );
    assert!(texts.len() > 10_000, "{}", texts.len());
    assert!(found.len() * 1000 <= texts.len(), "{found:?}");
}

/// The texts the screen flags, with what it found in each.
fn flagged(texts: &[String]) -> Vec<(&String, Vec<String>)> {
    texts
        .iter()
        .map(|t| (t, promotion(t)))
        .filter(|(_, found)| !found.is_empty())
        .collect()
}

fn collect_descriptions(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                if key == "description"
                    && let Some(text) = inner.as_str()
                {
                    out.push(text.to_string());
                }
                collect_descriptions(inner, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_descriptions(v, out)),
        _ => {}
    }
}
