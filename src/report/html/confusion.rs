//! The confusion heat maps: per backend, the gold tool against the tool called first, shaded by
//! share of the row, correct picks outlined — drawn only where they say something. A backend whose
//! every first pick was the expected tool gets a sentence, not a diagonal; otherwise only the tools
//! involved in a confusion are drawn, at most `MAX_CONFUSION_TOOLS` of them (the most confused), and
//! the confusions that fall outside the drawing are listed in a table beneath it.

use super::escape;
use super::header_definition::definition_attribute;
use super::svg::{coord, open_chart, text_width, truncate};
use crate::document::ConfusionCounts;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A heat map with more rows or columns than this stops being readable; the confusions outside
/// it are listed in a table instead.
const MAX_CONFUSION_TOOLS: usize = 12;

pub fn confusion_section(confusions: &[ConfusionCounts], glossary: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut without_confusion = Vec::new();
    for confusion in confusions {
        let Some(selection) = select(confusion) else {
            without_confusion.push(confusion.backend.as_str());
            continue;
        };
        let drawn = heat_map(confusion, &selection);
        put!(
            out,
            "<h3>{}</h3>\n<figure>\n{}",
            escape(&confusion.backend),
            drawn.svg
        );
        out.push_str(
            "<figcaption>Rows: the gold tool; columns: the tool called first. Shade: share of \
             the row's trials (white = none, dark blue = all); outlined cells are correct \
             picks. Hover a cell for its count.",
        );
        put!(
            out,
            " Drawn: the {} tools involved in a confusion{}",
            selection.tools_drawn,
            if selection.tools_drawn < selection.tools_involved {
                format!(
                    " that are confused most, of {} involved",
                    selection.tools_involved
                )
            } else {
                String::new()
            }
        );
        let clean = confusion.expected.len().saturating_sub(drawn.rows_shown);
        if clean > 0 {
            let tools = if clean == 1 { "tool" } else { "tools" };
            put!(out, "; {clean} other expected {tools} left out");
        }
        put!(
            out,
            "; {} of {} trials fall outside the cells shown.",
            drawn.hidden_trials,
            drawn.all_trials
        );
        out.push_str("</figcaption>\n</figure>\n");
        if !selection.not_drawn.is_empty() {
            put!(
                out,
                "<details><summary>{} confusions not drawn above</summary>\n\
                 <div class=\"table-wrap\"><table><thead><tr><th{}>expected</th><th{}>picked</th>\
                 <th class=\"num\"{}>trials</th></tr></thead><tbody>\n",
                selection.not_drawn.len(),
                definition_attribute("expected", glossary),
                definition_attribute("picked", glossary),
                definition_attribute("trials", glossary)
            );
            for (expected, picked, n) in &selection.not_drawn {
                put!(
                    out,
                    "<tr><td>{}</td><td>{}</td><td class=\"num\">{n}</td></tr>\n",
                    escape(expected),
                    escape(picked)
                );
            }
            out.push_str("</tbody></table></div></details>\n");
        }
    }
    if !without_confusion.is_empty() {
        put!(
            out,
            "<p class=\"note\">No heat map for {}: every first pick was the expected tool.</p>\n",
            escape(&without_confusion.join(", "))
        );
    }
    out
}

/// The rows and columns a heat map draws, and the confusions it leaves out.
struct Selection {
    rows: Vec<usize>,
    columns: Vec<usize>,
    tools_involved: usize,
    tools_drawn: usize,
    /// (expected, picked, trials) of the confusions outside the drawn cells, most first.
    not_drawn: Vec<(String, String, u64)>,
}

fn count(confusion: &ConfusionCounts, i: usize, j: usize) -> u64 {
    confusion
        .counts
        .get(i)
        .and_then(|row| row.get(j))
        .copied()
        .unwrap_or(0)
}

