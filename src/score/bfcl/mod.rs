//! The `bfcl` scoring profile: a trial judged the way the Berkeley Function Calling Leaderboard
//! judges the same reply, from the record BFCL's own files give (the category, the functions as BFCL
//! wrote them, the possible answers), so a suite imported from BFCL reports BFCL's number.
//!
//! BFCL's single-turn categories score one response: here, the trial's first reply (later turns
//! are shown in `later_turn_fixed`, never credited). Decoding follows BFCL's function-calling
//! handlers: a reply whose calls all have JSON-object arguments decodes to `[{name: arguments}]`; a
//! reply with a call that does not parse does not decode. Then, by category:
//!
//! - `irrelevance` and `live_irrelevance`: correct when the reply does not decode to a non-empty
//!   list of calls — a malformed call counts as no call here, as in BFCL (the `mcp` profile calls it
//!   `false_call`);
//! - `live_relevance`: correct when it does;
//! - every other category: `ast_checker` (see `ast_checker`) on the decoded calls, Java and
//!   JavaScript parameters read from their source text by BFCL's type converters.
//!
//! The outcome keeps mcpick's taxonomy (`wrong_tool`, `wrong_args`, `wrong_count`, ...) and each
//! failure's `mismatches` carries BFCL's own `error_type` and message.

mod ast_checker;
mod failure;
mod java_values;
mod javascript_values;
mod language;
mod python_text;
mod python_value;

pub use ast_checker::ast_checker;
pub use failure::CheckFailure;
pub use language::Language;

use super::verdict::{Outcome, Verdict};
use super::{ArgumentMismatch, score};
use crate::model::{BfclRecord, Expectation};
use crate::observation::{CallArguments, Observed};
use serde_json::{Map, Value};

/// Judges a trial by BFCL's rules (the `mcp` verdict of the whole trial decides `later_turn_fixed`).
pub fn score_bfcl(bfcl: &BfclRecord, expectation: &Expectation, trial: &Observed<'_>) -> Verdict {
    let first_tool = trial.calls.first().map(|c| c.tool.clone());
    let saw_tool_error = trial.calls.iter().any(|c| c.result_is_error == Some(true));
    let expected_tools: Vec<&str> = expectation
        .calls()
        .iter()
        .map(|c| c.tool.as_str())
        .collect();
    let selection_correct = match expectation {
        Expectation::NoCall => None,
        _ => Some(
            first_tool
                .as_deref()
                .is_some_and(|tool| expected_tools.contains(&tool)),
        ),
    };
    let verdict = |outcome, detail: String| Verdict {
        outcome,
        selection_correct: if outcome == Outcome::Error {
            None
        } else {
            selection_correct
        },
        first_tool: first_tool.clone(),
        saw_tool_error,
        self_corrected: false,
        later_turn_fixed: false,
        mismatches: Vec::new(),
        detail,
    };
    if let Some(error) = trial.backend_error {
        return verdict(Outcome::Error, format!("backend failed: {error}"));
    }
    // The first reply is reply 0: a first reply of text has no calls, whatever came later.
    let replied: Vec<_> = trial.calls.iter().filter(|c| c.reply == 0).collect();
    let decoded: Option<Vec<(&str, &Map<String, Value>)>> = replied
        .iter()
        .map(|c| match &c.arguments {
            CallArguments::Parsed(arguments) => Some((c.tool.as_str(), arguments)),
            CallArguments::Malformed { .. } => None,
        })
        .collect();
    let category = bfcl.category.as_str();
    let made_calls = decoded.as_ref().is_some_and(|calls| !calls.is_empty());
    if category.contains("irrelevance") {
        return if made_calls {
            verdict(
                Outcome::FalseCall,
                format!("called {} where no call was right", replied[0].tool),
            )
        } else {
            verdict(
                Outcome::CorrectAbstain,
                "no decodable call, as expected".into(),
            )
        };
    }
    let Some(decoded) = decoded else {
        return verdict(
            Outcome::MalformedCall,
            "the first reply's calls do not decode (a call's arguments are not a JSON object)"
                .into(),
        );
    };
    if decoded.is_empty() {
        return verdict(Outcome::NoCall, "no tool was called".into());
    }
    if category.contains("relevance") {
        return verdict(Outcome::Correct, "a decodable call, as expected".into());
    }
    let mut judged = match ast_checker(&bfcl.function, &decoded, &bfcl.ground_truth, category) {
        Ok(()) => verdict(Outcome::Correct, "valid by BFCL's ast_checker".into()),
        Err(failure) => {
            let outcome = failure_outcome(&failure, &decoded, &expected_tools, trial.tools_shown);
            let mut judged = verdict(
                outcome,
                format!("BFCL {}: {}", failure.error_type, failure.error),
            );
            judged.mismatches.push(ArgumentMismatch {
                argument: failure.error_type,
                problem: failure.error,
            });
            judged
        }
    };
    if judged.outcome != Outcome::Correct {
        judged.later_turn_fixed = score(expectation, trial).outcome == Outcome::Correct;
    }
    judged
}

