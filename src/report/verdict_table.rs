//! A comparison's verdict as one table of rows that pass or fail, built once and printed two ways:
//! as JUnit test cases (`--junit`, through `junit`) and as a pull-request comment
//! (`--format markdown`, through `pull_request`). `compare` gives one row per backend, failing
//! where its regression gate fails (`GateFailure`; the gate's words are `gate_words`, which the
//! text and JSON output print too); `ab` gives one row per backend and arm against the first arm,
//! failing where that arm is significantly worse than the first on the measure that decides (the
//! graded measure when the backend gives one, else right picks), after the report's adjustment —
//! the same verdict the A/B table prints as "A better". Rows without evidence and reasons the
//! comparison cannot stand on are errors, never passes. Each verdict carries its movers (the tasks
//! whose picks changed). Everything here is a function of the comparison alone: no time, no path.

use super::junit::{CaseResult, TestCase, TestSuite};
use super::tables::{p_value, percent};
use crate::analysis::experiments::{ALPHA, AbComparison, Measure};
use crate::analysis::movers::{Mover, movers};
use crate::analysis::run_comparison::{
    BackendComparison, GateFailure, GateSettings, RunComparison,
};
use crate::analysis::statistics::AbVerdict;
use crate::record::StoredTrial;

/// Which command's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictKind {
    Compare,
    Ab,
}

impl VerdictKind {
    /// The JUnit suite's name and the command a reader would run.
    pub fn command(self) -> &'static str {
        match self {
            VerdictKind::Compare => "mcpick compare",
            VerdictKind::Ab => "mcpick ab",
        }
    }

    fn classname(self) -> &'static str {
        match self {
            VerdictKind::Compare => "mcpick.compare",
            VerdictKind::Ab => "mcpick.ab",
        }
    }
}

/// How one row came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowVerdict {
    Pass,
    /// Why it fails, in the gate's or the A/B table's words.
    Fail(String),
    /// Why the row is no evidence either way.
    NoEvidence(String),
}

/// One row: a backend of `compare`, a backend and arm pair of `ab`.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictRow {
    /// What the row is, as a test case's name: `bm25`, or `bm25: rich vs terse`.
    pub name: String,
    pub cells: Vec<String>,
    pub verdict: RowVerdict,
}

/// The whole verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparisonVerdict {
    pub kind: VerdictKind,
    /// What the rows are measured against: `BASE`, or `ab`'s first arm.
    pub reference: String,
    /// How the rows were judged, in one sentence.
    pub method: String,
    pub header: Vec<String>,
    pub rows: Vec<VerdictRow>,
    /// What was not compared (a backend only one run holds): skipped, not failed.
    pub not_compared: Vec<String>,
    /// Why the comparison as a whole is no evidence (inputs refused, trials missing).
    pub cannot_compare: Vec<String>,
    /// Tasks whose picks moved, each with what it compares (`""` for compare's NEW against
    /// BASE, `terse → rich` for an arm pair), most changed first.
    pub movers: Vec<(String, Mover)>,
}

/// The verdict of the whole, from its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overall {
    Pass,
    Fail,
    CannotCompare,
}

impl ComparisonVerdict {
    /// A comparison refused before anything was compared: one reason, no rows.
    pub fn refused(kind: VerdictKind, reason: String) -> ComparisonVerdict {
        ComparisonVerdict {
            kind,
            reference: String::new(),
            method: String::new(),
            header: Vec::new(),
            rows: Vec::new(),
            not_compared: Vec::new(),
            cannot_compare: vec![reason],
            movers: Vec::new(),
        }
    }

    pub fn overall(&self) -> Overall {
        let no_evidence = |r: &VerdictRow| matches!(r.verdict, RowVerdict::NoEvidence(_));
        if !self.cannot_compare.is_empty() || self.rows.iter().any(no_evidence) {
            Overall::CannotCompare
        } else if self.rows.iter().any(|r| r.verdict != RowVerdict::Pass) {
            Overall::Fail
        } else {
            Overall::Pass
        }
    }

