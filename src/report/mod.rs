//! A run's outputs, rebuilt from its records (`rebuild`) and written by exporters behind one trait
//! (`exporters`: CSV, Parquet, HTML, Markdown, JSON). The report is one `crate::document`: its
//! sections (`sections`), each experiment described once with its tables (`tables`, and the A/B
//! ones in `ab_tables`) and charts, which the Markdown renderer (`document::markdown`:
//! `summary.md`, the terminal) and the HTML exporter (`html`: the self-contained `report.html`)
//! render in their formats; `summary` holds the summary table and `summary.json`. Nothing here computes a statistic — the numbers are `analysis`'s.

mod ab_tables;
mod exporters;
pub mod html;
mod rebuild;
mod sections;
mod summary;
mod tables;

pub use crate::document::Table;
pub use exporters::{Exporter, RunReport, all_exporters};
pub use rebuild::{Rebuilt, rebuild, rebuild_run};

use crate::analysis::RunAnalysis;
use crate::record::StoredTrial;
use sections::{experiment_sections, latency_section, summary_section};

/// The experiment sections of `summary.md`, empty when the run has no experiment to report.
pub fn experiment_markdown(analysis: &RunAnalysis) -> String {
    crate::document::markdown::markdown_sections(&experiment_sections(analysis))
}

/// `report.html`: the summary table, every experiment's tables and charts, latency, the manifest.
pub fn html_page(
    title: &str,
    summary: Table,
    analysis: &RunAnalysis,
    trials: &[StoredTrial],
    manifest_json: String,
) -> String {
    let mut sections = vec![summary_section(summary)];
    sections.extend(experiment_sections(analysis));
    sections.extend(latency_section(trials));
    html::render(&html::ReportPage {
        title: title.to_string(),
        sections,
        manifest_json,
    })
}
