//! `explain`'s entry: the starting wording loaded and the folder held (`work_folder`, bound to the
//! settings); the tools chosen — named, checked against the toolset, or the most confused in a
//! `survey` run of the whole suite — with their neighbours; the tasks they can move; the units and
//! their leave-one-out variants; the measurement (`measure`) with the write-up rewritten after
//! every unit; and the time every invocation spent added up.

use super::measure::{Measured, Measurement, measure_units, record_cost};
use super::scope::{most_confused, similar_tools, task_groups, trading_partners};
use super::units::{Unit, units};
use super::variants::leave_one_out;
use super::write_up::{Explanation, write_all};
use super::{Ending, ExplainSettings, refusal};
use crate::record::StoredTrial;
use crate::runner::RunSet;
use crate::wording::{Start, load_start};
use crate::work_folder::WorkFolder;
use std::collections::BTreeMap;
use std::time::Instant;

/// The part of the settings a folder is bound to.
fn fingerprint(settings: &ExplainSettings) -> serde_json::Value {
    serde_json::json!({
        "suite": settings.suite, "variant": settings.variant, "tools": settings.tools,
        "neighbours": settings.neighbours, "keep_order": settings.keep_order,
        "backends": settings.run.backends, "repeats": settings.run.repeats,
        "model": settings.run.backend.local.model,
    })
}