    /// The row as one line: each cell after its column's name.
    pub fn row_line(&self, row: &VerdictRow) -> String {
        let pairs: Vec<String> = self
            .header
            .iter()
            .zip(&row.cells)
            .map(|(column, cell)| format!("{column}: {cell}"))
            .collect();
        pairs.join("; ")
    }

    /// As JUnit: a test case per row (failed or in error as the row is), one skipped case per
    /// backend not compared, one error case per reason the comparison cannot stand on.
    pub fn junit(&self, timestamp: String, seconds: f64) -> TestSuite {
        let classname = self.kind.classname().to_string();
        let table = |row: &VerdictRow| super::Table {
            caption: String::new(),
            header: self.header.clone(),
            rows: vec![row.cells.clone()],
        };
        let mut cases: Vec<TestCase> = self
            .rows
            .iter()
            .map(|row| {
                let line = self.row_line(row);
                let body = format!(
                    "{}\n\n{}",
                    self.method,
                    crate::document::markdown::markdown_table(&table(row))
                );
                let result = match &row.verdict {
                    RowVerdict::Pass => CaseResult::Passed,
                    RowVerdict::Fail(_) => CaseResult::Failed {
                        message: line.clone(),
                        body,
                    },
                    RowVerdict::NoEvidence(why) => CaseResult::Error {
                        message: why.clone(),
                        body: format!("{line}\n{body}"),
                    },
                };
                TestCase {
                    name: row.name.clone(),
                    classname: classname.clone(),
                    result,
                    output: Some(line),
                }
            })
            .collect();
        for backend in &self.not_compared {
            cases.push(TestCase {
                name: backend.clone(),
                classname: classname.clone(),
                result: CaseResult::Skipped {
                    message: format!("{backend} is in one run only: not compared"),
                },
                output: None,
            });
        }
        for (k, reason) in self.cannot_compare.iter().enumerate() {
            cases.push(TestCase {
                name: if self.cannot_compare.len() == 1 {
                    "cannot compare".to_string()
                } else {
                    format!("cannot compare ({})", k + 1)
                },
                classname: classname.clone(),
                result: CaseResult::Error {
                    message: reason.clone(),
                    body: reason.clone(),
                },
                output: None,
            });
        }
        TestSuite {
            name: self.kind.command().to_string(),
            timestamp,
            seconds,
            cases,
        }
    }
}

impl ComparisonVerdict {
    /// Writes the JUnit file (replaced whole), stamped with when the command `started` and how long
    /// it took; an error names the file.
    pub fn write_junit(
        &self,
        path: &std::path::Path,
        started: std::time::SystemTime,
    ) -> std::io::Result<()> {
        let seconds = started.elapsed().map_or(0.0, |d| d.as_secs_f64());
        let xml = self
            .junit(super::junit::junit_timestamp(started), seconds)
            .to_xml();
        crate::file_replace::replace(path, xml.as_bytes())
            .map_err(|e| std::io::Error::new(e.kind(), format!("--junit {}: {e}", path.display())))
    }
}

/// A difference as points with its interval: `+3.8 pp [−5.7, +13.2]`.
fn points(difference: f64, low: f64, high: f64) -> String {
    format!(
        "{:+.1} pp [{:+.1}, {:+.1}]",
        difference * 100.0,
        low * 100.0,
        high * 100.0
    )
}

