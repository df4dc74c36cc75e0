//! A round's proposals: per target, the rewriter's wordings (the model loaded when first needed)
//! and the rules' one; and the round's journal, `DIR/.improve/round-N.json`, which holds them once
//! screened, so a resumed round asks the rewriter nothing again.

use super::rewriter;
use super::rules;
use super::targets::Target;
use super::wording::{Candidate, Origin};
use super::write_up::Round;
use super::{Context, write};
use crate::backend::JsonWriter;
use crate::model::Toolset;
use std::time::Instant;

fn journal(context: &Context<'_>, number: u32) -> std::path::PathBuf {
    context
        .settings
        .out
        .join(".improve")
        .join(format!("round-{number}.json"))
}

/// The round's screened candidates from its journal, with the rewriter's errors and time put
/// back into `round`; none when the round has not been proposed yet.
pub(super) fn journaled(
    context: &Context<'_>,
    number: u32,
    round: &mut Round,
) -> Option<Vec<Candidate>> {
    let text = std::fs::read_to_string(journal(context, number)).ok()?;
    let (candidates, errors, seconds) =
        serde_json::from_str::<(Vec<Candidate>, Vec<String>, f64)>(&text).ok()?;
    round.rewriter_errors = errors;
    round.rewriter_seconds = seconds;
    Some(candidates)
}

/// Journals the round's screened candidates.
pub(super) fn record_journal(
    context: &Context<'_>,
    number: u32,
    screened: &[Candidate],
    round: &Round,
) -> Result<(), String> {
    let record = serde_json::json!([screened, round.rewriter_errors, round.rewriter_seconds]);
    write(&journal(context, number), &record.to_string())
}

/// What the rewriter and the rules propose for each target, unscreened; the rewriter's errors
/// and its time go into `round`. `None` when a stop (Ctrl-C, SIGTERM) came before the asks were
/// done: nothing is journaled, and the same command asks again.
pub(super) async fn propose(
    context: &mut Context<'_>,
    number: u32,
    targets: &[Target],
    toolset: &Toolset,
    findings: &[crate::lint::Finding],
    round: &mut Round,
    say: &mut dyn FnMut(String),
) -> Result<Option<Vec<Candidate>>, String> {
    let settings = context.settings;
    let mut proposed: Vec<Candidate> = Vec::new();
    let started = Instant::now();
    // After the asks come the round's runs: each slate's and the combined one.
    let runs_after = f64::from(settings.candidates + 2) * context.schedule.working_run_seconds();
    for target in targets {
        let tool = &target.standing.tool;
        let ruled = rules::rule_wording(toolset, target, findings);
        let affordable = context
            .schedule
            .fits(context.schedule.ask_seconds() + runs_after);
        if settings.candidates > 0 && !affordable {
            round.rewriter_errors.push(format!(
                "{tool}: not asked: the --minutes budget leaves no time for it"
            ));
        }
        if settings.candidates > 0
            && affordable
            && let Some(ask) = rewriter::rewrite_ask(
                number,
                target,
                toolset,
                findings,
                &context.requests,
                settings.candidates as usize,
            )
        {
            if context.rewriter.is_none() {
                context.rewriter = Some(JsonWriter::load(
                    "--rewriter",
                    &settings.rewriter,
                    &settings.rewriter_options,
                    settings.seed,
                    settings.timeout,
                )?);
            }
            let writer = context.rewriter.as_ref().expect("loaded above");
            say(format!("round {number}: the rewriter rewords {tool}"));
            let asked = settings.candidates as usize;
            let asking = Instant::now();
            let json_ask = ask.as_json_ask();
            let reply = tokio::select! {
                reply = writer.write_json(&json_ask) => reply,
                () = context.stop.requested() => return Ok(None),
            };
            context.schedule.learn_ask(asking.elapsed().as_secs_f64());
            match reply.and_then(|reply| rewriter::wordings_from(&reply, asked)) {
                Ok((wordings, note)) => {
                    round
                        .rewriter_errors
                        .extend(note.map(|note| format!("{tool}: {note}")));
                    proposed.extend(wordings.into_iter().map(|mut wording| {
                        // The parameters the rewriter left as they were get the rules' texts,
                        // read from the schema: the rewriter's words go to the description.
                        for (param, text) in ruled.iter().flat_map(|r| &r.params) {
                            wording
                                .params
                                .entry(param.clone())
                                .or_insert_with(|| text.clone());
                        }
                        Candidate {
                            tool: tool.clone(),
                            origin: Origin::Rewriter,
                            wording,
                            rejected: Vec::new(),
                        }
                    }))
                }
                Err(e) => round
                    .rewriter_errors
                    .push(format!("{tool}: {}", crate::untrusted_text::shown(&e, 500))),
            }
        }
        proposed.extend(super::attribution::explain_candidates(toolset, target));
        if let Some(wording) = ruled {
            proposed.push(Candidate {
                tool: tool.clone(),
                origin: Origin::Rules,
                wording,
                rejected: Vec::new(),
            });
        }
    }
    round.rewriter_seconds = started.elapsed().as_secs_f64();
    Ok(Some(proposed))
}
