//! Test pages described by kind — the tables, curves, comparisons, heat maps and latencies a page
//! shows — and put into one section per kind, in the page's order, so each chart's tests can build
//! the page they need.

use super::ReportPage;
use crate::document::{
    Chart, ConfusionCounts, Curve, CurveKind, ForestRow, LatencySeries, Part, Section, Table,
};

/// A page as the tests describe it: the pieces of each kind, put into sections by `build` — one
/// section per kind, in the page's order.
pub struct PageParts {
    pub title: String,
    pub summary_tables: Vec<Table>,
    pub size_curves: Vec<Curve>,
    pub token_curves: Vec<Curve>,
    pub position_curves: Vec<Curve>,
    pub ab_comparisons: Vec<ForestRow>,
    pub confusions: Vec<ConfusionCounts>,
    pub latencies: Vec<LatencySeries>,
    pub manifest_json: String,
}

impl PageParts {
    pub fn build(&self) -> ReportPage {
        let section = |id, heading: &str, parts: Vec<Part>| Section::new(id, heading, parts);
        let curves = |kind, curves: &Vec<Curve>| {
            (!curves.is_empty()).then(|| {
                Part::Chart(Chart::Curves {
                    kind,
                    curves: curves.clone(),
                })
            })
        };
        let sections = vec![
            section(
                "summary",
                "Summary",
                self.summary_tables
                    .iter()
                    .cloned()
                    .map(Part::Table)
                    .collect(),
            ),
            section(
                "ab",
                "A/B comparisons",
                (!self.ab_comparisons.is_empty())
                    .then(|| Part::Chart(Chart::Forest(self.ab_comparisons.clone())))
                    .into_iter()
                    .collect(),
            ),
            section(
                "size",
                "Accuracy vs toolset size",
                [
                    curves(CurveKind::Size, &self.size_curves),
                    curves(CurveKind::Tokens, &self.token_curves),
                ]
                .into_iter()
                .flatten()
                .collect(),
            ),
            section(
                "position",
                "Accuracy by gold position",
                curves(CurveKind::Position, &self.position_curves)
                    .into_iter()
                    .collect(),
            ),
            section(
                "confusion",
                "Confusion",
                (!self.confusions.is_empty())
                    .then(|| Part::Chart(Chart::Confusion(self.confusions.clone())))
                    .into_iter()
                    .collect(),
            ),
            section(
                "latency",
                "Latency",
                (!self.latencies.is_empty())
                    .then(|| Part::Chart(Chart::Latency(self.latencies.clone())))
                    .into_iter()
                    .collect(),
            ),
        ];
        ReportPage {
            title: self.title.clone(),
            sections,
            manifest_json: self.manifest_json.clone(),
            glossary: Vec::new(),
        }
    }
}
