//! `improve --explain`: before a round proposes, what in the descriptions moves each target's
//! picks, measured as `explain` measures it — each sentence and parameter description of the target
//! and of its neighbours left out in turn, on the working tasks they can move, under the round's
//! wording (runs `rN-explain-TOOL-…` under `DIR/runs/`, resumed like every other run). The units
//! that earn the target its picks and those that steal them go into the rewriter's ask (keep what
//! earns, change what steals), and the strongest stealing unit of the target, and of a neighbour,
//! each become a candidate without it (`explain_candidates`: the neighbour narrowed).

use super::Context;
use super::targets::{Attributed, Target};
use super::wording::{Candidate, Origin, Wording};
use crate::explain::{
    EffectVerdict, Measurement, UnitKind, description_without, leave_one_out, measure_units,
    ranked, similar_tools, task_groups, units,
};
use crate::wording::apply;
use std::collections::BTreeMap;

/// Neighbours measured beside a target.
const NEIGHBOURS: usize = 2;

/// What moves `target`'s picks under `wordings` (the round's wording, labelled `label`); a run
/// stopped (Ctrl-C, budget) comes back as `Err` with how and why.
pub(super) async fn attribute(
    context: &Context<'_>,
    wordings: &BTreeMap<String, Wording>,
    label: &str,
    number: u32,
    target: &Target,
    say: &mut dyn FnMut(String),
) -> Result<Result<Vec<Attributed>, (crate::runner::Stop, String)>, String> {
    let start = context.start;
    let tool = &target.standing.tool;
    let toolset = apply(&start.toolset, wordings);
    let mut measured = vec![tool.clone()];
    for candidate in
        target
            .neighbours
            .iter()
            .cloned()
            .chain(similar_tools(&toolset, tool, toolset.tools.len()))
    {
        if measured.len() > NEIGHBOURS {
            break;
        }
        if !measured.contains(&candidate)
            && toolset.tool(&candidate).is_some()
            && start.overlay.describable(&candidate)
        {
            measured.push(candidate);
        }
    }
    let mut groups = task_groups(&start.suite, &measured);
    for (_, tasks) in &mut groups {
        tasks.retain(|t| context.split.working.contains(t));
    }
    groups.retain(|(_, tasks)| !tasks.is_empty());
    let tasks: Vec<String> = context
        .split
        .working
        .iter()
        .filter(|t| groups.iter().any(|(_, ids)| ids.contains(t)))
        .cloned()
        .collect();
    let unit_list: Vec<_> = measured
        .iter()
        .filter_map(|t| toolset.tool(t))
        .flat_map(units)
        .collect();
    let stem = format!("{}-r{number}-{tool}", start.stem);
    let variants = leave_one_out(&start.overlay, wordings, &toolset, &stem, &unit_list)?;
    let mut runs = context.runs.clone();
    runs.template.listed_last = measured.clone();
    let variant_dir = context.settings.out.join("variants");
    let base_files: Vec<std::path::PathBuf> = if label == start.label {
        Vec::new()
    } else {
        vec![variant_dir.join(format!("{label}.toml"))]
    };
    let prefix = format!("r{number}-explain-{tool}-");
    say(format!(
        "round {number}: explaining {tool} ({} unit(s) of {}) on {} working task(s)",
        variants.len(),
        measured.join(", "),
        tasks.len()
    ));
    let measurement = Measurement {
        runs: &runs,
        prefix: &prefix,
        variants: &variants,
        variant_dir: &variant_dir,
        base_arm: label,
        base_files: &base_files,
        tasks: &tasks,
        groups: &groups,
        costs_path: &context
            .settings
            .out
            .join(".improve")
            .join("explain-costs.json"),
    };
    let result = measure_units(&measurement, say, &mut |_| Ok(())).await?;
    if let Some(stopped) = result.stopped {
        return Ok(Err(stopped));
    }
    Ok(Ok(ranked(&result.units, tool)
        .into_iter()
        .map(|(unit, effect)| Attributed {
            tool: unit.unit.tool.clone(),
            kind: unit.unit.kind.clone(),
            param: unit.unit.param.clone(),
            index: unit.unit.index,
            text: unit.unit.text.clone(),
            delta: effect.delta,
            low: effect.low,
            high: effect.high,
            verdict: effect.verdict,
        })
        .collect()))
}

/// The lines of the rewriter's ask that tell what was measured for `target`.
pub fn attribution_lines(target: &Target) -> String {
    let tool = &target.standing.tool;
    let line = |a: &Attributed| {
        format!(
            "- {:?} ({:+.2} [{:+.2}, {:+.2}])\n",
            a.text, a.delta, a.low, a.high
        )
    };
    let earns: String = target
        .attribution
        .iter()
        .filter(|a| a.tool == *tool && a.verdict == EffectVerdict::Earns)
        .map(line)
        .collect();
    let costs: String = target
        .attribution
        .iter()
        .filter(|a| a.tool == *tool && a.verdict == EffectVerdict::Steals)
        .map(line)
        .collect();
    let taken: Vec<String> = target
        .attribution
        .iter()
        .filter(|a| a.tool != *tool && a.verdict == EffectVerdict::Steals)
        .map(|a| {
            format!(
                "- in {}'s description: {}",
                a.tool,
                line(a).trim_start_matches("- ")
            )
        })
        .collect();
    if earns.is_empty() && costs.is_empty() && taken.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "Measured on the working requests, leaving each sentence out in turn (the change in how likely {tool} is picked for its own requests with the sentence, against without it):\n"
    );
    if !earns.is_empty() {
        text.push_str(&format!(
            "Sentences that earn {tool} its picks — keep what they say:\n{earns}"
        ));
    }
    if !costs.is_empty() {
        text.push_str(&format!(
            "Sentences that cost {tool} its picks — change or drop them:\n{costs}"
        ));
    }
    if !taken.is_empty() {
        text.push_str(&format!(
            "Sentences of other tools that take {tool}'s picks — say plainly which of these requests {tool} serves:\n{}",
            taken.concat()
        ));
    }
    text
}

/// The wording of `unit`'s tool without it, from `toolset`.
fn without(toolset: &crate::model::Toolset, unit: &Attributed) -> Option<Wording> {
    let tool = toolset.tool(&unit.tool)?;
    let mut wording = crate::wording::wording_of(tool);
    match (&unit.kind, &unit.param) {
        (UnitKind::Sentence, _) => {
            wording.description = description_without(&wording.description, unit.index);
        }
        (UnitKind::Parameter, Some(param)) => {
            wording.params.insert(param.clone(), String::new());
        }
        (UnitKind::Parameter, None) => return None,
    }
    Some(wording)
}

/// Candidates from the measurement: the target without the unit of its own that costs it most,
/// and its strongest thief without the unit that takes its picks (the neighbour narrowed).
pub fn explain_candidates(toolset: &crate::model::Toolset, target: &Target) -> Vec<Candidate> {
    let tool = &target.standing.tool;
    let strongest = |own: bool| {
        target
            .attribution
            .iter()
            .filter(|a| (a.tool == *tool) == own && a.verdict == EffectVerdict::Steals)
            .min_by(|a, b| a.delta.total_cmp(&b.delta))
    };
    [strongest(true), strongest(false)]
        .into_iter()
        .flatten()
        .filter_map(|unit| {
            Some(Candidate {
                tool: unit.tool.clone(),
                origin: Origin::Explain,
                wording: without(toolset, unit)?,
                rejected: Vec::new(),
            })
        })
        .collect()
}
