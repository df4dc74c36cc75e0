//! Reading and checking the files users write. Every problem becomes a `Diagnostic` naming the file,
//! the line and column (or the JSONL record), what is wrong, and what to do about it; nothing here
//! panics on input. `workspace` finds files and resolves references between them; `toolset`,
//! `variant` and `suite` each turn one kind of file into the validated `model`; `target` is the toolset
//! (and variant) a command names. This module reads
//! files but never writes them, and it does not decide how results are shown (that is the CLI's job).

mod diagnostic;
mod source;
mod suite;
mod target;
mod toolset;
mod variant;
mod workspace;

pub use diagnostic::{Diagnostic, Severity};
pub use target::ToolsetTarget;
pub use variant::LoadedVariant;
pub use workspace::{
    FileKind, FileReport, NotLoaded, WordedToolset, Workspace, WorkspaceCounts, looks_like_path,
};
