//! The author's view of a run: for each tool the tasks expect, per series (a backend, with its arm
//! and exposure strategy when the run has them), how often its tasks got it as the first pick, how
//! sure the model was where the backend says (`p_right`), what was picked instead; and the requests
//! whose first pick was wrong, with what each series picked. The unit is the task, as in the
//! summary: a task's trials (repeats, sizes, seeds) become one rate, and the interval is the
//! summary's own (`statistics::task_rate`: Wilson's over tasks, a bootstrap over tasks where a
//! task's trials disagree). Trials that ended in a backend error are not judged and not counted.
//! Pure: the stored trials in, the rows out; `report` lays them out.

use super::experiments::{NO_CALL, series_name};
use super::statistics::task_rate;
use crate::record::StoredTrial;
use crate::score::{Interval, Outcome};
use std::collections::BTreeMap;

/// One expected tool under one series.
#[derive(Debug, Clone)]
pub struct ToolPicks {
    pub series: String,
    /// The tool the tasks expect first; `None` for the tasks where no call is right.
    pub tool: Option<String>,
    /// Right first picks over the tasks that expect it (`trials` counts tasks).
    pub right: Interval,
    /// The mean over tasks of the probability the model gave a right first action, where the
    /// backend reports one (`None`: no trial of these tasks carries a distribution).
    pub p_right: Option<f64>,
    /// What was picked first instead when the pick was wrong, with its trials, most first.
    pub picked_instead: Vec<(String, u64)>,
    /// Tasks with at least one wrong first pick.
    pub failing_tasks: u64,
}

/// A request whose first pick was wrong in some series.
#[derive(Debug, Clone)]
pub struct FailingRequest {
    pub suite: String,
    pub task: String,
    /// The request as the model saw it (`StoredTrial::prompt`).
    pub prompt: String,
    /// The tool the task expects first (`None`: no call is right).
    pub tool: Option<String>,
    /// Each series that got it wrong at least once, in series order.
    pub misses: Vec<Miss>,
}

/// What one series picked instead on one task.
#[derive(Debug, Clone)]
pub struct Miss {
    pub series: String,
    /// The wrong first picks, with their trials, most first.
    pub picked: Vec<(String, u64)>,
    /// The task's judged trials in this series (wrong or right).
    pub trials: u64,
}

/// What a wrong first pick was, in words a reader can act on: the tool, `(none)` when nothing was
/// called (as in the heat maps), marked when its arguments did not parse or it was not offered.
pub fn picked_label(trial: &StoredTrial) -> String {
    match (trial.verdict.outcome, trial.verdict.first_tool.as_deref()) {
        (_, None) => NO_CALL.to_string(),
        (Outcome::MalformedCall, Some(tool)) => format!("{tool} (unparseable)"),
        (Outcome::HallucinatedTool, Some(tool)) => format!("{tool} (not offered)"),
        (_, Some(tool)) => tool.to_string(),
    }
}

/// One task's judged trials in one series.
#[derive(Default)]
struct TaskTrials {
    judged: u64,
    right: u64,
    p_right: Vec<f64>,
    wrong: BTreeMap<String, u64>,
}

/// The per-tool rows (by series name, then tool, `None` last) and the failing requests (by tool,
/// then suite and task).
pub fn per_tool(trials: &[StoredTrial]) -> (Vec<ToolPicks>, Vec<FailingRequest>) {
    // (series, tool) → (suite, task) → trials; BTreeMaps keep every order reproducible.
    type Tasks = BTreeMap<(String, String), TaskTrials>;
    let mut cells: BTreeMap<(String, Option<String>), Tasks> = BTreeMap::new();
    let mut prompts: BTreeMap<(String, String), String> = BTreeMap::new();
    for trial in trials.iter().filter(|t| t.scored()) {
        let series = series_name(
            &trial.backend,
            trial.variant.as_deref().unwrap_or_default(),
            trial.exposure.as_deref().unwrap_or_default(),
        );
        let key = (trial.suite.clone(), trial.task.clone());
        prompts
            .entry(key.clone())
            .or_insert_with(|| trial.prompt().to_string());
        let task = cells
            .entry((series, trial.expected_tool().map(str::to_string)))
            .or_default()
            .entry(key)
            .or_default();
        task.judged += 1;
        if trial.right_pick() {
            task.right += 1;
        } else {
            *task.wrong.entry(picked_label(trial)).or_default() += 1;
        }
        task.p_right.extend(trial.p_right());
    }

    let mut rows = Vec::new();
    let mut failing: BTreeMap<(Option<String>, String, String), Vec<Miss>> = BTreeMap::new();
    for ((series, tool), tasks) in &cells {
        let rates: Vec<f64> = tasks
            .values()
            .map(|t| t.right as f64 / t.judged as f64)
            .collect();
        let graded: Vec<f64> = tasks
            .values()
            .filter(|t| !t.p_right.is_empty())
            .map(|t| t.p_right.iter().sum::<f64>() / t.p_right.len() as f64)
            .collect();
        let mut instead: BTreeMap<&str, u64> = BTreeMap::new();
        for ((suite, task), trials) in tasks {
            for (label, n) in &trials.wrong {
                *instead.entry(label).or_default() += n;
            }
            if !trials.wrong.is_empty() {
                failing
                    .entry((tool.clone(), suite.clone(), task.clone()))
                    .or_default()
                    .push(Miss {
                        series: series.clone(),
                        picked: most_first(trials.wrong.iter().map(|(l, n)| (l.as_str(), *n))),
                        trials: trials.judged,
                    });
            }
        }
        rows.push(ToolPicks {
            series: series.clone(),
            tool: tool.clone(),
            // The summary's seed, so a tool's interval and the summary's are drawn alike.
            right: task_rate(&rates, 2_000, 0x7461_736b),
            p_right: (!graded.is_empty()).then(|| graded.iter().sum::<f64>() / graded.len() as f64),
            picked_instead: most_first(instead.into_iter()),
            failing_tasks: tasks.values().filter(|t| !t.wrong.is_empty()).count() as u64,
        });
    }
    // Series by name, as the summary orders its cells (the order trials finish in is not
    // reproducible); the no-call row after the tools.
    rows.sort_by(|a, b| {
        (&a.series, a.tool.is_none(), &a.tool).cmp(&(&b.series, b.tool.is_none(), &b.tool))
    });
    let requests = failing
        .into_iter()
        .map(|((tool, suite, task), mut misses)| {
            misses.sort_by(|a, b| a.series.cmp(&b.series));
            let prompt = prompts
                .get(&(suite.clone(), task.clone()))
                .cloned()
                .unwrap_or_default();
            FailingRequest {
                suite,
                task,
                prompt,
                tool,
                misses,
            }
        })
        .collect();
    (rows, requests)
}

