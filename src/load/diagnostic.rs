//! A diagnostic: one problem in one file, with its position and a suggestion; and the nearest
//! known name to a misspelt one, for the suggestion.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One problem found while loading.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column in characters, when known.
    pub column: Option<usize>,
    /// 1-based record number in a JSON Lines file.
    pub record: Option<usize>,
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(path: impl Into<PathBuf>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            line: None,
            column: None,
            record: None,
            message: message.into(),
            help: None,
        }
    }

    pub fn warning(path: impl Into<PathBuf>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(path, message)
        }
    }

    pub fn at(mut self, line: usize, column: usize) -> Diagnostic {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `path:line:column: error: message` (the compiler convention editors jump to), then `help:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {severity}: ")?;
        if let Some(record) = self.record {
            write!(f, "record {record}: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// The known name nearest to `name` by edit distance, if it is plausibly a typo.
pub fn closest_name<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, k)| *d <= 3.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The known key `key` is a slip of, if it is one: the same once case, `_` and `-` are ignored, or
/// one edit away (two for keys longer than six characters). Stricter than `closest_name`, because
/// in an open object (MCP's `Tool`, its `annotations`) a key that is merely unknown is allowed.
pub fn misspelling_of<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let folded = |s: &str| {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    known
        .filter(|k| *k != key)
        .find(|k| folded(k) == folded(key) || edit_distance(key, k) <= 1 + usize::from(k.len() > 6))
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            current[j + 1] = (previous[j] + usize::from(ca != *cb))
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}
