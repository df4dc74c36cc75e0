//! `mcpick draft`: candidate tasks for a toolset, written by a model and checked by code. The
//! drafter (a `backend::JsonWriter`; `drafter` puts the asks to it) answers each ask (`asks`: per tool, per confusable pair, no call) with
//! requests and the calls that serve them; every reply is journaled as it comes (`journal`), so a
//! killed draft resumes. Each candidate (`candidate`) is then checked: leakage of its tool's name
//! (`leakage`), its call against the tool's schema and its own words (`support`), near-duplicates
//! (`duplicates`), the suite's own load checks (a task `validate` would refuse); the survivors are
//! put to the offline pickers through a real run (`agreement`)
//! and those no picker maps to their intended tool are marked doubtful, never relabelled. What is
//! written (`output`): a suite `run` takes unchanged, and `DRAFT.md` with every candidate's fate.

mod agreement;
mod asks;
mod candidate;
mod drafter;
mod duplicates;
pub mod folder;
mod journal;
pub mod leakage;
mod output;
mod support;
mod written_forms;

pub use asks::AskCounts;
pub use duplicates::NEAR_DUPLICATE_COSINE;

use crate::backend::{BackendOptions, EmbedBackend, JsonWriter};
use crate::hashing::sha256_hex;
use crate::model::Toolset;
use crate::settings::RunSettings;
use asks::{Intent, asks, template_hash};
use candidate::{Candidate, DropReason, Fate};
use journal::{Journal, Opened};
use output::{Authorship, SuiteHeader, write_report, write_suite};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a draft is asked to do, resolved by the command.
pub struct DraftSettings {
    pub toolset: Toolset,
    /// The toolset's file, which the suite refers to.
    pub toolset_file: PathBuf,
    /// The drafter's backend spec (`local` by default).
    pub drafter: String,
    pub backend: BackendOptions,
    pub counts: AskCounts,
    pub seed: u64,
    pub out: PathBuf,
    /// How long a hosted drafter may take over one ask.
    pub timeout: Duration,
    /// The settings of the agreement run (its suite and backends are set here).
    pub agreement: RunSettings,
    pub progress: bool,
}

/// What a finished draft wrote.
#[derive(Debug)]
pub struct DraftOutcome {
    pub written: usize,
    pub kept: usize,
    pub doubtful: usize,
    pub dropped: BTreeMap<&'static str, usize>,
    pub failed_asks: usize,
    /// Asks answered by an earlier, interrupted draft of the same settings.
    pub resumed: usize,
    pub seconds: f64,
}

/// The drafter gives up after this many asks in a row bring nothing usable: its key, model or
/// server is wrong, and more asks would only cost.
const FAILURES_IN_A_ROW: usize = 3;

