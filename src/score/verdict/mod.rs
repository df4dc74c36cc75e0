//! The outcome of one trial (see the rules in the `score` module documentation).

use super::arguments::{ArgumentMismatch, match_arguments};
use crate::model::{Expectation, ExpectedCall};
use crate::observation::{CallArguments, Observed, ObservedCall};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The outcome taxonomy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Correct,
    WrongArgs,
    WrongTool,
    /// The reply made more or fewer calls than the task asks for (the `bfcl` profile).
    WrongCount,
    HallucinatedTool,
    MalformedCall,
    NoCall,
    FalseCall,
    CorrectAbstain,
    Error,
}

impl Outcome {
    pub const ALL: [Outcome; 10] = [
        Outcome::Correct,
        Outcome::WrongArgs,
        Outcome::WrongTool,
        Outcome::WrongCount,
        Outcome::HallucinatedTool,
        Outcome::MalformedCall,
        Outcome::NoCall,
        Outcome::FalseCall,
        Outcome::CorrectAbstain,
        Outcome::Error,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Correct => "correct",
            Outcome::WrongArgs => "wrong_args",
            Outcome::WrongTool => "wrong_tool",
            Outcome::WrongCount => "wrong_count",
            Outcome::HallucinatedTool => "hallucinated_tool",
            Outcome::MalformedCall => "malformed_call",
            Outcome::NoCall => "no_call",
            Outcome::FalseCall => "false_call",
            Outcome::CorrectAbstain => "correct_abstain",
            Outcome::Error => "error",
        }
    }
}

/// The judgement of one trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub outcome: Outcome,
    /// Whether the first call picked an acceptable tool; `None` for no-call tasks and errors.
    pub selection_correct: Option<bool>,
    /// The tool the model called first, if any.
    pub first_tool: Option<String>,
    /// A tool answered `isError` during the trial.
    pub saw_tool_error: bool,
    /// After an `isError` answer, a later call to the same step's tool matched.
    pub self_corrected: bool,
    /// Under a profile that scores only the first reply (`bfcl`): the first reply failed, but the
    /// whole trial, later turns included, would be `correct` under the `mcp` profile.
    #[serde(default)]
    pub later_turn_fixed: bool,
    /// What was wrong with the arguments of the closest attempt (for `wrong_args`).
    pub mismatches: Vec<ArgumentMismatch>,
    /// One line saying why.
    pub detail: String,
}

/// A trial not scored yet: what the stored trial the plan makes carries until the runner judges
/// it. An `error`, so that it could never count as a verdict if it were ever kept.
impl Default for Verdict {
    fn default() -> Self {
        Verdict {
            outcome: Outcome::Error,
            selection_correct: None,
            first_tool: None,
            saw_tool_error: false,
            self_corrected: false,
            later_turn_fixed: false,
            mismatches: Vec::new(),
            detail: "not scored".into(),
        }
    }
}

