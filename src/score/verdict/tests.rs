//! Tests of scoring on hand-built trials: a table of outcomes across the taxonomy, all-of
//! expectations matched in any order, mismatches naming the argument, and calls a tool rejected.

use super::*;
use crate::model::ArgMatcher;
use serde_json::json;

fn expect_call(tool: &str, args: Value) -> ExpectedCall {
    let args = args
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), ArgMatcher::parse(v).unwrap()))
        .collect();
    ExpectedCall {
        tool: tool.into(),
        args,
        refused: false,
    }
}

fn call(tool: &str, args: Value, is_error: bool) -> ObservedCall {
    ObservedCall {
        tool: tool.into(),
        arguments: CallArguments::Parsed(args.as_object().unwrap().clone()),
        result_is_error: Some(is_error),
        reply: 0,
    }
}

fn malformed(tool: &str) -> ObservedCall {
    ObservedCall {
        tool: tool.into(),
        arguments: CallArguments::Malformed {
            raw: "{city: Paris".into(),
            reason: "key must be a string".into(),
        },
        result_is_error: None,
        reply: 0,
    }
}

/// A trial as the tests build it; scored through its `Observed` view, as stored trials are.
#[derive(Debug, Clone)]
struct TestTrial {
    tools_shown: Vec<String>,
    calls: Vec<ObservedCall>,
    backend_error: Option<String>,
}

impl TestTrial {
    fn observed(&self) -> Observed<'_> {
        Observed {
            tools_shown: &self.tools_shown,
            calls: &self.calls,
            backend_error: self.backend_error.as_deref(),
        }
    }
}

fn score(expectation: &Expectation, trial: &TestTrial) -> Verdict {
    super::score(expectation, &trial.observed())
}

fn trial(calls: Vec<ObservedCall>) -> TestTrial {
    let shown = [
        "get_weather",
        "get_weather_forecast",
        "search_flights",
        "book_flight",
    ];
    TestTrial {
        tools_shown: shown.iter().map(|s| s.to_string()).collect(),
        calls,
        backend_error: None,
    }
}

