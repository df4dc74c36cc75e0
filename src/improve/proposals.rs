//! A round's candidates: per target, the rewriter's wordings (the model loaded when first needed)
//! and the rules' one, each screened; journaled in `DIR/.improve/round-N.json` as soon as they are
//! all in, so a resumed round asks the rewriter nothing again.

use super::rewriter;
use super::rules;
use super::screen;
use super::targets::Target;
use super::wording::{Candidate, Origin};
use super::write_up::Round;
use super::{Context, write};
use crate::backend::JsonWriter;
use crate::model::Toolset;
use std::time::Instant;

/// The candidates of one round: per target, the rewriter's (journaled, so a resumed round asks
/// nothing again) and the rules', each screened.
pub(super) async fn proposals(
    context: &mut Context<'_>,
    number: u32,
    targets: &[Target],
    toolset: &Toolset,
    findings: &[crate::lint::Finding],
    round: &mut Round,
    say: &mut dyn FnMut(String),
) -> Result<Vec<Candidate>, String> {
    let settings = context.settings;
    let journal = settings
        .out
        .join(".improve")
        .join(format!("round-{number}.json"));
    if let Ok(text) = std::fs::read_to_string(&journal)
        && let Ok((candidates, errors, seconds)) =
            serde_json::from_str::<(Vec<Candidate>, Vec<String>, f64)>(&text)
    {
        round.rewriter_errors = errors;
        round.rewriter_seconds = seconds;
        return Ok(candidates);
    }
    let mut proposed: Vec<Candidate> = Vec::new();
    let started = Instant::now();
    for target in targets {
        let tool = &target.standing.tool;
        if settings.candidates > 0
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
            match writer
                .write_json(&ask.as_json_ask())
                .await
                .and_then(|reply| rewriter::wordings_from(&reply, asked))
            {
                Ok((wordings, note)) => {
                    round
                        .rewriter_errors
                        .extend(note.map(|note| format!("{tool}: {note}")));
                    proposed.extend(wordings.into_iter().map(|wording| Candidate {
                        tool: tool.clone(),
                        origin: Origin::Rewriter,
                        wording,
                        rejected: Vec::new(),
                    }))
                }
                Err(e) => round
                    .rewriter_errors
                    .push(format!("{tool}: {}", crate::untrusted_text::shown(&e, 500))),
            }
        }
        if let Some(wording) = rules::rule_wording(toolset, target, findings) {
            proposed.push(Candidate {
                tool: tool.clone(),
                origin: Origin::Rules,
                wording,
                rejected: Vec::new(),
            });
        }
    }
    round.rewriter_seconds = started.elapsed().as_secs_f64();
    let mut screened: Vec<Candidate> = Vec::new();
    for mut candidate in proposed {
        candidate.rejected = screen::screen(&candidate, toolset, &screened);
        if !candidate.rejected.is_empty() {
            // What is kept of a wording turned away is an excerpt: the journal and IMPROVE.md
            // hold a bounded copy, however much the rewriter wrote.
            candidate.wording = candidate.wording.excerpt();
        }
        screened.push(candidate);
    }
    let record = serde_json::json!([screened, round.rewriter_errors, round.rewriter_seconds]);
    write(&journal, &record.to_string())?;
    Ok(screened)
}
