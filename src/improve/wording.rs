//! A candidate: a new wording for one tool, where it came from, and why it was turned away if it
//! was (keeping only an excerpt of it then). The wording itself, and how it is put on a toolset,
//! are `crate::wording`'s.

pub use crate::wording::{Wording, apply, wording_of};
use serde::{Deserialize, Serialize};

/// Who proposed a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The `--rewriter` model.
    Rewriter,
    /// Built from the lint's findings and the confusable pair, without a model.
    Rules,
    /// A unit `improve --explain` measured stealing the target's picks, taken out.
    Explain,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Rewriter => "rewriter",
            Origin::Rules => "rules",
            Origin::Explain => "explain",
        }
    }
}

/// A proposed wording for a round's target tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The tool, by the name it is served under.
    pub tool: String,
    pub origin: Origin,
    pub wording: Wording,
    /// Why it was not run (empty: it passed the checks).
    #[serde(default)]
    pub rejected: Vec<String>,
}
