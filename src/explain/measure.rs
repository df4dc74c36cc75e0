//! `explain`'s steps, strung together: the starting wording loaded and the folder held; the tools
//! chosen (named, or the most confused in a `survey` run of the whole suite) with their
//! neighbours; the units and their leave-one-out variant files; the `base` run (the wording as it
//! is) and one run per unit (`unit-NN`), each on the tasks the units can move, in run folders under
//! `DIR/runs/`, so a killed explain resumes where it stopped; the write-up rewritten after each.
//! What each run cost this process (time, tokens evaluated and restored) is kept in
//! `DIR/.explain/costs.json`, added to on a resume.

use super::attribution::{MeasuredUnit, UnitCost, measure_name, task_values, unit_effects};
use super::scope::{most_confused, similar_tools, task_groups, trading_partners};
use super::units::{Unit, units};
use super::variants::{LeaveOneOut, leave_one_out};
use super::write_up::{Explanation, write_all};
use super::{Ending, ExplainSettings, refusal};
use crate::backend::PrefixCacheUse;
use crate::record::StoredTrial;
use crate::runner::{FolderRun, RunSet};
use crate::wording::{Start, load_start};
use crate::work_folder::{WorkFolder, write};
use std::collections::BTreeMap;
use std::path::Path;
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

/// What each run cost, by run name.
type Costs = BTreeMap<String, UnitCost>;

