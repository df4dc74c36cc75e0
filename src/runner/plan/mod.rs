//! The run plan, resolved once before any trial starts: which suites (each with the MCP server of its
//! toolset), which backend lanes with which limits, prices and cache, and the trial list. Every
//! problem in the options — an unknown backend, a missing key, a budget without prices, a bad config
//! file — is found here and reported together, so a run never fails halfway on something it could
//! have checked at the start. Resolving is a few named steps: the lanes' shared limits and backends
//! (`lanes`), the workspace, the bystander servers shown beside every suite (`bystanders`) and each
//! suite under each arm (`suites`), the lanes themselves (the oracle
//! learning the suites' expectations), the exposure strategies checked and their rankers loaded
//! (`exposures`), and the manifest (`manifest`) that `--resume` reads back.
//! Nothing here prints: what the plan notices goes to `notices`.

mod bystanders;
mod client;
mod exposures;
mod lanes;
mod manifest;
mod server_instructions;
mod suites;

use super::lane::BackendLane;
use super::sweep_tools::{Shown, exposed_tools};
use super::trial::ToolListing;
use crate::backend::OracleAnswers;
use crate::client_profile::{ClientProfile, PastCap};
use crate::load::FileKind;
use crate::mcp::{McpServer, ServedTools, ServerConfig};
use crate::model::{Task, Tool};
use crate::record::{Manifest, StoredTrial, TrialKey};
use crate::settings::{Distractors, RunSettings};
use crate::spec::ConfigFile;
use crate::tool_exposure::Exposure;
use std::sync::Arc;

/// One suite under one arm (its toolset as is, or overlaid by a variant), ready to serve.
pub struct SuitePlan {
    pub name: String,
    pub toolset: String,
    /// The arm: a variant name, `base`, or `None` when the run names no variants.
    pub variant: Option<String>,
    /// The arm's whole toolset, served as is when no size is asked for.
    pub server: Arc<McpServer>,
    /// That server's tool list, listed by the first trial and kept for the others.
    pub listing: ToolListing,
    pub tools: Vec<Tool>,
    /// The tasks, their expected tool names mapped through the variant's renames.
    pub tasks: Vec<Task>,
    /// For each task (same index), its own tool list served alone, or `None` for the whole toolset.
    pub own_tools: Vec<Option<TaskServing>>,
    /// Where a sweep draws distractors from (empty without `--sizes`).
    pub pool: Vec<Tool>,
    /// The bystander servers whose tools `tools` ends with (`--bystanders`), as the manifest
    /// records them.
    pub bystanders: Vec<crate::record::BystanderRecord>,
}

/// A task's own tool list (BFCL tasks carry their own functions), served by its own server.
pub struct TaskServing {
    /// The tools in the task's order, each under the name the task shows it by.
    pub tools: Vec<Tool>,
    /// Every toolset name the list draws on, so a sweep never adds one of them as a distractor.
    pub toolset_names: Vec<String>,
    pub server: Arc<McpServer>,
    pub listing: ToolListing,
}

impl TaskServing {
    /// The serving of `task`'s own list from its arm's tools (`None` without a list).
    fn for_task(task: &Task, arm_tools: &[Tool]) -> Option<Result<TaskServing, String>> {
        let entries = task.tools.as_ref()?;
        let tools: Vec<Tool> = entries
            .iter()
            .filter_map(|entry| {
                let mut tool = arm_tools.iter().find(|t| t.name == entry.tool)?.clone();
                tool.name = entry.name.clone();
                Some(tool)
            })
            .collect();
        let toolset_names = entries.iter().map(|e| e.tool.clone()).collect();
        Some(
            ServedTools::new(tools.clone())
                .map(|served| TaskServing {
                    tools,
                    toolset_names,
                    server: McpServer::new(ServerConfig::default(), served),
                    listing: ToolListing::default(),
                })
                .map_err(|e| format!("task {}: {e}", task.id)),
        )
    }
}

