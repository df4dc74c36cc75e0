//! A run's outputs, rebuilt from its records (`rebuild`) and written by exporters behind one trait
//! (`exporters`: CSV, Parquet, HTML, Markdown, JSON). The report is one `crate::document`: its
//! sections (`sections`), each experiment described once with its tables (`tables`, and the A/B
//! ones in `ab_tables`) and charts, which the Markdown renderer (`document::markdown`:
//! `summary.md`, the terminal) and the HTML exporter (`html`: the self-contained `report.html`)
//! render in their formats; `summary` holds the summary table and `summary.json`. `report.html`
//! opens with the author's view (`per_tool`: each expected tool's picks and the failing requests)
//! and ends with the glossary of its columns (`glossary`). A comparison's verdict — `compare`'s
//! gate, `ab`'s arms — is one table of rows that pass or fail (`verdict_table`), written for CI as
//! JUnit XML (`junit`, the one writer of that format) and for a pull request as a Markdown comment
//! (`pull_request`). Nothing here computes a statistic — the numbers are `analysis`'s.

mod ab_tables;
mod bystander_table;
mod client;
mod exporters;
mod glossary;
pub mod html;
pub mod junit;
mod per_tool;
mod pull_request;
mod rebuild;
mod sections;
mod summary;
mod tables;
mod verdict_table;

pub use crate::document::Table;
pub use exporters::{Exporter, RunReport, all_exporters};
pub use pull_request::{MOVERS_SHOWN, PULL_REQUEST_MARKER, pull_request_comment};
pub use rebuild::{Rebuilt, rebuild, rebuild_run};
pub use verdict_table::{
    ComparisonVerdict, Overall, RowVerdict, VerdictKind, VerdictRow, ab_verdict, compare_verdict,
    gate_words,
};

use crate::analysis::RunAnalysis;
use crate::record::StoredTrial;
use sections::{experiment_sections, latency_section, summary_section};

/// The experiment sections of `summary.md`, empty when the run has no experiment to report.
pub fn experiment_markdown(analysis: &RunAnalysis) -> String {
    crate::document::markdown::markdown_sections(&experiment_sections(analysis))
}

/// `report.html`: the author's view first (each expected tool's picks), the summary tables, the
/// failing requests, every experiment's tables and charts, latency, the glossary, the manifest.
pub fn html_page(
    title: &str,
    summary: &Table,
    analysis: &RunAnalysis,
    trials: &[StoredTrial],
    manifest_json: String,
) -> String {
    let mut sections: Vec<_> = per_tool::per_tool_section(analysis).into_iter().collect();
    sections.push(summary_section(
        summary::split_speed_and_cost(summary).into(),
    ));
    sections.extend(per_tool::failing_section(analysis));
    sections.extend(experiment_sections(analysis));
    sections.extend(latency_section(trials));
    html::render(&html::ReportPage {
        title: title.to_string(),
        sections,
        manifest_json,
        glossary: glossary::glossary(),
    })
}
