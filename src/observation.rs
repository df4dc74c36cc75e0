//! What a trial observed of the model, below both the backends that produce it and the scorer that
//! judges it: each tool call as the model wrote it (`ObservedCall`: the tool, its arguments parsed or
//! kept raw with why they did not parse, whether the tool answered `isError`, which reply made it),
//! and `Observed`, the part of a finished trial the scorer reads — borrowed from the stored trial, so
//! a trial's result has one shape (`record::StoredTrial`) from the runner to every reader.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A call's arguments as the model wrote them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallArguments {
    Parsed(Map<String, Value>),
    /// Not a JSON object: the raw text and why it failed.
    Malformed {
        raw: String,
        reason: String,
    },
}

/// One tool call the model made, in the order made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservedCall {
    pub tool: String,
    pub arguments: CallArguments,
    /// Whether the tool answered with `isError: true` (`None` if the call was not executed).
    pub result_is_error: Option<bool>,
    /// Which of the model's replies made the call (0 = the first), so a profile that scores one
    /// response can tell the first reply's calls from later ones.
    #[serde(default)]
    pub reply: u32,
}

/// What scoring reads of a finished trial.
#[derive(Debug, Clone, Copy, Default)]
pub struct Observed<'a> {
    /// The tool names the model was shown, in listing order.
    pub tools_shown: &'a [String],
    /// Every call it made (searches for tools are not among them).
    pub calls: &'a [ObservedCall],
    /// Set when the backend failed after its retries.
    pub backend_error: Option<&'a str>,
}
