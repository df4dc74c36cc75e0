//! The pieces of `mcpick explain` (issue 50: which sentence of a description earns a tool its picks,
//! and which steals them), built so far as a library without its command: the units a description
//! is measured in (`units`: its sentences, by a rule a person can predict, and each parameter's
//! description; a description without one of its sentences), what one explanation covers (`scope`:
//! the tool's most similar neighbours and the tasks each can be moved on, no-call tasks included),
//! the leave-one-out variants, one per unit (`variants`), and a unit's effect on a group of tasks
//! from paired p_right with and without it (`effects`, with a verdict that never claims more than
//! its interval). The command — the leave-one-out runs through the runner with the prefix cache,
//! EXPLAIN.md, explain.json, the coloured page — is not built yet.

pub mod effects;
pub mod scope;
pub mod units;
pub mod variants;

pub use effects::{Effect, EffectVerdict, NEUTRAL_WITHIN, effect};
pub use scope::{NO_CALL, similar_tools, task_groups};
pub use units::{Unit, UnitKind, description_without, sentences, units};
pub use variants::{LeaveOneOut, leave_one_out};
