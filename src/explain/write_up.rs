//! What `explain` found, told three ways from one `Explanation`: `explain.json` (the contract
//! scripts read: `units`, each with `tool`, `kind`, `param`, `text` and its `effects`, each with
//! `on`, `tasks`, `delta`, `low`, `high` and `verdict`), `EXPLAIN.md` (the units that move each
//! explained tool's picks most, then a table per measured tool, then what the runs cost) and
//! `explain.html` (the same document rendered by the report module, with each description drawn
//! with its units coloured by their effect). All three are rewritten after every run, so a
//! stopped explain shows what it measured.

use super::attribution::{MeasuredUnit, UnitCost, ranked};
use super::effects::Effect;
use super::scope::NO_CALL;
use super::units::UnitKind;
use crate::document::markdown::markdown_document;
use crate::document::{AttributedPiece, AttributedText, Chart, Document, Part, Section, Table};
use crate::report::html::{ReportPage, render};
use crate::untrusted_text::shown;
use crate::wording::Start;
use crate::work_folder::write;
use serde::Serialize;
use std::path::Path;

/// The tasks of one group.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub on: String,
    pub tasks: Vec<String>,
}

/// Everything `explain` measured, as `explain.json` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub suite: String,
    pub toolset: String,
    /// The wording explained: a variant's name, or `base` for the toolset as it is.
    pub wording: String,
    pub backend: String,
    /// `p(right pick)`, or right picks over the repeats.
    pub measure: String,
    /// Where the measured tools stood in the list: last, or where the toolset puts them.
    pub order: String,
    /// The tools explained, and their neighbours.
    pub tools: Vec<String>,
    pub neighbours: Vec<String>,
    pub groups: Vec<Group>,
    /// What the run of the wording as it is cost.
    #[serde(rename = "base", skip_serializing_if = "Option::is_none")]
    pub base_cost: Option<UnitCost>,
    pub units: Vec<MeasuredUnit>,
    /// Every unit measured.
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The time every invocation spent on the folder.
    pub seconds: f64,
}

impl Explanation {
    pub fn new(
        start: &Start,
        backend: &str,
        tools: &[String],
        neighbours: &[String],
        groups: &[(String, Vec<String>)],
        keep_order: bool,
        units: Vec<MeasuredUnit>,
    ) -> Explanation {
        Explanation {
            suite: start.suite.name.clone(),
            toolset: start.toolset.name.clone(),
            wording: start.label.clone(),
            backend: backend.to_string(),
            measure: String::new(),
            order: if keep_order {
                "as the toolset lists them".into()
            } else {
                "listed after the other tools".into()
            },
            tools: tools.to_vec(),
            neighbours: neighbours.to_vec(),
            groups: groups
                .iter()
                .map(|(on, tasks)| Group {
                    on: on.clone(),
                    tasks: tasks.clone(),
                })
                .collect(),
            base_cost: None,
            units,
            complete: false,
            stopped: None,
            seconds: 0.0,
        }
    }

    /// Units measured so far.
    pub fn measured(&self) -> usize {
        self.units.iter().filter(|u| !u.effects.is_empty()).count()
    }
}

/// A unit's short label: `s2` for the second sentence, `param city` for a parameter's text.
pub fn unit_label(unit: &MeasuredUnit) -> String {
    match (&unit.unit.kind, &unit.unit.param) {
        (UnitKind::Parameter, Some(param)) => format!("param {param}"),
        _ => format!("s{}", unit.unit.index + 1),
    }
}

fn signed(value: f64) -> String {
    if value.is_finite() {
        format!("{value:+.3}")
    } else {
        "–".into()
    }
}

fn interval(effect: &Effect) -> String {
    format!("[{}, {}]", signed(effect.low), signed(effect.high))
}

fn with_interval(effect: Option<&Effect>) -> String {
    effect.map_or("–".into(), |e| {
        format!("{} {}", signed(e.delta), interval(e))
    })
}

