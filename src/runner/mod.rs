//! Running trials: every run goes in through `folder_run::run` (started, announced, executed,
//! summed up; `mcpick run` and the runs `draft`, `improve` and `explain` make alike, the last two
//! as a `run_set`: their runs in one folder, sharing a budget). A run is started
//! (`start`: new or resumed, its shard, folder and manifest) and its plan (`plan`) resolved once; each suite's toolset is served by one `McpServer` (whose
//! tools/list the first trial lists and the rest share, `ToolListing`); each trial (task × backend)
//! opens a fresh MCP session on the in-memory transport, lets the backend take turns through its
//! lane (`lane`: cache, rate limits, timeout, retries) — tool calls go through `tools/call`, results
//! (including `isError` ones) go back to the model — up to a turn limit, then scores what happened,
//! filling in the stored trial the plan made for it. `schedule` runs the lanes concurrently, each
//! in the order `prefix_order` gives (consecutive prompts sharing the longest prefix, which a local
//! model's KV cache and providers' prompt caches reuse), and appends each trial as it finishes to
//! the run folder (`record`), so a crash or Ctrl-C loses nothing finished. The runner writes
//! records only; summaries and reports are `report`'s, built from the records.

mod batch;
mod cache;
mod folder_run;
mod lane;
mod plan;
mod prefix_order;
mod price;
mod reply_bound;
mod run_progress;
mod run_set;
mod schedule;
mod start;
mod sweep_tools;
mod trial;
mod trial_serving;

pub use crate::backend::redact;
pub use batch::{BatchQueue, BatchSettings};
pub use cache::{ResponseCache, cache_folder};
pub use folder_run::{FolderRun, Stop, run, run_in_folder};
pub use lane::{BackendLane, RateLimiter, ReplyCost, RetryPolicy};
pub use plan::{BASE_ARM, PlanError, PlannedTrial, RunPlan};
pub use price::list_price;
pub use run_set::{RunSet, RunTrials};
pub use schedule::{Execution, execute};
pub use start::{RunTarget, ShardRequest, StartError, StartedRun, start_run};
pub use sweep_tools::{distractor_pool, exposed_tools, gold_position};
pub use trial::{Halt, ToolListing, run_trial};
