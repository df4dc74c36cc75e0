//! JUnit XML, the test-report format CI systems read (Jenkins, GitLab, GitHub's test-report
//! actions): the one place mcpick writes it. A report is typed — a suite of test cases, each
//! passed, failed, in error or skipped — and written by hand, so every string goes through one
//! escaper: `&`, `<`, `>` and quotes become entities, line breaks and tabs in attributes become
//! character references (an attribute would fold them into spaces), and the characters XML 1.0
//! forbids (C0 controls other than tab, line feed and carriage return; U+FFFE, U+FFFF) become
//! U+FFFD, since no reference can stand for them either. The shape follows Maven Surefire's, which
//! `tests/data/junit/junit-10.xsd` describes: `<testsuites>` holding one `<testsuite>` with its
//! `tests`, `failures`, `errors`, `skipped`, `time` and `timestamp` counted from its cases. What a
//! case is (a backend of `compare`, an arm pair of `ab`) is `report::verdict_table`'s to say.

use std::fmt::Write as _;

/// How one test case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseResult {
    Passed,
    /// The check ran and its verdict is "fail": `message` is one line, `body` any detail.
    Failed {
        message: String,
        body: String,
    },
    /// The check could not run (no evidence, inputs refused).
    Error {
        message: String,
        body: String,
    },
    /// Nothing to check (e.g. a backend only one run holds).
    Skipped {
        message: String,
    },
}

/// One `<testcase>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCase {
    pub name: String,
    /// What CI systems group cases by, e.g. `mcpick.compare`.
    pub classname: String,
    pub result: CaseResult,
    /// What passed cases carry too: the table row, in `<system-out>`.
    pub output: Option<String>,
}

/// One `<testsuite>` and what it is stamped with.
#[derive(Debug, Clone, PartialEq)]
pub struct TestSuite {
    pub name: String,
    /// When it ran, ISO 8601 in UTC without a zone (`2026-12-08T00:12:41`), as Ant and Surefire
    /// write it.
    pub timestamp: String,
    /// Seconds it took.
    pub seconds: f64,
    pub cases: Vec<TestCase>,
}

impl TestSuite {
    fn count(&self, of: impl Fn(&CaseResult) -> bool) -> usize {
        self.cases.iter().filter(|c| of(&c.result)).count()
    }

    /// The whole file: the XML declaration, `<testsuites>` and its one `<testsuite>`.
    pub fn to_xml(&self) -> String {
        let failures = self.count(|r| matches!(r, CaseResult::Failed { .. }));
        let errors = self.count(|r| matches!(r, CaseResult::Error { .. }));
        let skipped = self.count(|r| matches!(r, CaseResult::Skipped { .. }));
        let (tests, time) = (self.cases.len(), format!("{:.3}", self.seconds.max(0.0)));
        let name = attribute(&self.name);
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        // Writing into a String cannot fail.
        let _ = writeln!(
            xml,
            "<testsuites name=\"{name}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time}\">"
        );
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{name}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time}\" timestamp=\"{}\">",
            attribute(&self.timestamp)
        );
        for case in &self.cases {
            write_case(&mut xml, case);
        }
        xml.push_str("  </testsuite>\n</testsuites>\n");
        xml
    }
}

fn write_case(xml: &mut String, case: &TestCase) {
    let _ = write!(
        xml,
        "    <testcase name=\"{}\" classname=\"{}\"",
        attribute(&case.name),
        attribute(&case.classname)
    );
    if case.result == CaseResult::Passed && case.output.is_none() {
        xml.push_str("/>\n");
        return;
    }
    xml.push_str(">\n");
    match &case.result {
        CaseResult::Passed => {}
        CaseResult::Failed { message, body } => {
            write_outcome(xml, "failure", message, body);
        }
        CaseResult::Error { message, body } => {
            write_outcome(xml, "error", message, body);
        }
        CaseResult::Skipped { message } => {
            let _ = writeln!(xml, "      <skipped message=\"{}\"/>", attribute(message));
        }
    }
    if let Some(output) = &case.output {
        let _ = writeln!(xml, "      <system-out>{}</system-out>", text(output));
    }
    xml.push_str("    </testcase>\n");
}

