//! The plan's suites: the workspace read (`toolsets/` when there is one, then the suites named),
//! the errors of every file a suite or chosen variant needs as problems (others as notices), and each suite under each arm — its toolset as is or overlaid by
//! a variant, its tasks filtered by tag (and by id) and scored by the run's profile, its distractor pool for a
//! sweep, the bystander servers shown beside it, and the MCP servers that serve it.

use super::super::sweep_tools::distractor_pool;
use super::super::trial::ToolListing;
use super::bystanders::beside;
use super::client;
use super::server_instructions::{instructions_block, with_instructions};
use super::{BASE_ARM, SuitePlan, TaskServing};
use crate::client_profile::ClientProfile;
use crate::load::Workspace;
use crate::mcp::{McpServer, ServedTools, ServerConfig};
use crate::model::{ScoringProfile, Task, TaskTool, Tool, Toolset};
use crate::settings::RunSettings;
use std::path::PathBuf;

/// One arm of a suite: its label (`None` when the run names no variants), its tools and its tasks.
type Arm = (Option<String>, Vec<Tool>, Vec<Task>);

/// The suites' workspace and, with `--pool`, the pool's; their errors go to `problems`.
pub(super) fn load_workspaces(
    options: &RunSettings,
    problems: &mut Vec<String>,
    notices: &mut Vec<String>,
) -> (Workspace, Option<Workspace>) {
    // `toolsets/` is read when there is one; suites elsewhere (an import's folder) carry theirs.
    let suite_paths = if options.paths.is_empty() {
        vec![PathBuf::from("tasks")]
    } else {
        options.paths.clone()
    };
    let paths: Vec<PathBuf> = Some(PathBuf::from("toolsets"))
        .filter(|dir| dir.is_dir())
        .into_iter()
        .chain(suite_paths.iter().cloned())
        .collect();
    let workspace = Workspace::load(&paths);
    let variants: Vec<&str> = options
        .variants
        .iter()
        .map(String::as_str)
        .filter(|name| *name != BASE_ARM)
        .collect();
    let errors = workspace.errors_for_suites(&variants);
    problems.extend(errors.blocking.iter().map(|d| d.to_string()));
    notices.extend(errors.set_aside_notices());
    if workspace.suites.is_empty() && problems.is_empty() {
        problems.push(format!(
            "no suites found in {}",
            suite_paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for name in &options.variants {
        if name != BASE_ARM && workspace.variant(name).is_none() {
            problems.push(format!(
                "--variant {name}: no such variant (variants: {}; or `{BASE_ARM}` for a toolset as it is)",
                workspace.variant_names().join(", ")
            ));
        }
    }
    let pool_workspace = options.pool.as_ref().map(|dir| {
        let pool = Workspace::load(std::slice::from_ref(dir));
        if pool.toolsets.is_empty() {
            problems.push(format!("--pool {}: no toolsets found", dir.display()));
        }
        pool
    });
    (workspace, pool_workspace)
}

/// Every suite under every arm, ready to serve; none when a problem is already known.
pub(super) fn plan_suites(
    options: &RunSettings,
    workspace: &Workspace,
    pool_workspace: Option<&Workspace>,
    profile: Option<&ClientProfile>,
    bystanders: &[&Toolset],
    problems: &mut Vec<String>,
    notices: &mut Vec<String>,
) -> Vec<SuitePlan> {
    let mut suites = Vec::new();
    // `problems` holds every error a suite here needs; a file nothing uses was set aside.
    if problems.is_empty() {
        let mut loaded: Vec<_> = workspace.suites.iter().collect();
        loaded.sort_by(|a, b| a.name.cmp(&b.name));
        let mut skipped = Vec::new();
        for suite in loaded {
            let Some(toolset) = workspace.toolset(&suite.toolset) else {
                problems.push(format!(
                    "{}: toolset {} is not loaded",
                    suite.source.display(),
                    suite.toolset
                ));
                continue;
            };
            // A suite runs under every named arm or not at all: an A/B comparison needs pairs.
            let tagged = |task: &Task| {
                (options.tags.is_empty() || task.tags.iter().any(|t| options.tags.contains(t)))
                    && (options.tasks.is_empty() || options.tasks.contains(&task.id))
            };
            if !suite.tasks.iter().any(tagged) {
                continue;
            }
            let arms: Vec<Arm> = if options.variants.is_empty() {
                vec![(None, toolset.tools.clone(), suite.tasks.clone())]
            } else {
                let mut arms = Vec::new();
                for (name, label) in options.variants.iter().zip(options.arm_labels()) {
                    if name == BASE_ARM {
                        arms.push((Some(label), toolset.tools.clone(), suite.tasks.clone()));
                    } else if let Some(variant) = workspace
                        .worded(&suite.toolset, Some(name))
                        .ok()
                        .and_then(|worded| worded.variant)
                    {
                        let tasks = suite
                            .tasks
                            .iter()
                            .map(|task| {
                                task_under_variant(task, |tool| {
                                    variant.map_tool(tool).map(str::to_string)
                                })
                            })
                            .collect();
                        arms.push((Some(label), variant.toolset.tools.clone(), tasks));
                    }
                }
                if arms.len() < options.variants.len() {
                    skipped.push(suite.name.clone());
                    continue;
                }
                arms
            };
            let arms = match profile {
                None => arms,
                Some(profile) => match shown_by_client(profile, &suite.toolset, arms, notices) {
                    Ok(arms) => arms,
                    Err(problem) => {
                        problems.push(problem);
                        continue;
                    }
                },
            };
            // Tasks with their own lists draw distractors from their own toolset too (a BFCL
            // import is one toolset); each trial leaves out the tools its task already shows.
            let own_lists = suite.tasks.iter().any(|t| t.tools.is_some());
            let pool = if options.sizes.is_empty() {
                Vec::new()
            } else {
                let toolsets = pool_workspace.unwrap_or(workspace).toolsets.iter();
                // Under a client each toolset is a server of its own name, its tools so named.
                let shown: Vec<(&str, Vec<Tool>)> = toolsets
                    .filter_map(|t| {
                        let Some(profile) = profile else {
                            return Some((t.name.as_str(), t.tools.clone()));
                        };
                        let mut quiet = Vec::new();
                        match client::shown_names(profile, &t.name, &t.tools, &mut quiet) {
                            Ok(names) => {
                                Some((t.name.as_str(), client::renamed(t.tools.clone(), &names)))
                            }
                            Err(why) => {
                                notices.push(format!("{why}: left out of the distractor pool"));
                                None
                            }
                        }
                    })
                    .collect();
                // The suite's own tools as shown (its arms' renames aside), which no distractor
                // may be named like.
                let own: Vec<Tool> = match profile {
                    None => toolset.tools.clone(),
                    Some(profile) => {
                        let mut quiet = Vec::new();
                        client::shown_names(profile, &suite.toolset, &toolset.tools, &mut quiet)
                            .map(|names| client::renamed(toolset.tools.clone(), &names))
                            .unwrap_or_default()
                    }
                };
                let (own_name, own_tools) = if own_lists {
                    ("", &[][..])
                } else {
                    (suite.toolset.as_str(), own.as_slice())
                };
                distractor_pool(
                    shown.iter().map(|(name, tools)| (*name, tools.as_slice())),
                    own_name,
                    own_tools,
                )
            };
            if let Some(&largest) = options.sizes.iter().max() {
                let most = pool.len() + 1;
                if largest as usize > most {
                    problems.push(format!(
                        "--sizes {largest}: suite {} can show at most {most} tools (its gold tool and {} distractors from other toolsets)",
                        suite.name,
                        pool.len()
                    ));
                }
            }
            let instructions = match (&toolset.instructions, options.server_instructions) {
                (Some(text), true) => Some(instructions_block(&suite.toolset, text)),
                (None, true) => {
                    notices.push(format!("--server-instructions: toolset {} has no instructions; its tasks run without", suite.toolset));
                    None
                }
                _ => None,
            };
            if !bystanders.is_empty() && own_lists {
                problems.push(format!(
                    "--bystanders: suite {}'s tasks show their own tool lists; bystanders are shown beside a whole toolset",
                    suite.name
                ));
            }
            for (variant, mut tools, mut tasks) in arms {
                list_last(&mut tools, &options.listed_last);
                let shown_beside = if bystanders.is_empty() {
                    Vec::new()
                } else {
                    match beside(&tools, bystanders) {
                        Ok((extra, records)) => {
                            tools.extend(extra);
                            records
                        }
                        Err(e) => {
                            problems.push(format!("suite {}: {e}", suite.name));
                            Vec::new()
                        }
                    }
                };
                if let Some(profile) = profile {
                    let sizes = &options.sizes;
                    client::apply_cap(profile, &suite.name, sizes, &mut tools, problems, notices);
                }
                tasks.retain(tagged);
                if let Some(block) = &instructions {
                    tasks
                        .iter_mut()
                        .for_each(|task| with_instructions(&mut task.input, block));
                }
                if let Err(problem) = apply_scoring(options.scoring.as_deref(), &mut tasks) {
                    problems.push(format!("suite {}: {problem}", suite.name));
                }
                let own_tools: Result<Vec<Option<TaskServing>>, String> = tasks
                    .iter()
                    .map(|task| TaskServing::for_task(task, &tools).transpose())
                    .collect();
                match (
                    ServedTools::new(tools.clone()).map_err(|e| e.to_string()),
                    own_tools,
                ) {
                    (Ok(served), Ok(own_tools)) => suites.push(SuitePlan {
                        name: suite.name.clone(),
                        toolset: suite.toolset.clone(),
                        variant,
                        server: McpServer::new(ServerConfig::default(), served),
                        listing: ToolListing::default(),
                        tools,
                        tasks,
                        own_tools,
                        pool: pool.clone(),
                        bystanders: shown_beside,
                    }),
                    (Err(e), _) | (_, Err(e)) => {
                        problems.push(format!("{}: cannot serve: {e}", toolset.source.display()))
                    }
                }
            }
        }
        if suites.is_empty() && !options.tags.is_empty() && skipped.is_empty() {
            problems.push(format!(
                "no task carries the tag {}",
                options.tags.join(" or ")
            ));
        }
        if suites.is_empty() && !skipped.is_empty() {
            problems.push(format!(
                "no suite has a toolset that every --variant applies to (skipped: {})",
                skipped.join(", ")
            ));
        } else if !skipped.is_empty() {
            notices.push(format!(
                "suites skipped because not every --variant applies to their toolset: {}",
                skipped.join(", ")
            ));
        }
    }
    suites
}

/// Each arm as `profile` shows it: its tools under the client's names (as the server named after
/// `toolset`), the ones it leaves out gone, its tasks' expected names mapped the way a variant's
/// renames are; or why the client refuses the toolset.
fn shown_by_client(
    profile: &ClientProfile,
    toolset: &str,
    arms: Vec<Arm>,
    notices: &mut Vec<String>,
) -> Result<Vec<Arm>, String> {
    arms.into_iter()
        .map(|(label, tools, tasks)| {
            let names = client::shown_names(profile, toolset, &tools, notices)?;
            let tasks = tasks
                .iter()
                .map(|task| task_under_variant(task, |tool| names.get(tool).cloned().flatten()))
                .collect();
            Ok((label, client::renamed(tools, &names), tasks))
        })
        .collect()
}

/// Puts the run's `--scoring` profile (if any) on the tasks, which carry their suite's otherwise.
/// The `bfcl` profile needs BFCL's record on every task.
fn apply_scoring(scoring: Option<&str>, tasks: &mut [Task]) -> Result<(), String> {
    if let Some(written) = scoring {
        let profile = ScoringProfile::parse(written)
            .ok_or_else(|| format!("--scoring {written:?}: the profiles are `mcp` and `bfcl`"))?;
        for task in tasks.iter_mut() {
            task.scoring = profile;
        }
    }
    if let Some(task) = tasks
        .iter()
        .find(|t| t.scoring == ScoringProfile::Bfcl && t.bfcl.is_none())
    {
        return Err(format!(
            "task {}: the bfcl profile needs BFCL's record (`bfcl`, written by import-bfcl); score it with --scoring mcp",
            task.id
        ));
    }
    Ok(())
}

/// Moves the tools named in `last` to the end of `tools`, in `last`'s order; the others keep
/// theirs. Names the list lacks are passed over.
fn list_last(tools: &mut Vec<Tool>, last: &[String]) {
    if last.is_empty() {
        return;
    }
    let (mut moved, kept): (Vec<Tool>, Vec<Tool>) =
        tools.drain(..).partition(|t| last.contains(&t.name));
    moved.sort_by_key(|t| last.iter().position(|name| *name == t.name));
    tools.extend(kept);
    tools.extend(moved);
}

/// A task as a variant's arm sees it: expected tool names mapped through the variant's renames (a
/// removed tool keeps its name: no call can match it, which is what removing it means). A task's own
/// list loses the tools the variant removes; a tool the variant renames is shown, and expected,
/// under its new name, while the others keep the names the task shows them by.
fn task_under_variant(task: &Task, map_tool: impl Fn(&str) -> Option<String>) -> Task {
    let mut arm = task.clone();
    let Some(entries) = &task.tools else {
        arm.expectation = task.expectation.renamed(map_tool);
        return arm;
    };
    let mut shown_as = Vec::new();
    arm.tools = Some(
        entries
            .iter()
            .filter_map(|entry| {
                let renamed = map_tool(&entry.tool)?;
                let name = if renamed == entry.tool {
                    entry.name.clone()
                } else {
                    renamed.clone()
                };
                shown_as.push((entry.name.as_str(), name.clone()));
                Some(TaskTool {
                    tool: renamed,
                    name,
                })
            })
            .collect(),
    );
    arm.expectation = task.expectation.renamed(|shown| {
        shown_as
            .iter()
            .find(|(before, _)| *before == shown)
            .map(|(_, after)| after.clone())
    });
    arm
}