fn how_to_read(explanation: &Explanation) -> Vec<Part> {
    let mut parts = vec![Part::Paragraph(format!(
        "{} of {} on suite {} ({} wording of toolset {}). Each unit — a sentence of a description, or one parameter's description — was left out in turn, and the tasks it can move were run without it beside the wording as it is. Δ is the {} with the unit minus without it, averaged over the tasks of the tool named (no-call: the requests that need no tool, where a positive Δ means the unit keeps the model from calling); the interval is its paired 95% bootstrap interval over those tasks. earns: the interval lies above 0; steals: below 0; neutral: within ±{}; cannot say: anything else.",
        explanation.measure,
        explanation.backend,
        explanation.suite,
        explanation.wording,
        explanation.toolset,
        explanation.measure,
        super::NEUTRAL_WITHIN
    ))];
    parts.push(Part::Paragraph(format!(
        "Explained: {}; neighbours: {}. The measured tools were {} in every run.",
        explanation.tools.join(", "),
        if explanation.neighbours.is_empty() {
            "none".to_string()
        } else {
            explanation.neighbours.join(", ")
        },
        explanation.order
    )));
    if let Some(why) = &explanation.stopped {
        parts.push(Part::Paragraph(format!(
            "Stopped ({why}) with {} of {} units measured; the same command goes on.",
            explanation.measured(),
            explanation.units.len()
        )));
    }
    parts.push(Part::Table(Table {
        caption: "Tasks measured".into(),
        header: vec!["tasks of".into(), "tasks".into(), "ids".into()],
        rows: explanation
            .groups
            .iter()
            .map(|g| vec![g.on.clone(), g.tasks.len().to_string(), g.tasks.join(", ")])
            .collect(),
    }));
    parts
}

