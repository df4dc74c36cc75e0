//! One trial as `trials.jsonl` stores it: the one type that is both written (by the runner, as each
//! trial finishes) and read back (by `--resume`, `mcpick report` and every exporter), with the key
//! that identifies a trial across runs. Fields added after the first release carry serde defaults,
//! so lines written by older versions still read, with what they lack as its default.

use crate::backend::ChatMessage;
use crate::model::ScoringProfile;
use crate::observation::{Observed, ObservedCall};
use crate::pick_distribution::{PickDistribution, TEXT_ACTION};
use crate::score::{Outcome, Verdict};
use crate::tool_exposure::{Exposure, ObservedSearch, Retrieval};
use serde::{Deserialize, Serialize};

/// Identifies a trial across runs (what `--resume` compares).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TrialKey {
    pub suite: String,
    pub task: String,
    pub backend: String,
    /// The variant arm, empty when the run names none.
    pub variant: String,
    /// The exposure strategy's label, empty when the run names none.
    pub exposure: String,
    /// Tools shown in a sweep trial; 0 for the whole toolset.
    pub size: u32,
    pub sweep_seed: u32,
    pub repeat: u32,
}

/// One line of `trials.jsonl`, and the one shape a trial's result has: the plan makes it with what
/// it says of the trial (`RunPlan::new_trial`), the runner fills in what happened and the verdict,
/// and every reader takes it back as it was written. The field order is the line's key order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StoredTrial {
    pub suite: String,
    pub toolset: String,
    pub task: String,
    pub backend: String,
    /// The variant arm (absent when the run names no variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The exposure strategy (absent when the run names none: every tool listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposure: Option<String>,
    /// The exposure the client profile (`--client`) deferred this trial's tools into, past its
    /// rule (absent: shown as `exposure` says). Not part of the key: the client decides it from
    /// the tools the trial shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_exposure: Option<String>,
    /// What `retrieve:RETRIEVER:K` showed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieval: Option<Retrieval>,
    /// The searches made (`search-tool`, `native-search`); not among `calls`, which are scored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<ObservedSearch>,
    /// Tools a sweep trial shows (absent: the suite's whole toolset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distractors: Option<String>,
    #[serde(default)]
    pub sweep_seed: u32,
    #[serde(default)]
    pub repeat: u32,
    /// 1-based position of the first expected tool in the list shown.
    #[serde(default)]
    pub gold_position: Option<usize>,
    #[serde(default)]
    pub expected_tools: Vec<String>,
    /// The tools a right first pick may choose (written for trials with an exposure strategy, whose
    /// retrieval and searches are judged by them, and for trials with `actions`, whose `p_right`
    /// is; otherwise `expected_tools` stands in).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_pick_tools: Vec<String>,
    /// The tool names in the order `tools/list` gave them.
    #[serde(default)]
    pub tools_shown: Vec<String>,
    pub lang: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// The scoring profile the verdict was reached under (lines written before profiles existed
    /// were scored by mcpick's rules).
    #[serde(default)]
    pub scoring: ScoringProfile,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub calls: Vec<ObservedCall>,
    /// How sure the model was of its first pick, for backends that score every action (`local`
    /// in `score` mode with `--graded`, which `ab` turns on): the bounded part of the distribution
    /// that `pick_distribution` keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<PickDistribution>,
    /// How many tools were shown: the length of `tools_shown`, kept on the line because the lines
    /// of older versions carry only this count.
    #[serde(default, rename = "shown_tools")]
    pub shown_count: usize,
    /// Tools shown to the model under another name (provider naming rules), as (MCP, provider).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed_tools: Vec<(String, String)>,
    pub turns: usize,
    pub latency_ms: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Requests sent to the backend, retries included.
    #[serde(default)]
    pub requests: u32,
    #[serde(default)]
    pub retries: u32,
    /// Replies served from the response cache.
    #[serde(default)]
    pub cached_replies: u32,
    #[serde(default)]
    pub cost_usd: f64,
    pub backend_error: Option<String>,
    #[serde(default)]
    pub transcript: Vec<ChatMessage>,
}

/// The fields a line leaves out when they are empty; every other field is on every line.
const SKIPPED_WHEN_EMPTY: [&str; 10] = [
    "variant",
    "exposure",
    "client_exposure",
    "retrieval",
    "searches",
    "size",
    "distractors",
    "first_pick_tools",
    "actions",
    "renamed_tools",
];

impl StoredTrial {
    /// Whether some version of mcpick writes a field of this name on a trial's line (a line with
    /// another field was not written by mcpick).
    pub fn writes_field(name: &str) -> bool {
        static ALWAYS: std::sync::OnceLock<std::collections::HashSet<String>> =
            std::sync::OnceLock::new();
        let always = ALWAYS.get_or_init(|| match serde_json::to_value(StoredTrial::default()) {
            Ok(serde_json::Value::Object(fields)) => fields.keys().cloned().collect(),
            _ => Default::default(),
        });
        SKIPPED_WHEN_EMPTY.contains(&name) || always.contains(name)
    }

