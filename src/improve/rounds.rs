//! `improve`'s loop, as its steps: the baseline run on the working part; then per round the
//! targets (`find_targets` under the current wording), the proposals (`propose`: the rewriter's and
//! the rules'), the screen (`screen_all`), the measured slates (`measure`: each written as a
//! variant file, run on the working part and judged against the round's baseline, its candidates
//! read on their own tools' tasks, then the combined slate), the choice (`slates::choose`: the
//! slate that raises the working part most and steals from no neighbour); and at the end the
//! confirmation on the held-out part (`confirm`). Before each costly step the schedule is asked whether it
//! leaves time for the held-out run. Each step is a function of its own; this file only strings
//! them together and saves the account after each.

use super::attribution::attribute;
use super::confirm::confirm;
use super::proposals::{journaled, propose, record_journal};
use super::screen::screen_all;
use super::slates::{self, slate_wordings};
use super::targets::{Target, find_targets};
use super::wording::{self, Wording};
use super::write_up::{Account, Round, Slate, Tried, judgement_line, render};
use super::{Context, Ending, ended, judge, stopped, variant_file, write};
use crate::document::markdown::markdown_document;
use crate::lint::lint;
use crate::record::StoredTrial;
use std::collections::BTreeMap;

/// The current wording: its label, its tools' new wordings (none: the starting wording), its
/// working trials.
struct Current {
    label: String,
    wordings: BTreeMap<String, Wording>,
    trials: Vec<StoredTrial>,
}

/// A step's result when a run was stopped (Ctrl-C, budget, a halted backend).
type Step<T> = Result<Result<T, Ending>, String>;

fn save(context: &Context<'_>, account: &Account) -> Result<(), String> {
    write(
        &context.settings.out.join("IMPROVE.md"),
        &markdown_document(&render(account)),
    )
}

/// Every round, then the confirmation; the account is saved after each step.
pub(super) async fn rounds(
    context: &mut Context<'_>,
    account: &mut Account,
    say: &mut dyn FnMut(String),
) -> Result<Ending, String> {
    let mut current = match baseline(context, account, say).await? {
        Ok(current) => current,
        Err(ending) => return Ok(ending),
    };
    let held_out = context.split.held_out.len();
    context.schedule.learn_runs(&current.trials, held_out);
    for number in 1..=context.settings.rounds {
        let targets = targets(context, &current, number, say);
        if targets.is_empty() {
            account.stopped = Some("no tool left to fix on the working part".into());
            break;
        }
        let asked = context.settings.candidates;
        if number == 1 {
            let rounds = context.settings.rounds;
            say(context.schedule.plan(rounds, targets.len(), asked));
        } else if !context
            .schedule
            .fits(context.schedule.round_seconds(targets.len(), asked))
        {
            account.stopped = Some(format!(
                "the --minutes budget leaves no time for round {number} and the held-out run"
            ));
            break;
        }
        let round = match candidates(context, &current, number, targets, account, say).await? {
            Ok(round) => round,
            Err(ending) => return Ok(ending),
        };
        account.rounds.push(round);
        save(context, account)?;
        let mut measured = match measure(context, &current, account, say).await? {
            Ok(measured) => measured,
            Err(ending) => return Ok(ending),
        };
        let round = account.rounds.last_mut().expect("pushed above");
        let Some(k) = slates::choose(&round.slates, &round.tried) else {
            account.stopped = Some(format!(
                "no candidate of round {number} improved the working part"
            ));
            break;
        };
        round.chosen = Some(k);
        let chosen = &round.slates[k];
        current.wordings = slate_wordings(&current.wordings, chosen, &round.tried);
        current.label = chosen.label.clone();
        current.trials = measured.remove(&k).expect("a chosen slate was run");
        save(context, account)?;
    }
    if current.wordings.is_empty() {
        return Ok(Ending::NotAdopted);
    }
    confirm(context, &current.wordings, account, say).await
}

/// The starting wording's trials on the working part.
async fn baseline(
    context: &Context<'_>,
    account: &mut Account,
    say: &mut dyn FnMut(String),
) -> Step<Current> {
    let (start, split) = (context.start, context.split);
    say(format!(
        "baseline: {} on the {} working tasks",
        start.label,
        split.working.len()
    ));
    let run = context
        .runs
        .run(
            "r1-baseline",
            std::slice::from_ref(&start.label),
            &[],
            &split.working,
        )
        .await?;
    if let Some(ending) = stopped(&run.run, account) {
        save(context, account)?;
        return Ok(Err(ending));
    }
    Ok(Ok(Current {
        label: start.label.clone(),
        wordings: BTreeMap::new(),
        trials: run.trials,
    }))
}