fn read_costs(path: &Path) -> Costs {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Adds what `run` cost this process to `name`'s entry.
fn add_cost(costs: &mut Costs, name: &str, run: &FolderRun) {
    if run.ran == 0 {
        return;
    }
    let entry = costs.entry(name.to_string()).or_default();
    entry.seconds += run.seconds;
    for (_, work) in &run.local_work {
        entry.evaluated += work.batched;
        entry.restored += work.restored;
    }
}

fn ending_of(run: &FolderRun) -> Option<(Ending, String)> {
    if run.interrupted {
        return Some((
            Ending::Interrupted,
            "interrupted; the same command resumes".into(),
        ));
    }
    if run.budget_reached {
        return Some((Ending::Incomplete, "the budget is spent".into()));
    }
    run.halted.first().map(|(backend, why)| {
        (
            Ending::Incomplete,
            format!("backend {backend} was stopped: {why}"),
        )
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
    let mut costs = read_costs(&costs_path);
    let mut template = settings.run.clone();
    // Only the first pick is measured: one turn is all a trial needs, and an embedded model need
    // not write the arguments of its pick.
    template.max_turns = 1;
    template.backend.local.pick_only = Some(true);
    let mut runs = RunSet {
        template,
        paths: std::iter::once(settings.suite.clone())
            .chain(start.files.iter().cloned())
            .collect(),
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
        add_cost(&mut costs, "survey", &survey.run);
        write(
            &costs_path,
            &serde_json::to_string_pretty(&costs).unwrap_or_default(),
        )?;
        if let Some((ending, why)) = ending_of(&survey.run) {
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
            return Ok((ending, explanation));
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
        measured.stopped.map_or(Ending::Done, |(ending, _)| ending),
        explanation,
    ))
}

/// What the leave-one-out runs measure: where they run and on what.
pub struct Measurement<'a> {
    /// The runs' settings and folder; the measured tools' order is the caller's to set.
    pub runs: &'a RunSet,
    /// Before each run's name (`base`, `unit-NN`), for a caller that measures more than once.
    pub prefix: &'a str,
    pub variants: &'a [LeaveOneOut],
    /// Where the variant files are written.
    pub variant_dir: &'a Path,
    /// The wording as it is: its arm, and the files that define it beyond the runs' paths.
    pub base_arm: &'a str,
    pub base_files: &'a [std::path::PathBuf],
    pub tasks: &'a [String],
    pub groups: &'a [(String, Vec<String>)],
    /// Where what each run cost is kept.
    pub costs_path: &'a Path,
}

/// What the runs measured (so far: `stopped` says why not all).
#[derive(Debug, Clone, Default)]
pub struct Measured {
    pub measure: String,
    pub base_cost: Option<UnitCost>,
    /// Every unit; those not run yet have no effects.
    pub units: Vec<MeasuredUnit>,
    pub stopped: Option<(Ending, String)>,
}

/// Runs the wording as it is and each leave-one-out wording on `tasks`, and each unit's effects;
/// `on_unit` hears after every unit. A run that cannot start is an error; one stopped (Ctrl-C,
/// budget, backend) ends the measurement with what it has.
pub async fn measure_units(
    m: &Measurement<'_>,
    say: &mut dyn FnMut(String),
    on_unit: &mut dyn FnMut(&Measured) -> Result<(), String>,
) -> Result<Measured, String> {
    let mut costs = read_costs(m.costs_path);
    let mut measured = Measured {
        units: m
            .variants
            .iter()
            .map(|v| MeasuredUnit {
                unit: v.unit.clone(),
                variant: v.name.clone(),
                effects: Vec::new(),
                on_neighbours: None,
                cost: None,
            })
            .collect(),
        ..Measured::default()
    };
    for variant in m.variants {
        write(
            &m.variant_dir.join(format!("{}.toml", variant.name)),
            &variant.text,
        )?;
    }
    say(format!(
        "base: {} on the {} tasks",
        m.base_arm,
        m.tasks.len()
    ));
    let base_name = format!("{}base", m.prefix);
    let base = m
        .runs
        .run(&base_name, &[m.base_arm.to_string()], m.base_files, m.tasks)
        .await?;
    add_cost(&mut costs, &base_name, &base.run);
    write(
        m.costs_path,
        &serde_json::to_string_pretty(&costs).unwrap_or_default(),
    )?;
    measured.base_cost = costs.get(&base_name).copied();
    measured.measure = measure_name(&base.trials);
    if let Some(stopped) = ending_of(&base.run) {
        measured.stopped = Some(stopped);
        return Ok(measured);
    }
    let with = task_values(&base.trials);
    // Each unit's wording is prompted by its own run alone: restored from the base's prefix, not
    // saved (an entry of a long tool list is a hundred megabytes or more), unless the cache is off.
    let mut unit_runs = m.runs.clone();
    if unit_runs.template.backend.local.kv_cache != Some(PrefixCacheUse::Off) {
        unit_runs.template.backend.local.kv_cache = Some(PrefixCacheUse::RestoreOnly);
    }
    let count = m.variants.len();
    for (k, variant) in m.variants.iter().enumerate() {
        let name = format!("{}unit-{:02}", m.prefix, k + 1);
        say(format!(
            "unit {} of {count} · {} · {}",
            k + 1,
            variant.unit.tool,
            shown_unit(&variant.unit)
        ));
        let mut files = m.base_files.to_vec();
        files.push(m.variant_dir.join(format!("{}.toml", variant.name)));
        let run = unit_runs
            .run(&name, std::slice::from_ref(&variant.name), &files, m.tasks)
            .await?;
        add_cost(&mut costs, &name, &run.run);
        write(
            m.costs_path,
            &serde_json::to_string_pretty(&costs).unwrap_or_default(),
        )?;
        let without = task_values(&run.trials);
        let entry = &mut measured.units[k];
        (entry.effects, entry.on_neighbours) =
            unit_effects(&variant.unit, m.groups, &with, &without);
        entry.cost = costs.get(&name).copied();
        if let Some(own) = entry.on(&variant.unit.tool) {
            say(format!(
                "  on {}'s tasks: {:+.3} [{:+.3}, {:+.3}] {}",
                own.on,
                own.delta,
                own.low,
                own.high,
                own.verdict.as_str()
            ));
        }
        if let Some(stopped) = ending_of(&run.run) {
            measured.stopped = Some(stopped);
            return Ok(measured);
        }
        on_unit(&measured)?;
    }
    Ok(measured)
}

/// A unit as a progress line shows it: its label and the start of its text.
pub(super) fn shown_unit(unit: &Unit) -> String {
    let text = crate::untrusted_text::shown(&unit.text, 60);
    match &unit.param {
        Some(param) => format!("parameter {param}: {text}"),
        None => format!("sentence {}: {text}", unit.index + 1),
    }
}
