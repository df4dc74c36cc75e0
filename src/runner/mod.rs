//! Running trials: for each suite, its toolset is served by one `McpServer`; each trial (task ×
//! backend) opens a fresh MCP session on the in-memory transport, lets the backend take turns — tool
//! calls go through `tools/call`, results (including `isError` ones) go back to the model — up to a
//! turn limit, then scores what happened. Results are written as they come (`output`), so a crash
//! loses nothing finished.

mod output;
mod trial;

pub use output::{RunFolder, TrialLine, rebuild};
pub use trial::{TrialOutcome, run_trial};
