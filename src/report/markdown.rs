//! The report in Markdown (`summary.md` and the terminal): tables as pipe tables under their
//! captions, lines as lists; charts are the HTML page's.

use super::document::{Part, Section, Table};

/// A Markdown table from a header and rows.
pub fn markdown_table(table: &Table) -> String {
    let mut text = format!("| {} |\n", table.header.join(" | "));
    text.push_str(&format!("|{}\n", "---|".repeat(table.header.len())));
    for row in &table.rows {
        text.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    text
}

/// The sections, each under its heading; a section with nothing but charts is left out.
pub fn markdown_sections(sections: &[Section]) -> String {
    let mut text = String::new();
    for section in sections {
        let written: Vec<String> = section.parts.iter().filter_map(markdown_part).collect();
        if written.is_empty() {
            continue;
        }
        text.push_str(&format!("\n## {}\n\n", section.heading));
        text.push_str(&written.join("\n"));
    }
    text
}

fn markdown_part(part: &Part) -> Option<String> {
    match part {
        Part::Table(table) => Some(format!("{}.\n\n{}", table.caption, markdown_table(table))),
        Part::Lines { caption, lines } => {
            let items: String = lines.iter().map(|l| format!("- {l}\n")).collect();
            Some(format!("{caption}:\n\n{items}"))
        }
        Part::Chart(_) => None,
    }
}
