//! Variant files: an overlay on one base toolset — new descriptions, renames, removals, additions.

use super::{Located, ToolSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A variant file in TOML.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    pub format: Located<u32>,
    pub variant: Located<String>,
    pub base: Located<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<Located<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rename: BTreeMap<Located<String>, Located<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub describe: BTreeMap<Located<String>, DescribeSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<Located<ToolSpec>>,
}

impl VariantFile {
    /// An overlay named `variant` on the toolset `base` that changes nothing yet, in the format
    /// this build reads: what the writers start from.
    pub fn new(variant: &str, base: &str) -> VariantFile {
        VariantFile {
            format: Located::new(super::FORMAT_VERSION),
            variant: Located::new(variant.to_string()),
            base: Located::new(base.to_string()),
            description: None,
            remove: Vec::new(),
            rename: BTreeMap::new(),
            describe: BTreeMap::new(),
            add: Vec::new(),
        }
    }
}

/// New wording for one tool: its description, title, and parameter descriptions.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DescribeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<Located<String>, String>,
}