/// Drafts a suite into `settings.out`; `say` hears progress lines.
pub async fn draft(
    settings: &DraftSettings,
    say: &mut dyn FnMut(String),
) -> Result<DraftOutcome, String> {
    let started = Instant::now();
    let toolset = &settings.toolset;
    folder::check_folder(&settings.out)?;
    let earlier = folder::EarlierTasks::read(&settings.out)?;
    check_toolset(toolset, &settings.toolset_file)?;
    let drafter = JsonWriter::load(
        "--drafter",
        &settings.drafter,
        &settings.backend,
        settings.seed,
        settings.timeout,
    )?;
    let asks = asks(toolset, settings.counts);
    let template = template_hash();
    let work_dir = settings.out.join(folder::WORK_FOLDER);
    let fingerprint = sha256_hex(
        serde_json::json!({
            "tools": toolset.tools, "drafter": drafter.id, "model": drafter.model,
            "template": template, "counts": format!("{:?}", settings.counts), "seed": settings.seed,
        })
        .to_string()
        .as_bytes(),
    );
    let (mut journal, opened) = Journal::open(&work_dir, &fingerprint)
        .map_err(|e| format!("{}: {e}", work_dir.display()))?;
    let resumed = match opened {
        Opened::Resumed(n) => {
            say(format!(
                "resuming: {n} of {} asks already answered",
                asks.len()
            ));
            n
        }
        Opened::Fresh {
            set_aside: Some(stale),
        } => {
            say(format!(
                "an earlier draft of other settings was set aside: {}",
                stale.display()
            ));
            0
        }
        Opened::Fresh { set_aside: None } => 0,
    };
    let mut candidates = Vec::new();
    let mut failed_asks = Vec::new();
    let mut failures_in_a_row = 0;
    // Asks an earlier try of this draft failed are retried last, and failing again does not count
    // towards giving up: else a resumed draft stops on the same three failures every time.
    let (fresh, retried): (Vec<&asks::Ask>, Vec<&asks::Ask>) =
        asks.iter().partition(|ask| !journal.failed_before(&ask.id));
    let retries = retried.len();
    for (k, ask) in fresh.into_iter().chain(retried).enumerate() {
        let retry = k >= asks.len() - retries;
        let reply = match journal.reply(&ask.id) {
            Some(reply) => reply.clone(),
            None => {
                let asked = Instant::now();
                match drafter::write(&drafter, ask).await {
                    Ok(reply) => {
                        journal
                            .record(&ask.id, &reply)
                            .map_err(|e| format!("{}: {e}", work_dir.display()))?;
                        say(format!(
                            "[{}/{}] {}: {} requests in {:.1} s",
                            k + 1,
                            asks.len(),
                            ask.id,
                            ask.styles.len(),
                            asked.elapsed().as_secs_f64()
                        ));
                        failures_in_a_row = 0;
                        reply
                    }
                    Err(why) => {
                        say(format!("[{}/{}] {}: {why}", k + 1, asks.len(), ask.id));
                        failed_asks.push((ask.id.clone(), why.clone()));
                        journal
                            .record_failure(&ask.id, &why)
                            .map_err(|e| format!("{}: {e}", work_dir.display()))?;
                        if retry {
                            continue;
                        }
                        failures_in_a_row += 1;
                        if failures_in_a_row == FAILURES_IN_A_ROW {
                            return Err(format!(
                                "the drafter failed {FAILURES_IN_A_ROW} asks in a row (last: {why}); nothing was written, and the {} asks answered are kept in {} for the next try",
                                journal_count(&journal, &asks),
                                work_dir.display()
                            ));
                        }
                        continue;
                    }
                }
            }
        };
        let schema = ask
            .intent
            .tool()
            .and_then(|name| toolset.tool(name))
            .map_or(serde_json::Value::Null, |t| t.input_schema.clone());
        candidates.extend(Candidate::from_reply(ask, &reply, &schema));
    }
    if candidates.is_empty() {
        return Err("the drafter wrote no requests; nothing was written".into());
    }
    check_candidates(toolset, &mut candidates, say);
    for candidate in candidates.iter_mut().filter(|c| c.kept()) {
        if let Some(why) = earlier.already(&candidate.request) {
            candidate.drop(DropReason::Duplicate, why);
        }
    }
    // The survivors, as a suite, through a real run of the offline pickers.
    let candidates_dir = work_dir.join("candidates");
    std::fs::create_dir_all(&candidates_dir)
        .map_err(|e| format!("{}: {e}", candidates_dir.display()))?;
    let authorship = Authorship {
        drafter: drafter.id.clone(),
        model: drafter.model.clone(),
        prompt_template: template,
        seed: settings.seed,
    };
    let suite_name = format!("{}-draft", toolset.name);
    let pickers = vec![
        "bm25".to_string(),
        "embed".to_string(),
        drafter.picker_spec(),
    ];
    // The agreement run loads its own model: the drafter's context is freed first.
    drop(drafter);
    // What DRAFT.md says besides the candidates, with the pickers as named so far.
    let header = |pickers: &[String], earlier: usize| SuiteHeader {
        suite: &suite_name,
        toolset_name: &toolset.name,
        toolset_file: &settings.toolset_file,
        tools: toolset.tools.len(),
        authorship: &authorship,
        failed_asks: &failed_asks,
        seconds: started.elapsed().as_secs_f64(),
        pickers: pickers.to_vec(),
        earlier,
    };
    // The candidates' suite must load as `validate` would: a task its own checks refuse (a call
    // the tool's simulated behaviour refuses, whatever the model sends) is dropped, and the rest
    // written again.
    let kept = loop {
        let kept: Vec<&Candidate> = candidates.iter().filter(|c| c.kept()).collect();
        if kept.is_empty() {
            write_report(
                &settings.out,
                &header(&pickers, earlier.lines.len()),
                &candidates,
            )
            .map_err(|e| format!("{}: {e}", settings.out.display()))?;
            if !earlier.lines.is_empty() {
                // Drafting again found nothing new: the folder's tasks stand as they were.
                let seconds = started.elapsed().as_secs_f64();
                return Ok(outcome(&candidates, failed_asks.len(), resumed, seconds));
            }
            return Err(format!(
                "none of the {} requests passed the checks; {} says why each was dropped, and no suite was written",
                candidates.len(),
                settings.out.join("DRAFT.md").display()
            ));
        }
        let kept: Vec<Candidate> = kept.into_iter().cloned().collect();
        write_suite(
            &candidates_dir,
            &header(&pickers, 0),
            &kept,
            &folder::EarlierTasks::default(),
        )
        .map_err(|e| format!("{}: {e}", candidates_dir.display()))?;
        let refused = refused_by_the_loader(&candidates_dir, &kept);
        if refused.is_empty() {
            break kept;
        }
        let mut dropped_any = false;
        for (task_id, why) in &refused {
            if let Some(c) = candidates
                .iter_mut()
                .find(|c| c.kept() && c.task_id() == *task_id)
            {
                c.drop(DropReason::Invalid, why.clone());
                dropped_any = true;
            }
        }
        if !dropped_any {
            return Err(format!(
                "the candidates' suite in {} does not load: {}",
                candidates_dir.display(),
                refused[0].1
            ));
        }
    };
    say(format!(
        "putting {} requests to {}",
        kept.len(),
        pickers.join(", ")
    ));
    let (picks, lane_ids) = agreement::run_pickers(
        &candidates_dir.join("suite.toml"),
        &pickers,
        &settings.agreement,
        &agreement::agreement_folder(&work_dir, &candidates_dir)
            .map_err(|e| format!("{}: {e}", work_dir.display()))?,
        settings.progress,
    )
    .await?;
    for candidate in candidates.iter_mut().filter(|c| c.kept()) {
        let task_picks = picks.get(&candidate.task_id()).cloned().unwrap_or_default();
        candidate.fate = Fate::Kept {
            doubtful: !task_picks.values().any(|p| p.right),
            picks: task_picks
                .into_iter()
                .map(|(id, p)| (id, p.chose))
                .collect(),
        };
    }
    let seconds = started.elapsed().as_secs_f64();
    // Under the review's lock, with the folder's tasks read again: a review made while the draft
    // ran (minutes, asking a model) is kept, and a request it accepted or rejected meanwhile is
    // not added again.
    let tasks_file = settings.out.join("tasks.jsonl");
    let _lock = crate::folder_lock::hold(&crate::review::lock_path(&tasks_file))?;
    let earlier = folder::EarlierTasks::read(&settings.out)?;
    for candidate in candidates.iter_mut().filter(|c| c.kept()) {
        if let Some(why) = earlier.already(&candidate.request) {
            candidate.drop(DropReason::Duplicate, why);
        }
    }
    write_suite(
        &settings.out,
        &header(&lane_ids, earlier.lines.len()),
        &candidates,
        &earlier,
    )
    .map_err(|e| format!("{}: {e}", settings.out.display()))?;
    Ok(outcome(&candidates, failed_asks.len(), resumed, seconds))
}