/// Judges a trial against the task's expectation.
pub fn score(expectation: &Expectation, trial: &Observed<'_>) -> Verdict {
    let first_tool = trial.calls.first().map(|c| c.tool.clone());
    let saw_tool_error = trial.calls.iter().any(|c| c.result_is_error == Some(true));
    let verdict = |outcome, selection_correct, detail: String| Verdict {
        outcome,
        selection_correct,
        first_tool: first_tool.clone(),
        saw_tool_error,
        self_corrected: false,
        later_turn_fixed: false,
        mismatches: Vec::new(),
        detail,
    };
    if let Some(error) = trial.backend_error {
        return verdict(Outcome::Error, None, format!("backend failed: {error}"));
    }
    if matches!(expectation, Expectation::NoCall) {
        return match trial.calls.first() {
            None => verdict(Outcome::CorrectAbstain, None, "no call, as expected".into()),
            Some(call) => verdict(
                Outcome::FalseCall,
                None,
                format!("called {} where no call was right", call.tool),
            ),
        };
    }
    let Some(first) = trial.calls.first() else {
        return verdict(Outcome::NoCall, Some(false), "no tool was called".into());
    };
    if let CallArguments::Malformed { reason, .. } = &first.arguments {
        return verdict(
            Outcome::MalformedCall,
            Some(false),
            format!("the first call's arguments do not parse: {reason}"),
        );
    }
    if !trial.tools_shown.iter().any(|t| t == &first.tool) {
        return verdict(
            Outcome::HallucinatedTool,
            Some(false),
            format!("called {:?}, which was not offered", first.tool),
        );
    }
    // Any listed call's tool is a right first pick (an alternative, or one of the parallel calls).
    if let Expectation::AnyOf(calls) | Expectation::AllOf(calls) = expectation
        && !calls.iter().any(|c| c.tool == first.tool)
    {
        return verdict(
            Outcome::WrongTool,
            Some(false),
            format!(
                "called {}, expected one of {}",
                first.tool,
                tool_names(calls).join(", ")
            ),
        );
    }
    match expectation {
        Expectation::AnyOf(alternatives) => {
            let chosen: Vec<&ExpectedCall> = alternatives
                .iter()
                .filter(|a| a.tool == first.tool)
                .collect();
            judge_steps(
                &[chosen],
                trial,
                verdict(Outcome::Correct, Some(true), String::new()),
            )
        }
        Expectation::Calls(steps) => {
            if steps.first().is_some_and(|s| s.tool != first.tool) {
                return verdict(
                    Outcome::WrongTool,
                    Some(false),
                    format!("called {}, expected {}", first.tool, steps[0].tool),
                );
            }
            let steps: Vec<Vec<&ExpectedCall>> = steps.iter().map(|s| vec![s]).collect();
            judge_steps(
                &steps,
                trial,
                verdict(Outcome::Correct, Some(true), String::new()),
            )
        }
        Expectation::AllOf(calls) => judge_unordered(
            calls,
            trial,
            verdict(Outcome::Correct, Some(true), String::new()),
        ),
        Expectation::NoCall => unreachable!("handled above"),
    }
}

/// The distinct tools of these calls, in order.
fn tool_names(calls: &[ExpectedCall]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::with_capacity(calls.len());
    for call in calls {
        if !names.contains(&call.tool.as_str()) {
            names.push(&call.tool);
        }
    }
    names
}

/// Every expected call needs a call of its own (one call cannot answer two expected calls) with
/// matching arguments, in any order: a maximum bipartite matching between expected and made calls.
fn judge_unordered(
    expected: &[ExpectedCall],
    trial: &Observed<'_>,
    mut verdict: Verdict,
) -> Verdict {
    let made: Vec<(&ObservedCall, &Map<String, Value>)> = trial
        .calls
        .iter()
        .filter_map(|call| match &call.arguments {
            CallArguments::Parsed(arguments) => Some((call, arguments)),
            CallArguments::Malformed { .. } => None,
        })
        .collect();
    // A call its tool refused answers only an expected call whose author expects the refusal.
    let fits: Vec<Vec<usize>> = expected
        .iter()
        .map(|e| {
            made.iter()
                .enumerate()
                .filter(|(_, (call, arguments))| {
                    call.tool == e.tool
                        && (call.result_is_error != Some(true) || e.refused)
                        && match_arguments(&e.args, arguments).is_empty()
                })
                .map(|(i, _)| i)
                .collect()
        })
        .collect();
    let assigned = maximum_matching(&fits, made.len());
    let unmatched: Vec<usize> = (0..expected.len())
        .filter(|&e| !assigned.contains(&Some(e)))
        .collect();
    let Some(&missing) = unmatched.first() else {
        // A matched call that came after an `isError` answer from its tool corrected itself.
        verdict.self_corrected = assigned.iter().enumerate().any(|(m, e)| {
            e.is_some()
                && trial
                    .calls
                    .iter()
                    .take_while(|c| !std::ptr::eq(*c, made[m].0))
                    .any(|c| c.tool == made[m].0.tool && c.result_is_error == Some(true))
        });
        verdict.detail = if expected.len() > 1 {
            format!("all {} calls right, in any order", expected.len())
        } else {
            "right tool, right arguments".into()
        };
        return verdict;
    };
    let want = &expected[missing];
    let attempts: Vec<Vec<ArgumentMismatch>> = made
        .iter()
        .filter(|(call, _)| call.tool == want.tool && call.result_is_error != Some(true))
        .map(|(_, arguments)| match_arguments(&want.args, arguments))
        .collect();
    if attempts.is_empty() {
        verdict.outcome = Outcome::WrongTool;
        verdict.detail = format!(
            "{} of {} expected calls made; {} was never called",
            expected.len() - unmatched.len(),
            expected.len(),
            want.tool
        );
        return verdict;
    }
    let closest = attempts
        .into_iter()
        .min_by_key(Vec::len)
        .unwrap_or_default();
    verdict.outcome = Outcome::WrongArgs;
    let problems: Vec<String> = closest
        .iter()
        .map(|m| format!("{}: {}", m.argument, m.problem))
        .collect();
    verdict.detail = if problems.is_empty() {
        // Every call to the tool matched, but another expected call took it.
        format!(
            "{} expected {} calls to {}, fewer were made",
            expected.len(),
            expected.iter().filter(|e| e.tool == want.tool).count(),
            want.tool
        )
    } else {
        format!(
            "{} called with wrong arguments ({})",
            want.tool,
            problems.join("; ")
        )
    };
    verdict.mismatches = closest;
    verdict
}

