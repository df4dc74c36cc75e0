//! The run plan, resolved once before any trial starts: which suites (each with the MCP server of its
//! toolset), which backend lanes with which limits, prices and cache, and the trial list. Every
//! problem in the options — an unknown backend, a missing key, a budget without prices, a bad config
//! file — is found here and reported together, so a run never fails halfway on something it could
//! have checked at the start. The plan also writes the manifest that `--resume` reads back.

use super::cache::ResponseCache;
use super::exposure::{Shown, distractor_pool, exposed_tools};
use super::lane::{BackendLane, RateLimiter, RetryPolicy};
use super::price::{Price, list_price, parse_price_override};
use super::trial::ToolListing;
use crate::backend::{AnyBackend, BackendOptions, DEFAULT_SYSTEM_PROMPT, LocalSettings};
use crate::load::Workspace;
use crate::mcp::{McpServer, ServedTools, ServerConfig};
use crate::model::{ScoringProfile, Task, TaskTool, Tool};
use crate::settings::{Distractors, RunSettings};
use crate::spec::{BackendProfile, ConfigFile};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

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

/// Identifies a trial across runs (what `--resume` compares).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TrialKey {
    pub suite: String,
    pub task: String,
    pub backend: String,
    /// The variant arm, empty when the run names none.
    pub variant: String,
    /// Tools shown in a sweep trial; 0 for the whole toolset.
    pub size: u32,
    pub sweep_seed: u32,
    pub repeat: u32,
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
}

pub struct RunPlan {
    pub suites: Vec<SuitePlan>,
    pub lanes: Vec<Arc<BackendLane>>,
    pub max_turns: usize,
    pub sizes: Vec<u32>,
    pub distractors: Distractors,
    pub seeds: u32,
    pub repeats: u32,
    pub budget: Option<f64>,
    /// Eight hex digits naming the plan (options and file contents).
    pub hash: String,
    pub manifest: Value,
}

/// Why a plan could not be made: every problem found, one message each.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanError(pub Vec<String>);