/// What a draft reports of its candidates.
fn outcome(
    candidates: &[Candidate],
    failed_asks: usize,
    resumed: usize,
    seconds: f64,
) -> DraftOutcome {
    let mut dropped = BTreeMap::new();
    for c in candidates {
        if let Fate::Dropped { reason, .. } = &c.fate {
            *dropped.entry(reason.as_str()).or_default() += 1;
        }
    }
    DraftOutcome {
        written: candidates.len(),
        kept: candidates.iter().filter(|c| c.kept()).count(),
        doubtful: candidates
            .iter()
            .filter(|c| matches!(c.fate, Fate::Kept { doubtful: true, .. }))
            .count(),
        dropped,
        failed_asks,
        resumed,
        seconds,
    }
}

/// The tasks of the candidates' suite in `dir` that its load checks refuse, by task id, with the
/// loader's message. A problem that names no task (the suite itself) refuses none: the agreement
/// run reports it.
fn refused_by_the_loader(dir: &Path, kept: &[Candidate]) -> Vec<(String, String)> {
    let workspace = crate::load::Workspace::load(&[dir.join("suite.toml")]);
    workspace
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .filter(|d| d.is_error() && d.path.ends_with("tasks.jsonl"))
        // Record K of the task file is the K-th kept candidate.
        .filter_map(|d| {
            let candidate = kept.get(d.record?.checked_sub(1)?)?;
            Some((candidate.task_id(), d.message.clone()))
        })
        .collect()
}