/// The weakest tools on the working part under the current wording.
fn targets(
    context: &Context<'_>,
    current: &Current,
    number: u32,
    say: &mut dyn FnMut(String),
) -> Vec<Target> {
    let start = context.start;
    let toolset = wording::apply(&start.toolset, &current.wordings);
    let targets = find_targets(
        &current.trials,
        &toolset,
        context.settings.targets.map_or(usize::MAX, |t| t as usize),
        &|tool| start.overlay.describable(tool),
    );
    if !targets.is_empty() {
        say(format!(
            "round {number}: targets {}",
            targets
                .iter()
                .map(|t| format!("{} ({:.2})", t.standing.tool, t.standing.graded))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    targets
}

/// The round's candidates, proposed and screened — or, for a resumed round, read back from its
/// journal, so the rewriter is asked nothing twice. With `--explain`, each target's attribution is
/// measured first (its runs resume like the others).
async fn candidates(
    context: &mut Context<'_>,
    current: &Current,
    number: u32,
    mut targets: Vec<Target>,
    account: &mut Account,
    say: &mut dyn FnMut(String),
) -> Step<Round> {
    if context.settings.explain {
        for target in &mut targets {
            match attribute(
                context,
                &current.wordings,
                &current.label,
                number,
                target,
                say,
            )
            .await?
            {
                Ok(attribution) => target.attribution = attribution,
                Err((how, why)) => {
                    let ending = ended(how, why, account);
                    save(context, account)?;
                    return Ok(Err(ending));
                }
            }
        }
    }
    let mut round = Round {
        number,
        baseline: current.label.clone(),
        targets,
        ..Round::default()
    };
    let screened = match journaled(context, number, &mut round) {
        Some(screened) => screened,
        None => {
            let toolset = wording::apply(&context.start.toolset, &current.wordings);
            let findings = lint(&toolset);
            let targets = round.targets.clone();
            let Some(proposed) = propose(
                context, number, &targets, &toolset, &findings, &mut round, say,
            )
            .await?
            else {
                account.stopped = Some("stopped while the rewriter was asked".into());
                save(context, account)?;
                return Ok(Err(Ending::Interrupted));
            };
            let mut screened = screen_all(proposed, &toolset);
            slates::rules_only_where_needed(&mut screened);
            record_journal(context, number, &screened, &round)?;
            screened
        }
    };
    let stem = &context.start.stem;
    round.tried = screened
        .into_iter()
        .enumerate()
        .map(|(k, candidate)| Tried {
            label: format!("{stem}-r{number}c{}", k + 1),
            candidate,
            judgement: None,
            error: None,
        })
        .collect();
    round.slates = slates::slates(&round.tried, stem, number);
    Ok(Ok(round))
}

/// Each slate written as a variant file, run on the working part and judged against the round's
/// baseline, each of its candidates read on its own tool's tasks; then, when two tools or more
/// gained, their best candidates combined and run the same way. Returns each run slate's trials by
/// its index.
async fn measure(
    context: &Context<'_>,
    current: &Current,
    account: &mut Account,
    say: &mut dyn FnMut(String),
) -> Step<BTreeMap<usize, Vec<StoredTrial>>> {
    let round_index = account.rounds.len() - 1;
    let mut measured = BTreeMap::new();
    let mut k = 0;
    loop {
        let round = &account.rounds[round_index];
        if k == round.slates.len() {
            let stem = &context.start.stem;
            match slates::combined(&round.tried, &round.slates, stem, round.number) {
                Some(slate) if !round.slates.iter().any(|s| s.combined) => {
                    account.rounds[round_index].slates.push(slate);
                }
                _ => break,
            }
        }
        if context.stop.stopped() {
            account.stopped = Some("stopped between runs on the working part".into());
            save(context, account)?;
            return Ok(Err(Ending::Interrupted));
        }
        let round = &account.rounds[round_index];
        let name = run_name(round.number, k, round.slates.get(k));
        let trials = context.split.working.len() * context.settings.run.repeats.max(1) as usize;
        let done = context.runs.finished(&name, trials);
        if !done
            && !context
                .schedule
                .fits(context.schedule.working_run_seconds())
        {
            for slate in &mut account.rounds[round_index].slates[k..] {
                slate.error = Some("not run: the --minutes budget leaves no time for it".into());
            }
            say("the --minutes budget leaves no time for more runs on the working part".into());
            if measured.is_empty() {
                // Nothing to choose from: a stop, not a verdict; the same command goes on.
                account.stopped = Some(
                    "the --minutes budget left no time for a run on the working part; run the same command again to go on".into(),
                );
                save(context, account)?;
                return Ok(Err(Ending::Incomplete));
            }
            break;
        }
        match measure_slate(context, current, account, round_index, k, say).await? {
            Ok(Some(trials)) => {
                measured.insert(k, trials);
            }
            Ok(None) => {}
            Err(ending) => return Ok(Err(ending)),
        }
        save(context, account)?;
        k += 1;
    }
    Ok(Ok(measured))
}

/// Runs slate `k` of the round and judges it and each of its candidates; its trials when they
/// compare with the baseline's.
async fn measure_slate(
    context: &Context<'_>,
    current: &Current,
    account: &mut Account,
    round_index: usize,
    k: usize,
    say: &mut dyn FnMut(String),
) -> Step<Option<Vec<StoredTrial>>> {
    let (start, split) = (context.start, context.split);
    let round = &account.rounds[round_index];
    let (number, count) = (round.number, round.slates.len());
    let slate = round.slates[k].clone();
    let wordings = slate_wordings(&current.wordings, &slate, &round.tried);
    let file = variant_file(context, &slate.label);
    let tools: Vec<String> = slate
        .members
        .iter()
        .map(|&m| {
            let c = &round.tried[m].candidate;
            format!("{} ({})", c.tool, c.origin.as_str())
        })
        .collect();
    let note = format!(
        "mcpick improve, round {number}: {} {}",
        if slate.combined {
            "each tool's best candidate:"
        } else {
            "candidates for"
        },
        tools.join(", ")
    );
    write(
        &file,
        &start.overlay.render(&slate.label, &note, &wordings)?,
    )?;
    say(format!(
        "round {number} · run {} of {count}{} · {} · {} trials",
        k + 1,
        if slate.combined { " (combined)" } else { "" },
        if tools.len() > 4 {
            format!("{} tools", tools.len())
        } else {
            tools.join(", ")
        },
        split.working.len()
    ));
    // A run that cannot start (its folder holds other settings, the plan is refused) is the
    // experiment's problem, not the candidate's: it stops `improve`.
    let name = run_name(number, k, Some(&slate));
    let run = context
        .runs
        .run(
            &name,
            std::slice::from_ref(&slate.label),
            &[file],
            &split.working,
        )
        .await?;
    if let Some(ending) = stopped(&run.run, account) {
        save(context, account)?;
        return Ok(Err(ending));
    }
    let round = &mut account.rounds[round_index];
    let entry = &mut round.slates[k];
    entry.seconds = run.run.seconds;
    for (_, work) in &run.run.local_work {
        entry.evaluated += work.batched;
        entry.restored += work.restored;
    }
    match judge(&current.trials, &run.trials, &current.label, &slate.label) {
        Ok(judgement) => {
            say(format!("  {}", judgement_line(&judgement)));
            entry.judgement = Some(judgement);
        }
        Err(e) => {
            entry.error = Some(e);
            return Ok(Ok(None));
        }
    }
    if !slate.combined {
        for &m in &slate.members {
            let tool = round.tried[m].candidate.tool.clone();
            let Some(target) = round.targets.iter().find(|t| t.standing.tool == tool) else {
                continue;
            };
            let tasks = slates::own_tasks(target, &current.trials);
            let arms = (current.label.as_str(), slate.label.as_str());
            match slates::judge_member(&current.trials, &run.trials, &tasks, arms) {
                Ok(j) => round.tried[m].judgement = Some(j),
                Err(e) => round.tried[m].error = Some(e),
            }
        }
    }
    Ok(Ok(Some(run.trials)))
}

/// The run folder of the round's slate `k` (`None`: the combined slate, about to be made).
fn run_name(number: u32, k: usize, slate: Option<&Slate>) -> String {
    match slate {
        Some(slate) if !slate.combined => format!("r{number}-s{}", k + 1),
        _ => format!("r{number}-combined"),
    }
}