impl RunPlan {
    pub fn resolve(options: &RunSettings) -> Result<RunPlan, PlanError> {
        let mut problems = Vec::new();
        let (config, config_path) = load_config(options.config.as_deref()).unwrap_or_else(|e| {
            problems.push(e);
            (ConfigFile::default(), None)
        });
        let mut price_overrides = BTreeMap::new();
        for text in &options.price {
            match parse_price_override(text) {
                Ok((spec, price)) => {
                    price_overrides.insert(spec, price);
                }
                Err(e) => problems.push(e),
            }
        }
        if options.budget.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
            problems.push("--budget must be a positive number of dollars".into());
        }
        if options
            .backend
            .local
            .temperature
            .is_some_and(|t| !(t.is_finite() && t >= 0.0))
        {
            problems.push("--temperature must be 0 or more".into());
        }
        if !(options.timeout.is_finite() && options.timeout > 0.0) {
            problems.push("--timeout must be a positive number of seconds".into());
        }
        if !(options.max_retry_wait.is_finite() && options.max_retry_wait >= 0.0) {
            problems.push("--max-retry-wait must be 0 or more seconds".into());
        }
        let retry = RetryPolicy {
            max_retries: options.max_retries,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_wait: Duration::from_secs_f64(options.max_retry_wait.clamp(0.0, 1e6)),
            timeout: Duration::from_secs_f64(options.timeout.clamp(0.001, 1e6)),
        };
        let mut parsed = Vec::new();
        let mut seen = HashSet::new();
        // Local models share the machine's cores: llama.cpp's threads spin while they wait, so two
        // models with a thread per core each run many times slower than with half the cores each.
        let local_models = options
            .backends
            .iter()
            .map(|spec| {
                config
                    .backend
                    .get(spec)
                    .map_or(spec.as_str(), |p| p.spec.as_str())
            })
            .filter(|spec| *spec == "local" || spec.starts_with("local:"))
            .count();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads_each = (cores / local_models.max(1)).max(1) as u32;
        for spec in &options.backends {
            let profile = config.backend.get(spec);
            let local = &options.backend.local;
            let from_command_line = BackendOptions {
                local: LocalSettings {
                    threads: local.threads.or(Some(threads_each)),
                    threads_batch: local.threads_batch.or(local.threads).or(Some(threads_each)),
                    ..local.clone()
                },
                ..options.backend.clone()
            };
            let (backend_spec, backend_options) = match profile {
                Some(p) => (p.spec.as_str(), profile_options(p).or(from_command_line)),
                None => (spec.as_str(), from_command_line),
            };
            let backend = match AnyBackend::parse(backend_spec, &backend_options) {
                Ok(backend) => backend,
                Err(e) => {
                    problems.push(e.to_string());
                    continue;
                }
            };
            // A profile is reported under its own name, so two profiles of one model stay apart.
            let id = if profile.is_some() {
                spec.clone()
            } else {
                backend.id()
            };
            if !seen.insert(id.clone()) {
                problems.push(format!(
                    "backend {id} is named twice (to run one model from two servers, give each a profile in mcpick.toml)"
                ));
                continue;
            }
            parsed.push((spec, backend_spec, profile, backend, id));
        }
        // Only hosted backends are cached, so an offline run never touches the cache file.
        let cache = if options.no_cache || parsed.iter().all(|p| p.3.hosted().is_none()) {
            None
        } else {
            let path = options
                .cache
                .clone()
                .unwrap_or_else(ResponseCache::default_path);
            match ResponseCache::open(&path) {
                Ok(cache) => Some(Arc::new(cache)),
                Err(e) => {
                    eprintln!("mcpick run: running without the response cache: {e}");
                    None
                }
            }
        };
        let mut lanes = Vec::new();
        let mut lane_manifest = Vec::new();
        for (spec, backend_spec, profile, backend, id) in parsed {
            let price = price_for(spec, &backend, profile, &price_overrides);
            if options.budget.is_some() && backend.hosted().is_some() && price.is_none() {
                problems.push(format!(
                    "--budget needs a price for {id}: add --price {id}=IN,OUT (dollars per million tokens)"
                ));
            }
            // One local model computes one trial at a time: parallel trials would only share the
            // same cores and one KV cache.
            let concurrency = if matches!(backend, AnyBackend::Local(_)) {
                1
            } else {
                profile
                    .and_then(|p| p.concurrency)
                    .unwrap_or(options.concurrency)
                    .max(1) as usize
            };
            let limiter = RateLimiter::new(
                profile
                    .and_then(|p| p.requests_per_minute)
                    .or(options.requests_per_minute),
                profile
                    .and_then(|p| p.tokens_per_minute)
                    .or(options.tokens_per_minute),
            );
            let local = match &backend {
                AnyBackend::Local(b) => json!({"mode": b.mode, "options": b.options,
                    "prompt_style": b.prompt_style(), "model_sha256": local_model_sha256(&b.options)}),
                _ => Value::Null,
            };
            lane_manifest.push(json!({
                "id": id, "spec": backend_spec, "hosted": backend.hosted(), "local": local,
                "concurrency": concurrency, "price": price,
                "requests_per_minute": profile.and_then(|p| p.requests_per_minute).or(options.requests_per_minute),
                "tokens_per_minute": profile.and_then(|p| p.tokens_per_minute).or(options.tokens_per_minute),
            }));
            let lane_cache = backend.hosted().and(cache.clone());
            lanes.push(Arc::new(BackendLane::new(
                id,
                backend,
                concurrency,
                retry,
                limiter,
                price,
                lane_cache,
            )));
        }

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
        for d in workspace
            .files
            .iter()
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.is_error())
        {
            problems.push(d.to_string());
        }
        if workspace.suites.is_empty() && !workspace.has_errors() {
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
                    workspace
                        .variants
                        .iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        if options.variants.iter().collect::<HashSet<_>>().len() < options.variants.len() {
            problems.push("a --variant is named twice".into());
        }
        let pool_workspace = options.pool.as_ref().map(|dir| {
            let pool = Workspace::load(std::slice::from_ref(dir));
            if pool.toolsets.is_empty() {
                problems.push(format!("--pool {}: no toolsets found", dir.display()));
            }
            pool
        });
        let mut suites = Vec::new();
        if !workspace.has_errors() && problems.is_empty() {
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
                    options.tags.is_empty() || task.tags.iter().any(|t| options.tags.contains(t))
                };
                if !suite.tasks.iter().any(tagged) {
                    continue;
                }
                let arms: Vec<(Option<String>, Vec<Tool>, Vec<Task>)> = if options
                    .variants
                    .is_empty()
                {
                    vec![(None, toolset.tools.clone(), suite.tasks.clone())]
                } else {
                    let mut arms = Vec::new();
                    for name in &options.variants {
                        if name == BASE_ARM {
                            arms.push((
                                Some(name.clone()),
                                toolset.tools.clone(),
                                suite.tasks.clone(),
                            ));
                        } else if let Some(variant) =
                            workspace.variant(name).filter(|v| v.base == suite.toolset)
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
                            arms.push((Some(name.clone()), variant.toolset.tools.clone(), tasks));
                        }
                    }
                    if arms.len() < options.variants.len() {
                        skipped.push(suite.name.clone());
                        continue;
                    }
                    arms
                };
                // Tasks with their own lists draw distractors from their own toolset too (a BFCL
                // import is one toolset); each trial leaves out the tools its task already shows.
                let own_lists = suite.tasks.iter().any(|t| t.tools.is_some());
                let pool = if options.sizes.is_empty() {
                    Vec::new()
                } else {
                    let toolsets = pool_workspace
                        .as_ref()
                        .unwrap_or(&workspace)
                        .toolsets
                        .iter();
                    let (own_name, own_tools) = if own_lists {
                        ("", &[][..])
                    } else {
                        (suite.toolset.as_str(), toolset.tools.as_slice())
                    };
                    distractor_pool(
                        toolsets.map(|t| (t.name.as_str(), t.tools.as_slice())),
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
                for (variant, tools, mut tasks) in arms {
                    tasks.retain(tagged);
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
                        }),
                        (Err(e), _) | (_, Err(e)) => problems
                            .push(format!("{}: cannot serve: {e}", toolset.source.display())),
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
                eprintln!(
                    "mcpick run: suites skipped because not every --variant applies to their toolset: {}",
                    skipped.join(", ")
                );
            }
        }
        if !problems.is_empty() {
            return Err(PlanError(problems));
        }

        let files: BTreeMap<String, String> = workspace
            .files
            .iter()
            .map(|f| f.path.as_path())
            .chain(config_path.as_deref())
            .map(|path| {
                let sha = crate::hashing::file_sha256(path).unwrap_or_else(|_| "unreadable".into());
                (path.display().to_string(), sha)
            })
            .collect();
        let options_json = serde_json::to_value(options).unwrap_or(Value::Null);
        let hash = {
            let digest = crate::hashing::sha256_hex(
                json!({"options": options_json, "files": files})
                    .to_string()
                    .as_bytes(),
            );
            digest[..8].to_string()
        };
        let conditions = options.sizes.len().max(1)
            * if options.sizes.is_empty() {
                1
            } else {
                options.seeds as usize
            }
            * options.repeats as usize;
        let trials: usize =
            suites.iter().map(|s| s.tasks.len()).sum::<usize>() * lanes.len() * conditions;
        let manifest = json!({
            "mcpick_version": env!("CARGO_PKG_VERSION"),
            "command": std::env::args().collect::<Vec<_>>(),
            "git_revision": git_revision(),
            "plan_hash": hash,
            "options": options_json,
            "backends": lane_manifest,
            "suites": suites.iter().map(|s| json!({"suite": s.name, "toolset": s.toolset, "variant": s.variant, "tasks": s.tasks.len(), "distractor_pool": s.pool.len(), "scoring": s.tasks.first().map(|t| t.scoring.as_str())})).collect::<Vec<_>>(),
            "files": files,
            "system_prompt": DEFAULT_SYSTEM_PROMPT,
            "cache": cache.as_ref().map(|c| c.path.display().to_string()),
            "trials": trials,
        });
        Ok(RunPlan {
            suites,
            lanes,
            max_turns: options.max_turns,
            sizes: options.sizes.clone(),
            distractors: options.distractors,
            seeds: if options.sizes.is_empty() {
                1
            } else {
                options.seeds
            },
            repeats: options.repeats.max(1),
            budget: options.budget,
            hash,
            manifest,
        })
    }

    /// Every trial, suite by suite and task by task.
    pub(super) fn trials_by_task(&self) -> Vec<PlannedTrial> {
        let sizes = if self.sizes.is_empty() {
            vec![0]
        } else {
            self.sizes.clone()
        };
        let mut trials = Vec::new();
        for (suite, plan) in self.suites.iter().enumerate() {
            for task in 0..plan.tasks.len() {
                for &size in &sizes {
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
                                });
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
        std::borrow::Cow::Owned(exposed_tools(
            shown,
            &suite.pool,
            &suite.tasks[trial.task],
            trial.size as usize,
            self.distractors,
            trial.sweep_seed,
        ))
    }

    pub fn key(&self, trial: PlannedTrial) -> TrialKey {
        let suite = &self.suites[trial.suite];
        TrialKey {
            suite: suite.name.clone(),
            task: suite.tasks[trial.task].id.clone(),
            backend: self.lanes[trial.lane].id.clone(),
            variant: suite.variant.clone().unwrap_or_default(),
            size: trial.size,
            sweep_seed: trial.sweep_seed,
            repeat: trial.repeat,
        }
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

/// What a profile in `mcpick.toml` sets of a backend's settings.
fn profile_options(profile: &BackendProfile) -> BackendOptions {
    BackendOptions {
        base_url: profile.base_url.clone(),
        api_key_env: profile.api_key_env.clone(),
        max_tokens: profile.max_tokens,
        local: LocalSettings {
            model: profile.model.clone(),
            ..LocalSettings::default()
        },
    }
}

/// The settings a run was started with, read back from its manifest for `--resume`.
pub fn settings_from_manifest(folder: &Path) -> Result<RunSettings, String> {
    let path = folder.join("manifest.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let manifest: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    serde_json::from_value(manifest["options"].clone()).map_err(|e| {
        format!(
            "{}: the `options` field is not a run plan this version reads: {e}",
            path.display()
        )
    })
}

/// The config file and where it was read from (`None` when there is none).
fn load_config(explicit: Option<&Path>) -> Result<(ConfigFile, Option<PathBuf>), String> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None if Path::new("mcpick.toml").is_file() => PathBuf::from("mcpick.toml"),
        None => return Ok((ConfigFile::default(), None)),
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let config = toml::from_str(&text).map_err(|e| {
        let position = e
            .span()
            .map(|span| {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                format!(":{line}")
            })
            .unwrap_or_default();
        format!("{}{position}: error: {}", path.display(), e.message())
    })?;
    Ok((config, Some(path)))
}

