//! The A/B tables, built from the analysis in no format: each comparison on two rows side by side —
//! right picks (McNemar) and the graded measure (sign-flip test), each with its interval, p-value
//! and the smallest difference it could detect — with the verdict on the row of the measure that
//! decides; the tasks each arm alone got right; repeats; and who gains at whose expense (the pull
//! table and the tools it flags).

use super::tables::{p_value, percent};
use crate::analysis::experiments::{
    AbComparison, FLAG_PICKS, FLAG_RISE, Measure, PullTable, ToolPull,
};
use crate::document::Table;
use crate::settings::Adjustment;

/// Rows a backend's pull table shows besides the flagged tools.
const PULL_ROWS: usize = 8;

/// A difference as points with its interval: `+3.8 pp [−5.7, +13.2]`.
fn points(difference: f64, low: f64, high: f64) -> String {
    format!(
        "{:+.1} pp [{:+.1}, {:+.1}]",
        difference * 100.0,
        low * 100.0,
        high * 100.0
    )
}

/// The unit counted: tasks, and the trial pairs behind them when there are more.
fn units(tasks: usize, pairs: usize) -> String {
    if pairs == tasks {
        format!("{tasks} tasks")
    } else {
        format!("{tasks} tasks ({pairs} trial pairs)")
    }
}

/// A p-value, raw then adjusted: `0.021; Holm 0.13`.
fn adjusted(raw: f64, adjusted: f64, c: &AbComparison) -> String {
    match c.adjustment {
        Adjustment::None => p_value(raw),
        how => format!(
            "{}; {} {}",
            p_value(raw),
            how.short_name(),
            p_value(adjusted)
        ),
    }
}