    /// The trial's key: the one place its rules live (a variant, exposure or size the trial does
    /// not have is empty or 0), for the plan's trials and the stored ones alike.
    pub fn key(&self) -> TrialKey {
        TrialKey {
            suite: self.suite.clone(),
            task: self.task.clone(),
            backend: self.backend.clone(),
            variant: self.variant.clone().unwrap_or_default(),
            exposure: self.exposure.clone().unwrap_or_default(),
            size: self.size.unwrap_or(0),
            sweep_seed: self.sweep_seed,
            repeat: self.repeat,
        }
    }

    /// What the scorer judges of this trial.
    pub fn observed(&self) -> Observed<'_> {
        Observed {
            tools_shown: &self.tools_shown,
            calls: &self.calls,
            backend_error: self.backend_error.as_deref(),
        }
    }

    /// The trial ended in a verdict (a backend failure is counted apart and never scored).
    pub fn scored(&self) -> bool {
        self.verdict.outcome != Outcome::Error
    }

    /// The pick was right: the first call chose an acceptable tool, or nothing was called when
    /// nothing should be. This is tool *selection*; arguments are judged by `correct`.
    pub fn right_pick(&self) -> bool {
        match self.verdict.selection_correct {
            Some(right) => right,
            None => self.verdict.outcome == Outcome::CorrectAbstain,
        }
    }

    /// The tools a right first pick may choose (`expected_tools` for records that do not say).
    fn pick_tools(&self) -> &[String] {
        if self.first_pick_tools.is_empty() {
            &self.expected_tools
        } else {
            &self.first_pick_tools
        }
    }

    /// Whether a tool a right first pick may choose was among those retrieved (`None` without a
    /// retrieval or for a task that expects no call): recall at K.
    pub fn gold_retrieved(&self) -> Option<bool> {
        let retrieval = self.retrieval.as_ref()?;
        let gold = self.pick_tools();
        (!gold.is_empty()).then(|| gold.iter().any(|t| retrieval.retrieved.contains(t)))
    }

    /// Whether a search surfaced a tool a right first pick may choose (`None` when the strategy
    /// does not search or the task expects no call). A model that never searched found nothing.
    pub fn search_found_gold(&self) -> Option<bool> {
        let searching = self.exposure.as_deref().is_some_and(|label| {
            matches!(
                Exposure::parse(label),
                Ok(Exposure::SearchTool { .. } | Exposure::NativeSearch)
            )
        });
        let gold = self.pick_tools();
        (searching && !gold.is_empty()).then(|| {
            self.searches
                .iter()
                .any(|s| s.found.iter().any(|f| gold.contains(f)))
        })
    }

    /// The actions a right first pick may take: the acceptable tools, or answering in text for a
    /// task that wants no call.
    pub fn acceptable_actions(&self) -> Vec<String> {
        let tools = self.pick_tools();
        if tools.is_empty() {
            vec![TEXT_ACTION.to_string()]
        } else {
            tools.to_vec()
        }
    }

    /// The probability the model gave a right first pick (`None` without `actions`).
    pub fn p_right(&self) -> Option<f64> {
        let actions = self.actions.as_ref()?;
        Some(actions.p_right(&self.acceptable_actions()))
    }

    /// The trial's graded measure: `p_right` where the backend gave its distribution, else the
    /// pick itself, 0 or 1 (whose mean over a task's repeats is its right-pick rate).
    pub fn graded_score(&self) -> f64 {
        self.p_right()
            .unwrap_or(if self.right_pick() { 1.0 } else { 0.0 })
    }

    /// The request the trial made, as the model saw it: the last user message of the stored
    /// transcript (`ranking::request_text`, the rule every baseline and retriever applies), empty
    /// for lines written without a transcript. It is the stored text, so whatever was redacted or
    /// bounded before the line was written stays so.
    pub fn prompt(&self) -> &str {
        crate::ranking::request_text(self.transcript.iter().filter_map(|m| match m {
            ChatMessage::User { content } => Some(content.as_str()),
            _ => None,
        }))
    }

    /// The tool the task expects first (the first of its expected calls; `None` when no call is
    /// right): what the confusion matrix, the per-tool table and `trials.csv` group by.
    pub fn expected_tool(&self) -> Option<&str> {
        self.expected_tools.first().map(String::as_str)
    }

    /// Tool and arguments right (or a right abstention).
    pub fn correct(&self) -> bool {
        matches!(
            self.verdict.outcome,
            Outcome::Correct | Outcome::CorrectAbstain
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line as the first release wrote it: no variant, size, seed, repeat, profile or counts.
    const FIRST_RELEASE_LINE: &str = r#"{"suite":"travel","toolset":"travel","task":"t1","backend":"bm25","lang":"en","outcome":"correct","selection_correct":true,"first_tool":"get_weather","saw_tool_error":false,"self_corrected":false,"mismatches":[],"detail":"","calls":[],"turns":1,"latency_ms":2.5,"input_tokens":0,"output_tokens":0,"backend_error":null}"#;

    #[test]
    fn old_lines_read_with_defaults_and_keep_their_key() {
        let trial: StoredTrial = serde_json::from_str(FIRST_RELEASE_LINE).unwrap();
        assert_eq!(trial.scoring, ScoringProfile::Mcp);
        assert!(trial.correct() && trial.right_pick() && trial.scored());
        let key = trial.key();
        assert_eq!((key.variant.as_str(), key.size, key.repeat), ("", 0, 0));
    }

    /// Recall at K counts a trial whose right first pick was among the K retrieved; a later step
    /// of an ordered task does not count, and a search counts only under a searching strategy.
    #[test]
    fn the_gold_tool_is_retrieved_or_found_by_the_first_pick_tools() {
        let mut trial: StoredTrial = serde_json::from_str(FIRST_RELEASE_LINE).unwrap();
        trial.expected_tools = vec!["search_flights".into(), "book_flight".into()];
        assert_eq!(trial.gold_retrieved(), None);
        let retrieved = |names: &[&str]| Retrieval {
            retriever: "bm25".into(),
            k: 2,
            retrieved: names.iter().map(|n| n.to_string()).collect(),
            gold_rank: None,
        };
        trial.exposure = Some("retrieve:bm25:2".into());
        trial.first_pick_tools = vec!["search_flights".into()];
        trial.retrieval = Some(retrieved(&["book_flight", "get_weather"]));
        assert_eq!(trial.gold_retrieved(), Some(false));
        trial.retrieval = Some(retrieved(&["get_weather", "search_flights"]));
        assert_eq!(trial.gold_retrieved(), Some(true));
        assert_eq!(trial.search_found_gold(), None, "retrieval does not search");
        trial.exposure = Some("search-tool:bm25:5".into());
        assert_eq!(trial.search_found_gold(), Some(false), "no search made");
        trial.searches = vec![ObservedSearch {
            query: "flights".into(),
            found: vec!["book_flight".into(), "search_flights".into()],
            reply: 0,
            native: false,
            id: None,
        }];
        assert_eq!(trial.search_found_gold(), Some(true));
        trial.expected_tools.clear();
        trial.first_pick_tools.clear();
        assert_eq!(
            trial.search_found_gold(),
            None,
            "a no-call task has no gold tool"
        );
    }

    /// A whole run folder written before a trial had one shape (commit 748a1c8: the tool-search
    /// sweep `docs/tool-exposure.md` reports) reads, and every line writes back byte for byte.
    #[test]
    fn a_trials_file_of_the_previous_format_reads_and_writes_back_the_same() {
        let folder = std::path::Path::new("docs/runs/tool-search-local");
        // Its manifest, of that time, still holds together, and every line is a trial of its plan.
        let records = crate::record::read_run(folder).unwrap();
        assert!(records.manifest.is_some());
        let stored = records.stored;
        assert_eq!((stored.trials.len(), stored.set_aside.len()), (90, 0));
        let text = std::fs::read_to_string(folder.join("trials.jsonl")).unwrap();
        for (line, trial) in text.lines().zip(&stored.trials) {
            assert_eq!(serde_json::to_string(trial).unwrap(), line);
            assert_eq!(trial.shown_count, trial.tools_shown.len());
        }
    }

    /// Every field a full line holds is one `writes_field` knows, and each field left out when
    /// empty is among them: a field added later without being listed fails here.
    #[test]
    fn the_fields_a_line_may_hold_are_known() {
        let mut trial: StoredTrial = serde_json::from_str(FIRST_RELEASE_LINE).unwrap();
        trial.variant = Some("v".into());
        trial.exposure = Some("retrieve:bm25:2".into());
        trial.client_exposure = Some("search-tool:bm25:5".into());
        trial.retrieval = Some(Retrieval {
            retriever: "bm25".into(),
            k: 2,
            retrieved: vec!["a".into()],
            gold_rank: None,
        });
        trial.searches = vec![ObservedSearch {
            query: "q".into(),
            found: Vec::new(),
            reply: 0,
            native: false,
            id: None,
        }];
        trial.size = Some(5);
        trial.distractors = Some("random".into());
        trial.first_pick_tools = vec!["a".into()];
        trial.actions = Some(PickDistribution::bounded(&[], &[]));
        trial.renamed_tools = vec![("a.b".into(), "a_b".into())];
        let serde_json::Value::Object(fields) = serde_json::to_value(&trial).unwrap() else {
            panic!()
        };
        for name in fields.keys() {
            assert!(StoredTrial::writes_field(name), "{name}");
        }
        for name in SKIPPED_WHEN_EMPTY {
            assert!(fields.contains_key(name), "{name} is not a field");
        }
        assert!(!StoredTrial::writes_field("injected"));
    }

    #[test]
    fn a_trial_written_reads_back_as_itself() {
        let mut trial: StoredTrial = serde_json::from_str(FIRST_RELEASE_LINE).unwrap();
        trial.variant = Some("travel-rich".into());
        trial.size = Some(15);
        trial.renamed_tools = vec![("a.b".into(), "a_b".into())];
        let line = serde_json::to_string(&trial).unwrap();
        assert_eq!(serde_json::from_str::<StoredTrial>(&line).unwrap(), trial);
    }
}
