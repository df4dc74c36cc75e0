//! `IMPROVE.md`: what `improve` did, in the order it did it — the split, then per round the targets
//! (each tool's standing on the working part, its neighbours, what it lost), every candidate (who
//! proposed it, its text, why it was turned away or its working-part score against the round's
//! baseline, the pull check, its time), the one chosen — and the held-out verdict with its
//! interval, adopted or not. Rewritten whole after every step, so a stopped `improve` leaves an
//! account of what it finished. Pure.

use super::judge::Judgement;
use super::targets::Target;
use super::wording::Candidate;
use crate::analysis::statistics::AbVerdict;
use crate::untrusted_text::shown;

/// One candidate's fate.
#[derive(Debug, Clone)]
pub struct Tried {
    /// Its variant name (`travel-terse-r1c2`).
    pub label: String,
    pub candidate: Candidate,
    /// Against the round's baseline on the working part (`None`: not run, or not comparable).
    pub judgement: Option<Judgement>,
    /// Why its trials could not be compared with the baseline's.
    pub error: Option<String>,
    /// Seconds its working-part run took, and the local model's tokens evaluated and restored.
    pub seconds: f64,
    pub evaluated: u64,
    pub restored: u64,
}

/// One round.
#[derive(Debug, Clone, Default)]
pub struct Round {
    pub number: u32,
    /// The wording the round starts from.
    pub baseline: String,
    pub targets: Vec<Target>,
    pub tried: Vec<Tried>,
    /// What the rewriter could not do, per target.
    pub rewriter_errors: Vec<String>,
    /// Seconds the rewriter took over the round's asks.
    pub rewriter_seconds: f64,
    /// Index into `tried` of the candidate kept.
    pub chosen: Option<usize>,
}

/// Everything `IMPROVE.md` tells.
#[derive(Debug, Clone, Default)]
pub struct Account {
    pub suite: String,
    pub start: String,
    pub backend: String,
    pub rewriter: String,
    pub template_hash: String,
    pub seed: u64,
    pub working: Vec<String>,
    pub held_out: Vec<String>,
    pub rounds: Vec<Round>,
    /// Why the rounds ended before `--rounds` (or the run stopped).
    pub stopped: Option<String>,
    pub final_label: Option<String>,
    pub verdict: Option<Judgement>,
    pub adopted: Option<bool>,
    pub seconds: f64,
}

impl Account {
    /// Candidates that were run.
    pub fn candidates_run(&self) -> usize {
        self.rounds
            .iter()
            .flat_map(|r| &r.tried)
            .filter(|t| t.judgement.is_some())
            .count()
    }

    /// Candidates proposed, run or not.
    pub fn candidates_proposed(&self) -> usize {
        self.rounds.iter().map(|r| r.tried.len()).sum()
    }
}

fn signed(x: f64) -> String {
    format!("{:+.1}", x * 100.0)
}

/// A judgement in one line: means, difference with interval, p.
pub fn judgement_line(j: &Judgement) -> String {
    format!(
        "{}: {:.1}% → {:.1}%, {} pp [{}, {}], p = {:.4}; right picks {} → {} of {}",
        j.measure,
        j.a * 100.0,
        j.b * 100.0,
        signed(j.difference),
        signed(j.low),
        signed(j.high),
        j.p_value,
        j.right_a,
        j.right_b,
        j.pairs
    )
}

/// The held-out verdict in words.
pub fn verdict_sentence(account: &Account) -> String {
    match (&account.verdict, account.adopted) {
        (Some(j), Some(true)) => format!(
            "ADOPTED: on the {} held-out tasks the rewrite is significantly better ({})",
            j.pairs,
            judgement_line(j)
        ),
        (Some(j), _) => format!(
            "NOT ADOPTED: on the {} held-out tasks the rewrite is {} ({})",
            j.pairs,
            match j.verdict {
                AbVerdict::ABetter => "significantly worse",
                AbVerdict::BBetter => "better",
                AbVerdict::NoDetectableDifference => "not significantly better",
                AbVerdict::NoPairs => "not comparable",
            },
            judgement_line(j)
        ),
        (None, _) => "no rewrite reached the held-out part".to_string(),
    }
}