fn write_outcome(xml: &mut String, element: &str, message: &str, body: &str) {
    let _ = writeln!(
        xml,
        "      <{element} message=\"{}\" type=\"{element}\">{}</{element}>",
        attribute(message),
        text(body)
    );
}

/// A character XML 1.0 allows in a document (its `Char` production; Rust strings hold no
/// surrogates).
fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Text content: markup escaped, forbidden characters replaced.
pub fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            // `]]>` may not appear in text; escaping every `>` rules it out.
            '>' => out.push_str("&gt;"),
            c if allowed(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// An attribute value in double quotes: as text, plus both quotes, and the whitespace an
/// attribute would otherwise normalise to spaces kept as character references.
pub fn attribute(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push_str(&text(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

/// `YYYY-MM-DDTHH:MM:SS` in UTC, from the run folder's stamp format (`record::utc_stamp`).
pub fn junit_timestamp(time: std::time::SystemTime) -> String {
    let stamp = crate::record::utc_stamp(time);
    // `YYYYMMDDTHHMMSSZ`: the same digits, punctuated.
    let digits = |range: std::ops::Range<usize>| stamp.get(range).unwrap_or("00").to_string();
    format!(
        "{}-{}-{}T{}:{}:{}",
        digits(0..4),
        digits(4..6),
        digits(6..8),
        digits(9..11),
        digits(11..13),
        digits(13..15)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(cases: Vec<TestCase>) -> TestSuite {
        TestSuite {
            name: "mcpick compare".into(),
            timestamp: "2026-12-08T00:12:41".into(),
            seconds: 0.25,
            cases,
        }
    }

    fn case(name: &str, result: CaseResult) -> TestCase {
        TestCase {
            name: name.into(),
            classname: "mcpick.compare".into(),
            result,
            output: None,
        }
    }

    #[test]
    fn markup_quotes_and_forbidden_characters_cannot_escape_their_place() {
        assert_eq!(
            text("a < b && c > d ]]>"),
            "a &lt; b &amp;&amp; c &gt; d ]]&gt;"
        );
        assert_eq!(
            attribute("say \"hi\" it's\none\ttab"),
            "say &quot;hi&quot; it&apos;s&#10;one&#9;tab"
        );
        // NUL, a bell, a vertical tab, U+FFFE: no XML 1.0 document may hold them, even as references.
        assert_eq!(
            text("a\u{0}b\u{7}c\u{B}d\u{FFFE}"),
            "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}"
        );
        assert_eq!(text("é → 😀"), "é → 😀");
    }

    #[test]
    fn the_suite_counts_its_cases() {
        let xml = suite(vec![
            case("bm25", CaseResult::Passed),
            case(
                "local",
                CaseResult::Failed {
                    message: "worse <p = 0.01>".into(),
                    body: "| a | b |".into(),
                },
            ),
            case(
                "embed",
                CaseResult::Error {
                    message: "no evidence".into(),
                    body: String::new(),
                },
            ),
            case(
                "oracle",
                CaseResult::Skipped {
                    message: "in one run only".into(),
                },
            ),
        ])
        .to_xml();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpick compare\" tests=\"4\" failures=\"1\" errors=\"1\" time=\"0.250\">\n"), "{xml}");
        assert!(xml.contains("skipped=\"1\" time=\"0.250\" timestamp=\"2026-12-08T00:12:41\">"));
        assert!(xml.contains("<testcase name=\"bm25\" classname=\"mcpick.compare\"/>"));
        assert!(xml.contains(
            "<failure message=\"worse &lt;p = 0.01&gt;\" type=\"failure\">| a | b |</failure>"
        ));
        assert!(xml.ends_with("  </testsuite>\n</testsuites>\n"));
    }

    #[test]
    fn timestamps_are_iso_8601_in_utc() {
        let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_170_361);
        assert_eq!(junit_timestamp(time), "2026-12-02T00:12:41");
    }
}
