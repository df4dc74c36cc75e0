//! A table header's hover: the glossary's definition of the header's text, as a `title`
//! attribute, for every table of the page (the glossary section at the page's end is `glossary`).

use super::escape;

/// ` title="…"` for a header cell whose text the glossary defines, else nothing.
pub fn definition_attribute(header: &str, glossary: &[(String, String)]) -> String {
    glossary
        .iter()
        .find(|(term, _)| term == header)
        .map_or(String::new(), |(_, meaning)| {
            format!(" title=\"{}\"", escape(meaning))
        })
}