/// The A/B table: per backend and pair of arms, a row for the picks and a row for the graded
/// measure.
pub fn ab_table(comparisons: &[AbComparison]) -> Table {
    let mut table = Table {
        caption: "Description A/B (paired), two measures side by side, the task the unit: a task's repeats, sizes and seeds are averaged into one rate per arm, so n counts tasks. Right picks: per arm with Wilson 95% intervals over tasks (a bootstrap over tasks when rates fall between 0 and 1); B − A with Newcombe's interval and McNemar's exact test on the discordant tasks (when rates fall between 0 and 1, a bootstrap interval and the sign-flip test on per-task differences). Graded: p(right pick), the probability the model gave an acceptable first action (the expected right-pick rate of the same model sampling at temperature 1), or a sampled backend's right picks over its repeats; averaged per task, B − A with a paired bootstrap interval, a sign-flip permutation test on the per-task differences. p: raw, then adjusted over the comparisons in this table — the right-picks rows as one family, the graded rows as another (Holm's method unless the run said --adjust); verdicts come from the adjusted p. Detectable: the smallest |B − A| each test finds with 80% power — right picks by the exact McNemar test's own power summed over every outcome, the graded measure by simulating the sign-flip test on the tasks resampled. The verdict comes from the graded measure when the backend gives one".into(),
        header: [
            "backend", "A", "B", "measure", "n", "A", "B", "B − A [95% CI]", "test", "p",
            "detectable (80% power)", "verdict",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for c in comparisons {
        let verdict = |measure: Measure, sentence: String| {
            if measure == c.decided_by {
                format!("{sentence} (decides)")
            } else {
                sentence
            }
        };
        let mut picks_detectable = match (c.picks_detectable, c.picks.only_a + c.picks.only_b) {
            (Some(d), _) => format!("±{:.1} pp", d * 100.0),
            (None, discordant) if discordant > 0 && c.picks.binary() => {
                "none reaches 80% on these tasks".into()
            }
            (None, _) => "–".into(),
        };
        if let Some(n) = c.tasks_needed {
            picks_detectable.push_str(&format!("; the difference seen needs {n} tasks"));
        }
        table.rows.push(vec![
            c.backend.clone(),
            c.arm_a.clone(),
            c.arm_b.clone(),
            "right picks".into(),
            units(c.tasks, c.pairs),
            percent(&c.a),
            percent(&c.b),
            c.difference
                .as_ref()
                .map_or("–".into(), |d| points(d.difference, d.low, d.high)),
            format!(
                "{}, {} / {} discordant tasks",
                c.picks.test_name(),
                c.picks.only_a,
                c.picks.only_b
            ),
            adjusted(c.picks.p_value, c.picks_p_adjusted, c),
            picks_detectable,
            verdict(Measure::Picks, c.picks_verdict.sentence(&c.arm_a, &c.arm_b)),
        ]);
        let graded = match &c.graded {
            Some(graded) => {
                let g = &graded.comparison;
                vec![
                    graded.source.describe(),
                    format!("{} tasks", g.tasks),
                    format!("{:.1}%", g.mean_a * 100.0),
                    format!("{:.1}%", g.mean_b * 100.0),
                    points(g.difference, g.low, g.high),
                    if g.exact {
                        "sign-flip, exact".into()
                    } else {
                        "sign-flip, 20,000 patterns".into()
                    },
                    adjusted(g.p_value, graded.p_adjusted, c),
                    g.minimum_detectable
                        .map_or("–".into(), |d| format!("±{:.1} pp", d * 100.0)),
                    verdict(Measure::Graded, graded.verdict.sentence(&c.arm_a, &c.arm_b)),
                ]
            }
            None => {
                let mut cells =
                    vec!["graded: none (one pick per task, no probabilities)".to_string()];
                cells.extend(std::iter::repeat_n("–".to_string(), 8));
                cells
            }
        };
        let mut row = vec![c.backend.clone(), c.arm_a.clone(), c.arm_b.clone()];
        row.extend(graded);
        table.rows.push(row);
    }
    table
}

/// The exposure comparison: each strategy against the first named, the same paired statistics and
/// verdict wording as a description A/B test.
pub fn exposure_ab_table(comparisons: &[AbComparison]) -> Table {
    let mut table = ab_table(comparisons);
    table.caption = format!(
        "Exposure strategies (paired on the same trials). {}",
        table
            .caption
            .trim_start_matches("Description A/B (paired), ")
    );
    table
}

/// pass@k and consistency per arm, when the run has repeats.
pub fn repeats_table(comparisons: &[AbComparison]) -> Option<Table> {
    let mut rows = Vec::new();
    for c in comparisons {
        for (arm, agreement) in [(&c.arm_a, &c.repeats_a), (&c.arm_b, &c.repeats_b)] {
            if let Some(a) = agreement {
                rows.push(vec![
                    c.backend.clone(),
                    arm.clone(),
                    a.tasks.to_string(),
                    format!("{:.1}%", a.pass_at_k * 100.0),
                    format!("{:.1}%", a.all_pass * 100.0),
                    format!("{:.1}%", a.consistency * 100.0),
                ]);
            }
        }
    }
    rows.dedup();
    (!rows.is_empty()).then(|| Table {
        caption: "Repeats: pass@k (right in at least one repeat), right in every repeat, and consistency (every repeat agrees)".into(),
        header: ["backend", "arm", "tasks", "pass@k", "all k", "consistency"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}

/// The tasks each arm alone got right, one line per comparison.
pub fn discordant_lines(comparisons: &[AbComparison]) -> Vec<String> {
    let mut lines = Vec::new();
    for c in comparisons {
        let list = |tasks: &[String]| {
            if tasks.is_empty() {
                "none".to_string()
            } else {
                tasks.join(", ")
            }
        };
        lines.push(format!(
            "{}: only {} right: {}; only {} right: {}",
            c.backend,
            c.arm_a,
            list(&c.only_a),
            c.arm_b,
            list(&c.only_b)
        ));
    }
    lines
}

/// Who gains at whose expense: per backend and pair of arms, the flagged tools and those whose
/// mass on others' tasks moved most.
pub fn pull_table(pulls: &[PullTable]) -> Table {
    let mut table = Table {
        caption: format!(
            "Who gains at whose expense (A → B): per tool, the mean probability mass it draws on its own tasks (where it is acceptable) and on the other tasks, in each arm (a backend without probabilities counts its picks); gains B − A in expected picks. Flagged: B's description takes at least {FLAG_PICKS:.0} expected pick and {:.0} points of mass from others' tasks, more than it gains on its own",
            FLAG_RISE * 100.0
        ),
        header: [
            "backend",
            "A → B",
            "action",
            "own tasks",
            "own mass",
            "own gain",
            "other tasks",
            "mass taken",
            "taken gain",
            "flag",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for pull in pulls {
        let moved =
            |t: &&ToolPull| t.flagged || t.taken_gain.abs() >= 0.05 || t.own_gain.abs() >= 0.05;
        let shown = pull.tools.iter().filter(moved).enumerate();
        for (rank, tool) in shown {
            if rank >= PULL_ROWS && !tool.flagged {
                break;
            }
            let mass = |a: f64, b: f64| format!("{:.1}% → {:.1}%", a * 100.0, b * 100.0);
            table.rows.push(vec![
                pull.backend.clone(),
                format!("{} → {}", pull.arm_a, pull.arm_b),
                tool.tool.clone(),
                tool.own_tasks.to_string(),
                mass(tool.own_a, tool.own_b),
                format!("{:+.2}", tool.own_gain),
                tool.other_tasks.to_string(),
                mass(tool.taken_a, tool.taken_b),
                format!("{:+.2}", tool.taken_gain),
                if tool.flagged {
                    "takes over".into()
                } else {
                    String::new()
                },
            ]);
        }
    }
    table
}

/// One line per flagged tool, in words.
pub fn take_over_lines(pulls: &[PullTable]) -> Vec<String> {
    pulls
        .iter()
        .flat_map(|pull| {
            pull.tools.iter().filter(|t| t.flagged).map(move |t| {
                format!(
                    "{}: under {}, {} takes {:+.1} expected picks from tasks that belong to other actions ({:.1}% → {:.1}% of their mass) and gains {:+.1} on its own {} tasks",
                    pull.backend,
                    pull.arm_b,
                    t.tool,
                    t.taken_gain,
                    t.taken_a * 100.0,
                    t.taken_b * 100.0,
                    t.own_gain,
                    t.own_tasks
                )
            })
        })
        .collect()
}