fn ranking(explanation: &Explanation) -> Vec<Part> {
    let mut parts = Vec::new();
    for tool in &explanation.tools {
        let rows: Vec<Vec<String>> = ranked(&explanation.units, tool)
            .into_iter()
            .enumerate()
            .map(|(k, (unit, effect))| {
                vec![
                    (k + 1).to_string(),
                    unit.unit.tool.clone(),
                    unit_label(unit),
                    shown(&unit.unit.text, 200),
                    signed(effect.delta),
                    interval(effect),
                    effect.verdict.as_str().into(),
                ]
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        parts.push(Part::Table(Table {
            caption: format!(
                "The units that move {tool}'s picks most ({} of its tasks)",
                explanation
                    .groups
                    .iter()
                    .find(|g| g.on == *tool)
                    .map_or(0, |g| g.tasks.len())
            ),
            header: ["#", "tool", "unit", "text", "Δ", "95% interval", "verdict"]
                .map(String::from)
                .to_vec(),
            rows,
        }));
    }
    parts
}

fn per_tool(explanation: &Explanation) -> Vec<Part> {
    let tools = explanation.tools.iter().chain(&explanation.neighbours);
    let mut parts = Vec::new();
    for tool in tools {
        let rows: Vec<Vec<String>> = explanation
            .units
            .iter()
            .filter(|u| u.unit.tool == *tool)
            .map(|unit| {
                let own = unit.on(tool);
                vec![
                    unit_label(unit),
                    shown(&unit.unit.text, 200),
                    own.map_or("–".into(), |e| signed(e.delta)),
                    with_interval(unit.on_neighbours.as_ref()),
                    with_interval(unit.on(NO_CALL)),
                    own.map_or("–".into(), interval),
                    own.map_or("not measured".into(), |e| e.verdict.as_str().into()),
                ]
            })
            .collect();
        parts.push(Part::Table(Table {
            caption: tool.clone(),
            header: [
                "unit",
                "text",
                "Δ own",
                "Δ neighbours",
                "Δ no-call",
                "interval (own)",
                "verdict (own)",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        }));
    }
    parts
}

fn cost_line(name: &str, tasks: usize, cost: Option<&UnitCost>) -> Vec<String> {
    match cost {
        Some(c) => vec![
            name.to_string(),
            tasks.to_string(),
            format!("{:.1}", c.seconds),
            c.evaluated.to_string(),
            c.restored.to_string(),
        ],
        None => vec![
            name.to_string(),
            tasks.to_string(),
            "–".into(),
            "–".into(),
            "–".into(),
        ],
    }
}

fn costs(explanation: &Explanation) -> Vec<Part> {
    let tasks: usize = {
        let mut all: Vec<&String> = explanation.groups.iter().flat_map(|g| &g.tasks).collect();
        all.sort();
        all.dedup();
        all.len()
    };
    let mut rows = vec![cost_line(
        "base (as it is)",
        tasks,
        explanation.base_cost.as_ref(),
    )];
    rows.extend(explanation.units.iter().map(|u| {
        cost_line(
            &format!("{} {}", u.unit.tool, unit_label(u)),
            tasks,
            u.cost.as_ref(),
        )
    }));
    let seconds: Vec<f64> = explanation
        .units
        .iter()
        .filter_map(|u| u.cost.map(|c| c.seconds))
        .collect();
    let mut parts = Vec::new();
    if !seconds.is_empty() {
        parts.push(Part::Paragraph(format!(
            "{} unit(s) timed: {:.1} s a unit on average ({:.1} to {:.1} s); {:.0} s in all, every invocation included.",
            seconds.len(),
            seconds.iter().sum::<f64>() / seconds.len() as f64,
            seconds.iter().copied().fold(f64::INFINITY, f64::min),
            seconds.iter().copied().fold(0.0, f64::max),
            explanation.seconds
        )));
    }
    parts.push(Part::Table(Table {
        caption: "What each run cost (this machine; tokens are the embedded model's: evaluated, and restored from the prefix cache instead)".into(),
        header: ["run", "tasks", "seconds", "evaluated", "restored"]
            .map(String::from)
            .to_vec(),
        rows,
    }));
    parts
}

/// Each measured tool's description with its units coloured by their effect on `on`'s tasks.
fn coloured(explanation: &Explanation, on: &str) -> Vec<AttributedText> {
    let tools = explanation.tools.iter().chain(&explanation.neighbours);
    tools
        .map(|tool| {
            let piece = |unit: &MeasuredUnit| {
                let effect = unit.on(on);
                AttributedPiece {
                    label: unit_label(unit),
                    text: unit.unit.text.clone(),
                    delta: effect.map(|e| e.delta),
                    verdict: effect.map_or(String::new(), |e| e.verdict.as_str().into()),
                    detail: unit
                        .effects
                        .iter()
                        .map(|e| {
                            format!(
                                "on {} ({} tasks): {} {} {}",
                                e.on,
                                e.tasks,
                                signed(e.delta),
                                interval(e),
                                e.verdict.as_str()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                }
            };
            let units: Vec<&MeasuredUnit> = explanation
                .units
                .iter()
                .filter(|u| u.unit.tool == *tool)
                .collect();
            AttributedText {
                tool: tool.clone(),
                caption: format!("coloured by each unit's effect on {on}'s tasks"),
                sentences: units
                    .iter()
                    .filter(|u| u.unit.kind == UnitKind::Sentence)
                    .map(|u| piece(u))
                    .collect(),
                params: units
                    .iter()
                    .filter_map(|u| Some((u.unit.param.clone()?, piece(u))))
                    .collect(),
            }
        })
        .collect()
}

/// The explanation as one document.
pub fn document(explanation: &Explanation) -> Document {
    let mut pictures = Vec::new();
    for tool in &explanation.tools {
        pictures.push(Part::Subheading(format!("Effects on {tool}'s tasks")));
        pictures.push(Part::Paragraph(format!(
            "explain.html draws each measured description with its units coloured by their effect on {tool}'s tasks: green where a unit earns {tool} its picks, red where it steals them."
        )));
        pictures.push(Part::Chart(Chart::Attribution(coloured(explanation, tool))));
    }
    Document {
        title: format!("mcpick explain: {}", explanation.tools.join(", ")),
        opening: how_to_read(explanation),
        sections: vec![
            Section::new("ranking", "What moves the picks", ranking(explanation)),
            Section::new("descriptions", "The descriptions, coloured", pictures),
            Section::new("units", "Every unit", per_tool(explanation)),
            Section::new("cost", "What it cost", costs(explanation)),
        ],
    }
}

/// Writes `EXPLAIN.md`, `explain.json` and `explain.html` into `out`.
pub fn write_all(out: &Path, explanation: &Explanation) -> Result<(), String> {
    let document = document(explanation);
    write(&out.join("EXPLAIN.md"), &markdown_document(&document))?;
    write(
        &out.join("explain.json"),
        &serde_json::to_string_pretty(explanation).map_err(|e| e.to_string())?,
    )?;
    let mut sections = vec![Section::new("about", "How to read it", document.opening)];
    sections.extend(document.sections);
    let page = ReportPage {
        title: document.title,
        sections,
        manifest_json: String::new(),
        glossary: Vec::new(),
    };
    write(&out.join("explain.html"), &render(&page))
}
