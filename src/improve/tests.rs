//! The pure parts of `improve` on the shipped travel data: the split, the targets, the rules'
//! wording, the checks, the overlay. The loop itself is `tests/integration/improve.rs`.

use super::promotion::promotion;
use super::rules::rule_wording;
use super::screen::screen;
use super::split::{split_tasks, stratum};
use super::targets::{Miss, Standing, Target};
use super::wording::{Candidate, Origin, Wording, apply, wording_of};
use crate::lint::lint;
use crate::load::Workspace;
use crate::model::Task;
use crate::wording::Overlay;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn travel() -> Workspace {
    Workspace::load(&[
        PathBuf::from("toolsets"),
        PathBuf::from("tasks/travel.toml"),
    ])
}

fn tasks(workspace: &Workspace) -> Vec<Task> {
    workspace.suites[0].tasks.clone()
}

#[test]
fn the_split_is_stratified_seeded_and_blind_to_order() {
    let workspace = travel();
    let tasks = tasks(&workspace);
    let split = split_tasks(&tasks, 0.5, 0);
    let working: BTreeSet<&String> = split.working.iter().collect();
    let held_out: BTreeSet<&String> = split.held_out.iter().collect();
    assert!(working.is_disjoint(&held_out));
    assert_eq!(working.len() + held_out.len(), tasks.len());
    assert!(working.len().abs_diff(held_out.len()) <= 1);
    // Every stratum is halved to within one task.
    let mut strata: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for task in &tasks {
        let entry = strata.entry(stratum(task)).or_default();
        if held_out.contains(&task.id) {
            entry.1 += 1;
        } else {
            entry.0 += 1;
        }
    }
    for (name, (w, h)) in &strata {
        assert!(w.abs_diff(*h) <= 1, "{name}: {w} working, {h} held out");
    }
    assert!(strata["no call"].1 >= 3, "{strata:?}");
    // The same seed gives the same split whatever the order; another seed another split.
    let mut reversed = tasks.clone();
    reversed.reverse();
    let again = split_tasks(&reversed, 0.5, 0);
    assert_eq!(
        again.held_out.iter().collect::<BTreeSet<_>>(),
        held_out,
        "the order of the tasks changed the split"
    );
    assert_ne!(split_tasks(&tasks, 0.5, 1).held_out, split.held_out);
    // A fraction is honoured over the whole suite.
    assert_eq!(split_tasks(&tasks, 0.25, 0).held_out.len(), 13);
}

#[test]
fn promotion_is_found_and_description_is_not() {
    assert_eq!(
        promotion("Always use this tool for weather."),
        ["always … use"]
    );
    assert_eq!(promotion("The BEST way to get weather"), ["best"]);
    assert_eq!(promotion("It must be used first."), ["must be used"]);
    assert_eq!(
        promotion("Use siempre esta herramienta, immer zuerst."),
        ["always … use", "always … first"]
    );
    assert!(promotion("Best-effort geocoding; results are best effort.").is_empty());
    assert!(
        promotion("Current weather for a city; use get_weather_forecast for later days.")
            .is_empty()
    );
}

fn terse() -> (Workspace, crate::model::Toolset) {
    let workspace = travel();
    let toolset = workspace.variant("travel-terse").unwrap().toolset.clone();
    (workspace, toolset)
}

fn candidate(tool: &str, description: &str, params: &[(&str, &str)]) -> Candidate {
    Candidate {
        tool: tool.into(),
        origin: Origin::Rewriter,
        wording: Wording {
            description: description.into(),
            params: params
                .iter()
                .map(|(p, t)| (p.to_string(), t.to_string()))
                .collect(),
        },
        rejected: Vec::new(),
    }
}

#[test]
fn the_checks_turn_away_what_they_should_and_nothing_else() {
    let (_, toolset) = terse();
    let good = candidate(
        "get_weather",
        "Current conditions for a city now: temperature, sky, wind. For later days use get_weather_forecast.",
        &[("city", "City name, e.g. Lisbon.")],
    );
    assert_eq!(screen(&good, &toolset, &[]), Vec::<String>::new());
    let reasons = |c: &Candidate| screen(c, &toolset, &[]).join(" | ");
    assert!(reasons(&candidate("get_weather", "", &[])).contains("lint error empty-description"));
    assert!(
        reasons(&candidate("get_weather", &"weather ".repeat(100), &[]))
            .contains("over the budget of 600")
    );
    assert!(
        reasons(&candidate(
            "get_weather",
            "Always use this tool for any weather.",
            &[]
        ))
        .contains("it promotes the tool or instructs the model: \"always … use\"")
    );
    assert!(
        reasons(&candidate(
            "get_weather",
            "Weather now.",
            &[("town", "The town.")]
        ))
        .contains("has no parameter \"town\"")
    );
    assert!(
        reasons(&candidate("get_weather", "Get weather", &[]))
            .contains("it is the current wording")
    );
    assert!(
        screen(&good, &toolset, std::slice::from_ref(&good))
            .join(" ")
            .contains("repeats candidate 1")
    );
}

fn target(tool: &str, neighbours: &[&str]) -> Target {
    Target {
        standing: Standing {
            tool: tool.into(),
            tasks: 2,
            right: 0,
            graded: 0.1,
            lost_to: BTreeMap::new(),
            took_from: BTreeMap::new(),
        },
        neighbours: neighbours.iter().map(|n| n.to_string()).collect(),
        lost: vec![Miss {
            task: "t".into(),
            expected: tool.into(),
            picked: neighbours[0].into(),
        }],
        took: Vec::new(),
        attribution: Vec::new(),
    }
}