/// The tools named, checked against the toolset.
fn named_tools(start: &Start, tools: &[String]) -> Result<Vec<String>, String> {
    for tool in tools {
        if start.toolset.tool(tool).is_none() {
            return Err(format!(
                "--tool {tool}: toolset {} (as {} words it) has no such tool (tools: {})",
                start.toolset.name,
                start.label,
                start
                    .toolset
                    .tools
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !start.overlay.describable(tool) {
            return Err(format!(
                "--tool {tool}: the variant {} adds this tool, and an overlay cannot reword it; explain the variant's own file as a toolset instead",
                start.label
            ));
        }
    }
    Ok(tools.to_vec())
}

/// Each chosen tool's `k` neighbours: the tools that trade picks with it in `survey`, then the
/// ones whose descriptions read most like its own; never a chosen tool, never twice.
fn neighbours_of(
    start: &Start,
    chosen: &[String],
    k: usize,
    survey: Option<&[StoredTrial]>,
) -> Vec<String> {
    let mut picked: Vec<String> = Vec::new();
    for tool in chosen {
        let trading = survey.map_or_else(Vec::new, |trials| trading_partners(trials, tool));
        let similar = similar_tools(&start.toolset, tool, start.toolset.tools.len());
        let mut taken = 0;
        for candidate in trading.into_iter().chain(similar) {
            if taken == k {
                break;
            }
            if chosen.contains(&candidate)
                || picked.contains(&candidate)
                || start.toolset.tool(&candidate).is_none()
                || !start.overlay.describable(&candidate)
            {
                continue;
            }
            picked.push(candidate);
            taken += 1;
        }
    }
    picked
}

/// Runs `explain`; `say` gets each progress line.
pub async fn explain(
    settings: &ExplainSettings,
    say: &mut dyn FnMut(String),
) -> Result<(Ending, Explanation), String> {
    let started = Instant::now();
    let backend = settings
        .run
        .backends
        .first()
        .ok_or("give --backend, the model whose picks are measured")?;
    if let Some(why) = refusal(backend) {
        return Err(why);
    }
    // A Ctrl-C between two runs (no run listens then) stops the next one at its start.
    let _stop = crate::interrupt::StopWatch::start();
    let start = load_start(&settings.suite, settings.variant.as_deref(), "explain")?;
    let named = named_tools(&start, &settings.tools)?;
    let folder = WorkFolder::open(&settings.out, "explain", &fingerprint(settings))?;
    if folder.resumed {
        say(format!(
            "resuming the explain in {}",
            settings.out.display()
        ));
    }
    let costs_path = folder.state.join("costs.json");
    let template = settings.run.clone().first_pick_only();
    let mut runs = RunSet {
        template,
        paths: start.run_paths(),
        folder: settings.out.join("runs"),
        budget: settings.run.budget,
        progress: settings.progress,
    };
    let arm = std::slice::from_ref(&start.label);

    let (chosen, survey) = if named.is_empty() {
        say(format!(
            "survey: {} on the {} tasks of {}, to find the most confused tool",
            start.label,
            start.suite.tasks.len(),
            start.suite.name
        ));
        let survey = runs.run("survey", arm, &[], &[]).await?;
        record_cost(&costs_path, "survey", &survey.run)?;
        if let Some((how, why)) = survey.run.stopped() {
            let mut explanation = Explanation::new(
                &start,
                backend,
                &[],
                &[],
                &[],
                settings.keep_order,
                Vec::new(),
            );
            explanation.stopped = Some(format!("the survey run stopped: {why}"));
            return Ok((Ending::from(how), explanation));
        }
        let candidates: Vec<String> = start
            .toolset
            .tools
            .iter()
            .map(|t| t.name.clone())
            .filter(|t| start.overlay.describable(t))
            .collect();
        let tool = most_confused(&survey.trials, &candidates).ok_or_else(|| {
            format!(
                "no tool of {} lost or took a pick in the survey run ({}): nothing stands out to explain; name one with --tool",
                start.toolset.name,
                runs.path("survey").display()
            )
        })?;
        say(format!("the most confused tool: {tool}"));
        (vec![tool], Some(survey.trials))
    } else {
        (named, None)
    };
    let neighbours = neighbours_of(&start, &chosen, settings.neighbours, survey.as_deref());
    let measured: Vec<String> = chosen.iter().chain(&neighbours).cloned().collect();
    let groups = task_groups(&start.suite, &measured);
    let tasks: Vec<String> = start
        .suite
        .tasks
        .iter()
        .map(|t| t.id.clone())
        .filter(|id| groups.iter().any(|(_, tasks)| tasks.contains(id)))
        .collect();
    if tasks.is_empty() {
        return Err(format!(
            "suite {} has no task that expects {} and no no-call task: nothing could show a unit's effect",
            start.suite.name,
            measured.join(", ")
        ));
    }
    let unit_list: Vec<Unit> = measured
        .iter()
        .filter_map(|tool| start.toolset.tool(tool))
        .flat_map(units)
        .collect();
    let variants = leave_one_out(
        &start.overlay,
        &BTreeMap::new(),
        &start.toolset,
        &start.stem,
        &unit_list,
    )?;
    if !settings.keep_order {
        runs.template.listed_last = measured.clone();
    }
    let mut explanation = Explanation::new(
        &start,
        backend,
        &chosen,
        &neighbours,
        &groups,
        settings.keep_order,
        Vec::new(),
    );
    say(format!(
        "{} unit(s) of {} ({} measured, {} neighbour(s)) on {} task(s): {}",
        variants.len(),
        measured.join(", "),
        chosen.join(", "),
        neighbours.len(),
        tasks.len(),
        groups
            .iter()
            .map(|(on, tasks)| format!("{on} {}", tasks.len()))
            .collect::<Vec<_>>()
            .join(", ")
    ));

    let measurement = Measurement {
        runs: &runs,
        prefix: "",
        variants: &variants,
        variant_dir: &settings.out.join("variants"),
        base_arm: &start.label,
        base_files: &[],
        tasks: &tasks,
        groups: &groups,
        costs_path: &costs_path,
    };
    let on_unit = &mut |units: &Measured| -> Result<(), String> {
        explanation.measure = units.measure.clone();
        explanation.base_cost = units.base_cost;
        explanation.units = units.units.clone();
        write_all(&settings.out, &explanation)
    };
    let measured = measure_units(&measurement, say, on_unit).await?;
    explanation.measure = measured.measure.clone();
    explanation.base_cost = measured.base_cost;
    explanation.units = measured.units;
    explanation.stopped = measured.stopped.as_ref().map(|(_, why)| why.clone());
    explanation.complete = measured.stopped.is_none();
    explanation.seconds = folder.add_seconds(started.elapsed().as_secs_f64())?;
    write_all(&settings.out, &explanation)?;
    Ok((
        measured
            .stopped
            .map_or(Ending::Done, |(how, _)| Ending::from(how)),
        explanation,
    ))
}
