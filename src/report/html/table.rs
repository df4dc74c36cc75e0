//! The tables: each `Table` as an HTML table with its caption, a header cell for every
//! column (with its glossary definition as a hover), short rows padded, and a column right-aligned as a whole when all its cells read as
//! numbers.

use super::escape;
use super::header_definition::definition_attribute;
use crate::document::Table;
use std::fmt::Write as _;

pub fn table_html(table: &Table, glossary: &[(String, String)]) -> String {
    let columns = table
        .rows
        .iter()
        .map(Vec::len)
        .chain(std::iter::once(table.header.len()))
        .max()
        .unwrap_or(0);
    // A column is aligned as a whole, so that its header sits over its numbers.
    let numeric: Vec<bool> = (0..columns)
        .map(|col| {
            let mut cells = table
                .rows
                .iter()
                .filter_map(|row| row.get(col))
                .filter(|cell| !cell.trim().is_empty())
                .peekable();
            cells.peek().is_some() && cells.all(|cell| looks_numeric(cell))
        })
        .collect();
    let class = |col: usize| {
        if numeric.get(col).copied().unwrap_or(false) {
            " class=\"num\""
        } else {
            ""
        }
    };

    let mut out = String::from("<div class=\"table-wrap\"><table>\n");
    if !table.caption.trim().is_empty() {
        put!(out, "<caption>{}</caption>\n", escape(&table.caption));
    }
    if !table.header.is_empty() {
        out.push_str("<thead><tr>");
        for col in 0..columns {
            let text = table.header.get(col).map(String::as_str).unwrap_or("");
            put!(
                out,
                "<th{}{}>{}</th>",
                class(col),
                definition_attribute(text, glossary),
                escape(text)
            );
        }
        out.push_str("</tr></thead>\n");
    }
    out.push_str("<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for col in 0..columns {
            let text = row.get(col).map(String::as_str).unwrap_or("");
            put!(out, "<td{}>{}</td>", class(col), escape(text));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// Whether a table cell reads as a number (so it is right-aligned): it starts like a
/// number and any letters in it are unit-like ("ms", "pp", "x", an exponent).
fn looks_numeric(cell: &str) -> bool {
    let trimmed = cell.trim();
    let mut chars = trimmed.chars();
    let starts_like_number = match chars.next() {
        Some(c) if c.is_ascii_digit() => true,
        Some('+' | '-' | '−' | '.' | '±') => chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    };
    starts_like_number
        && trimmed
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(|c| matches!(c, 'e' | 'E' | 'm' | 's' | 'p' | 'x'))
}