fn journal_count(journal: &Journal, asks: &[asks::Ask]) -> usize {
    asks.iter()
        .filter(|a| journal.reply(&a.id).is_some())
        .count()
}

/// A toolset a drafter can write for: some tools, each described.
fn check_toolset(toolset: &Toolset, file: &Path) -> Result<(), String> {
    if toolset.tools.is_empty() {
        return Err(format!(
            "{}: the toolset has no tools: there is nothing to draft requests for",
            file.display()
        ));
    }
    let undescribed: Vec<&str> = toolset
        .tools
        .iter()
        .filter(|t| t.description.as_deref().is_none_or(|d| d.trim().is_empty()))
        .map(|t| t.name.as_str())
        .collect();
    if !undescribed.is_empty() {
        return Err(format!(
            "{}: {} without a description ({}): a drafter cannot know what a tool is for from its name alone; describe it (`mcpick lint` shows what else a model needs)",
            file.display(),
            if undescribed.len() == 1 {
                "a tool"
            } else {
                "tools"
            },
            undescribed.join(", ")
        ));
    }
    Ok(())
}

/// Leakage, schema and support, then near-duplicates among what is left.
fn check_candidates(toolset: &Toolset, candidates: &mut [Candidate], say: &mut dyn FnMut(String)) {
    let names: Vec<&str> = toolset.tools.iter().map(|t| t.name.as_str()).collect();
    for candidate in candidates.iter_mut() {
        if candidate.request.is_empty() {
            candidate.drop(DropReason::Schema, "the request is empty");
            continue;
        }
        if let Some(problem) = candidate::form_problem(&candidate.request) {
            // What is kept of it for DRAFT.md is an excerpt: a 50 MB request costs nothing more.
            candidate.request = crate::untrusted_text::shown(&candidate.request, 200);
            candidate.drop(DropReason::Form, problem);
            continue;
        }
        let mut leaked = Vec::new();
        // A request for no tool that names one is about that tool: it leaks too.
        let named: Vec<&str> = match &candidate.intent {
            Intent::Tool(tool) => vec![tool],
            Intent::Pair { tool, not } => vec![tool, not],
            Intent::NoCall => names.clone(),
        };
        for name in named {
            let parameters: Vec<String> = toolset
                .tool(name)
                .map(|t| t.parameters().map(|(p, _)| p.clone()).collect())
                .unwrap_or_default();
            leaked.extend(leakage::leaked_words(
                &candidate.request,
                name,
                &names,
                &parameters,
            ));
        }
        if !leaked.is_empty() {
            candidate.drop(DropReason::Leakage, format!("names {}", leaked.join(", ")));
            continue;
        }
        if candidate.intent.tool().is_some()
            && let Err(why) = support::check_call(
                &candidate.request,
                &candidate.input_schema,
                &candidate.arguments,
            )
        {
            let reason = match why {
                support::Unsupported::Schema(_) => DropReason::Schema,
                support::Unsupported::Value { .. } => DropReason::Unsupported,
            };
            candidate.drop(reason, why.to_string());
        }
    }
    let survivors: Vec<usize> = (0..candidates.len())
        .filter(|&k| candidates[k].kept())
        .collect();
    let requests: Vec<String> = survivors
        .iter()
        .map(|&k| candidates[k].request.clone())
        .collect();
    let embeddings = match EmbedBackend::load_default().and_then(|e| e.embed(&requests)) {
        Ok(vectors) => Some(vectors),
        Err(why) => {
            say(format!(
                "near-duplicates by normalised text only: the embedding model is unavailable ({why})"
            ));
            None
        }
    };
    let duplicates = duplicates::duplicates_of(&requests, embeddings.as_deref());
    for (position, duplicate) in duplicates.into_iter().enumerate() {
        if let Some((earlier, cosine)) = duplicate {
            let kept_id = candidates[survivors[earlier]].task_id();
            let detail = if cosine >= 1.0 {
                format!("same as {kept_id} (the same words)")
            } else {
                format!("same as {kept_id} (MiniLM cosine {cosine:.2})")
            };
            candidates[survivors[position]].drop(DropReason::Duplicate, detail);
        }
    }
}
