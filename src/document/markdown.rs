//! A document in Markdown: the title as `#`, sections as `##`, subheadings as `###`, tables as pipe
//! tables under their captions, lines as lists; charts are the HTML page's and are left out. A
//! cell is written on one line with its pipes escaped, so no text a table holds can break it.

use super::{Document, Item, Part, Section, Table};

/// A Markdown table from a header and rows.
pub fn markdown_table(table: &Table) -> String {
    let row = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut text = row(&table.header);
    text.push_str(&format!("|{}\n", "---|".repeat(table.header.len())));
    for cells in &table.rows {
        text.push_str(&row(cells));
    }
    text
}

/// A whole document: its title, its opening parts, its sections.
pub fn markdown_document(document: &Document) -> String {
    let mut text = format!("# {}\n", one_line(&document.title));
    for part in &document.opening {
        if let Some(written) = markdown_part(part) {
            text.push('\n');
            text.push_str(&written);
        }
    }
    text.push_str(&markdown_sections(&document.sections));
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
        text.push_str(&format!("\n## {}\n\n", one_line(&section.heading)));
        text.push_str(&written.join("\n"));
    }
    text
}

fn markdown_part(part: &Part) -> Option<String> {
    match part {
        Part::Table(table) if table.caption.is_empty() => Some(markdown_table(table)),
        Part::Table(table) => Some(format!("{}.\n\n{}", table.caption, markdown_table(table))),
        Part::Lines { caption, lines } => {
            let items: String = lines
                .iter()
                .map(|l| format!("- {}\n", on_one_line(l)))
                .collect();
            Some(format!("{caption}:\n\n{items}"))
        }
        Part::Chart(_) => None,
        Part::Paragraph(text) => Some(format!("{text}\n")),
        Part::Subheading(text) => Some(format!("### {}\n", one_line(text))),
        Part::Numbered(items) => Some(numbered(items)),
    }
}

fn numbered(items: &[Item]) -> String {
    let mut text = String::new();
    for (k, item) in items.iter().enumerate() {
        text.push_str(&format!("{}. {}\n", k + 1, on_one_line(&item.text)));
        for detail in &item.details {
            text.push_str(&format!("   - {}\n", on_one_line(detail)));
        }
    }
    text
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text that must stay on its line (a list item, a cell): its line breaks folded into spaces,
/// and left as it is when it has none.
fn on_one_line(text: &str) -> String {
    if text.contains(['\n', '\r']) {
        one_line(text)
    } else {
        text.to_string()
    }
}

/// Text as one table cell: on one line, its pipes escaped (an escaped pipe stays as it was).
fn cell(text: &str) -> String {
    let text = on_one_line(text);
    let mut out = String::with_capacity(text.len());
    let mut escaped = false;
    for c in text.chars() {
        if c == '|' && !escaped {
            out.push('\\');
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_cannot_break_its_table() {
        let table = Table {
            caption: String::new(),
            header: vec!["a".into(), "b".into()],
            rows: vec![vec!["x | y".into(), "one\ntwo  three".into()]],
        };
        assert_eq!(
            markdown_table(&table),
            "| a | b |\n|---|---|\n| x \\| y | one two three |\n"
        );
        // Already escaped by whoever built the cell: left as it is.
        assert_eq!(cell("a \\| b"), "a \\| b");
    }

    #[test]
    fn a_document_reads_in_order() {
        let document = Document {
            title: "Import of x".into(),
            opening: vec![Part::Paragraph("Two records.".into())],
            sections: vec![Section::new(
                "kept",
                "Kept",
                vec![
                    Part::Subheading("Targets".into()),
                    Part::Numbered(vec![Item {
                        text: "`a`".into(),
                        details: vec!["why".into()],
                    }]),
                ],
            )],
        };
        assert_eq!(
            markdown_document(&document),
            "# Import of x\n\nTwo records.\n\n## Kept\n\n### Targets\n\n1. `a`\n   - why\n"
        );
    }
}
