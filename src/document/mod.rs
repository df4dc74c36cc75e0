//! A document in no format: a title, opening parts, then sections, each holding its tables,
//! paragraphs, lists and charts in reading order. Everything mcpick writes for a person to read is
//! one: the run's report (`report::sections` builds it once from the analysis, and every exporter
//! renders it — Markdown for `summary.md` and the terminal, HTML for `report.html` with its
//! charts) and the side reports `IMPORT.md`, `DRAFT.md` and `IMPROVE.md`, which their commands
//! build and `markdown` renders. The builders say what is there; the renderers alone know the
//! format's syntax (a table's pipes and escapes, a list's markers).

pub mod markdown;

/// A whole document: what `markdown::markdown_document` writes as one file.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub title: String,
    /// What comes before the first section.
    pub opening: Vec<Part>,
    pub sections: Vec<Section>,
}

/// A captioned table, the one shape every summary and experiment table takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub caption: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One section of the report.
#[derive(Debug, Clone)]
pub struct Section {
    /// The HTML anchor.
    pub id: &'static str,
    pub heading: String,
    pub parts: Vec<Part>,
}

impl Section {
    pub fn new(id: &'static str, heading: impl Into<String>, parts: Vec<Part>) -> Section {
        Section {
            id,
            heading: heading.into(),
            parts,
        }
    }
}

/// What a section holds, in order.
#[derive(Debug, Clone)]
pub enum Part {
    Table(Table),
    /// A captioned list of lines (e.g. the tasks each arm alone got right).
    Lines {
        caption: String,
        lines: Vec<String>,
    },
    Chart(Chart),
    /// A paragraph of prose.
    Paragraph(String),
    /// A heading within a section, over the parts that follow it.
    Subheading(String),
    /// A numbered list, each item with detail lines beneath it.
    Numbered(Vec<Item>),
}

/// One item of a numbered list.
#[derive(Debug, Clone, Default)]
pub struct Item {
    pub text: String,
    pub details: Vec<String>,
}

/// A chart, as data.
#[derive(Debug, Clone)]
pub enum Chart {
    /// Lines with interval bands, over the axis `kind` names.
    Curves { kind: CurveKind, curves: Vec<Curve> },
    /// A forest plot of paired differences, one row per comparison.
    Forest(Vec<ForestRow>),
    /// One heat map per backend of the gold tool against the tool called first.
    Confusion(Vec<ConfusionCounts>),
    /// One box plot row per backend.
    Latency(Vec<LatencySeries>),
    /// Descriptions with each unit coloured by its effect (`explain`'s page).
    Attribution(Vec<AttributedText>),
    /// Each expected tool's right picks per series, with who took them (`report.html`'s opening).
    ToolPicks(ToolPicksView),
    /// The requests whose first pick was wrong, grouped by the tool they expect.
    FailingRequests(FailingRequestsView),
    /// Who steals your picks: per backend, one bar per bystander server (`--bystanders`).
    Thieves(Vec<ThiefBar>),
}

/// One bystander server's take from one backend's trials, as a bar: the share of the suite's
/// picks its tools took, and the no-call requests it drew a call from.
#[derive(Debug, Clone, PartialEq)]
pub struct ThiefBar {
    pub backend: String,
    pub server: String,
    pub picks_taken: u64,
    pub call_trials: u64,
    /// The share's 95% interval, when the trials were independent (each task once).
    pub interval: Option<(f64, f64)>,
    pub false_calls: u64,
    pub no_call_trials: u64,
}

/// Expected tools against series: one row per tool, one group of columns per series.
#[derive(Debug, Clone, Default)]
pub struct ToolPicksView {
    /// The series given columns, in order.
    pub series: Vec<String>,
    /// Per series: whether it has a `p_right` column (a backend that reports its distribution).
    pub graded: Vec<bool>,
    pub rows: Vec<ToolPicksRow>,
}

/// One expected tool.
#[derive(Debug, Clone, Default)]
pub struct ToolPicksRow {
    pub tool: String,
    /// Tasks that expect it (the most any series judged).
    pub tasks: u64,
    /// The anchor of its group in the failing requests (`None`: no request of it failed).
    pub failing_anchor: Option<String>,
    /// One per series of the view; `None` where the series judged none of its tasks.
    pub cells: Vec<Option<ToolPicksCell>>,
}

