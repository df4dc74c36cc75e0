//! Slates: how a round measures many candidates for different tools at the price of few runs. A
//! run on the working part costs the tool-list prompt and every working task whatever changed, so
//! a candidate per run, tool by tool, is what made a round afford one or two tools. Instead the
//! round's k-th slate holds the k-th admitted candidate of every target (a tool without one keeps
//! its wording), is written as one variant and run once; each candidate is then read on its own
//! tool's tasks within its slate (the tasks that expect the tool, and those it wrongly took under
//! the round's baseline), paired with the baseline. The best candidate of each tool that gained
//! there, unflagged by the pull check, go together into the combined slate, run once more — the
//! coordinate step that lets wins on different tools add up. The round keeps the slate that
//! raises the whole working part most and makes none of its tools take others' picks. A tool's
//! rules' candidate joins a slate only when none of the rewriter's passed the screen. No I/O: the
//! judging is `judge`'s.

use super::judge::{Judgement, judge};
use super::targets::Target;
use super::wording::{Candidate, Origin, Wording};
use super::write_up::{Slate, Tried};
use crate::record::StoredTrial;
use std::collections::{BTreeMap, BTreeSet};

/// Turns away each rules' candidate whose tool has a rewriter candidate that passed the screen:
/// the rewriter's wordings carry the rules' parameter texts already, and its `instead` slots say
/// what the rules' "For …, use NEIGHBOUR instead." says, in its own words — on travel from the
/// terse descriptions the rules' slate lost 4.4 pp on the working part where the rewriter's
/// gained. A run saved is five minutes there. The rules stay the candidate of every tool the
/// rewriter gave nothing usable for.
pub fn rules_only_where_needed(candidates: &mut [Candidate]) {
    let rewritten: BTreeSet<String> = candidates
        .iter()
        .filter(|c| c.origin == Origin::Rewriter && c.rejected.is_empty())
        .map(|c| c.tool.clone())
        .collect();
    for candidate in candidates.iter_mut() {
        if candidate.origin == Origin::Rules
            && candidate.rejected.is_empty()
            && rewritten.contains(&candidate.tool)
        {
            candidate.rejected.push(
                "not run: a rewriter candidate for this tool passed, and carries the rules' parameter texts".into(),
            );
        }
    }
}

/// The round's slates: slate k holds every target's k-th candidate that passed the screen. A
/// slate of one candidate carries the candidate's label, so a round of one target reads as it did
/// when candidates ran one by one.
pub fn slates(tried: &[Tried], stem: &str, number: u32) -> Vec<Slate> {
    let mut by_tool: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (k, t) in tried.iter().enumerate() {
        if t.candidate.rejected.is_empty() {
            by_tool.entry(&t.candidate.tool).or_default().push(k);
        }
    }
    let depth = by_tool.values().map(Vec::len).max().unwrap_or(0);
    (0..depth)
        .map(|level| {
            let mut members: Vec<usize> = by_tool
                .values()
                .filter_map(|ks| ks.get(level).copied())
                .collect();
            members.sort_unstable();
            let label = match members.as_slice() {
                [only] => tried[*only].label.clone(),
                _ => format!("{stem}-r{number}s{}", level + 1),
            };
            Slate::new(label, members, false)
        })
        .collect()
}

/// The wordings a slate puts on top of `current`.
pub fn slate_wordings(
    current: &BTreeMap<String, Wording>,
    slate: &Slate,
    tried: &[Tried],
) -> BTreeMap<String, Wording> {
    let mut wordings = current.clone();
    for &k in &slate.members {
        let candidate = &tried[k].candidate;
        wordings.insert(candidate.tool.clone(), candidate.wording.clone());
    }
    wordings
}

/// The tasks a change to `target`'s wording is read on: those that expect it, and those it was
/// wrongly picked for under the round's baseline.
pub fn own_tasks(target: &Target, baseline: &[StoredTrial]) -> BTreeSet<String> {
    let tool = &target.standing.tool;
    let mut tasks: BTreeSet<String> = baseline
        .iter()
        .filter(|t| t.acceptable_actions().contains(tool))
        .map(|t| t.task.clone())
        .collect();
    tasks.extend(target.took.iter().map(|m| m.task.clone()));
    tasks
}

