//! Where a command that rewords a toolset (`improve`, `explain`) starts: the suite (one, from the
//! path given), its toolset under the starting wording (`--variant`, else the toolset as it is),
//! the overlay every written variant builds on, the starting arm's label, and the files each run
//! must load besides `toolsets/` (`run_paths`: with the suite's own file).

use super::overlay::Overlay;
use crate::load::{NotLoaded, Workspace};
use crate::model::{Suite, Toolset};
use crate::runner::BASE_ARM;
use std::path::{Path, PathBuf};

/// The suite, its toolset under the starting wording, and the starting variant, loaded.
pub struct Start {
    pub suite: Suite,
    pub toolset: Toolset,
    pub overlay: Overlay,
    /// The starting arm's label, and the stem of every name the command gives.
    pub label: String,
    pub stem: String,
    /// The files every run loads besides the suite: the toolset's and the starting variant's,
    /// those `toolsets/` (which every run reads) does not hold.
    pub files: Vec<PathBuf>,
    /// The suite's file, as given.
    pub suite_path: PathBuf,
}

impl Start {
    /// What every run of the command loads: the suite's file, then `files`.
    pub fn run_paths(&self) -> Vec<PathBuf> {
        std::iter::once(self.suite_path.clone())
            .chain(self.files.iter().cloned())
            .collect()
    }
}

/// Whether `file` is under `toolsets/`, which every run loads.
fn in_toolsets(file: &Path) -> bool {
    match (file.canonicalize(), Path::new("toolsets").canonicalize()) {
        (Ok(file), Ok(dir)) => file.starts_with(dir),
        _ => false,
    }
}

/// Loads `suite` (a file holding one suite) and its toolset under `variant`; `command` names the
/// command in the refusal of a file holding several suites.
pub fn load_start(
    suite_path: &Path,
    variant: Option<&str>,
    command: &str,
) -> Result<Start, String> {
    let toolsets = Path::new("toolsets");
    let mut paths: Vec<PathBuf> = Some(toolsets.to_path_buf())
        .filter(|d| d.is_dir())
        .into_iter()
        .collect();
    paths.push(suite_path.to_path_buf());
    let workspace = Workspace::load(&paths);
    let variants: Vec<&str> = variant.into_iter().collect();
    let errors: Vec<String> = workspace
        .errors_for_suites(&variants)
        .blocking
        .iter()
        .map(|d| d.to_string())
        .collect();
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let suites: Vec<&Suite> = workspace
        .suites
        .iter()
        .filter(|s| s.source.starts_with(suite_path))
        .collect();
    let suite = match suites.as_slice() {
        [suite] => (*suite).clone(),
        [] => return Err(format!("{}: no suite found", suite_path.display())),
        _ => {
            return Err(format!(
                "{}: holds {} suites; {command} one at a time",
                suite_path.display(),
                suites.len()
            ));
        }
    };
    let worded = workspace
        .worded(&suite.toolset, variant)
        .map_err(|missing| match (missing, variant) {
            (NotLoaded::Variant, Some(name)) => format!(
                "--variant {name}: no variant of toolset {} by that name (variants: {})",
                suite.toolset,
                workspace.variant_names().join(", ")
            ),
            _ => format!("suite {}: toolset {} not loaded", suite.name, suite.toolset),
        })?;
    let base = worded.base;
    let mut files: Vec<PathBuf> = Some(base.source.clone())
        .filter(|f| !in_toolsets(f))
        .into_iter()
        .collect();
    let Some(variant) = worded.variant else {
        return Ok(Start {
            toolset: base.clone(),
            overlay: Overlay::new(None, &base.name)?,
            label: BASE_ARM.to_string(),
            stem: base.name.clone(),
            files,
            suite,
            suite_path: suite_path.to_path_buf(),
        });
    };
    if !in_toolsets(&variant.source) {
        files.push(variant.source.clone());
    }
    Ok(Start {
        toolset: variant.toolset.clone(),
        overlay: Overlay::new(Some(variant), &base.name)?,
        label: variant.name.clone(),
        stem: variant.name.clone(),
        files,
        suite,
        suite_path: suite_path.to_path_buf(),
    })
}