/// Kuhn's augmenting paths: for each made call, the expected call it answers (`fits[e]` lists the
/// made calls that could answer expected call `e`). Small inputs: a task has a handful of calls.
fn maximum_matching(fits: &[Vec<usize>], made: usize) -> Vec<Option<usize>> {
    fn augment(
        e: usize,
        fits: &[Vec<usize>],
        seen: &mut [bool],
        assigned: &mut [Option<usize>],
    ) -> bool {
        for &m in &fits[e] {
            if seen[m] {
                continue;
            }
            seen[m] = true;
            if assigned[m].is_none_or(|other| augment(other, fits, seen, assigned)) {
                assigned[m] = Some(e);
                return true;
            }
        }
        false
    }
    let mut assigned = vec![None; made];
    for e in 0..fits.len() {
        augment(e, fits, &mut vec![false; made], &mut assigned);
    }
    assigned
}

/// Walks the calls in order, advancing through the steps (each step: acceptable expected calls sharing
/// one tool) when a call to the step's tool has matching arguments.
fn judge_steps(
    steps: &[Vec<&ExpectedCall>],
    trial: &Observed<'_>,
    mut verdict: Verdict,
) -> Verdict {
    let mut step = 0;
    let mut attempted = vec![false; steps.len()];
    let mut failed_with_error = false;
    let mut closest: Vec<ArgumentMismatch> = Vec::new();
    for call in trial.calls {
        let Some(expected) = steps.get(step) else {
            break;
        };
        let CallArguments::Parsed(arguments) = &call.arguments else {
            continue;
        };
        if expected[0].tool != call.tool {
            continue;
        }
        attempted[step] = true;
        let attempts: Vec<Vec<ArgumentMismatch>> = expected
            .iter()
            .map(|e| match_arguments(&e.args, arguments))
            .collect();
        // A call its tool answered with `isError` did not succeed, whatever its arguments (the
        // server's schema check rejects an argument the tool does not declare, for one).
        let accepted = call.result_is_error != Some(true);
        let matched = attempts
            .iter()
            .zip(expected)
            .any(|(mismatches, e)| mismatches.is_empty() && (accepted || e.refused));
        if matched {
            verdict.self_corrected |= failed_with_error;
            failed_with_error = false;
            closest.clear();
            step += 1;
        } else {
            failed_with_error |= call.result_is_error == Some(true);
            closest = attempts
                .into_iter()
                .min_by_key(Vec::len)
                .unwrap_or_default();
            if closest.is_empty() {
                closest.push(ArgumentMismatch {
                    argument: "(call)".into(),
                    problem: "the arguments match, but the tool answered isError (its schema rejected the call, or the tool failed)".into(),
                });
            }
        }
    }
    if step == steps.len() {
        verdict.detail = if steps.len() > 1 {
            format!("all {} steps right, in order", steps.len())
        } else {
            "right tool, right arguments".into()
        };
        return verdict;
    }
    let tool = &steps[step][0].tool;
    if !attempted[step] {
        verdict.outcome = Outcome::WrongTool;
        verdict.detail = format!(
            "step {} ({tool}) was never called after the steps before it",
            step + 1
        );
    } else {
        verdict.outcome = Outcome::WrongArgs;
        let problems: Vec<String> = closest
            .iter()
            .map(|m| format!("{}: {}", m.argument, m.problem))
            .collect();
        verdict.detail = format!(
            "{tool} called with wrong arguments ({})",
            problems.join("; ")
        );
        verdict.mismatches = closest;
    }
    verdict
}

#[cfg(test)]
mod tests;
