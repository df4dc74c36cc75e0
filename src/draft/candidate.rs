//! One drafted request on its way to the suite, and what became of it: kept (for review, or marked
//! doubtful when no offline picker found its tool, with what each picked) or dropped for a reason
//! the checks name. Candidates are made from a drafter's checked reply, in the reply's order.

use super::asks::{Ask, Intent, Style};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A request the drafter wrote, with the call it says serves it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The ask it answered (`tool:NAME`, `pair:A:B`, `none:K`) and its place in the reply.
    pub ask: String,
    pub item: usize,
    pub intent: Intent,
    pub style: Style,
    pub request: String,
    /// The expected call's arguments (none for a no-call request).
    pub arguments: Map<String, Value>,
    /// The intended tool's `inputSchema` (`null` for a no-call request).
    pub input_schema: Value,
    pub fate: Fate,
}

/// What the checks made of a candidate.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// Not yet judged by the agreement check.
    Pending,
    /// In the suite. `picks`: what each offline picker chose (`none` for no call); `doubtful` when
    /// none of them chose what the candidate intends.
    Kept {
        doubtful: bool,
        picks: BTreeMap<String, String>,
    },
    Dropped {
        reason: DropReason,
        detail: String,
    },
}

/// Why a candidate was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DropReason {
    /// It is not what a person types: longer than `MAX_REQUEST_CHARS`, or holding control,
    /// bidirectional or invisible characters.
    Form,
    /// It names its tool, a distinctive word of the name, or a parameter as an identifier.
    Leakage,
    /// Its expected call breaks the tool's schema.
    Schema,
    /// Its expected call holds a value the request does not state.
    Unsupported,
    /// The same request, or nearly, is already kept.
    Duplicate,
    /// The suite's own load checks refuse the task (`mcpick validate`): e.g. the tool's simulated
    /// behaviour refuses every call the expectation accepts, so no model could pass it.
    Invalid,
}

impl DropReason {
    pub const ALL: [DropReason; 6] = [
        DropReason::Form,
        DropReason::Leakage,
        DropReason::Schema,
        DropReason::Unsupported,
        DropReason::Duplicate,
        DropReason::Invalid,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::Form => "form",
            DropReason::Leakage => "leakage",
            DropReason::Schema => "schema",
            DropReason::Unsupported => "unsupported",
            DropReason::Duplicate => "duplicate",
            DropReason::Invalid => "invalid",
        }
    }
}

/// The longest request a drafted task may have: a person typing one request to an assistant
/// writes a few sentences, not pages.
pub const MAX_REQUEST_CHARS: usize = 2000;

/// Why a request is not one a person types, if it is not: too long, or holding characters that
/// move the cursor, reverse the text or show as nothing.
pub fn form_problem(request: &str) -> Option<String> {
    let length = request.chars().count();
    if length > MAX_REQUEST_CHARS {
        return Some(format!(
            "{length} characters, more than a person types in one request ({MAX_REQUEST_CHARS})"
        ));
    }
    let hidden = crate::untrusted_text::hidden_characters(request);
    // A joiner and an emoji presentation selector belong inside emoji; other invisible
    // characters disguise words.
    let mut found = hidden;
    for c in request.chars() {
        let disguising = crate::untrusted_text::invisible(c) && c != '\u{200d}' && c != '\u{fe0f}';
        if disguising && !found.contains(&c) {
            found.push(c);
        }
    }
    let named: Vec<String> = found
        .iter()
        .take(5)
        .map(|c| format!("U+{:04X}", *c as u32))
        .collect();
    if !named.is_empty() {
        return Some(format!(
            "it holds control, bidirectional or invisible characters ({}), which no person types",
            named.join(", ")
        ));
    }
    None
}

impl Candidate {
    /// The candidates of one ask's checked reply (`{"requests": [...]}`).
    pub fn from_reply(ask: &Ask, reply: &Value, input_schema: &Value) -> Vec<Candidate> {
        let items = reply["requests"].as_array().cloned().unwrap_or_default();
        items
            .into_iter()
            .enumerate()
            .map(|(item, value)| Candidate {
                ask: ask.id.clone(),
                item,
                intent: ask.intent.clone(),
                style: ask.styles[item.min(ask.styles.len() - 1)],
                request: value["request"]
                    .as_str()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
                arguments: value["arguments"].as_object().cloned().unwrap_or_default(),
                input_schema: input_schema.clone(),
                fate: Fate::Pending,
            })
            .collect()
    }

    /// The task id it gets in the suite: `TOOL-K`, `TOOL-not-OTHER` or `none-K` (K from 1).
    pub fn task_id(&self) -> String {
        match &self.intent {
            Intent::Tool(tool) => format!("{tool}-{}", self.item + 1),
            Intent::Pair { tool, not } => format!("{tool}-not-{not}"),
            Intent::NoCall => {
                let part: usize = self
                    .ask
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(0);
                format!(
                    "none-{}",
                    part * super::asks::NO_CALL_PER_ASK + self.item + 1
                )
            }
        }
    }

    pub fn kept(&self) -> bool {
        !matches!(self.fate, Fate::Dropped { .. })
    }

    pub fn drop(&mut self, reason: DropReason, detail: impl Into<String>) {
        self.fate = Fate::Dropped {
            reason,
            detail: detail.into(),
        };
    }

    /// The kind of request, as DRAFT.md counts them.
    pub fn kind(&self) -> &'static str {
        match self.intent {
            Intent::Tool(_) => "per tool",
            Intent::Pair { .. } => "pairs",
            Intent::NoCall => "no call",
        }
    }
}
