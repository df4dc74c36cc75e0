//! Variant files: an overlay on one base toolset — new descriptions, renames, removals, additions.

use super::{Located, ToolSpec};
use serde::Deserialize;
use std::collections::BTreeMap;

/// A variant file in TOML.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    pub format: Located<u32>,
    pub variant: Located<String>,
    pub base: Located<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub remove: Vec<Located<String>>,
    #[serde(default)]
    pub rename: BTreeMap<Located<String>, Located<String>>,
    #[serde(default)]
    pub describe: BTreeMap<Located<String>, DescribeSpec>,
    #[serde(default)]
    pub add: Vec<Located<ToolSpec>>,
}

/// New wording for one tool: its description, title, and parameter descriptions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DescribeSpec {
    pub description: Option<String>,
    pub title: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<Located<String>, String>,
}
