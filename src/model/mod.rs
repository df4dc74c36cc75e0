//! The validated, in-memory meaning of the files: toolsets of tools with their simulated behaviour,
//! suites of tasks with their expectations, and the argument matchers both use. Everything here has
//! passed `load`'s checks, so later stages (registry, server, runner, scoring) can trust it. This module
//! neither reads files nor reports errors; it only holds and matches.

mod comparison;
mod matcher;
mod task;
mod tool;

pub use comparison::{Comparison, classify};
pub use matcher::{Alternative, ArgMatcher, MatcherError, distinct_items_match};
pub use task::{
    BfclRecord, Expectation, ExpectedCall, Message, Review, Role, ScoringProfile, Suite, Task,
    TaskInput, TaskTool,
};
pub use tool::{
    Behavior, RegistryListing, Response, ResponseRule, Tool, ToolAnnotations, Toolset,
    fill_template, template_placeholders,
};