/// A trial to run: indices into the plan, and the condition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannedTrial {
    pub suite: usize,
    pub task: usize,
    pub lane: usize,
    /// 0: the suite's whole toolset; otherwise the number of tools a sweep shows.
    pub size: u32,
    pub sweep_seed: u32,
    pub repeat: u32,
    /// Index into the plan's exposures (0 when the run names none).
    pub exposure: u32,
}

pub struct RunPlan {
    pub suites: Vec<SuitePlan>,
    pub lanes: Vec<Arc<BackendLane>>,
    pub max_turns: usize,
    pub sizes: Vec<u32>,
    pub distractors: Distractors,
    /// The exposure strategies named (empty: every tool listed, unlabelled).
    pub exposures: Vec<Exposure>,
    /// What ranks tools for `retrieve:*` and `search-tool:*`.
    pub rankers: exposures::Rankers,
    /// The client profile tools are shown as (`--client`; `None`: the server's own list).
    pub client: Option<ClientProfile>,
    pub seeds: u32,
    pub repeats: u32,
    pub budget: Option<f64>,
    /// Eight hex digits naming the plan (options and file contents).
    pub hash: String,
    /// The plan's part of `manifest.json`.
    pub manifest: Manifest,
    /// What the plan noticed but did not refuse (a cache it could not open, suites a variant skips),
    /// for the command to tell the user.
    pub notices: Vec<String>,
}

/// Why a plan could not be made: every problem found, one message each.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanError(pub Vec<String>);

impl RunPlan {
    pub fn resolve(options: &RunSettings) -> Result<RunPlan, PlanError> {
        let mut problems = Vec::new();
        let mut notices = Vec::new();
        let (config, config_path) =
            lanes::load_config(options.config.as_deref()).unwrap_or_else(|e| {
                problems.push(e);
                (ConfigFile::default(), None)
            });
        let limits = lanes::shared_limits(options, &mut problems);
        let backends = lanes::parse_backends(options, &config, &mut problems);
        let cache = lanes::response_cache(options, &backends, &mut notices);
        let (workspace, pool) = suites::load_workspaces(options, &mut problems, &mut notices);
        let client = client::load(options, &mut problems);
        let bystanders = bystanders::chosen(options, &workspace, &mut problems);
        if client.as_ref().is_some_and(|c| c.name != "raw") && !bystanders.is_empty() {
            // A client names each server's tools after its server; bystanders are not yet given
            // theirs, so the pairing would show them under the suite's server: refused, not guessed.
            problems.push(
                "--client and --bystanders together are not supported yet: run the bystander sweep with the raw client".into(),
            );
        }
        let suites = suites::plan_suites(
            options,
            &workspace,
            pool.as_ref(),
            client.as_ref(),
            &bystanders,
            &mut problems,
            &mut notices,
        );
        let (answers, unmet) = OracleAnswers::from_arms(suites.iter().flat_map(|suite| {
            suite.tasks.iter().zip(&suite.own_tools).map(|(task, own)| {
                let shown = own.as_ref().map_or(&suite.tools, |own| &own.tools);
                (
                    suite.name.as_str(),
                    suite.variant.as_deref(),
                    task,
                    shown.as_slice(),
                )
            })
        }));
        notices.extend(unmet);
        let (lanes, lane_manifest) = lanes::build_lanes(
            options,
            backends,
            &limits,
            cache.as_ref(),
            answers,
            &mut problems,
        );
        if options.batch.is_some() && lanes.iter().all(|lane| lane.batch.is_none()) {
            problems.push(
                "--batch sends hosted turns to a provider's batch API: name an openai:MODEL or anthropic:MODEL backend".into(),
            );
        }
        exposures::check(options, &lanes, &suites, &mut problems);
        if let Some(profile) = &client {
            client::check(profile, &lanes, &mut problems);
        }
        let ranked: Vec<Exposure> = options
            .exposures
            .iter()
            .copied()
            .chain(
                client
                    .as_ref()
                    .and_then(|p| p.deferred_exposure(usize::MAX, u64::MAX)),
            )
            .collect();
        let rankers = exposures::Rankers::for_exposures(&ranked, &mut problems);
        if !problems.is_empty() {
            return Err(PlanError(problems));
        }
        let files = manifest::file_hashes(
            workspace
                .files
                .iter()
                // A bystander server's file is read for a run only when the run shows it.
                .filter(|f| {
                    f.kind != FileKind::Bystander || bystanders.iter().any(|b| b.source == f.path)
                })
                .map(|f| f.path.as_path())
                .chain(config_path.as_deref()),
        );
        let hash = manifest::plan_hash(options, &files);
        let seeds = if options.sizes.is_empty() {
            1
        } else {
            options.seeds
        };
        let repeats = options.repeats.max(1);
        let conditions = options.sizes.len().max(1)
            * seeds as usize
            * options.repeats as usize
            * options.exposures.len().max(1);
        let trials: usize =
            suites.iter().map(|s| s.tasks.len()).sum::<usize>() * lanes.len() * conditions;
        let manifest = manifest::manifest(manifest::ManifestParts {
            options,
            hash: &hash,
            lanes: lane_manifest,
            suites: &suites,
            files,
            cache: cache.as_ref().map(|c| c.path.as_path()),
            trials,
            client: client.as_ref(),
        });
        let mut plan = RunPlan {
            suites,
            lanes,
            max_turns: options.max_turns,
            sizes: options.sizes.clone(),
            distractors: options.distractors,
            exposures: options.exposures.clone(),
            rankers,
            client,
            seeds,
            repeats,
            budget: options.budget,
            hash,
            manifest,
            notices,
        };
        let client_notices = plan.client_notices();
        plan.notices.extend(client_notices);
        Ok(plan)
    }