/// The tools involved in a confusion (an expected tool picked as another, or a tool picked in
/// another's place), the `MAX_CONFUSION_TOOLS` most confused of them; `None` when nothing was
/// confused.
fn select(confusion: &ConfusionCounts) -> Option<Selection> {
    let (expected, picked) = (&confusion.expected, &confusion.picked);
    let mut involvement: BTreeMap<&str, u64> = BTreeMap::new();
    let mut confusions = Vec::new();
    for (i, name) in expected.iter().enumerate() {
        for (j, pick) in picked.iter().enumerate() {
            let n = count(confusion, i, j);
            if n > 0 && name != pick {
                for tool in [name.as_str(), pick.as_str()] {
                    let mass = involvement.entry(tool).or_default();
                    *mass = mass.saturating_add(n);
                }
                confusions.push((i, j, n));
            }
        }
    }
    if confusions.is_empty() {
        return None;
    }
    let mut ranked: Vec<(&str, u64)> = involvement.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let tools_involved = ranked.len();
    ranked.truncate(MAX_CONFUSION_TOOLS);
    let drawn = |name: &str| ranked.iter().any(|(t, _)| *t == name);
    let rows: Vec<usize> = (0..expected.len())
        .filter(|&i| drawn(&expected[i]))
        .collect();
    let mut remaining: Vec<usize> = (0..picked.len()).filter(|&j| drawn(&picked[j])).collect();
    // Columns follow the row order where names match, so correct picks run down the diagonal.
    let mut columns = Vec::with_capacity(remaining.len());
    for &i in &rows {
        if let Some(at) = remaining.iter().position(|&j| picked[j] == expected[i]) {
            columns.push(remaining.remove(at));
        }
    }
    columns.extend(remaining);
    let mut not_drawn: Vec<(String, String, u64)> = confusions
        .into_iter()
        .filter(|(i, j, _)| !(rows.contains(i) && columns.contains(j)))
        .map(|(i, j, n)| (expected[i].clone(), picked[j].clone(), n))
        .collect();
    not_drawn.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| (&a.0, &a.1).cmp(&(&b.0, &b.1))));
    Some(Selection {
        rows,
        columns,
        tools_involved,
        tools_drawn: ranked.len(),
        not_drawn,
    })
}

struct HeatMap {
    svg: String,
    rows_shown: usize,
    hidden_trials: u64,
    all_trials: u64,
}

/// White at 0, the palette's dark blue (#08306B) at 1.
fn blue_shade(share: f64) -> String {
    let t = if share.is_finite() {
        share.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let channel = |to: f64| (255.0 + (to - 255.0) * t).round().clamp(0.0, 255.0) as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        channel(8.0),
        channel(48.0),
        channel(107.0)
    )
}

