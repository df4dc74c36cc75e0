//! The one rule for "toolset + variant": which loaded toolset a name (or a file's path) means, and
//! which of its variants a variant's name (or path) means — a variant of another toolset never
//! counts. `lint` and `serve` (through `ToolsetTarget`), the run plan's arms and `improve`'s start
//! all ask here.

use super::Workspace;
use super::file_identity::file_key;
use crate::load::variant::LoadedVariant;
use crate::model::Toolset;
use std::path::Path;

/// A toolset under one wording: the base toolset, and the variant laid over it (none: the toolset
/// as it is).
#[derive(Debug, Clone, Copy)]
pub struct WordedToolset<'a> {
    pub base: &'a Toolset,
    pub variant: Option<&'a LoadedVariant>,
}

impl<'a> WordedToolset<'a> {
    /// The tools as this wording has them.
    pub fn toolset(&self) -> &'a Toolset {
        self.variant.map_or(self.base, |v| &v.toolset)
    }
}

/// What was asked for and is not loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotLoaded {
    Toolset,
    /// The toolset is, but no variant of it by that name or path.
    Variant,
}

/// Whether a toolset or variant argument is a file's path rather than a name.
pub fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.ends_with(".toml") || s.ends_with(".json")
}

impl Workspace {
    /// `toolset` (a name, or the path of its file) under `variant` (a name or path of one of its
    /// variants; none: as it is).
    pub fn worded(
        &self,
        toolset: &str,
        variant: Option<&str>,
    ) -> Result<WordedToolset<'_>, NotLoaded> {
        // A bystander server is found only when nothing else answers to the name.
        let base = if looks_like_path(toolset) {
            let path = file_key(Path::new(toolset));
            self.toolsets
                .iter()
                .chain(&self.bystanders)
                .find(|t| file_key(&t.source) == path)
        } else {
            self.toolset(toolset).or_else(|| self.bystander(toolset))
        }
        .ok_or(NotLoaded::Toolset)?;
        let Some(variant) = variant else {
            return Ok(WordedToolset {
                base,
                variant: None,
            });
        };
        let of_base = self.variants.iter().filter(|v| v.base == base.name);
        let found = if looks_like_path(variant) {
            let path = file_key(Path::new(variant));
            of_base.into_iter().find(|v| file_key(&v.source) == path)
        } else {
            of_base.into_iter().find(|v| v.name == variant)
        };
        Ok(WordedToolset {
            base,
            variant: Some(found.ok_or(NotLoaded::Variant)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::FORMAT_VERSION;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let tool = |name: &str| {
            format!(
                "[[tool]]\nname = \"{name}\"\ndescription = \"Finds a {name}.\"\n[tool.inputSchema]\ntype = \"object\"\n"
            )
        };
        for (file, text) in [
            (
                "a.toml",
                format!("format = {FORMAT_VERSION}\nname = \"a\"\n{}", tool("x")),
            ),
            (
                "b.toml",
                format!("format = {FORMAT_VERSION}\nname = \"b\"\n{}", tool("y")),
            ),
            (
                "a-terse.toml",
                format!(
                    "format = {FORMAT_VERSION}\nvariant = \"terse\"\nbase = \"a\"\n[describe.x]\ndescription = \"Finds an x, tersely.\"\n"
                ),
            ),
        ] {
            std::fs::write(dir.path().join(file), text).unwrap();
        }
        let workspace = Workspace::load(&[dir.path().to_path_buf()]);
        assert!(!workspace.has_errors(), "{:?}", workspace.files);
        (dir, workspace)
    }

    #[test]
    fn a_variant_counts_only_over_its_own_toolset() {
        let (dir, workspace) = workspace();
        let worded = workspace.worded("a", Some("terse")).unwrap();
        assert_eq!(
            worded.toolset().tools[0].description.as_deref(),
            Some("Finds an x, tersely.")
        );
        assert_eq!(workspace.worded("a", None).unwrap().toolset().name, "a");
        assert_eq!(
            workspace.worded("b", Some("terse")).unwrap_err(),
            NotLoaded::Variant
        );
        assert_eq!(workspace.worded("c", None).unwrap_err(), NotLoaded::Toolset);
        // By path as well as by name.
        let path = dir.path().join("a-terse.toml");
        let by_path = workspace
            .worded(
                dir.path().join("a.toml").to_str().unwrap(),
                Some(path.to_str().unwrap()),
            )
            .unwrap();
        assert_eq!(by_path.variant.unwrap().name, "terse");
    }
}