/// mcpick's outcome for a reply BFCL's checker rejects.
fn failure_outcome(
    failure: &CheckFailure,
    decoded: &[(&str, &Map<String, Value>)],
    expected_tools: &[&str],
    shown_tools: &[String],
) -> Outcome {
    let first = decoded[0].0;
    if !shown_tools.iter().any(|t| t == first) {
        return Outcome::HallucinatedTool;
    }
    if failure.error_type.ends_with(":wrong_count") {
        return Outcome::WrongCount;
    }
    let mut made: Vec<&str> = decoded.iter().map(|(name, _)| *name).collect();
    let mut wanted = expected_tools.to_vec();
    made.sort_unstable();
    wanted.sort_unstable();
    if failure.error_type.ends_with(":wrong_func_name") || made != wanted {
        Outcome::WrongTool
    } else {
        Outcome::WrongArgs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ExpectedCall;
    use crate::observation::ObservedCall;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn record(category: &str) -> BfclRecord {
        BfclRecord {
            category: category.into(),
            function: vec![json!({"name": "get_weather", "parameters": {"type": "dict",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"]}})],
            ground_truth: vec![json!({"get_weather": {"city": ["Paris"], "days": [3, ""]}})],
        }
    }

    fn call(arguments: Value, reply: u32) -> ObservedCall {
        ObservedCall {
            tool: "get_weather".into(),
            arguments: match arguments {
                Value::Object(map) => CallArguments::Parsed(map),
                other => CallArguments::Malformed {
                    raw: other.to_string(),
                    reason: "not an object".into(),
                },
            },
            result_is_error: Some(false),
            reply,
        }
    }

    fn judged(category: &str, calls: Vec<ObservedCall>) -> Verdict {
        let expectation = if category.contains("irrelevance") {
            Expectation::NoCall
        } else {
            Expectation::Calls(vec![ExpectedCall {
                tool: "get_weather".into(),
                args: [(
                    "city".to_string(),
                    crate::model::ArgMatcher::parse(&json!(["Paris"])).unwrap(),
                )]
                .into_iter()
                .collect::<BTreeMap<_, _>>(),
                refused: false,
            }])
        };
        let shown = ["get_weather".to_string()];
        let trial = Observed {
            tools_shown: &shown,
            calls: &calls,
            backend_error: None,
        };
        score_bfcl(&record(category), &expectation, &trial)
    }

    #[test]
    fn the_first_reply_is_judged_and_a_later_fix_is_shown_not_credited() {
        let right = judged("simple_python", vec![call(json!({"city": "paris"}), 0)]);
        assert_eq!(right.outcome, Outcome::Correct);
        let fixed = judged(
            "simple_python",
            vec![
                call(json!({"city": "Lyon"}), 0),
                call(json!({"city": "Paris"}), 1),
            ],
        );
        assert_eq!(fixed.outcome, Outcome::WrongArgs);
        assert!(fixed.later_turn_fixed);
        assert_eq!(fixed.mismatches[0].argument, "value_error:string");
        let doubled = judged(
            "simple_python",
            vec![
                call(json!({"city": "Paris"}), 0),
                call(json!({"city": "Paris"}), 0),
            ],
        );
        assert_eq!(doubled.outcome, Outcome::WrongCount);
        let float_days = judged(
            "simple_python",
            vec![call(json!({"city": "Paris", "days": 3.0}), 0)],
        );
        assert_eq!(
            float_days.outcome,
            Outcome::WrongArgs,
            "BFCL's type check: {float_days:?}"
        );
    }

    #[test]
    fn an_unparseable_call_is_no_call_on_irrelevance() {
        let broken = judged("irrelevance", vec![call(json!("{city"), 0)]);
        assert_eq!(broken.outcome, Outcome::CorrectAbstain);
        let called = judged("irrelevance", vec![call(json!({"city": "Paris"}), 0)]);
        assert_eq!(called.outcome, Outcome::FalseCall);
        let later = judged("irrelevance", vec![call(json!({"city": "Paris"}), 1)]);
        assert_eq!(
            later.outcome,
            Outcome::CorrectAbstain,
            "only the first reply counts"
        );
        let malformed = judged("simple_python", vec![call(json!("{city"), 0)]);
        assert_eq!(malformed.outcome, Outcome::MalformedCall);
    }
}