/// `compare`'s verdict: a row per backend, its movers from the two runs' trials.
pub fn compare_verdict(
    comparison: &RunComparison,
    settings: &GateSettings,
    cannot_compare: Vec<String>,
    base: &[StoredTrial],
    new: &[StoredTrial],
) -> ComparisonVerdict {
    let graded = comparison.backends.iter().any(|b| b.graded.is_some());
    let mut header: Vec<String> = [
        "backend",
        "tasks",
        "BASE right picks [95% CI]",
        "NEW right picks [95% CI]",
        "NEW − BASE [95% CI]",
    ]
    .map(String::from)
    .to_vec();
    if graded {
        header.push("graded NEW − BASE [95% CI]".into());
    }
    header.extend(["p worse (one-sided, adjusted)".into(), "gate".into()]);
    let rows = comparison
        .backends
        .iter()
        .map(|backend| {
            let mut cells = vec![
                backend.backend.clone(),
                backend.tasks.to_string(),
                percent(&backend.base_interval),
                percent(&backend.new_interval),
                backend.picks.as_ref().map_or("–".into(), |p| {
                    points(p.difference.difference, p.difference.low, p.difference.high)
                }),
            ];
            if graded {
                cells.push(
                    backend
                        .graded
                        .as_ref()
                        .map_or("–".into(), |(_, g)| points(g.difference, g.low, g.high)),
                );
            }
            let words = gate_words(backend, settings);
            cells.extend([p_value(backend.p_worse_adjusted), words.clone()]);
            let verdict = if backend.pairs == 0 {
                RowVerdict::NoEvidence(format!(
                    "backend {} has no pair with a verdict on both sides",
                    backend.backend
                ))
            } else if backend.failures.is_empty() {
                RowVerdict::Pass
            } else {
                RowVerdict::Fail(words)
            };
            VerdictRow {
                name: backend.backend.clone(),
                cells,
                verdict,
            }
        })
        .collect();
    ComparisonVerdict {
        kind: VerdictKind::Compare,
        reference: "BASE".into(),
        method: format!(
            "NEW against BASE, the task the unit; a backend fails when a one-sided test finds NEW worse (or erring more) at alpha {} after {} adjustment over the backends{}{}.",
            settings.alpha,
            settings.adjustment.short_name(),
            settings.margin.map_or(String::new(), |m| format!(
                ", when the 95% interval on NEW − BASE does not lie above −{:.1} pp",
                m * 100.0
            )),
            settings.min_selection.map_or(String::new(), |m| format!(
                ", or when NEW picks right less than {:.1}% of the time",
                m * 100.0
            )),
        ),
        header,
        rows,
        not_compared: comparison.unpaired_backends.clone(),
        cannot_compare,
        movers: movers(base, new)
            .into_iter()
            .map(|m| (String::new(), m))
            .collect(),
    }
}

