//! The last step of `improve`: the final wording against the starting one on the held-out part,
//! run once — unless a stop came, or the `--minutes` budget no longer leaves time for it — with
//! the verdict written into `variant.toml`'s first line, the held-out ledger told (so a later
//! improve learns its held-out tasks already judged this one), and the held-out run's report
//! copied to `DIR/report.html`.

use super::ledger::{self, ledger_path};
use super::wording::Wording;
use super::write_up::{Account, verdict_sentence};
use super::{Context, Ending, judge, stopped, variant_file, write};
use crate::analysis::statistics::AbVerdict;
use crate::record::StoredTrial;
use std::collections::BTreeMap;

/// The final wording against the starting one on the held-out part: `variant.toml`, the verdict,
/// and the held-out run's report as `report.html`.
pub(super) async fn confirm(
    context: &Context<'_>,
    wordings: &BTreeMap<String, Wording>,
    account: &mut Account,
    say: &mut dyn FnMut(String),
) -> Result<Ending, String> {
    let (settings, start, split) = (context.settings, context.start, context.split);
    let name = format!("{}-improved", start.stem);
    let note = format!(
        "{} reworded by mcpick improve (see IMPROVE.md beside this file)",
        start.label
    );
    let file = variant_file(context, &name);
    let text = start.overlay.render(&name, &note, wordings)?;
    write(&file, &text)?;
    account.final_label = Some(name.clone());
    say(format!(
        "held-out: {} against {name} on the {} held-out tasks",
        start.label,
        split.held_out.len()
    ));
    if context.stop.stopped() {
        account.stopped = Some("stopped before the held-out run".into());
        return Ok(Ending::Interrupted);
    }
    if !context.schedule.held_out_fits()
        && !context.held_out_runs.finished(
            "held-out",
            2 * split.held_out.len() * settings.run.repeats.max(1) as usize,
        )
    {
        account.stopped = Some(
            "the --minutes budget is spent before the held-out run; run the same command again to go on".into(),
        );
        say("the --minutes budget is spent: stopping before the held-out run".into());
        return Ok(Ending::Incomplete);
    }
    let ledger = ledger_path(None);
    let mut entry = ledger::Verdict {
        suite: start.suite.name.clone(),
        source: std::fs::canonicalize(&settings.suite)
            .unwrap_or_else(|_| settings.suite.clone())
            .display()
            .to_string(),
        held_out: split.held_out.clone(),
        folder: std::path::absolute(&settings.out)
            .unwrap_or_else(|_| settings.out.clone())
            .display()
            .to_string(),
        seed: settings.seed,
        adopted: false,
        p_value: 1.0,
    };
    if let Some(warning) = ledger::earlier(&ledger, &entry).warning(split.held_out.len()) {
        say(format!("note: {warning}"));
        account.held_out_reuse = Some(warning);
    }
    let arms = [start.label.clone(), name.clone()];
    let run = context
        .held_out_runs
        .run("held-out", &arms, &[file], &split.held_out)
        .await?;
    if let Some(ending) = stopped(&run.run, account) {
        return Ok(ending);
    }
    let (a, b): (Vec<StoredTrial>, Vec<StoredTrial>) = run
        .trials
        .into_iter()
        .partition(|t| t.variant.as_deref() == Some(start.label.as_str()));
    let judgement = judge(&a, &b, &start.label, &name)?;
    let adopted = judgement.verdict == AbVerdict::BBetter;
    (entry.adopted, entry.p_value) = (adopted, judgement.p_value);
    if let Err(e) = ledger::record(&ledger, &entry) {
        say(format!("note: the held-out ledger was not written: {e}"));
    }
    account.verdict = Some(judgement);
    account.adopted = Some(adopted);
    let header = format!(
        "# {}\n# Written by mcpick improve; IMPROVE.md tells how it was chosen and tested.\n",
        verdict_sentence(account)
    );
    write(
        &settings.out.join("variant.toml"),
        &format!("{header}{text}"),
    )?;
    let folder = context.held_out_runs.path("held-out");
    crate::report::rebuild(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    std::fs::copy(folder.join("report.html"), settings.out.join("report.html"))
        .map_err(|e| format!("{}: {e}", settings.out.join("report.html").display()))?;
    Ok(if adopted {
        Ending::Adopted
    } else {
        Ending::NotAdopted
    })
}
