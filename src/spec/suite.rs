//! Suite files: a toolset reference and `[[task]]` entries (inline, or one JSON object per line in a
//! `tasks_file`).

use super::Located;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A suite file in TOML. Unknown keys are not refused here but found, every one of them, by the
/// loader (`load::suite::keys`), so one typo does not hide the file's other problems; the same
/// holds for the task, message and expected-call tables below.
#[derive(Debug, Deserialize, Serialize)]
pub struct SuiteFile {
    pub format: Located<u32>,
    pub suite: Located<String>,
    pub toolset: Located<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks_file: Option<Located<String>>,
    /// The scoring profile: `mcp` (default) or `bfcl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<Located<String>>,
    /// The date the suite's simulated tools answer as of (`today = 2026-11-30`): the default
    /// system prompt then states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<Located<Value>>,
    /// Who drafted the suite's tasks (`mcpick draft` writes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drafted_by: Option<DraftedBySpec>,
    #[serde(rename = "task", default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<Located<TaskSpec>>,
}

impl SuiteFile {
    /// A suite of `toolset` named `suite`, in the format this build reads, with nothing else said
    /// yet: what the writers start from.
    pub fn new(suite: &str, toolset: &str) -> SuiteFile {
        SuiteFile {
            format: Located::new(super::FORMAT_VERSION),
            suite: Located::new(suite.to_string()),
            toolset: Located::new(toolset.to_string()),
            description: None,
            tasks_file: None,
            scoring: None,
            today: None,
            drafted_by: None,
            tasks: Vec::new(),
        }
    }
}

/// `[drafted_by]`: the drafter that wrote a suite's tasks, as `mcpick draft` records it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DraftedBySpec {
    /// The drafter's backend id (`local:score`, `openai:gpt-4o-mini`).
    pub drafter: String,
    /// What the model is: `sha256:…` of an embedded model's file, else the backend id.
    pub model: String,
    /// The SHA-256 of the prompt templates that asked for the tasks.
    pub prompt_template: String,
    pub seed: u64,
    /// The mcpick version that drafted them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcpick: Option<String>,
}

/// One task as written, inline or as a JSONL record.
#[derive(Debug, Deserialize, Serialize)]
pub struct TaskSpec {
    pub id: Located<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<MessageSpec>>,
    /// The task's own system message replaces the default system prompt instead of following it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_system: Option<bool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Vec<Located<ExpectedCallSpec>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_any_of: Option<Vec<Located<ExpectedCallSpec>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_all_of: Option<Vec<Located<ExpectedCallSpec>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_no_call: Option<Located<bool>>,
    /// The task's own tool list (names in the toolset), instead of the whole toolset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<TaskToolSpec>>,
    /// BFCL's own record of the task (written by `import-bfcl`, read by the `bfcl` profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bfcl: Option<Value>,
    /// Where a drafted task stands with its reviewer: `draft`, `doubtful` or `accepted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<Located<String>>,
    /// How a drafted task was made (drafter, prompt template, seed, what the pickers chose); kept
    /// as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Value>,
}

/// One entry of a task's own tool list: a toolset tool's name, or `{ tool, as }` to show a toolset
/// tool under another name.
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum TaskToolSpec {
    Name(String),
    Renamed {
        tool: String,
        #[serde(rename = "as")]
        shown_as: String,
    },
}

/// One chat turn of a `messages` task.
#[derive(Debug, Deserialize, Serialize)]
pub struct MessageSpec {
    pub role: Located<String>,
    pub content: String,
}

/// One expected tool call: the tool and the matchers for the arguments that are checked.
#[derive(Debug, Deserialize, Serialize)]
pub struct ExpectedCallSpec {
    pub tool: Located<String>,
    #[serde(default)]
    // Located keys (not serde_json's String-keyed Map) so a bad argument name points at its own line.
    pub args: BTreeMap<Located<String>, Value>,
    /// The author expects the tool to refuse this call: the attempt itself is the right answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}
