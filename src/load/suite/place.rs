//! Where a task's problems are reported: a span in a TOML suite file, or a record (line and record
//! number) of a JSON Lines task file.

use crate::load::Diagnostic;
use crate::load::source::SourceText;
use std::ops::Range;
use std::path::Path;

/// Where a task's problems are reported: a span in a TOML file, or a JSONL record.
pub enum Place<'a> {
    Toml {
        source: &'a SourceText,
        fallback: Option<Range<usize>>,
    },
    Record {
        path: &'a Path,
        line: usize,
        record: usize,
    },
}

impl Place<'_> {
    pub fn error(&self, span: Option<&Range<usize>>, message: String, help: String) -> Diagnostic {
        match self {
            Place::Toml { source, fallback } => {
                source.error(span.or(fallback.as_ref()), message).help(help)
            }
            Place::Record { path, line, record } => {
                let mut d = Diagnostic::error(*path, message).help(help);
                d.line = Some(*line);
                d.record = Some(*record);
                d
            }
        }
    }

    pub fn line(&self, span: Option<&Range<usize>>) -> Option<usize> {
        match self {
            Place::Toml { source, fallback } => {
                span.or(fallback.as_ref()).map(|s| source.line_of(s.start))
            }
            Place::Record { line, .. } => Some(*line),
        }
    }

    pub fn path(&self) -> &Path {
        match self {
            Place::Toml { source, .. } => &source.path,
            Place::Record { path, .. } => path,
        }
    }

    pub fn describe(&self, span: Option<&Range<usize>>) -> String {
        match (self, self.line(span)) {
            (Place::Record { record, .. }, Some(line)) => format!("record {record}, line {line}"),
            (_, Some(line)) => format!("line {line}"),
            _ => "elsewhere".to_string(),
        }
    }
}

impl Place<'_> {
    /// A warning at a span (or the record).
    pub fn warning(
        &self,
        span: Option<&Range<usize>>,
        message: String,
        help: String,
    ) -> Diagnostic {
        let mut d = self.error(span, message, help);
        d.severity = crate::load::Severity::Warning;
        d
    }
}
