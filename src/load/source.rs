//! One source file's text and the mapping from byte offsets to lines and columns, plus the translation
//! of TOML and JSON parser errors into diagnostics with positions and advice.

use super::Diagnostic;
use crate::spec::{FORMAT_VERSION, Located, with_toml_spans};
use serde::de::DeserializeOwned;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A file's path and text, able to turn spans into positions.
pub struct SourceText {
    pub path: PathBuf,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceText {
    pub fn read(path: &Path) -> Result<SourceText, Diagnostic> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(SourceText::new(path.to_path_buf(), text)),
            Err(e) => Err(Diagnostic::error(
                path,
                format!("cannot read {}: {}", path.display(), io_reason(&e)),
            )
            .help(
                "check the path and its permissions; `mcpick list` shows the files mcpick finds",
            )),
        }
    }

    pub fn new(path: PathBuf, text: String) -> SourceText {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceText {
            path,
            text,
            line_starts,
        }
    }

    /// 1-based line and character column of a byte offset.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        (line, column)
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        self.position(offset).0
    }

    /// An error at a span (or at the top of the file when the span is unknown).
    pub fn error(&self, span: Option<&Range<usize>>, message: impl Into<String>) -> Diagnostic {
        self.place(Diagnostic::error(&self.path, message), span)
    }

    pub fn warning(&self, span: Option<&Range<usize>>, message: impl Into<String>) -> Diagnostic {
        self.place(Diagnostic::warning(&self.path, message), span)
    }

    fn place(&self, diagnostic: Diagnostic, span: Option<&Range<usize>>) -> Diagnostic {
        match span {
            Some(span) => {
                let (line, column) = self.position(span.start);
                diagnostic.at(line, column)
            }
            None => diagnostic,
        }
    }

    /// Parses the whole file as TOML into `T`, recording spans.
    pub fn parse_toml<T: DeserializeOwned>(&self) -> Result<T, Diagnostic> {
        with_toml_spans(|| toml::from_str::<T>(&self.text)).map_err(|e| self.toml_error(&e))
    }

    fn toml_error(&self, error: &toml::de::Error) -> Diagnostic {
        let message = error.message().trim().replace('\n', "; ");
        let help = parser_advice(&message);
        self.error(error.span().as_ref(), message).help(help)
    }

    /// Checks the `format` key every TOML file carries.
    pub fn check_format(&self, format: &Located<u32>) -> Result<(), Diagnostic> {
        if format.value == FORMAT_VERSION {
            return Ok(());
        }
        Err(self
            .error(format.span.as_ref(), format!("unsupported format {} (this mcpick reads format {FORMAT_VERSION})", format.value))
            .help(format!("set `format = {FORMAT_VERSION}` and follow the format documented in toolsets/README.md and tasks/README.md")))
    }
}

/// A JSON parse error (from a whole file or one JSONL line) as advice a user can act on.
pub fn json_error_help(message: &str) -> String {
    parser_advice(message)
}

fn parser_advice(message: &str) -> String {
    if message.starts_with("unknown field") {
        "remove this key or fix its spelling; the keys allowed here are listed above".to_string()
    } else if message.starts_with("missing field") {
        "add the missing key to this table (see toolsets/README.md and tasks/README.md for the format)".to_string()
    } else if message.starts_with("invalid type") || message.starts_with("invalid value") {
        "change the value to the expected type".to_string()
    } else if message.starts_with("duplicate key") {
        "each key may appear once per table; remove or rename the second one".to_string()
    } else {
        "fix the syntax at this position (a missing quote, bracket, comma or `=` is the usual cause)".to_string()
    }
}

fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::InvalidData => "the file is not valid UTF-8 text".to_string(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let source = SourceText::new("x".into(), "ab\n天气 = 1\n".to_string());
        assert_eq!(source.position(0), (1, 1));
        assert_eq!(source.position(3), (2, 1));
        assert_eq!(source.position(9), (2, 3));
        assert_eq!(source.position(999), (3, 1));
    }
}