fn price_for(
    spec: &str,
    backend: &AnyBackend,
    profile: Option<&BackendProfile>,
    overrides: &BTreeMap<String, Price>,
) -> Option<Price> {
    if let Some(price) = overrides.get(spec).or_else(|| overrides.get(&backend.id())) {
        return Some(*price);
    }
    if let Some(p) = profile
        && let (Some(input), Some(output)) = (p.price_input, p.price_output)
    {
        return Some(Price {
            input_per_mtok: input,
            output_per_mtok: output,
        });
    }
    match backend.hosted() {
        Some(_) => list_price(&backend.id()),
        // Offline backends cost nothing.
        None => Some(Price {
            input_per_mtok: 0.0,
            output_per_mtok: 0.0,
        }),
    }
}

/// The local model's SHA-256: the catalogue's pin for a catalogue model (verified when fetched),
/// else the file's.
fn local_model_sha256(options: &crate::backend::LocalOptions) -> Option<String> {
    let pinned = options.model_name.as_deref().and_then(|name| {
        let model = crate::catalogue::catalogue().get(name)?;
        Some(model.files.first()?.sha256.clone())
    });
    pinned.or_else(|| crate::hashing::file_sha256(&options.model).ok())
}

fn git_revision() -> Option<String> {
    let output = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}
