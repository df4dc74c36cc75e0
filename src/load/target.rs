//! Which toolset a command means: a file path or a name in `toolsets/`, optionally overlaid by a
//! variant (a file path or a name in `toolsets/variants/`); the files behind it (what a live server
//! watches) and the toolset they load to (`Workspace::worded` decides which). Shared by `lint`
//! and `serve`.

use super::diagnostic::Diagnostic;
use super::workspace::{Workspace, looks_like_path};
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
        workspace
            .worded(&self.toolset, self.variant.as_deref())
            .ok()
            .map(|worded| worded.toolset())
    }
}

fn toolset_path(toolset: &str) -> PathBuf {
    if looks_like_path(toolset) {
        return PathBuf::from(toolset);
    }
    let json = PathBuf::from(format!("toolsets/{toolset}.json"));
    let toml = PathBuf::from(format!("toolsets/{toolset}.toml"));
    if json.is_file() {
        json
    } else if toml.is_file() || !Path::new("toolsets").is_dir() {
        toml
    } else {
        // A toolset whose `name` is not its file's: `run` finds it among `toolsets/`, and so
        // does every command that names a toolset.
        PathBuf::from("toolsets")
    }
}