/// A candidate's judgement on its own tool's tasks within its slate's run, against the baseline.
pub fn judge_member(
    baseline: &[StoredTrial],
    slate_trials: &[StoredTrial],
    tasks: &BTreeSet<String>,
    arms: (&str, &str),
) -> Result<Judgement, String> {
    let on = |trials: &[StoredTrial]| -> Vec<StoredTrial> {
        trials
            .iter()
            .filter(|t| tasks.contains(&t.task))
            .cloned()
            .collect()
    };
    judge(&on(baseline), &on(slate_trials), arms.0, arms.1)
}

/// The combined slate: for each tool, its candidate that gained most on its own tasks (a gain
/// above zero, its tool not flagged by its slate's pull check). `None` when fewer than two tools
/// gained, or when it would repeat a slate already run.
pub fn combined(tried: &[Tried], slates: &[Slate], stem: &str, number: u32) -> Option<Slate> {
    let mut best: BTreeMap<&str, (usize, f64)> = BTreeMap::new();
    for slate in slates {
        let flagged: &[String] = slate
            .judgement
            .as_ref()
            .map_or(&[], |j| j.flagged.as_slice());
        for &k in &slate.members {
            let t = &tried[k];
            let Some(own) = &t.judgement else { continue };
            if own.difference <= 0.0 || flagged.contains(&t.candidate.tool) {
                continue;
            }
            let entry = best.entry(&t.candidate.tool).or_insert((k, own.difference));
            if own.difference > entry.1 {
                *entry = (k, own.difference);
            }
        }
    }
    if best.len() < 2 {
        return None;
    }
    let mut members: Vec<usize> = best.values().map(|(k, _)| *k).collect();
    members.sort_unstable();
    if slates.iter().any(|s| s.members == members) {
        return None;
    }
    Some(Slate::new(
        format!("{stem}-r{number}-combined"),
        members,
        true,
    ))
}