fn heat_map(confusion: &ConfusionCounts, selection: &Selection) -> HeatMap {
    const CELL: f64 = 28.0;
    const LABEL_CHARS: usize = 36;
    let expected = &confusion.expected;
    let picked = &confusion.picked;
    let count = |i: usize, j: usize| count(confusion, i, j);

    let mut row_totals = vec![0u64; expected.len()];
    for (i, row_total) in row_totals.iter_mut().enumerate() {
        for j in 0..picked.len() {
            *row_total = row_total.saturating_add(count(i, j));
        }
    }
    let all_trials = row_totals
        .iter()
        .fold(0u64, |sum, n| sum.saturating_add(*n));
    let (rows, columns) = (&selection.rows, &selection.columns);

    let mut shown_trials = 0u64;
    for &i in rows {
        for &j in columns {
            shown_trials = shown_trials.saturating_add(count(i, j));
        }
    }

    let row_labels: Vec<String> = rows
        .iter()
        .map(|&i| truncate(&expected[i], LABEL_CHARS))
        .collect();
    let column_labels: Vec<String> = columns
        .iter()
        .map(|&j| truncate(&picked[j], LABEL_CHARS))
        .collect();
    let widest_row = row_labels
        .iter()
        .map(|l| text_width(l, 11.0))
        .fold(0.0, f64::max);
    let widest_column = column_labels
        .iter()
        .map(|l| text_width(l, 11.0))
        .fold(0.0, f64::max);
    // Column labels are turned 60° up; their height and rightward reach follow from that.
    let (sin, cos) = (60f64.to_radians().sin(), 60f64.to_radians().cos());
    let left = 30.0 + widest_row + 10.0;
    let top = 26.0 + widest_column * sin + 12.0;
    let grid_width = columns.len() as f64 * CELL;
    let grid_height = rows.len() as f64 * CELL;
    let legend_top = top + grid_height.max(CELL) + 18.0;
    let width = (left + grid_width + widest_column * cos + 24.0)
        .max(left + 360.0)
        .max(390.0);
    let height = legend_top + 44.0;

    let mut out = String::new();
    let title = format!("Confusion of first calls: {}", confusion.backend);
    open_chart(&mut out, "confusion", width, height, &title);

    put!(
        out,
        "<text x=\"{}\" y=\"16\" text-anchor=\"middle\">picked (first call)</text>\n\
         <text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">expected \
         (gold tool)</text>\n",
        coord(left + grid_width.max(CELL * 4.0) / 2.0),
        coord(top + grid_height.max(CELL) / 2.0)
    );

    if rows.is_empty() || columns.is_empty() {
        put!(
            out,
            "<text class=\"small\" x=\"{}\" y=\"{}\">no trials recorded</text>\n",
            coord(left),
            coord(top + CELL / 2.0 + 4.0)
        );
    }

    let backend = escape(&confusion.backend);
    for (r, (&i, label)) in rows.iter().zip(&row_labels).enumerate() {
        let y = top + r as f64 * CELL;
        put!(
            out,
            "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}<title>{}</title></text>\n",
            coord(left - 6.0),
            coord(y + CELL / 2.0 + 4.0),
            escape(label),
            escape(&expected[i])
        );
        for (c, &j) in columns.iter().enumerate() {
            let x = left + c as f64 * CELL;
            let n = count(i, j);
            let share = if row_totals[i] > 0 {
                n as f64 / row_totals[i] as f64
            } else {
                0.0
            };
            put!(
                out,
                "<rect data-series=\"{backend}\" x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{w}\" \
                 fill=\"{}\" stroke=\"#e2e2e2\"><title>expected {}, picked {}: {n}</title></rect>",
                coord(x),
                coord(y),
                blue_shade(share),
                escape(&expected[i]),
                escape(&picked[j]),
                w = coord(CELL)
            );
            if n > 0 {
                let text = n.to_string();
                // Long counts shrink to stay inside their cell.
                let size = (CELL * 0.9 / (text.len() as f64 * 0.6)).min(10.0);
                put!(
                    out,
                    "<text class=\"{}\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" \
                     style=\"font-size:{}px\" pointer-events=\"none\">{text}</text>",
                    // The page's text colour is set in CSS, which outranks a fill attribute.
                    if share > 0.5 { "cell on-dark" } else { "cell" },
                    coord(x + CELL / 2.0),
                    coord(y + CELL / 2.0 + size * 0.35),
                    coord(size)
                );
            }
        }
        out.push('\n');
    }

    for (c, (&j, label)) in columns.iter().zip(&column_labels).enumerate() {
        let x = left + c as f64 * CELL + CELL / 2.0;
        put!(
            out,
            "<text class=\"tick\" transform=\"translate({} {}) rotate(-60)\">{}<title>{}</title></text>\n",
            coord(x),
            coord(top - 6.0),
            escape(label),
            escape(&picked[j])
        );
    }

    // Correct picks are outlined wherever they ended up, including outside the diagonal
    // when a name appears among the columns only.
    for (r, &i) in rows.iter().enumerate() {
        for (c, &j) in columns.iter().enumerate() {
            if expected[i] == picked[j] {
                put!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{w}\" fill=\"none\" \
                     stroke=\"#D55E00\" stroke-width=\"2\" pointer-events=\"none\"/>",
                    coord(left + c as f64 * CELL + 1.0),
                    coord(top + r as f64 * CELL + 1.0),
                    w = coord(CELL - 2.0)
                );
            }
        }
    }
    out.push('\n');

    // Colour key: ten steps from an empty to a full row.
    put!(
        out,
        "<text class=\"small\" x=\"{}\" y=\"{}\">share of the row's trials</text>\n",
        coord(left),
        coord(legend_top + 10.0)
    );
    for step in 0..10 {
        put!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"12\" fill=\"{}\" stroke=\"#ccc\"/>",
            coord(left + 150.0 + step as f64 * 18.0),
            coord(legend_top),
            blue_shade((step as f64 + 0.5) / 10.0)
        );
    }
    put!(
        out,
        "\n<text class=\"tick\" x=\"{}\" y=\"{y}\" text-anchor=\"middle\">0%</text>\
         <text class=\"tick\" x=\"{}\" y=\"{y}\" text-anchor=\"middle\">100%</text>\n",
        coord(left + 150.0),
        coord(left + 330.0),
        y = coord(legend_top + 26.0)
    );
    out.push_str("</svg>\n");

    HeatMap {
        svg: out,
        rows_shown: rows.len(),
        hidden_trials: all_trials.saturating_sub(shown_trials),
        all_trials,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::render;
    use crate::report::html::tests::{assert_clean, empty_page};

    #[test]
    fn confusion_matrix_draws_only_the_most_confused_tools_and_lists_the_rest() {
        let tools: Vec<String> = (0..300).map(|i| format!("tool_{i:03}")).collect();
        let mut picked = tools.clone();
        picked.push("(none)".to_string());
        let counts: Vec<Vec<u64>> = (0..300)
            .map(|i| {
                let mut row = vec![0u64; 301];
                row[i] = (i as u64 % 17) + 1;
                row[(i * 7) % 301] += 1;
                row[300] += (i % 3) as u64;
                row
            })
            .collect();
        let page = crate::report::html::page_parts::PageParts {
            confusions: vec![ConfusionCounts {
                backend: "big".to_string(),
                expected: tools,
                picked,
                counts,
            }],
            ..empty_page()
        };
        let html = render(&page.build());
        assert_clean(&html);
        let cells = html.matches("<rect data-series=\"big\"").count();
        assert!(
            cells <= MAX_CONFUSION_TOOLS * MAX_CONFUSION_TOOLS,
            "{cells} cells"
        );
        assert!(html.contains("that are confused most, of"));
        assert!(html.contains("confusions not drawn above</summary>"));
    }

    #[test]
    fn a_backend_without_confusion_gets_a_sentence_not_a_diagonal() {
        let tools: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let diagonal = ConfusionCounts {
            backend: "oracle".to_string(),
            expected: tools.clone(),
            picked: tools.clone(),
            counts: vec![vec![3, 0, 0], vec![0, 2, 0], vec![0, 0, 4]],
        };
        let mut confused = diagonal.clone();
        confused.backend = "bm25".to_string();
        confused.counts[0] = vec![1, 2, 0];
        let page = crate::report::html::page_parts::PageParts {
            confusions: vec![diagonal, confused],
            ..empty_page()
        };
        let html = render(&page.build());
        assert_clean(&html);
        assert!(!html.contains("<rect data-series=\"oracle\""));
        assert!(html.contains("No heat map for oracle: every first pick was the expected tool."));
        // Only a and b are involved: a 2×2 map, c left out.
        assert_eq!(html.matches("<rect data-series=\"bm25\"").count(), 4);
        assert!(html.contains("1 other expected tool left out"));
    }
}