#[test]
fn table_of_outcomes() {
    let weather = Expectation::Calls(vec![expect_call(
        "get_weather",
        json!({"city": ["Paris", "Paris, France"]}),
    )]);
    let any = Expectation::AnyOf(vec![
        expect_call("get_weather_forecast", json!({"city": "Lyon"})),
        expect_call("get_weather", json!({"city": "Lyon"})),
    ]);
    let two_steps = Expectation::Calls(vec![
        expect_call("search_flights", json!({"origin": ["BER"]})),
        expect_call("book_flight", json!({})),
    ]);
    let failed = TestTrial {
        backend_error: Some("HTTP 500 after 3 retries".into()),
        ..trial(vec![])
    };
    // (case, expectation, trial, outcome, selection correct, self-corrected)
    type Case<'a> = (
        &'a str,
        &'a Expectation,
        TestTrial,
        Outcome,
        Option<bool>,
        bool,
    );
    let cases: Vec<Case> = vec![
        (
            "correct",
            &weather,
            trial(vec![call("get_weather", json!({"city": "paris"}), false)]),
            Outcome::Correct,
            Some(true),
            false,
        ),
        (
            "wrong args",
            &weather,
            trial(vec![call("get_weather", json!({"city": "Lyon"}), false)]),
            Outcome::WrongArgs,
            Some(true),
            false,
        ),
        (
            "wrong tool",
            &weather,
            trial(vec![call(
                "get_weather_forecast",
                json!({"city": "Paris"}),
                false,
            )]),
            Outcome::WrongTool,
            Some(false),
            false,
        ),
        (
            "hallucinated",
            &weather,
            trial(vec![call("weather_now", json!({"city": "Paris"}), false)]),
            Outcome::HallucinatedTool,
            Some(false),
            false,
        ),
        (
            "malformed is not abstention",
            &weather,
            trial(vec![malformed("get_weather")]),
            Outcome::MalformedCall,
            Some(false),
            false,
        ),
        (
            "no call",
            &weather,
            trial(vec![]),
            Outcome::NoCall,
            Some(false),
            false,
        ),
        (
            "false call",
            &Expectation::NoCall,
            trial(vec![call("get_weather", json!({"city": "Paris"}), false)]),
            Outcome::FalseCall,
            None,
            false,
        ),
        (
            "malformed false call",
            &Expectation::NoCall,
            trial(vec![malformed("get_weather")]),
            Outcome::FalseCall,
            None,
            false,
        ),
        (
            "correct abstain",
            &Expectation::NoCall,
            trial(vec![]),
            Outcome::CorrectAbstain,
            None,
            false,
        ),
        (
            "backend error",
            &weather,
            failed,
            Outcome::Error,
            None,
            false,
        ),
        (
            "self-correction after isError",
            &weather,
            trial(vec![
                call("get_weather", json!({"city": "Paaris"}), true),
                call("get_weather", json!({"city": "Paris"}), false),
            ]),
            Outcome::Correct,
            Some(true),
            true,
        ),
        (
            "any-of, second alternative",
            &any,
            trial(vec![call("get_weather", json!({"city": "lyon"}), false)]),
            Outcome::Correct,
            Some(true),
            false,
        ),
        (
            "any-of, not an alternative",
            &any,
            trial(vec![call("search_flights", json!({}), false)]),
            Outcome::WrongTool,
            Some(false),
            false,
        ),
        (
            "two steps in order",
            &two_steps,
            trial(vec![
                call("search_flights", json!({"origin": "BER"}), false),
                call("book_flight", json!({"offer": "x"}), false),
            ]),
            Outcome::Correct,
            Some(true),
            false,
        ),
        (
            "second step missing",
            &two_steps,
            trial(vec![call(
                "search_flights",
                json!({"origin": "BER"}),
                false,
            )]),
            Outcome::WrongTool,
            Some(true),
            false,
        ),
        (
            "steps out of order",
            &two_steps,
            trial(vec![
                call("book_flight", json!({}), false),
                call("search_flights", json!({"origin": "BER"}), false),
            ]),
            Outcome::WrongTool,
            Some(false),
            false,
        ),
        (
            "first step wrong args",
            &two_steps,
            trial(vec![
                call("search_flights", json!({"origin": "TXL"}), false),
                call("book_flight", json!({}), false),
            ]),
            Outcome::WrongArgs,
            Some(true),
            false,
        ),
    ];
    for (name, expectation, record, outcome, selection, self_corrected) in cases {
        let verdict = score(expectation, &record);
        check(name, &verdict, outcome, selection, self_corrected);
    }
}

/// One case of a table: the outcome, the pick and self-correction as expected, a reason given.
fn check(
    name: &str,
    verdict: &Verdict,
    outcome: Outcome,
    selection: Option<bool>,
    self_corrected: bool,
) {
    assert_eq!(verdict.outcome, outcome, "{name}: {verdict:?}");
    assert_eq!(verdict.selection_correct, selection, "{name}: {verdict:?}");
    assert_eq!(
        verdict.self_corrected, self_corrected,
        "{name}: {verdict:?}"
    );
    assert!(!verdict.detail.is_empty(), "{name}");
}