/// Labels with their counts, the largest first (ties by label).
fn most_first<'a>(counts: impl Iterator<Item = (&'a str, u64)>) -> Vec<(String, u64)> {
    let mut counts: Vec<(String, u64)> = counts.map(|(l, n)| (l.to_string(), n)).collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ChatMessage;
    use crate::score::Verdict;

    fn trial(
        backend: &str,
        task: &str,
        expected: Option<&str>,
        picked: Option<&str>,
    ) -> StoredTrial {
        let right = match expected {
            Some(tool) => picked == Some(tool),
            None => picked.is_none(),
        };
        let outcome = match (expected, picked, right) {
            (None, None, _) => Outcome::CorrectAbstain,
            (None, Some(_), _) => Outcome::FalseCall,
            (Some(_), None, _) => Outcome::NoCall,
            (Some(_), Some(_), true) => Outcome::Correct,
            (Some(_), Some(_), false) => Outcome::WrongTool,
        };
        StoredTrial {
            suite: "travel".into(),
            task: task.into(),
            backend: backend.into(),
            expected_tools: expected.into_iter().map(String::from).collect(),
            transcript: vec![ChatMessage::User {
                content: format!("please {task}"),
            }],
            verdict: Verdict {
                outcome,
                selection_correct: expected.map(|_| right),
                first_tool: picked.map(String::from),
                ..Verdict::default()
            },
            ..StoredTrial::default()
        }
    }

    #[test]
    fn each_tool_counts_its_tasks_and_who_took_its_picks() {
        let trials = vec![
            trial("bm25", "w1", Some("get_weather"), Some("get_weather")),
            trial("bm25", "w2", Some("get_weather"), Some("get_forecast")),
            trial("bm25", "w3", Some("get_weather"), None),
            trial("bm25", "chat", None, Some("get_weather")),
            trial("oracle", "w2", Some("get_weather"), Some("get_weather")),
        ];
        let (rows, failing) = per_tool(&trials);
        let weather = &rows[0];
        assert_eq!(
            (weather.series.as_str(), weather.tool.as_deref()),
            ("bm25", Some("get_weather"))
        );
        assert_eq!((weather.right.successes, weather.right.trials), (1, 3));
        // The interval is the summary's: Wilson's over tasks.
        let wilson = crate::score::wilson_interval(1, 3);
        assert_eq!(
            (weather.right.low, weather.right.high),
            (wilson.low, wilson.high)
        );
        assert_eq!(
            weather.picked_instead,
            vec![("(none)".to_string(), 1), ("get_forecast".to_string(), 1)]
        );
        assert_eq!(weather.failing_tasks, 2);
        assert_eq!(weather.p_right, None);
        // The no-call tasks come last, and a tool called there took their pick.
        assert_eq!(rows[1].tool, None);
        assert_eq!(rows[1].picked_instead, vec![("get_weather".to_string(), 1)]);
        assert_eq!(rows[2].series, "oracle");
        assert_eq!(rows[2].right.estimate, 1.0);

        let tasks: Vec<&str> = failing.iter().map(|f| f.task.as_str()).collect();
        assert_eq!(tasks, ["chat", "w2", "w3"]);
        let w2 = &failing[1];
        assert_eq!(w2.prompt, "please w2");
        assert_eq!(w2.misses.len(), 1, "the oracle got it right");
        assert_eq!(w2.misses[0].picked, vec![("get_forecast".to_string(), 1)]);
    }

    #[test]
    fn errors_are_not_judged_and_odd_picks_are_named() {
        let mut error = trial("bm25", "w1", Some("get_weather"), None);
        error.verdict.outcome = Outcome::Error;
        let mut malformed = trial("bm25", "w2", Some("get_weather"), Some("get_weather"));
        malformed.verdict.outcome = Outcome::MalformedCall;
        malformed.verdict.selection_correct = Some(false);
        let mut invented = trial("bm25", "w3", Some("get_weather"), Some("weather"));
        invented.verdict.outcome = Outcome::HallucinatedTool;
        let (rows, _) = per_tool(&[error, malformed, invented]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].right.trials, 2, "the errored task is not counted");
        assert_eq!(
            rows[0].picked_instead,
            vec![
                ("get_weather (unparseable)".to_string(), 1),
                ("weather (not offered)".to_string(), 1)
            ]
        );
    }
}
