//! The file formats, as serde structs and nothing more: what a toolset, variant or suite file may say,
//! spelled as users write it (MCP's camelCase for tool fields). Every struct denies unknown fields so a
//! typo is an error with a line number — but for a suite's tables, whose unknown keys the loader
//! finds all at once. The same structs write what they read (`writing`): their constructors stamp
//! the format version, and every command that writes a toolset, suite or variant goes through
//! them. Meaning and cross-checks live in `load`; this module must not read files or judge values.

mod config;
mod located;
mod suite;
mod toolset;
mod variant;
mod writing;

pub use config::{BackendProfile, ConfigFile, LintConfig};
pub use located::{Located, with_toml_spans};
pub use suite::{DraftedBySpec, ExpectedCallSpec, MessageSpec, SuiteFile, TaskSpec, TaskToolSpec};
pub use toolset::{
    BehaviorSpec, LintAllow, ResponseRuleSpec, ToolAnnotations, ToolSpec, ToolsetDocument,
    ToolsetFile,
};
pub use variant::{DescribeSpec, VariantFile};
pub use writing::{json_text, task_line, toml_text};

/// The only file-format version this build reads.
pub const FORMAT_VERSION: u32 = 1;

/// The key under which the `toml` crate hands a date or time to a non-TOML deserializer.
const TOML_DATETIME_KEY: &str = "$__toml_private_datetime";

/// TOML has date and time values, JSON does not: a user who writes `date = 2026-03-14` in a schema,
/// an expected argument or structured content means the string "2026-03-14". Left alone it would
/// arrive as a private marker object that no call could ever match.
pub fn toml_datetimes_as_strings(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            if map.len() == 1
                && let Some(Value::String(text)) = map.get(TOML_DATETIME_KEY)
            {
                *value = Value::String(text.clone());
                return;
            }
            map.values_mut().for_each(toml_datetimes_as_strings);
        }
        Value::Array(items) => items.iter_mut().for_each(toml_datetimes_as_strings),
        _ => {}
    }
}