/// One tool under one series. Rates are proportions in [0, 1].
#[derive(Debug, Clone, Default)]
pub struct ToolPicksCell {
    pub tasks: u64,
    pub right: f64,
    pub low: f64,
    pub high: f64,
    pub p_right: Option<f64>,
    /// What was picked first instead, with its trials, most first.
    pub picked_instead: Vec<(String, u64)>,
    /// Tasks with a wrong first pick.
    pub failing_tasks: u64,
}

/// The failing requests, grouped by the tool they expect, and how many were left out of the page.
#[derive(Debug, Clone, Default)]
pub struct FailingRequestsView {
    pub groups: Vec<FailingGroup>,
    /// Requests beyond the page's cap (all of them are in `trials.csv`).
    pub left_out: usize,
}

/// The failing requests of one expected tool.
#[derive(Debug, Clone, Default)]
pub struct FailingGroup {
    /// The HTML anchor the per-tool table links to.
    pub anchor: String,
    /// What the requests expect: "expected get_weather", or "no call expected".
    pub heading: String,
    pub requests: Vec<FailingRow>,
}

/// One request and what each series that got it wrong picked instead.
#[derive(Debug, Clone, Default)]
pub struct FailingRow {
    pub task: String,
    pub prompt: String,
    /// (series, what it picked, e.g. "search_flights" or "search_flights ×2, (none) ×1 of 3").
    pub picks: Vec<(String, String)>,
}

/// One tool's description as `explain` measured it: its sentences in order, then each parameter's
/// description, each piece with its effect.
#[derive(Debug, Clone)]
pub struct AttributedText {
    pub tool: String,
    pub caption: String,
    pub sentences: Vec<AttributedPiece>,
    /// (parameter, its description).
    pub params: Vec<(String, AttributedPiece)>,
}

/// A piece of text and what it does: `delta` (what it earns, in the measure's units; negative:
/// it steals) and its verdict word, or neither when it was not measured; `detail` says more.
#[derive(Debug, Clone, Default)]
pub struct AttributedPiece {
    pub label: String,
    pub text: String,
    pub delta: Option<f64>,
    pub verdict: String,
    pub detail: String,
}

/// What a curve chart plots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveKind {
    /// Right picks against the number of tools shown (log axis).
    Size,
    /// Mean prompt tokens against the number of tools shown (log axis).
    Tokens,
    /// Right picks by the gold tool's 1-based position in the list (linear axis).
    Position,
}

/// One line on a curve chart. `series` is a backend name or "backend / variant".
#[derive(Debug, Clone)]
pub struct Curve {
    pub series: String,
    pub points: Vec<CurvePoint>,
}

/// `estimate`, `low` and `high` are proportions in [0, 1] (or token means on a token chart); `x` is
/// the toolset size or the gold position, depending on the chart.
#[derive(Debug, Clone, Copy)]
pub struct CurvePoint {
    pub x: f64,
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    pub trials: u64,
}

/// One row of a forest plot: `difference`, `low` and `high` are differences of proportions
/// (0.05 = 5 percentage points), B − A.
#[derive(Debug, Clone)]
pub struct ForestRow {
    pub backend: String,
    pub arm_a: String,
    pub arm_b: String,
    pub difference: f64,
    pub low: f64,
    pub high: f64,
    pub p_value: f64,
    pub verdict: String,
}

/// `counts[i][j]` = how often `expected[i]` was the gold tool and `picked[j]` was called first.
/// `picked` may include "(none)". Ragged or short rows count as zeros.
#[derive(Debug, Clone)]
pub struct ConfusionCounts {
    pub backend: String,
    pub expected: Vec<String>,
    pub picked: Vec<String>,
    pub counts: Vec<Vec<u64>>,
}

/// The raw latencies of one backend's scored trials.
#[derive(Debug, Clone)]
pub struct LatencySeries {
    pub series: String,
    pub latencies_ms: Vec<f64>,
}
