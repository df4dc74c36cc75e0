//! `IMPROVE.md`: what `improve` did, in the order it did it — the split, then per round the targets
//! (each tool's standing on the working part, its neighbours, what it lost), every candidate (who
//! proposed it, its text, why it was turned away or its score on its own tool's working tasks),
//! every run on the working part (what it rewords, its score against the round's baseline, the
//! pull check, its time and tokens), the one chosen — and the held-out verdict with its interval,
//! adopted or not, as a `document` its Markdown renderer writes. Rewritten whole after
//! every step, so a stopped `improve` leaves an account of what it finished. Pure.

use super::judge::Judgement;
use super::targets::Target;
use super::wording::Candidate;
use crate::analysis::statistics::{AbVerdict, Adjustment, adjust};
use crate::document::{Document, Item, Part, Section, Table};
use crate::untrusted_text::shown;

/// One candidate's fate.
#[derive(Debug, Clone)]
pub struct Tried {
    /// Its name (`travel-terse-r1c2`).
    pub label: String,
    pub candidate: Candidate,
    /// On its own tool's tasks within its slate's run, against the round's baseline (`None`: not
    /// run, or not comparable).
    pub judgement: Option<Judgement>,
    /// Why its trials could not be compared with the baseline's.
    pub error: Option<String>,
}

/// Candidates for different tools measured together in one run on the working part
/// (`slates`).
#[derive(Debug, Clone)]
pub struct Slate {
    /// Its variant name (`travel-terse-r1s2`, `travel-terse-r1-combined`, or its one candidate's).
    pub label: String,
    /// Indices into the round's `tried`.
    pub members: Vec<usize>,
    /// Each tool's best gaining candidate, put together.
    pub combined: bool,
    /// The whole working part against the round's baseline.
    pub judgement: Option<Judgement>,
    pub error: Option<String>,
    /// Seconds its run took, and the local model's tokens evaluated and restored.
    pub seconds: f64,
    pub evaluated: u64,
    pub restored: u64,
}

impl Slate {
    pub fn new(label: String, members: Vec<usize>, combined: bool) -> Slate {
        Slate {
            label,
            members,
            combined,
            judgement: None,
            error: None,
            seconds: 0.0,
            evaluated: 0,
            restored: 0,
        }
    }
}

/// One round.
#[derive(Debug, Clone, Default)]
pub struct Round {
    pub number: u32,
    /// The wording the round starts from.
    pub baseline: String,
    pub targets: Vec<Target>,
    pub tried: Vec<Tried>,
    /// The runs that measured them.
    pub slates: Vec<Slate>,
    /// What the rewriter could not do, per target.
    pub rewriter_errors: Vec<String>,
    /// Seconds the rewriter took over the round's asks.
    pub rewriter_seconds: f64,
    /// Index into `slates` of the slate kept.
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
    /// When held-out tasks of this improve judged earlier improves of the suite: the warning.
    pub held_out_reuse: Option<String>,
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

