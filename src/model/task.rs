//! Suites and tasks: a prompt (or conversation) and what a good assistant does with it.

use super::ArgMatcher;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A named set of tasks for one toolset.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub description: Option<String>,
    pub source: PathBuf,
    /// The toolset's name as resolved by the loader.
    pub toolset: String,
    /// The scoring profile the suite asks for (`scoring` in the suite file; `mcp` by default).
    pub scoring: ScoringProfile,
    /// The date the suite's tools answer as of (`today`), stated in the default system prompt.
    pub today: Option<String>,
    pub tasks: Vec<Task>,
}

/// One task.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    pub input: TaskInput,
    pub tags: Vec<String>,
    pub lang: String,
    pub expectation: Expectation,
    /// The tools this task is shown, when it names its own (BFCL tasks carry their own functions);
    /// `None`: the suite's whole toolset.
    pub tools: Option<Vec<TaskTool>>,
    /// Where the task was written: its file and 1-based line.
    pub source: PathBuf,
    pub line: Option<usize>,
    /// How its trials are judged: the suite's `scoring`, unless a run says otherwise.
    pub scoring: ScoringProfile,
    /// BFCL's own record of the task, for the `bfcl` profile (tasks imported by `import-bfcl`).
    pub bfcl: Option<BfclRecord>,
    /// Its suite's `today`, which the default system prompt states.
    pub today: Option<String>,
    /// The task's own system message replaces the default system prompt instead of following it.
    pub replace_system: bool,
    /// Where a drafted task stands with its reviewer (`None`: written by hand).
    pub review: Option<Review>,
    /// Its suite's `[drafted_by]`, for a drafted suite.
    pub drafted_by: Option<crate::spec::DraftedBySpec>,
}

/// A drafted task's review state (`review` in a task).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Review {
    /// Written by a drafter and passed its checks; nobody has looked yet.
    Draft,
    /// Passed the checks, but no offline picker chose its intended tool: look first.
    Doubtful,
    /// A person accepted it.
    Accepted,
}

impl Review {
    pub fn parse(text: &str) -> Option<Review> {
        match text {
            "draft" => Some(Review::Draft),
            "doubtful" => Some(Review::Doubtful),
            "accepted" => Some(Review::Accepted),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Review::Draft => "draft",
            Review::Doubtful => "doubtful",
            Review::Accepted => "accepted",
        }
    }

    /// Not yet accepted by a person.
    pub fn pending(self) -> bool {
        self != Review::Accepted
    }
}

/// A set of scoring rules. `mcp`: mcpick's own (multi-turn, self-correction counts; see the `score`
/// module). `bfcl`: BFCL's checker exactly, on the first reply (see `score::bfcl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoringProfile {
    #[default]
    Mcp,
    Bfcl,
}

impl ScoringProfile {
    pub fn as_str(self) -> &'static str {
        match self {
            ScoringProfile::Mcp => "mcp",
            ScoringProfile::Bfcl => "bfcl",
        }
    }

    pub fn parse(text: &str) -> Option<ScoringProfile> {
        match text {
            "mcp" => Some(ScoringProfile::Mcp),
            "bfcl" => Some(ScoringProfile::Bfcl),
            _ => None,
        }
    }
}

/// A task's record in BFCL's own terms: its category (which picks BFCL's checker), its functions as
/// BFCL wrote them (types such as `float`, `tuple`, `any` that MCP's JSON Schema does not keep), and
/// its possible answers (`[{function: {parameter: [acceptable values]}}]`; empty for relevance and
/// irrelevance records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BfclRecord {
    pub category: String,
    pub function: Vec<Value>,
    #[serde(default)]
    pub ground_truth: Vec<Value>,
}

/// One tool of a task's own list: a toolset tool, shown under `name`. The two differ only when a
/// data set gives different functions one name (BFCL does, across tasks): the toolset keeps each
/// definition under its own name, and the task shows it under the name the data set uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskTool {
    /// The tool's name in the toolset.
    pub tool: String,
    /// The name the task shows it under (and its expectation calls it by).
    pub name: String,
}

/// What the model is given.
#[derive(Debug, Clone)]
pub enum TaskInput {
    Prompt(String),
    Messages(Vec<Message>),
}

impl TaskInput {
    /// The user messages, in order (a prompt is one).
    pub fn user_messages(&self) -> Vec<&str> {
        match self {
            TaskInput::Prompt(prompt) => vec![prompt.as_str()],
            TaskInput::Messages(messages) => messages
                .iter()
                .filter(|m| m.role == Role::User)
                .map(|m| m.content.as_str())
                .collect(),
        }
    }
}

/// One chat turn.
#[derive(Debug, Clone)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

/// What a good answer does.
#[derive(Debug, Clone)]
pub enum Expectation {
    /// These calls, in this order (one entry for a single-call task).
    Calls(Vec<ExpectedCall>),
    /// Any one of these calls.
    AnyOf(Vec<ExpectedCall>),
    /// All of these calls, in any order (BFCL's parallel calls).
    AllOf(Vec<ExpectedCall>),
    /// No tool call at all.
    NoCall,
}

impl Expectation {
    /// Every call the expectation names.
    pub fn calls(&self) -> &[ExpectedCall] {
        match self {
            Expectation::Calls(calls) | Expectation::AnyOf(calls) | Expectation::AllOf(calls) => {
                calls
            }
            Expectation::NoCall => &[],
        }
    }

    /// The tools a right first pick may choose: the first step of ordered calls, any alternative,
    /// any of the parallel calls; none for a no-call task.
    pub fn first_pick_tools(&self) -> Vec<&str> {
        let tools: &[ExpectedCall] = match self {
            Expectation::Calls(steps) => steps.get(..1).unwrap_or_default(),
            Expectation::AnyOf(calls) | Expectation::AllOf(calls) => calls,
            Expectation::NoCall => &[],
        };
        tools.iter().map(|c| c.tool.as_str()).collect()
    }

    /// The same expectation with every expected tool renamed by `rename` (`None` keeps the name).
    pub fn renamed(&self, rename: impl Fn(&str) -> Option<String>) -> Expectation {
        let mut renamed = self.clone();
        if let Expectation::Calls(calls) | Expectation::AnyOf(calls) | Expectation::AllOf(calls) =
            &mut renamed
        {
            for call in calls {
                if let Some(new) = rename(&call.tool) {
                    call.tool = new;
                }
            }
        }
        renamed
    }
}

/// An expected call: the tool, and matchers for the arguments that are checked.
#[derive(Debug, Clone)]
pub struct ExpectedCall {
    pub tool: String,
    pub args: BTreeMap<String, ArgMatcher>,
    /// The author expects the tool to refuse this call (`refused = true`): the attempt is the right
    /// answer, so a call the tool answers with `isError` still counts.
    pub refused: bool,
}