/// BFCL's parallel calls: every expected call answered by a call of its own, in any order.
#[test]
fn all_of_matches_calls_in_any_order_one_call_each() {
    let two_cities = Expectation::AllOf(vec![
        expect_call("get_weather", json!({"city": ["Paris", "Paris, France"]})),
        expect_call("get_weather", json!({"city": ["Lyon"]})),
        expect_call(
            "search_flights",
            json!({"origin": ["BER"], "date": ["", "today"]}),
        ),
    ]);
    let paris = || call("get_weather", json!({"city": "paris"}), false);
    let lyon = || call("get_weather", json!({"city": "Lyon"}), false);
    let flights = || call("search_flights", json!({"origin": "BER"}), false);
    // (case, calls, outcome, selection correct, self-corrected)
    type Case<'a> = (&'a str, Vec<ObservedCall>, Outcome, Option<bool>, bool);
    let cases: Vec<Case> = vec![
        (
            "in order",
            vec![paris(), lyon(), flights()],
            Outcome::Correct,
            Some(true),
            false,
        ),
        (
            "reversed",
            vec![flights(), lyon(), paris()],
            Outcome::Correct,
            Some(true),
            false,
        ),
        (
            "one call cannot answer two",
            vec![paris(), paris(), flights()],
            Outcome::WrongArgs,
            Some(true),
            false,
        ),
        (
            "a tool never called",
            vec![lyon(), paris()],
            Outcome::WrongTool,
            Some(true),
            false,
        ),
        (
            "first pick outside the set",
            vec![
                call("book_flight", json!({}), false),
                paris(),
                lyon(),
                flights(),
            ],
            Outcome::WrongTool,
            Some(false),
            false,
        ),
        (
            "retry after an error",
            vec![
                call("get_weather", json!({"city": "Lyon, FR"}), true),
                lyon(),
                paris(),
                flights(),
            ],
            Outcome::Correct,
            Some(true),
            true,
        ),
        (
            "wrong argument",
            vec![
                paris(),
                call("get_weather", json!({"city": "Nice"}), false),
                flights(),
            ],
            Outcome::WrongArgs,
            Some(true),
            false,
        ),
    ];
    for (name, calls, outcome, selection, self_corrected) in cases {
        let verdict = score(&two_cities, &trial(calls));
        check(name, &verdict, outcome, selection, self_corrected);
    }
    // The matching looks past a greedy first choice: the first call fits both expected calls.
    let greedy_trap = Expectation::AllOf(vec![
        expect_call("get_weather", json!({"city": ["Paris", "Lyon"]})),
        expect_call("get_weather", json!({"city": ["Paris"]})),
    ]);
    let verdict = score(
        &greedy_trap,
        &trial(vec![
            call("get_weather", json!({"city": "Paris"}), false),
            call("get_weather", json!({"city": "Lyon"}), false),
        ]),
    );
    assert_eq!(verdict.outcome, Outcome::Correct, "{verdict:?}");
}

#[test]
fn wrong_args_name_the_argument() {
    let weather = Expectation::Calls(vec![expect_call("get_weather", json!({"city": ["Paris"]}))]);
    let verdict = score(
        &weather,
        &trial(vec![call("get_weather", json!({"city": "Lyon"}), false)]),
    );
    assert_eq!(verdict.mismatches.len(), 1);
    assert_eq!(verdict.mismatches[0].argument, "city");
    assert!(verdict.detail.contains("city"), "{}", verdict.detail);
    let round_trip: Verdict =
        serde_json::from_str(&serde_json::to_string(&verdict).unwrap()).unwrap();
    assert_eq!(round_trip, verdict);
}

#[test]
fn a_call_the_tool_rejected_never_matches() {
    // The arguments the task checks are right, but the server rejected the call (an argument
    // the tool does not declare): not correct, until a retry succeeds.
    let weather = Expectation::Calls(vec![expect_call("get_weather", json!({"city": ["Paris"]}))]);
    let rejected = call("get_weather", json!({"city": "Paris", "extra": 1}), true);
    let verdict = score(&weather, &trial(vec![rejected.clone()]));
    assert_eq!(verdict.outcome, Outcome::WrongArgs);
    assert!(verdict.detail.contains("isError"), "{}", verdict.detail);
    let retried = call("get_weather", json!({"city": "Paris"}), false);
    let verdict = score(&weather, &trial(vec![rejected.clone(), retried.clone()]));
    assert_eq!(verdict.outcome, Outcome::Correct);
    assert!(verdict.self_corrected);
    let both = Expectation::AllOf(vec![
        expect_call("get_weather", json!({"city": ["Paris"]})),
        expect_call("get_weather", json!({"city": ["Rome"]})),
    ]);
    let rome = call("get_weather", json!({"city": "Rome"}), false);
    assert_eq!(
        score(&both, &trial(vec![rejected, rome.clone()])).outcome,
        Outcome::WrongArgs
    );
    assert_eq!(
        score(&both, &trial(vec![retried, rome])).outcome,
        Outcome::Correct
    );
}