    /// What the plan crosses, as the user reads it: `1 suites × 2 arms × 4 backends`.
    pub fn shape(&self) -> String {
        let suites: std::collections::BTreeSet<&str> =
            self.suites.iter().map(|s| s.name.as_str()).collect();
        let mut shape = format!("{} suites", suites.len());
        let arms = self.manifest.options.variants.len();
        if arms > 0 {
            shape.push_str(&format!(" × {arms} arms"));
        }
        if !self.sizes.is_empty() {
            shape.push_str(&format!(
                " × {} sizes × {} seeds",
                self.sizes.len(),
                self.seeds
            ));
        }
        if !self.exposures.is_empty() {
            shape.push_str(&format!(" × {} exposures", self.exposures.len()));
        }
        if self.repeats > 1 {
            shape.push_str(&format!(" × {} repeats", self.repeats));
        }
        shape.push_str(&format!(" × {} backends", self.lanes.len()));
        shape
    }

    /// Every trial, suite by suite and task by task.
    pub(super) fn trials_by_task(&self) -> Vec<PlannedTrial> {
        let sizes = if self.sizes.is_empty() {
            vec![0]
        } else {
            self.sizes.clone()
        };
        let exposures = self.exposures.len().max(1) as u32;
        let mut trials = Vec::new();
        for (suite, plan) in self.suites.iter().enumerate() {
            for task in 0..plan.tasks.len() {
                for &size in &sizes {
                    for exposure in 0..exposures {
                        for sweep_seed in 0..self.seeds {
                            for repeat in 0..self.repeats {
                                for lane in 0..self.lanes.len() {
                                    trials.push(PlannedTrial {
                                        suite,
                                        task,
                                        lane,
                                        size,
                                        sweep_seed,
                                        repeat,
                                        exposure,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        trials
    }

    /// The tools `trial` shows, in listing order: its suite's (or its task's own list), or a
    /// sweep's draw for its size and seed.
    pub fn shown_tools(&self, trial: PlannedTrial) -> std::borrow::Cow<'_, [Tool]> {
        let suite = &self.suites[trial.suite];
        let own = suite.own_tools[trial.task].as_ref();
        if trial.size == 0 {
            return std::borrow::Cow::Borrowed(own.map_or(&suite.tools, |own| &own.tools));
        }
        let shown = match own {
            None => Shown::Toolset(&suite.tools),
            Some(own) => Shown::OwnList {
                tools: &own.tools,
                toolset_names: &own.toolset_names,
            },
        };
        let mut tools = exposed_tools(
            shown,
            &suite.pool,
            &suite.tasks[trial.task],
            trial.size as usize,
            self.distractors,
            trial.sweep_seed,
        );
        // A client that sends only its first N tools sends the first N of this listing.
        if let Some(cap) = self.client.as_ref().and_then(ClientProfile::cap)
            && cap.past_cap == Some(PastCap::FirstN)
        {
            tools.truncate(cap.max_tools as usize);
        }
        std::borrow::Cow::Owned(tools)
    }

    /// The stored trial `trial` will be: what the plan says of it (which suite, task, backend and
    /// condition; what a right answer calls), with nothing observed yet. The runner fills it in.
    pub fn new_trial(&self, trial: PlannedTrial) -> StoredTrial {
        let suite = &self.suites[trial.suite];
        let task = &suite.tasks[trial.task];
        let sized = trial.size > 0;
        StoredTrial {
            suite: suite.name.clone(),
            toolset: suite.toolset.clone(),
            task: task.id.clone(),
            backend: self.lanes[trial.lane].id.clone(),
            variant: suite.variant.clone(),
            exposure: self.exposure_label(trial),
            client_exposure: self.client_exposure(trial).map(Exposure::label),
            size: sized.then_some(trial.size),
            distractors: sized.then(|| self.distractors.as_str().to_string()),
            sweep_seed: trial.sweep_seed,
            repeat: trial.repeat,
            expected_tools: task
                .expectation
                .calls()
                .iter()
                .map(|c| c.tool.clone())
                .collect(),
            first_pick_tools: if self.exposures.is_empty() {
                Vec::new()
            } else {
                task.expectation
                    .first_pick_tools()
                    .into_iter()
                    .map(str::to_string)
                    .collect()
            },
            lang: task.lang.clone(),
            tags: task.tags.clone(),
            scoring: task.scoring,
            ..StoredTrial::default()
        }
    }

    /// The key of `trial`, by the stored trial's own rule (`StoredTrial::key`).
    pub fn key(&self, trial: PlannedTrial) -> TrialKey {
        self.new_trial(trial).key()
    }

    /// The strategy `trial` exposes its tools by: the client's when it defers them, else the one
    /// the run names (`flat` when it names none).
    pub fn exposure(&self, trial: PlannedTrial) -> Exposure {
        self.client_exposure(trial).unwrap_or_else(|| {
            self.exposures
                .get(trial.exposure as usize)
                .copied()
                .unwrap_or(Exposure::Flat)
        })
    }

    /// The strategy's label as trials are keyed by (`None` when the run names none).
    pub fn exposure_label(&self, trial: PlannedTrial) -> Option<String> {
        self.exposures
            .get(trial.exposure as usize)
            .map(|e| e.label())
    }

    /// The seed a backend draws with in this trial: the task's, so both arms of an A/B test and
    /// every size of a sweep see the same draw; repeats and sweep seeds move it.
    pub fn backend_seed(&self, trial: PlannedTrial) -> u64 {
        let task = &self.suites[trial.suite].tasks[trial.task].id;
        if trial.repeat == 0 && trial.sweep_seed == 0 {
            crate::hashing::fnv1a(task)
        } else {
            crate::hashing::fnv1a(&format!("{task}#{}#{}", trial.sweep_seed, trial.repeat))
        }
    }
}

/// The arm name for a suite's toolset without any variant.
pub const BASE_ARM: &str = "base";
