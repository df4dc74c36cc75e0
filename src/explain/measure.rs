//! The measurement `explain` (and `improve --explain`) makes: the leave-one-out variant files
//! written, the `base` run (the wording as it is) and one run per unit (`unit-NN`), each on the
//! tasks the units can move, in run folders (so a killed measurement resumes where it stopped),
//! unit runs restoring the prefix cache without saving to it; each unit's effects as its run
//! ends. What each run cost this process (time, tokens evaluated and restored) is kept in a file
//! (`DIR/.explain/costs.json`), added to on a resume.

use super::attribution::{MeasuredUnit, UnitCost, measure_name, task_values, unit_effects};
use super::units::Unit;
use super::variants::LeaveOneOut;
use crate::backend::PrefixCacheUse;
use crate::runner::{FolderRun, RunSet, Stop};
use crate::work_folder::write;
use std::collections::BTreeMap;
use std::path::Path;

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

/// Adds what `run` cost this process to run `name`'s entry in the file at `path`; the entry.
pub(super) fn record_cost(
    path: &Path,
    name: &str,
    run: &FolderRun,
) -> Result<Option<UnitCost>, String> {
    let mut costs = read_costs(path);
    add_cost(&mut costs, name, run);
    write(
        path,
        &serde_json::to_string_pretty(&costs).unwrap_or_default(),
    )?;
    Ok(costs.get(name).copied())
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
    pub stopped: Option<(Stop, String)>,
}

/// Runs the wording as it is and each leave-one-out wording on `tasks`, and each unit's effects;
/// `on_unit` hears after every unit. A run that cannot start is an error; one stopped (Ctrl-C,
/// budget, backend) ends the measurement with what it has.
pub async fn measure_units(
    m: &Measurement<'_>,
    say: &mut dyn FnMut(String),
    on_unit: &mut dyn FnMut(&Measured) -> Result<(), String>,
) -> Result<Measured, String> {
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
    measured.base_cost = record_cost(m.costs_path, &base_name, &base.run)?;
    measured.measure = measure_name(&base.trials);
    if let Some(stopped) = base.run.stopped() {
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
        let cost = record_cost(m.costs_path, &name, &run.run)?;
        let without = task_values(&run.trials);
        let entry = &mut measured.units[k];
        (entry.effects, entry.on_neighbours) =
            unit_effects(&variant.unit, m.groups, &with, &without);
        entry.cost = cost;
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
        if let Some(stopped) = run.run.stopped() {
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