    /// Runs on the working part that measured candidates, and their seconds.
    pub fn slate_seconds(&self) -> Vec<f64> {
        self.rounds
            .iter()
            .flat_map(|r| &r.slates)
            .filter(|s| s.judgement.is_some())
            .map(|s| s.seconds)
            .collect()
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

/// The whole of `IMPROVE.md`, as a document.
pub fn render(account: &Account) -> Document {
    let intro = format!(
        "Backend `{}`, rewriter `{}` (instructions sha256 {}), seed {}. \
         The suite's tasks were split once, stratified by expected tool: {} working tasks \
         (targets are found and candidates chosen on these; the rewriter sees only these) and \
         {} held-out tasks (used once, for the verdict).",
        account.backend,
        account.rewriter,
        &account.template_hash[..12.min(account.template_hash.len())],
        account.seed,
        account.working.len(),
        account.held_out.len()
    );
    let mut verdict = vec![Part::Paragraph(format!("{}.", verdict_sentence(account)))];
    if let Some(warning) = &account.held_out_reuse {
        verdict.push(Part::Paragraph(format!("Note: {warning}.")));
    }
    if let Some(reason) = &account.stopped {
        verdict.push(Part::Paragraph(format!("Rounds ended: {reason}.")));
    }
    verdict.push(Part::Paragraph(format!(
        "{} candidate(s) proposed, {} run on the working part, in {:.0} s.",
        account.candidates_proposed(),
        account.candidates_run(),
        account.seconds
    )));
    let mut sections = vec![Section::new("verdict", "Verdict", verdict)];
    sections.extend(account.rounds.iter().map(round_section));
    sections.push(Section::new(
        "split",
        "Split",
        vec![
            Part::Paragraph(format!("Working: {}", account.working.join(", "))),
            Part::Paragraph(format!("Held out: {}", account.held_out.join(", "))),
        ],
    ));
    Document {
        title: format!("mcpick improve: {} from {}", account.suite, account.start),
        opening: vec![Part::Paragraph(intro)],
        sections,
    }
}

fn round_section(round: &Round) -> Section {
    let rows = round
        .targets
        .iter()
        .map(|target| {
            let s = &target.standing;
            vec![
                s.tool.clone(),
                s.tasks.to_string(),
                s.right.to_string(),
                format!("{:.2}", s.graded),
                target.neighbours.join(", "),
                target.lost.len().to_string(),
                target.took.len().to_string(),
            ]
        })
        .collect();
    let mut parts = vec![
        Part::Subheading("Targets".into()),
        Part::Table(Table {
            caption: String::new(),
            header: [
                "tool",
                "tasks",
                "right",
                "graded",
                "neighbours",
                "lost",
                "took",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        }),
    ];
    for target in &round.targets {
        if target.attribution.is_empty() {
            continue;
        }
        parts.push(Part::Table(Table {
            caption: format!(
                "What moves {}'s picks on the working part (each unit left out in turn; Δ: with it minus without it)",
                target.standing.tool
            ),
            header: ["tool", "unit", "Δ", "95% interval", "verdict"]
                .map(String::from)
                .to_vec(),
            rows: target
                .attribution
                .iter()
                .map(|a| {
                    vec![
                        a.tool.clone(),
                        shown(&a.text, 160),
                        format!("{:+.3}", a.delta),
                        format!("[{:+.3}, {:+.3}]", a.low, a.high),
                        a.verdict.as_str().to_string(),
                    ]
                })
                .collect(),
        }));
    }
    parts.extend(
        round
            .rewriter_errors
            .iter()
            .map(|error| Part::Paragraph(format!("From the rewriter: {}", shown(error, 500)))),
    );
    parts.push(Part::Paragraph(format!(
        "The rewriter took {:.0} s.",
        round.rewriter_seconds
    )));
    parts.push(Part::Subheading("Candidates".into()));
    let kept: &[usize] = round
        .chosen
        .and_then(|k| round.slates.get(k))
        .map_or(&[], |s| s.members.as_slice());
    let items = round
        .tried
        .iter()
        .enumerate()
        .map(|(k, tried)| candidate_item(tried, kept.contains(&k)))
        .collect();
    parts.push(Part::Numbered(items));
    if !round.slates.is_empty() {
        parts.push(Part::Subheading("Runs on the working part".into()));
        let items = round
            .slates
            .iter()
            .enumerate()
            .map(|(k, slate)| slate_item(round, slate, round.chosen == Some(k)))
            .collect();
        parts.push(Part::Numbered(items));
    }
    match round.chosen {
        None => parts.push(Part::Paragraph(
            "No run improved the working part without taking picks from a neighbour.".into(),
        )),
        Some(chosen) => parts.extend(screening_note(round, chosen).map(Part::Paragraph)),
    }
    Section::new(
        "round",
        format!("Round {} (baseline `{}`)", round.number, round.baseline),
        parts,
    )
}

/// Choosing the best of several runs on the working part is a search: the chosen one's
/// working-part p-value, adjusted by Holm over every run measured, says how much of its lead the
/// search alone could explain. The held-out comparison, run once, decides.
fn screening_note(round: &Round, chosen: usize) -> Option<String> {
    let measured: Vec<(usize, f64)> = round
        .slates
        .iter()
        .enumerate()
        .filter_map(|(k, t)| t.judgement.as_ref().map(|j| (k, j.p_value)))
        .collect();
    if measured.len() < 2 {
        return None;
    }
    let p: Vec<f64> = measured.iter().map(|(_, p)| *p).collect();
    let adjusted = adjust(&p, Adjustment::Holm);
    let at = measured.iter().position(|(k, _)| *k == chosen)?;
    Some(format!(
        "{} runs were measured on the working part: the chosen one's p = {:.4} there is {:.4} after Holm's adjustment over them. The working part chooses; only the held-out comparison decides.",
        measured.len(),
        p[at],
        adjusted[at]
    ))
}

/// One run on the working part: what it changed, how the whole working part did, its cost.
fn slate_item(round: &Round, slate: &Slate, chosen: bool) -> Item {
    let tools: Vec<String> = slate
        .members
        .iter()
        .filter_map(|&k| round.tried.get(k))
        .map(|t| format!("`{}` ({})", t.candidate.tool, t.candidate.origin.as_str()))
        .collect();
    let mut details = vec![format!("rewords {}", tools.join(", "))];
    if let Some(error) = &slate.error {
        details.push(format!("not compared: {error}"));
    }
    if let Some(j) = &slate.judgement {
        details.push(format!("working part: {}", judgement_line(j)));
        details.push(format!(
            "{:.0} s ({} tokens evaluated, {} restored from the prefix cache)",
            slate.seconds, slate.evaluated, slate.restored
        ));
        if !j.flagged.is_empty() {
            details.push(format!(
                "pull check: takes picks from other tools' tasks: {}",
                j.flagged.join(", ")
            ));
        }
    }
    Item {
        text: format!(
            "`{}`{}{}",
            slate.label,
            if slate.combined {
                " (each tool's best candidate, combined)"
            } else {
                ""
            },
            if chosen { " — **chosen**" } else { "" }
        ),
        details,
    }
}

/// One candidate: who proposed it, its text, why it was turned away or how it did.
fn candidate_item(tried: &Tried, chosen: bool) -> Item {
    let mut details = vec![format!(
        "description: {:?}",
        shown(&tried.candidate.wording.description, 700)
    )];
    details.extend(
        tried
            .candidate
            .wording
            .params
            .iter()
            .take(64)
            .map(|(param, text)| format!("`{}`: {:?}", shown(param, 80), shown(text, 300))),
    );
    if !tried.candidate.rejected.is_empty() {
        details.push(format!(
            "turned away: {}",
            tried.candidate.rejected.join("; ")
        ));
    }
    if let Some(error) = &tried.error {
        details.push(format!("not compared: {error}"));
    }
    if let Some(j) = &tried.judgement {
        details.push(format!(
            "on its tool's working tasks: {}",
            judgement_line(j)
        ));
    }
    Item {
        text: format!(
            "`{}` for `{}` ({}){}",
            tried.label,
            tried.candidate.tool,
            tried.candidate.origin.as_str(),
            if chosen { " — **chosen**" } else { "" }
        ),
        details,
    }
}
