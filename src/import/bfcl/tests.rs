//! The BFCL import's shared fixtures (the hand-written sample files, imported; a task's calls
//! judged by the scorer as a trial would be) and the tests of the import as a whole: parallel,
//! irrelevance and relevance records, functions sharing a name, and records that cannot be
//! translated.

use super::*;
use crate::model::{Expectation, ExpectedCall};
use crate::observation::{CallArguments, Observed, ObservedCall};
use crate::score::{Outcome, score};

/// Hand-written records in BFCL's format (tests/data/bfcl/): every type of the dialect, nested
/// and list-of-dict answers, `""`, several acceptable values, parallel calls, irrelevance and
/// relevance, Java and JavaScript, two functions sharing a name, and records that cannot be
/// translated.
const QUESTIONS: &str = include_str!("../../../tests/data/bfcl/BFCL_v4_sample.json");
const ANSWERS: &str = include_str!("../../../tests/data/bfcl/possible_answer/BFCL_v4_sample.json");

pub fn imported() -> Imported {
    import_bfcl(QUESTIONS, Some(ANSWERS), "bfcl_sample")
}

pub fn task<'a>(imported: &'a Imported, id: &str) -> &'a Value {
    imported
        .tasks
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("{id} was not translated: {:?}", imported.skipped))
}

pub fn tool<'a>(imported: &'a Imported, name: &str) -> &'a Value {
    imported.tools.iter().find(|t| t["name"] == name).unwrap()
}

/// The task's expectation as the loader would build it.
fn expectation(task: &Value) -> Expectation {
    let calls = |field: &str| -> Vec<ExpectedCall> {
        task[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| ExpectedCall {
                tool: call["tool"].as_str().unwrap().into(),
                args: call["args"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), ArgMatcher::parse(v).unwrap()))
                    .collect(),
                refused: false,
            })
            .collect()
    };
    if task.get("expect_no_call").is_some() {
        Expectation::NoCall
    } else if task.get("expect_all_of").is_some() {
        Expectation::AllOf(calls("expect_all_of"))
    } else if task.get("expect_any_of").is_some() {
        Expectation::AnyOf(calls("expect_any_of"))
    } else {
        Expectation::Calls(calls("expect"))
    }
}

/// The outcome of a trial making these calls (each `(tool, arguments)`).
pub fn judge(task: &Value, calls: &[(&str, Value)]) -> Outcome {
    let shown: Vec<String> = task["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.get("as").unwrap_or(t).as_str().unwrap().to_string())
        .collect();
    let calls: Vec<ObservedCall> = calls
        .iter()
        .map(|(tool, arguments)| ObservedCall {
            tool: tool.to_string(),
            arguments: CallArguments::Parsed(arguments.as_object().unwrap().clone()),
            result_is_error: Some(false),
            reply: 0,
        })
        .collect();
    let observed = Observed {
        tools_shown: &shown,
        calls: &calls,
        backend_error: None,
    };
    score(&expectation(task), &observed).outcome
}

#[test]
fn parallel_answers_match_in_any_order() {
    let imported = imported();
    let two_cities = task(&imported, "parallel_0");
    assert_eq!(two_cities["expect_all_of"].as_array().unwrap().len(), 2);
    let paris = ("get_weather", json!({"city": "Paris"}));
    let lyon = ("get_weather", json!({"city": "Lyon", "unit": "celsius"}));
    assert_eq!(
        judge(two_cities, &[paris.clone(), lyon.clone()]),
        Outcome::Correct
    );
    assert_eq!(
        judge(two_cities, &[lyon.clone(), paris.clone()]),
        Outcome::Correct
    );
    assert_eq!(
        judge(two_cities, &[paris.clone(), paris.clone()]),
        Outcome::WrongArgs
    );
    assert_eq!(judge(two_cities, &[lyon]), Outcome::WrongArgs);
    let mixed = task(&imported, "parallel_multiple_0");
    let weather = ("get_weather", json!({"city": "Berlin"}));
    let flights = (
        "search_flights",
        json!({"origin": "BER", "destination": "LIS", "passengers": 2}),
    );
    assert_eq!(
        judge(mixed, &[weather.clone(), flights.clone()]),
        Outcome::Correct
    );
    assert_eq!(judge(mixed, &[flights.clone(), weather]), Outcome::Correct);
    assert_eq!(judge(mixed, &[flights]), Outcome::WrongTool);
}

#[test]
fn irrelevance_expects_no_call_and_relevance_any_call() {
    let imported = imported();
    for id in ["irrelevance_0", "live_irrelevance_0-0-0"] {
        let no_call = task(&imported, id);
        assert_eq!(no_call["expect_no_call"], true);
        assert_eq!(judge(no_call, &[]), Outcome::CorrectAbstain);
        assert_eq!(
            judge(no_call, &[("search_flights", json!({"origin": "BER"}))]),
            Outcome::FalseCall
        );
    }
    let relevance = task(&imported, "live_relevance_0-0-0");
    assert_eq!(relevance["expect_any_of"].as_array().unwrap().len(), 2);
    assert_eq!(
        judge(relevance, &[("get_weather", json!({"city": "x"}))]),
        Outcome::Correct
    );
    assert_eq!(judge(relevance, &[]), Outcome::NoCall);
    let single = task(&imported, "live_relevance_1-1-0");
    assert_eq!(single["expect"], json!([{"tool": "get_weather"}]));
}

#[test]
fn functions_sharing_a_name_are_kept_apart_and_shown_by_their_own_name() {
    let imported = imported();
    let second = task(&imported, "simple_python_1");
    assert_eq!(
        second["tools"],
        json!([{"tool": "get_weather-v2", "as": "get_weather"}])
    );
    assert_eq!(second["expect"][0]["tool"], "get_weather");
    assert!(tool(&imported, "get_weather-v2")["inputSchema"]["properties"]["days"].is_object());
    // The first definition again shares its toolset name.
    assert_eq!(
        task(&imported, "simple_python_2")["tools"],
        json!(["get_weather"])
    );
    let names: Vec<&str> = imported
        .tools
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let unique: HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
}

#[test]
fn records_that_cannot_be_translated_are_reported_with_the_reason() {
    let imported = imported();
    assert_eq!(imported.records, 18);
    assert_eq!(imported.tasks.len(), 15);
    let reason = |record: &str| {
        imported
            .skipped
            .iter()
            .find(|s| s.record == record)
            .map(|s| (s.line, s.reason.clone()))
            .unwrap_or_else(|| panic!("{record} not reported: {:?}", imported.skipped))
    };
    assert_eq!(reason("simple_python_4").0, 15);
    assert!(reason("simple_python_4").1.contains("does not offer"));
    // "forty-two" for an integer: BFCL accepts what its answer lists, so the schema widens.
    assert!(
        imported
            .skipped
            .iter()
            .all(|s| s.record != "simple_python_5")
    );
    assert!(reason("simple_python_6").1.contains("--answers"));
    assert!(reason("(unreadable)").1.contains("not JSON"));
    assert!(
        reason("simple_python_99")
            .1
            .contains("no question has this id")
    );
    let report = crate::document::markdown::markdown_document(&imported.report("sample"));
    assert!(report.contains("| simple_python_6 | 17 |"), "{report}");
    assert!(report.contains("18 records read: 15 tasks written, 3 not translated"));
}
