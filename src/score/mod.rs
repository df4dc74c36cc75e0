//! Scoring: what happened in a trial, judged against what the task expected. Pure functions only —
//! no I/O, no clock, no randomness — so every verdict can be recomputed from `trials.jsonl` alone and
//! tested from a table of cases.
//!
//! A trial is judged in this order (the first rule that applies decides the outcome):
//!
//! 1. The backend failed after its retries → `error` (excluded from accuracies; counted and shown).
//! 2. The task expects no call: no call → `correct_abstain`; any call, even a malformed one →
//!    `false_call`.
//! 3. No call at all → `no_call`.
//! 4. The first call's arguments could not be parsed → `malformed_call` (a parse failure is never
//!    credited as abstention).
//! 5. The first call names a tool the model was not shown → `hallucinated_tool`.
//! 6. The first call is not an acceptable tool (for `expect`, the first step's tool; for
//!    `expect_any_of` and `expect_all_of`, any listed call's) → `wrong_tool`. *Selection* is this
//!    first pick.
//! 7. For an ordered multi-step `expect`, a later step's tool is never called in order → `wrong_tool`;
//!    for `expect_all_of`, a listed call's tool is never called → `wrong_tool`.
//! 8. The arguments: every step needs a call to its tool whose arguments match (a retry after an
//!    `isError` result counts, which is *self-correction* and is reported separately) → `correct`,
//!    otherwise `wrong_args`. `expect_all_of` (BFCL's parallel calls) takes its calls in any order,
//!    each answered by a call of its own: a maximum matching between expected and made calls.
//!    Unlike BFCL, extra calls beyond the expected ones are not penalised (they may be retries).
//!    A call its tool answered with `isError` never counts as the matching call: the server's
//!    schema check rejected it (an argument the tool does not declare, a required one left out) or
//!    the tool failed.
//!
//! Argument matching follows the Berkeley Function Calling Leaderboard's checker: each expected
//! argument lists acceptable values (`""` = may be omitted), strings compare after normalisation
//! (case, spaces and the punctuation `,./-_*^` ignored), numbers compare by value (an integer is an
//! acceptable float), lists compare element by element in order, objects key by key (a key the
//! matcher does not mention is wrong inside an argument), and top-level arguments the task does
//! not mention are not judged (the tool's schema has already validated them). This is the `mcp`
//! profile; `bfcl` (module `bfcl`) is BFCL's checker exactly, and `docs/scoring.md`'s table lists
//! every difference between the two.

mod arguments;
pub mod bfcl;
mod tally;
mod verdict;

pub use arguments::{ArgumentMismatch, match_arguments};
pub use tally::{Interval, Tally, wilson_interval};
pub use verdict::{Outcome, Verdict, score};

use crate::model::{ScoringProfile, Task};
use crate::observation::Observed;

/// Judges a trial of `task` under the task's profile. A `bfcl` task without BFCL's record cannot
/// occur: the run plan refuses the profile for such suites.
pub fn score_task(task: &Task, trial: &Observed<'_>) -> Verdict {
    match (task.scoring, &task.bfcl) {
        (ScoringProfile::Bfcl, Some(record)) => bfcl::score_bfcl(record, &task.expectation, trial),
        _ => score(&task.expectation, trial),
    }
}
