//! Suites and tasks: a prompt (or conversation) and what a good assistant does with it.

use super::ArgMatcher;
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
}
