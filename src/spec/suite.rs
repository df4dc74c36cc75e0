//! Suite files: a toolset reference and `[[task]]` entries (inline, or one JSON object per line in a
//! `tasks_file`).

use super::Located;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A suite file in TOML. Unknown keys are not refused here but found, every one of them, by the
/// loader (`load::suite::keys`), so one typo does not hide the file's other problems; the same
/// holds for the task, message and expected-call tables below.
#[derive(Debug, Deserialize)]
pub struct SuiteFile {
    pub format: Located<u32>,
    pub suite: Located<String>,
    pub toolset: Located<String>,
    pub description: Option<String>,
    pub tasks_file: Option<Located<String>>,
    /// The scoring profile: `mcp` (default) or `bfcl`.
    pub scoring: Option<Located<String>>,
    /// The date the suite's simulated tools answer as of (`today = 2026-11-30`): the default
    /// system prompt then states it.
    pub today: Option<Located<Value>>,
    /// Who drafted the suite's tasks (`mcpick draft` writes it).
    pub drafted_by: Option<DraftedBySpec>,
    #[serde(rename = "task", default)]
    pub tasks: Vec<Located<TaskSpec>>,
}

/// `[drafted_by]`: the drafter that wrote a suite's tasks, as `mcpick draft` records it.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
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
    pub mcpick: Option<String>,
}

/// One task as written, inline or as a JSONL record.
#[derive(Debug, Deserialize)]
pub struct TaskSpec {
    pub id: Located<String>,
    pub prompt: Option<String>,
    pub messages: Option<Vec<MessageSpec>>,
    /// The task's own system message replaces the default system prompt instead of following it.
    pub replace_system: Option<bool>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub lang: Option<String>,
    pub expect: Option<Vec<Located<ExpectedCallSpec>>>,
    pub expect_any_of: Option<Vec<Located<ExpectedCallSpec>>>,
    pub expect_all_of: Option<Vec<Located<ExpectedCallSpec>>>,
    pub expect_no_call: Option<Located<bool>>,
    /// The task's own tool list (names in the toolset), instead of the whole toolset.
    pub tools: Option<Vec<TaskToolSpec>>,
    /// BFCL's own record of the task (written by `import-bfcl`, read by the `bfcl` profile).
    pub bfcl: Option<Value>,
    /// Where a drafted task stands with its reviewer: `draft`, `doubtful` or `accepted`.
    pub review: Option<Located<String>>,
    /// How a drafted task was made (drafter, prompt template, seed, what the pickers chose); kept
    /// as written.
    pub provenance: Option<Value>,
}

/// One entry of a task's own tool list: a toolset tool's name, or `{ tool, as }` to show a toolset
/// tool under another name.
#[derive(Debug, Deserialize)]
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
#[derive(Debug, Deserialize)]
pub struct MessageSpec {
    pub role: Located<String>,
    pub content: String,
}

/// One expected tool call: the tool and the matchers for the arguments that are checked.
#[derive(Debug, Deserialize)]
pub struct ExpectedCallSpec {
    pub tool: Located<String>,
    #[serde(default)]
    // Located keys (not serde_json's String-keyed Map) so a bad argument name points at its own line.
    pub args: BTreeMap<Located<String>, Value>,
    /// The author expects the tool to refuse this call: the attempt itself is the right answer.
    #[serde(default)]
    pub refused: bool,
}