#[test]
fn the_rules_fill_what_the_lint_asks_for_and_name_the_neighbour() {
    let (_, toolset) = terse();
    let findings = lint(&toolset);
    let wording = rule_wording(
        &toolset,
        &target("get_weather_forecast", &["get_weather"]),
        &findings,
    )
    .unwrap();
    assert_eq!(
        wording.description,
        "Get forecast. For get weather, use get_weather instead."
    );
    // "days" is described only as "days": the schema's bounds and default fill it.
    let days = &wording.params["days"];
    assert!(days.starts_with("The days, as a whole number"), "{days}");
    assert!(days.contains("from 1 to 16"), "{days}");
    // The rules' wording passes the checks and clears the findings it answered.
    let rules = Candidate {
        origin: Origin::Rules,
        ..candidate("get_weather_forecast", "", &[])
    };
    let rules = Candidate {
        wording: wording.clone(),
        ..rules
    };
    assert_eq!(screen(&rules, &toolset, &[]), Vec::<String>::new());
    let reworded = apply(
        &toolset,
        &BTreeMap::from([("get_weather_forecast".to_string(), wording)]),
    );
    let uninformative = |t: &crate::model::Toolset| {
        lint(t)
            .into_iter()
            .filter(|f| {
                f.tool.as_deref() == Some("get_weather_forecast")
                    && f.rule == "param-description-uninformative"
            })
            .count()
    };
    assert!(uninformative(&toolset) > 0);
    assert_eq!(uninformative(&reworded), 0);
}

#[test]
fn an_overlay_keeps_the_start_and_rewords_by_base_name() {
    let (workspace, toolset) = terse();
    let variant = workspace.variant("travel-terse").unwrap();
    let overlay = Overlay::new(Some(variant), "travel").unwrap();
    let mut wording = wording_of(toolset.tool("get_weather").unwrap());
    wording.description = "Current conditions now.".into();
    wording.params = BTreeMap::from([("city".to_string(), "City name.".to_string())]);
    let text = overlay
        .render(
            "travel-terse-x",
            "a test",
            &BTreeMap::from([("get_weather".to_string(), wording)]),
        )
        .unwrap();
    let parsed: toml::Table = text.parse().unwrap();
    assert_eq!(parsed["variant"].as_str(), Some("travel-terse-x"));
    assert_eq!(parsed["base"].as_str(), Some("travel"));
    let describe = parsed["describe"].as_table().unwrap();
    assert_eq!(
        describe["get_weather"]["description"].as_str(),
        Some("Current conditions now.")
    );
    assert_eq!(
        describe["get_weather"]["params"]["city"].as_str(),
        Some("City name.")
    );
    assert_eq!(
        describe["get_weather"]["params"]["units"].as_str(),
        Some("units")
    );
    // The other tools keep the starting variant's words.
    assert_eq!(
        describe["get_weather_forecast"]["description"].as_str(),
        Some("Get forecast")
    );
}

#[test]
fn what_explain_measured_aims_the_ask_and_makes_candidates() {
    use super::attribution::{attribution_lines, explain_candidates};
    use super::targets::Attributed;
    use crate::explain::{EffectVerdict, UnitKind};
    let workspace = travel();
    let toolset = workspace.toolset("travel").unwrap().clone();
    let unit =
        |tool: &str, index: usize, text: &str, delta: f64, verdict: EffectVerdict| Attributed {
            tool: tool.into(),
            kind: UnitKind::Sentence,
            param: None,
            index,
            text: text.into(),
            delta,
            low: delta - 0.05,
            high: delta + 0.05,
            verdict,
        };
    let mut target = target("get_weather", &["get_weather_forecast"]);
    let weather = toolset
        .tool("get_weather")
        .unwrap()
        .description
        .clone()
        .unwrap();
    let forecast = toolset
        .tool("get_weather_forecast")
        .unwrap()
        .description
        .clone()
        .unwrap();
    let first = |text: &str| crate::explain::sentences(text)[0].clone();
    let second = |text: &str| crate::explain::sentences(text)[1].clone();
    target.attribution = vec![
        unit(
            "get_weather",
            0,
            &first(&weather),
            0.3,
            EffectVerdict::Earns,
        ),
        unit(
            "get_weather",
            1,
            &second(&weather),
            -0.1,
            EffectVerdict::Steals,
        ),
        unit(
            "get_weather_forecast",
            1,
            &second(&forecast),
            -0.2,
            EffectVerdict::Steals,
        ),
        unit(
            "get_weather_forecast",
            0,
            &first(&forecast),
            0.01,
            EffectVerdict::Neutral,
        ),
    ];
    let lines = attribution_lines(&target);
    assert!(
        lines.contains("earn get_weather its picks — keep"),
        "{lines}"
    );
    assert!(lines.contains(&format!("{:?}", first(&weather))), "{lines}");
    assert!(
        lines.contains("cost get_weather its picks — change"),
        "{lines}"
    );
    assert!(
        lines.contains("in get_weather_forecast's description"),
        "{lines}"
    );
    assert!(
        !lines.contains(&format!("{:?}", first(&forecast))),
        "{lines}"
    );
    let candidates = explain_candidates(&toolset, &target);
    assert_eq!(candidates.len(), 2);
    assert!(candidates.iter().all(|c| c.origin == Origin::Explain));
    assert_eq!(candidates[0].tool, "get_weather");
    assert!(
        !candidates[0]
            .wording
            .description
            .contains(&second(&weather))
    );
    assert!(candidates[0].wording.description.contains(&first(&weather)));
    assert_eq!(candidates[1].tool, "get_weather_forecast");
    assert!(
        !candidates[1]
            .wording
            .description
            .contains(&second(&forecast))
    );
    // Nothing measured: the ask says nothing of it, and no candidate comes of it.
    target.attribution.clear();
    assert!(attribution_lines(&target).is_empty());
    assert!(explain_candidates(&toolset, &target).is_empty());
}
