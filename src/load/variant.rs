//! Variant files applied to their base toolset: removals, new descriptions, renames, additions — each
//! naming only tools and parameters that exist, so an overlay can never silently do nothing.

use super::Diagnostic;
use super::source::SourceText;
use super::toolset::{Loaded, ToolChecker, check_tool_name, parameters_help};
use crate::model::Toolset;
use crate::spec::VariantFile;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A variant and the toolset it produces.
#[derive(Debug, Clone)]
pub struct LoadedVariant {
    pub name: String,
    pub base: String,
    pub description: Option<String>,
    pub source: PathBuf,
    /// The base toolset with the overlay applied.
    pub toolset: Toolset,
    /// Base name → new name.
    pub renamed: BTreeMap<String, String>,
    pub removed: BTreeSet<String>,
    pub described: usize,
    pub added: usize,
}

impl LoadedVariant {
    /// The name a base tool has under this variant, or `None` if the variant removes it.
    pub fn map_tool<'a>(&'a self, base_name: &'a str) -> Option<&'a str> {
        if self.removed.contains(base_name) {
            return None;
        }
        Some(
            self.renamed
                .get(base_name)
                .map_or(base_name, String::as_str),
        )
    }
}

/// Parses a variant file without applying it (the workspace needs `base` to find the toolset).
pub fn parse_variant(source: &SourceText) -> Result<VariantFile, Diagnostic> {
    let file: VariantFile = source.parse_toml()?;
    source.check_format(&file.format)?;
    Ok(file)
}

/// Applies a parsed variant to its base toolset.
pub fn apply_variant(
    source: &SourceText,
    file: VariantFile,
    base: &Toolset,
) -> Loaded<LoadedVariant> {
    let mut diagnostics = Vec::new();
    let mut tools = base.tools.clone();
    let missing = |name: &str| {
        format!(
            "variant {:?} names tool {name:?}, which toolset {:?} does not have",
            file.variant.value, base.name
        )
    };
    let known_help = || {
        format!(
            "tools of {:?}: {}",
            base.name,
            base.tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };

    let mut removed = BTreeSet::new();
    for name in &file.remove {
        if base.tool(name).is_none() {
            diagnostics.push(
                source
                    .error(name.span.as_ref(), format!("remove: {}", missing(name)))
                    .help(known_help()),
            );
        }
        removed.insert(name.value.clone());
    }
    tools.retain(|t| !removed.contains(&t.name));

    let mut described = 0;
    for (name, describe) in &file.describe {
        let Some(tool) = tools.iter_mut().find(|t| t.name == name.value) else {
            let message = if removed.contains(&name.value) {
                format!(
                    "describe: tool {:?} is also removed by this variant",
                    name.value
                )
            } else {
                format!("describe: {}", missing(name))
            };
            diagnostics.push(source.error(name.span.as_ref(), message).help(known_help()));
            continue;
        };
        described += 1;
        if let Some(description) = &describe.description {
            tool.description = Some(description.clone());
        }
        if let Some(title) = &describe.title {
            tool.title = Some(title.clone());
        }
        let parameter_names: Vec<String> = tool.parameters().map(|(k, _)| k.clone()).collect();
        for (param, text) in &describe.params {
            let property = tool
                .input_schema
                .get_mut("properties")
                .and_then(|p| p.get_mut(&param.value))
                .and_then(Value::as_object_mut);
            match property {
                Some(property) => {
                    property.insert("description".to_string(), Value::String(text.clone()));
                }
                None => diagnostics.push(
                    source
                        .error(
                            param.span.as_ref(),
                            format!(
                                "describe.{}.params: tool {:?} has no parameter {:?}",
                                name.value, name.value, param.value
                            ),
                        )
                        .help(parameters_help(&parameter_names)),
                ),
            }
        }
    }

    let mut renamed = BTreeMap::new();
    for (old, new) in &file.rename {
        if base.tool(old).is_none() || removed.contains(&old.value) {
            diagnostics.push(
                source
                    .error(old.span.as_ref(), format!("rename: {}", missing(old)))
                    .help(known_help()),
            );
            continue;
        }
        diagnostics.extend(check_tool_name(source, new, new.span.as_ref()));
        renamed.insert(old.value.clone(), new.value.clone());
    }
    for tool in &mut tools {
        if let Some(new) = renamed.get(&tool.name) {
            tool.name = new.clone();
        }
    }
    let mut seen = BTreeSet::new();
    for tool in &tools {
        if !seen.insert(tool.name.clone()) {
            let span = file
                .rename
                .iter()
                .find(|(_, new)| new.value == tool.name)
                .and_then(|(_, new)| new.span.clone());
            diagnostics.push(
                source
                    .error(
                        span.as_ref(),
                        format!("rename: two tools would be called {:?}", tool.name),
                    )
                    .help("pick a name no other tool of the toolset has"),
            );
        }
    }

    let mut checker = ToolChecker::new(source);
    for tool in &tools {
        checker.reserve(&tool.name);
    }
    let added = file.add.len();
    for spec in file.add {
        tools.extend(checker.tool(spec.value, spec.span, &mut diagnostics));
    }

    let toolset = Toolset {
        name: base.name.clone(),
        description: base.description.clone(),
        instructions: base.instructions.clone(),
        source: base.source.clone(),
        variant: Some(file.variant.value.clone()),
        tools,
        lint_allow: base.lint_allow.clone(),
        registry: base.registry.clone(),
    };
    let variant = LoadedVariant {
        name: file.variant.value,
        base: base.name.clone(),
        description: file.description,
        source: source.path.clone(),
        toolset,
        renamed,
        removed,
        described,
        added,
    };
    Loaded::finish(variant, diagnostics)
}