/// The slate that raises the whole working part most and whose pull check flags none of the tools
/// it rewords (the earliest on a tie); none when no slate raised it.
pub fn choose(slates: &[Slate], tried: &[Tried]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (k, slate) in slates.iter().enumerate() {
        let Some(judgement) = &slate.judgement else {
            continue;
        };
        let steals = slate
            .members
            .iter()
            .any(|&m| judgement.flagged.contains(&tried[m].candidate.tool));
        if judgement.difference > 0.0
            && !steals
            && best.is_none_or(|(_, d)| judgement.difference > d)
        {
            best = Some((k, judgement.difference));
        }
    }
    best.map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::improve::targets::{Standing, Target};

    fn tried(label: &str, tool: &str, rejected: bool) -> Tried {
        Tried {
            label: label.into(),
            candidate: Candidate {
                tool: tool.into(),
                origin: Origin::Rules,
                wording: Wording {
                    description: format!("{label} words"),
                    params: BTreeMap::new(),
                },
                rejected: if rejected {
                    vec!["over its budget".into()]
                } else {
                    Vec::new()
                },
            },
            judgement: None,
            error: None,
        }
    }

    /// A right-or-wrong trial of `task` (whose tool is `expected`) under `arm`.
    fn trial(arm: &str, task: &str, expected: &str, picked: &str) -> StoredTrial {
        let right = expected == picked;
        serde_json::from_value(serde_json::json!({
            "suite": "s", "toolset": "t", "task": task, "backend": "m", "variant": arm,
            "expected_tools": [expected], "lang": "en",
            "outcome": if right { "correct" } else { "wrong_tool" },
            "selection_correct": right, "first_tool": picked, "saw_tool_error": false,
            "self_corrected": false, "mismatches": [], "detail": "", "calls": [], "turns": 1,
            "latency_ms": 1.0, "input_tokens": 0, "output_tokens": 0, "backend_error": null,
        }))
        .expect("a stored trial")
    }

    fn target(tool: &str) -> Target {
        Target {
            standing: Standing {
                tool: tool.into(),
                tasks: 0,
                right: 0,
                graded: 0.0,
                lost_to: BTreeMap::new(),
                took_from: BTreeMap::new(),
            },
            neighbours: Vec::new(),
            lost: Vec::new(),
            took: Vec::new(),
            attribution: Vec::new(),
        }
    }

    #[test]
    fn the_rules_candidate_runs_only_where_no_rewriter_candidate_passed() {
        let mut candidates: Vec<Candidate> = [
            ("alpha", Origin::Rewriter, false),
            ("alpha", Origin::Rules, false),
            ("beta", Origin::Rewriter, true),
            ("beta", Origin::Rules, false),
            ("gamma", Origin::Rules, false),
        ]
        .iter()
        .map(|&(tool, origin, rejected)| {
            let mut c = tried("x", tool, rejected).candidate;
            c.origin = origin;
            c
        })
        .collect();
        rules_only_where_needed(&mut candidates);
        let runs: Vec<bool> = candidates.iter().map(|c| c.rejected.is_empty()).collect();
        assert_eq!(runs, vec![true, false, false, true, true]);
        assert!(candidates[1].rejected[0].contains("rewriter candidate for this tool passed"));
    }

    #[test]
    fn slate_k_holds_each_tools_kth_admitted_candidate() {
        let tried = vec![
            tried("x-r1c1", "alpha", false),
            tried("x-r1c2", "alpha", false),
            tried("x-r1c3", "beta", true),
            tried("x-r1c4", "beta", false),
            tried("x-r1c5", "gamma", true),
        ];
        let slates = slates(&tried, "x", 1);
        assert_eq!(slates.len(), 2);
        assert_eq!(slates[0].members, vec![0, 3]);
        assert_eq!(slates[0].label, "x-r1s1");
        // A slate of one candidate is named by it, as a round of one target always read.
        assert_eq!(slates[1].members, vec![1]);
        assert_eq!(slates[1].label, "x-r1c2");
        let wordings = slate_wordings(&BTreeMap::new(), &slates[0], &tried);
        assert_eq!(
            wordings.keys().collect::<Vec<_>>(),
            vec!["alpha", "beta"],
            "gamma's rejected candidate is in no slate"
        );
    }

    #[test]
    fn each_tools_best_gain_is_combined_and_the_best_whole_run_is_chosen() {
        // Six tasks of alpha, six of beta. Slate 1 rewords both: alpha wins 4 more of its tasks,
        // beta loses 2. Slate 2 rewords both again: alpha wins 1 more, beta 3 more.
        let tried = vec![
            tried("x-r1c1", "alpha", false),
            tried("x-r1c2", "beta", false),
            tried("x-r1c3", "alpha", false),
            tried("x-r1c4", "beta", false),
        ];
        let mut slates = slates(&tried, "x", 1);
        assert_eq!(slates.len(), 2);
        let run = |arm: &str, alpha_right: usize, beta_right: usize| -> Vec<StoredTrial> {
            let mut trials = Vec::new();
            for i in 0..6 {
                let a = if i < alpha_right { "alpha" } else { "beta" };
                trials.push(trial(arm, &format!("a{i}"), "alpha", a));
                let b = if i < beta_right { "beta" } else { "alpha" };
                trials.push(trial(arm, &format!("b{i}"), "beta", b));
            }
            trials
        };
        let baseline = run("base", 1, 3);
        let runs = [run("x-r1s1", 5, 1), run("x-r1s2", 2, 6)];
        let mut tried = tried;
        for (slate, trials) in slates.iter_mut().zip(&runs) {
            slate.judgement = Some(judge(&baseline, trials, "base", &slate.label).unwrap());
            for &m in &slate.members {
                let tasks = own_tasks(&target(&tried[m].candidate.tool), &baseline);
                assert_eq!(tasks.len(), 6);
                let j = judge_member(&baseline, trials, &tasks, ("base", &slate.label)).unwrap();
                tried[m].judgement = Some(j);
            }
        }
        let own = |k: usize| tried[k].judgement.as_ref().unwrap().difference;
        assert!(own(0) > 0.0 && own(1) < 0.0 && own(2) > 0.0 && own(3) > 0.0);
        let combined = combined(&tried, &slates, "x", 1).expect("two tools gained");
        assert_eq!(
            combined.members,
            vec![0, 3],
            "alpha from slate 1, beta from slate 2"
        );
        assert!(combined.combined);
        assert_eq!(combined.label, "x-r1-combined");
        // Slate 2 gains 4 picks overall, slate 1 gains 2: slate 2 is chosen.
        assert_eq!(choose(&slates, &tried), Some(1));
        // A combined slate that repeats a slate run already is not run again.
        slates[1].members = vec![0, 3];
        assert!(self::combined(&tried, &slates, "x", 1).is_none());
    }
}
