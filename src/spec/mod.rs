//! The file formats, as serde structs and nothing more: what a toolset, variant or suite file may say,
//! spelled as users write it (MCP's camelCase for tool fields). Every struct denies unknown fields so a
//! typo is an error with a line number. Meaning and cross-checks live in `load`; this module must not
//! read files or judge values.

mod located;
mod suite;
mod toolset;
mod variant;

pub use located::{Located, with_toml_spans};
pub use suite::{ExpectedCallSpec, MessageSpec, SuiteFile, TaskSpec};
pub use toolset::{BehaviorSpec, ResponseRuleSpec, ToolSpec, ToolsetFile};
pub use variant::{DescribeSpec, VariantFile};

/// The only file-format version this build reads.
pub const FORMAT_VERSION: u32 = 1;
