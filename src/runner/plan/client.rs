//! The plan's client profile (`--client`): the profile read and checked, the names a toolset's
//! tools are shown under (each tool under the profile's name, left out, or the run refused), the
//! cap applied to what a trial shows, and per trial whether the client defers the tools behind its
//! search exposure — with the notice that says, size by size, how many draws it defers. The suites
//! step renames through these the way a variant renames, so scores map back as a rename's do.

use super::{PlannedTrial, RunPlan};
use crate::client_profile::{ClientProfile, PastCap, ShownName, profile};
use crate::model::Tool;
use crate::runner::lane::BackendLane;
use crate::settings::RunSettings;
use crate::tool_exposure::{Exposure, estimated_tokens};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The run's profile (`None` without `--client`); an unknown name is a problem.
pub(super) fn load(options: &RunSettings, problems: &mut Vec<String>) -> Option<ClientProfile> {
    let name = options.client.as_deref()?;
    profile(name).map_err(|e| problems.push(e)).ok()
}

/// Each tool's shown name under `profile` as a server named `server` (`None`: left out), or why
/// the client refuses the server.
pub(super) fn shown_names(
    profile: &ClientProfile,
    server: &str,
    tools: &[Tool],
    notices: &mut Vec<String>,
) -> Result<HashMap<String, Option<String>>, String> {
    let mut names = HashMap::new();
    for tool in tools {
        let shown = match profile.shown_name(server, &tool.name) {
            ShownName::Shown(name) => Some(name),
            ShownName::LeftOut(why) => {
                let notice = format!(
                    "--client {}: tool {} of {server} is left out: {why}",
                    profile.name, tool.name
                );
                if !notices.contains(&notice) {
                    notices.push(notice);
                }
                None
            }
            ShownName::Refused(why) => {
                return Err(format!(
                    "--client {}: {} refuses the tools of {server}: {why}",
                    profile.name, profile.title
                ));
            }
        };
        names.insert(tool.name.clone(), shown);
    }
    Ok(names)
}

/// `tools` under their shown names, the left-out ones gone.
pub(super) fn renamed(tools: Vec<Tool>, names: &HashMap<String, Option<String>>) -> Vec<Tool> {
    tools
        .into_iter()
        .filter_map(|mut tool| {
            let shown = names.get(&tool.name)?.clone()?;
            tool.name = shown;
            Some(tool)
        })
        .collect()
}

/// The cap on a suite's whole toolset (`first-n`: the first tools kept, said in a notice;
/// `refuse`: a problem) and on every sweep size.
pub(super) fn apply_cap(
    profile: &ClientProfile,
    suite: &str,
    sizes: &[u32],
    tools: &mut Vec<Tool>,
    problems: &mut Vec<String>,
    notices: &mut Vec<String>,
) {
    let Some(cap) = profile.cap() else { return };
    let most = cap.max_tools as usize;
    let largest = sizes
        .iter()
        .copied()
        .max()
        .map_or(tools.len(), |n| n as usize);
    if largest <= most {
        return;
    }
    let name = &profile.name;
    let mut say = |notice: String| {
        if !notices.contains(&notice) {
            notices.push(notice);
        }
    };
    match cap.past_cap {
        Some(PastCap::FirstN) => {
            if sizes.is_empty() {
                tools.truncate(most);
            }
            say(format!(
                "--client {name}: {} sends only the first {most} tools; suite {suite}'s trials over {most} show the first {most} listed",
                profile.title
            ));
        }
        Some(PastCap::Refuse) => problems.push(format!(
            "--client {name}: {} refuses more than {most} tools; suite {suite} shows {largest}",
            profile.title
        )),
        Some(PastCap::Defer) => {}
        None => say(format!(
            "--client {name}: past {most} tools what {} does is unknown; suite {suite}'s {largest} are all shown",
            profile.title
        )),
    }
}

/// Problems with the exposure the client defers into: `native-search` needs backends with their
/// own tool search.
pub(super) fn check(
    profile: &ClientProfile,
    lanes: &[Arc<BackendLane>],
    problems: &mut Vec<String>,
) {
    if profile.deferred_exposure(usize::MAX, u64::MAX) != Some(Exposure::NativeSearch) {
        return;
    }
    let without = super::exposures::lanes_without_native_search(lanes);
    if !without.is_empty() {
        problems.push(format!(
            "--client {}: {} defers tools to the provider's own tool search, which {} lacks (openai has it)",
            profile.name,
            profile.title,
            without.join(", ")
        ));
    }
}

impl RunPlan {
    /// The exposure the client defers `trial`'s tools into, when it does: only a trial the run
    /// lists flat (the other strategies are the run's own), judged on the tools it shows.
    pub fn client_exposure(&self, trial: PlannedTrial) -> Option<Exposure> {
        let profile = self.client.as_ref()?;
        let named = self
            .exposures
            .get(trial.exposure as usize)
            .copied()
            .unwrap_or(Exposure::Flat);
        if named != Exposure::Flat {
            return None;
        }
        let shown = self.shown_tools(trial);
        profile.deferred_exposure(shown.len(), definition_tokens(&shown))
    }

    /// What the client does to the plan's trials, size by size, for the user: one line a size (0:
    /// the whole toolset) whose draws it defers, naming the rule.
    pub(super) fn client_notices(&self) -> Vec<String> {
        let Some(profile) = &self.client else {
            return Vec::new();
        };
        let mut by_size: BTreeMap<u32, (usize, usize, u64)> = BTreeMap::new();
        for trial in self.trials_by_task() {
            if trial.lane != 0 || trial.repeat != 0 {
                continue;
            }
            let shown = self.shown_tools(trial);
            let tokens = definition_tokens(&shown);
            let entry = by_size.entry(trial.size).or_default();
            entry.0 += 1;
            entry.2 = entry.2.max(tokens);
            if self.client_exposure(trial).is_some() {
                entry.1 += 1;
            }
        }
        let deferred: Vec<String> = by_size
            .iter()
            .filter(|(_, (_, deferred, _))| *deferred > 0)
            .map(|(size, (draws, deferred, most))| {
                let shown = if *size == 0 {
                    "the whole toolset".to_string()
                } else {
                    format!("N = {size}")
                };
                format!("{shown}: {deferred} of {draws} draws (up to {most} estimated tokens)")
            })
            .collect();
        if deferred.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "--client {}: {} defers tools ({}): {}",
            profile.name,
            profile.title,
            profile.deferral_rule(),
            deferred.join("; ")
        )]
    }
}

/// The estimated tokens of tool definitions as listed (`tool_exposure::estimated_tokens`).
pub fn definition_tokens(tools: &[Tool]) -> u64 {
    estimated_tokens(serde_json::to_string(tools).map_or(0, |text| text.len()))
}
