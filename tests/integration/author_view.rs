//! The report as a server author meets it: a run of the travel suite with three offline baselines
//! (bm25, oracle, random: 25 tools, no model) opens with the per-tool table, lists the failing
//! requests with their text and what was picked, draws no heat map for the oracle, defines its
//! columns, and writes the request and the expected tool into `trials.csv` — and in headless
//! Chromium at 1,400 × 900 the page does not scroll sideways, no table scrolls inside its frame,
//! and the per-tool table comes before any heat map. A screenshot of that first screen is left in
//! the temp folder as `report-1400.png` for a person to look at.

use crate::experiments::headless;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A request bm25 gets wrong on the travel suite (it picks get_directions for it).
const FAILING_TASK: &str = "weather-now-fahrenheit";
const FAILING_PROMPT: &str = "how warm is it in chicago rn? give it to me in fahrenheit";

fn run_three_baselines(out: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "tasks/travel.toml", "--no-progress"])
        .args([
            "--backend",
            "bm25",
            "--backend",
            "oracle",
            "--backend",
            "random",
        ])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// What the page's script measured of its layout in a window of this size.
fn layout(page: &Path, width: u32, height: u32) -> Value {
    let profile = tempfile::tempdir().unwrap();
    let window = format!("--window-size={width},{height}");
    let dom = headless(profile.path(), page, &[&window, "--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    let json = dom
        .split("id=\"layout-check\"")
        .nth(1)
        .and_then(|rest| rest.split_once('>'))
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(json, _)| {
            json.replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
        })
        .unwrap_or_else(|| panic!("no layout check in the DOM:\n{dom}"));
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

#[test]
fn the_report_opens_with_each_tools_picks_and_fits_a_laptop_screen() {
    let out = tempfile::tempdir().unwrap();
    run_three_baselines(out.path());
    let page = out.path().join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();

    // The per-tool table is the first section, before the summary and any heat map.
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("no {needle}"));
    assert_eq!(at("<section id=\"per-tool\""), at("<section"));
    assert!(at("class=\"per-tool\"") < at("<section id=\"summary\""));
    assert!(at("class=\"per-tool\"") < at("data-chart=\"confusion\""));
    // The oracle picks every tool right: a sentence, no columns and no diagonal heat map.
    assert!(html.contains("oracle: every first pick right, on all"));
    assert!(html.contains("No heat map for oracle"));
    assert!(!html.contains("<rect data-series=\"oracle\""));
    assert!(html.contains("<rect data-series=\"bm25\""));

    // The failing request is listed with its text, one click from the per-tool table.
    let failing = &html[at("<section id=\"failing\"")..];
    let prompt_at = failing
        .find(FAILING_PROMPT)
        .expect("the failing request is listed");
    let (before, after) = failing.split_at(prompt_at);
    let row = format!(
        "{}{}",
        &before[before.rfind("<tr>").unwrap()..],
        &after[..after.find("</tr>").unwrap()]
    );
    assert!(row.replace("<wbr>", "").contains(FAILING_TASK), "{row}");
    assert!(row.contains("bm25</span>: get_directions"), "{row}");
    let anchor = before
        .rsplit("<tbody id=\"")
        .next()
        .and_then(|rest| rest.split('"').next())
        .unwrap();
    assert!(
        html[..at("<section id=\"summary\"")].contains(&format!("href=\"#{anchor}\"")),
        "the per-tool table links to {anchor}"
    );

    // Every column is defined where it is shown, and in the glossary.
    for (header, definition) in [
        ("selection", "Among tasks that expect a call"),
        ("right picks", "Share of tasks whose first action was right"),
        (
            "tool + args",
            "Among tasks that expect a call: the share whose first pick",
        ),
        ("latency p50 / p95", "Wall time of a trial"),
    ] {
        let hover = format!(" title=\"{definition}");
        let cell = html
            .match_indices(&hover)
            .any(|(i, _)| html[i..].split("</th>").next().unwrap().ends_with(header));
        assert!(cell, "the {header} header has no definition");
        assert!(html[at("<section id=\"glossary\"")..].contains(&format!("<dt>{header}</dt>")));
    }
    let glossary = &html[at("<section id=\"glossary\"")..];
    assert!(
        glossary.contains("mcpick compare"),
        "right picks against selection"
    );

    // trials.csv carries the request and the tool it expects.
    let csv = std::fs::read_to_string(out.path().join("trials.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (task, expected, prompt) = (column("task"), column("expected_tool"), column("prompt"));
    let row = reader
        .records()
        .map(Result::unwrap)
        .find(|r| &r[task] == FAILING_TASK)
        .unwrap();
    assert_eq!(
        (&row[expected], &row[prompt]),
        ("get_weather", FAILING_PROMPT)
    );

    // In the browser, at a laptop's 1,400 × 900: nothing scrolls sideways, the per-tool table first.
    let fit = layout(&page, 1400, 900);
    assert_eq!(fit["viewport"], 1400, "{fit}");
    assert!(fit["scroll_width"].as_u64().unwrap() <= 1400, "{fit}");
    assert_eq!(fit["wide_tables"], Value::Array(Vec::new()), "{fit}");
    assert_eq!(fit["first_section"], "per-tool", "{fit}");
    assert!(
        fit["per_tool_top"].as_i64().unwrap() < fit["heat_map_top"].as_i64().unwrap(),
        "{fit}"
    );
    assert!(
        fit["per_tool_top"].as_i64().unwrap() < 900,
        "the table starts on the first screen"
    );
    let screenshot = std::env::temp_dir().join("report-1400.png");
    let profile = tempfile::tempdir().unwrap();
    headless(
        profile.path(),
        &page,
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1400,900",
        ],
    );
    assert!(std::fs::read(&screenshot).unwrap().starts_with(b"\x89PNG"));
}