/// The whole of `IMPROVE.md`.
pub fn render(account: &Account) -> String {
    let mut md = format!(
        "# mcpick improve: {} from {}\n\nBackend `{}`, rewriter `{}` (instructions sha256 {}), seed {}. \
         The suite's tasks were split once, stratified by expected tool: {} working tasks \
         (targets are found and candidates chosen on these; the rewriter sees only these) and \
         {} held-out tasks (used once, for the verdict).\n\n",
        account.suite,
        account.start,
        account.backend,
        account.rewriter,
        &account.template_hash[..12.min(account.template_hash.len())],
        account.seed,
        account.working.len(),
        account.held_out.len()
    );
    md.push_str(&format!("## Verdict\n\n{}.\n\n", verdict_sentence(account)));
    if let Some(reason) = &account.stopped {
        md.push_str(&format!("Rounds ended: {reason}.\n\n"));
    }
    md.push_str(&format!(
        "{} candidate(s) proposed, {} run on the working part, in {:.0} s.\n",
        account.candidates_proposed(),
        account.candidates_run(),
        account.seconds
    ));
    for round in &account.rounds {
        md.push_str(&round_section(round));
    }
    md.push_str(&format!(
        "\n## Split\n\nWorking: {}\n\nHeld out: {}\n",
        account.working.join(", "),
        account.held_out.join(", ")
    ));
    md
}

fn round_section(round: &Round) -> String {
    let mut md = format!(
        "\n## Round {} (baseline `{}`)\n\n### Targets\n\n| tool | tasks | right | graded | neighbours | lost | took |\n|---|---|---|---|---|---|---|\n",
        round.number, round.baseline
    );
    for target in &round.targets {
        let s = &target.standing;
        md.push_str(&format!(
            "| {} | {} | {} | {:.2} | {} | {} | {} |\n",
            s.tool,
            s.tasks,
            s.right,
            s.graded,
            target.neighbours.join(", "),
            target.lost.len(),
            target.took.len()
        ));
    }
    for error in &round.rewriter_errors {
        md.push_str(&format!(
            "\nFrom the rewriter: {}\n",
            crate::untrusted_text::shown(error, 500)
        ));
    }
    md.push_str(&format!(
        "\nThe rewriter took {:.0} s.\n\n### Candidates\n\n",
        round.rewriter_seconds
    ));
    for (k, tried) in round.tried.iter().enumerate() {
        let chosen = if round.chosen == Some(k) {
            " — **chosen**"
        } else {
            ""
        };
        md.push_str(&format!(
            "{}. `{}` for `{}` ({}){chosen}\n   - description: {:?}\n",
            k + 1,
            tried.label,
            tried.candidate.tool,
            tried.candidate.origin.as_str(),
            shown(&tried.candidate.wording.description, 700)
        ));
        for (param, text) in tried.candidate.wording.params.iter().take(64) {
            md.push_str(&format!(
                "   - `{}`: {:?}\n",
                shown(param, 80),
                shown(text, 300)
            ));
        }
        if !tried.candidate.rejected.is_empty() {
            md.push_str(&format!(
                "   - turned away: {}\n",
                tried.candidate.rejected.join("; ")
            ));
        }
        if let Some(error) = &tried.error {
            md.push_str(&format!("   - not compared: {error}\n"));
        }
        if let Some(j) = &tried.judgement {
            md.push_str(&format!(
                "   - working part: {}\n   - {:.0} s ({} tokens evaluated, {} restored from the prefix cache)\n",
                judgement_line(j),
                tried.seconds,
                tried.evaluated,
                tried.restored
            ));
            if !j.flagged.is_empty() {
                md.push_str(&format!(
                    "   - pull check: takes picks from other tools' tasks: {}\n",
                    j.flagged.join(", ")
                ));
            }
        }
    }
    if round.chosen.is_none() {
        md.push_str(
            "\nNo candidate improved the working part without taking picks from a neighbour.\n",
        );
    }
    md
}
