//! Which toolset a command means: a file path or a name in `toolsets/`, optionally overlaid by a
//! variant (a file path or a name in `toolsets/variants/`); the files behind it (what a live server
//! watches) and the toolset they load to. Shared by `lint` and `serve`.

use super::diagnostic::Diagnostic;
use super::workspace::Workspace;
use crate::model::Toolset;
use std::path::{Path, PathBuf};

/// A toolset as named on the command line.
#[derive(Debug, Clone)]
pub struct ToolsetTarget {
    pub toolset: String,
    pub variant: Option<String>,
}

impl ToolsetTarget {
    /// The files to load: the toolset, and the variant file or the variants directory.
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut paths = vec![toolset_path(&self.toolset)];
        match &self.variant {
            Some(v) if looks_like_path(v) => paths.push(PathBuf::from(v)),
            Some(_) => paths.push(PathBuf::from("toolsets/variants")),
            None => {}
        }
        paths
    }

    /// Loads the toolset (with its variant applied), or returns the errors that stopped it.
    pub fn load(&self) -> Result<Toolset, Vec<Diagnostic>> {
        let workspace = Workspace::load(&self.paths());
        match self.pick(&workspace) {
            Some(toolset) => Ok(toolset.clone()),
            None => {
                let mut errors: Vec<Diagnostic> = workspace.error_diagnostics().cloned().collect();
                if errors.is_empty() {
                    let wanted = match &self.variant {
                        Some(v) => format!("variant {v:?} of toolset {:?}", self.toolset),
                        None => format!("toolset {:?}", self.toolset),
                    };
                    let path = self.paths().remove(0);
                    errors.push(Diagnostic::error(path, format!("no {wanted} was found")).help(
                        "name a toolset file, or a toolset in toolsets/ (and a variant in toolsets/variants/); `mcpick list` shows them",
                    ));
                }
                Err(errors)
            }
        }
    }

    fn pick<'a>(&self, workspace: &'a Workspace) -> Option<&'a Toolset> {
        let base = if looks_like_path(&self.toolset) {
            let path = normal(Path::new(&self.toolset));
            workspace
                .toolsets
                .iter()
                .find(|t| normal(&t.source) == path)?
        } else {
            workspace.toolset(&self.toolset)?
        };
        match &self.variant {
            None => Some(base),
            Some(v) if looks_like_path(v) => {
                let path = normal(Path::new(v));
                workspace
                    .variants
                    .iter()
                    .find(|x| normal(&x.source) == path && x.base == base.name)
                    .map(|x| &x.toolset)
            }
            Some(v) => workspace
                .variants
                .iter()
                .find(|x| &x.name == v && x.base == base.name)
                .map(|x| &x.toolset),
        }
    }
}

fn toolset_path(toolset: &str) -> PathBuf {
    if looks_like_path(toolset) {
        return PathBuf::from(toolset);
    }
    let json = PathBuf::from(format!("toolsets/{toolset}.json"));
    if json.is_file() {
        json
    } else {
        PathBuf::from(format!("toolsets/{toolset}.toml"))
    }
}

fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.ends_with(".toml") || s.ends_with(".json")
}

fn normal(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}