/// `ab`'s verdict: a row per backend and arm against the first arm, failing where that arm is
/// significantly worse on the measure that decides; its movers from the run's trials.
pub fn ab_verdict(
    comparisons: &[AbComparison],
    cannot_say: &[String],
    trials: &[StoredTrial],
) -> ComparisonVerdict {
    let graded = comparisons.iter().any(|c| c.graded.is_some());
    let mut header: Vec<String> = [
        "backend",
        "A",
        "B",
        "tasks",
        "A right picks [95% CI]",
        "B right picks [95% CI]",
        "B − A [95% CI]",
    ]
    .map(String::from)
    .to_vec();
    if graded {
        header.push("graded B − A [95% CI]".into());
    }
    header.extend([
        "p (adjusted; measure that decides)".into(),
        "verdict".into(),
    ]);
    let mut rows = Vec::new();
    let mut moved = Vec::new();
    for c in comparisons {
        let mut cells = vec![
            c.backend.clone(),
            c.arm_a.clone(),
            c.arm_b.clone(),
            c.tasks.to_string(),
            percent(&c.a),
            percent(&c.b),
            c.difference
                .as_ref()
                .map_or("–".into(), |d| points(d.difference, d.low, d.high)),
        ];
        if graded {
            cells.push(c.graded.as_ref().map_or("–".into(), |g| {
                let g = &g.comparison;
                points(g.difference, g.low, g.high)
            }));
        }
        let (p, measure) = match (&c.graded, c.decided_by) {
            (Some(g), Measure::Graded) => (g.p_adjusted, g.source.describe()),
            _ => (c.picks_p_adjusted, "right picks".to_string()),
        };
        let sentence = c.verdict.sentence(&c.arm_a, &c.arm_b);
        cells.push(format!(
            "{} ({measure}, {})",
            p_value(p),
            c.adjustment.short_name()
        ));
        cells.push(sentence.clone());
        let verdict = match c.verdict {
            AbVerdict::ABetter => RowVerdict::Fail(format!(
                "{} picks worse than {} on {} ({measure}, adjusted p = {})",
                c.arm_b,
                c.arm_a,
                c.backend,
                p_value(p)
            )),
            AbVerdict::NoPairs => RowVerdict::NoEvidence(sentence),
            AbVerdict::BBetter | AbVerdict::NoDetectableDifference => RowVerdict::Pass,
        };
        rows.push(VerdictRow {
            name: format!("{}: {} vs {}", c.backend, c.arm_b, c.arm_a),
            cells,
            verdict,
        });
        let of_arm = |arm: &str| -> Vec<&StoredTrial> {
            trials
                .iter()
                .filter(|t| t.backend == c.backend && t.variant.as_deref() == Some(arm))
                .collect()
        };
        let label = format!("{} → {}", c.arm_a, c.arm_b);
        moved.extend(
            movers(of_arm(&c.arm_a), of_arm(&c.arm_b))
                .into_iter()
                .map(|m| (label.clone(), m)),
        );
    }
    // Every pair's movers in one list, most changed first (the stable sort keeps each pair's order).
    moved.sort_by(|(_, a), (_, b)| {
        b.change()
            .abs()
            .partial_cmp(&a.change().abs())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                a.change()
                    .partial_cmp(&b.change())
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    let (first, adjustment) = comparisons.first().map_or(("the first arm", "Holm"), |c| {
        (c.arm_a.as_str(), c.adjustment.short_name())
    });
    ComparisonVerdict {
        kind: VerdictKind::Ab,
        reference: first.to_string(),
        method: format!(
            "Each arm against {first}, paired on the same tasks, the task the unit; a row fails when its arm is significantly worse than {first} on the measure that decides (the graded measure when the backend gives one, else right picks) at alpha {ALPHA} after {adjustment} adjustment over the table's comparisons."
        ),
        header,
        rows,
        not_compared: Vec::new(),
        cannot_compare: cannot_say.to_vec(),
        movers: moved,
    }
}

/// The gate's word on one backend: pass, no evidence, or each failure with its figures.
pub fn gate_words(backend: &BackendComparison, settings: &GateSettings) -> String {
    if backend.pairs == 0 {
        "no evidence".to_string()
    } else if backend.failures.is_empty() && backend.missing_in_new > 0 {
        format!(
            "pass on {} tasks; {} trials missing",
            backend.tasks, backend.missing_in_new
        )
    } else if backend.failures.is_empty() {
        "pass".to_string()
    } else {
        let reasons: Vec<String> = backend
            .failures
            .iter()
            .map(|f| match f {
                GateFailure::SignificantlyWorse => format!(
                    "FAIL: worse (p = {:.4} < {} one-sided, adjusted)",
                    backend.p_worse_adjusted, settings.alpha
                ),
                GateFailure::GradedWorse => format!(
                    "FAIL: worse on the graded measure (sign-flip p = {:.4} < {} one-sided, adjusted)",
                    backend.p_worse_adjusted, settings.alpha
                ),
                GateFailure::MoreErrors => {
                    let errors = backend.errors_test.as_ref();
                    format!(
                        "FAIL: errs more often ({:.1}% of trials against {:.1}%)",
                        errors.map_or(0.0, |e| e.mean_b * 100.0),
                        errors.map_or(0.0, |e| e.mean_a * 100.0)
                    )
                }
                GateFailure::NotShownNonInferior => format!(
                    "FAIL: not shown within {:.1} pp of BASE (--margin)",
                    settings.margin.unwrap_or(0.0) * 100.0
                ),
                GateFailure::BelowMinimum => format!(
                    "FAIL: below --min-selection {:.1}%",
                    settings.min_selection.unwrap_or(0.0) * 100.0
                ),
            })
            .collect();
        reasons.join("; ")
    }
}
