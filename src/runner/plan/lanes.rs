//! The plan's backend lanes: the config file's profiles, each `--backend` parsed with its settings
//! (a profile's overlaying the command line's), the limits every lane shares (timeout, retries) and
//! each one's own (concurrency, rate limits, price), the response cache for hosted backends, the
//! batch queue of a hosted lane under `--batch`, and each lane's manifest entry. The oracle gets the
//! suites' expectations here, and nothing else does.

use super::super::batch::{BatchQueue, BatchSettings};
use super::super::cache::ResponseCache;
use super::super::lane::{BackendLane, RateLimiter, RetryPolicy};
use super::super::price::{list_price, parse_price_override};
use crate::backend::{AnyBackend, BackendOptions, LocalOptions, OracleAnswers};
use crate::record::{BatchRecord, LaneRecord};
use crate::settings::{Price, RunSettings};
use crate::spec::{BackendProfile, ConfigFile};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A `--backend` once parsed: what the command line said, what it resolved to, and its name.
pub(super) struct ParsedBackend {
    /// As given: a spec or a profile name.
    given: String,
    /// The spec it names (a profile's `spec`, or `given` itself).
    spec: String,
    profile: Option<BackendProfile>,
    backend: AnyBackend,
    id: String,
}

/// What every lane shares: retries and timeouts, and the `--price` overrides.
pub(super) struct SharedLimits {
    retry: RetryPolicy,
    price_overrides: BTreeMap<String, Price>,
}

/// Checks the run-wide limits and prices; each problem found is added to `problems`.
pub(super) fn shared_limits(options: &RunSettings, problems: &mut Vec<String>) -> SharedLimits {
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
    if let Some(mode) = options.batch {
        if !(mode.poll.is_finite() && mode.poll > 0.0) {
            problems.push("--batch-poll must be a positive number of seconds".into());
        }
        if mode.size == 0 {
            problems.push("--batch-size must be 1 or more".into());
        }
    }
    let retry = RetryPolicy {
        max_retries: options.max_retries,
        base_delay: Duration::from_millis(500),
        max_delay: Duration::from_secs(30),
        max_wait: Duration::from_secs_f64(options.max_retry_wait.clamp(0.0, 1e6)),
        timeout: Duration::from_secs_f64(options.timeout.clamp(0.001, 1e6)),
    };
    SharedLimits {
        retry,
        price_overrides,
    }
}

/// Parses every `--backend`; one that cannot be used, or is named twice, is a problem.
pub(super) fn parse_backends(
    options: &RunSettings,
    config: &ConfigFile,
    problems: &mut Vec<String>,
) -> Vec<ParsedBackend> {
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
    for given in &options.backends {
        let profile = config.backend.get(given);
        let local = &options.backend.local;
        let from_command_line = BackendOptions {
            local: LocalOptions {
                threads: local.threads.or(Some(threads_each)),
                threads_batch: local.threads_batch.or(local.threads).or(Some(threads_each)),
                ..local.clone()
            },
            ..options.backend.clone()
        };
        let (spec, backend_options) = match profile {
            Some(p) => (p.spec.as_str(), profile_options(p).or(from_command_line)),
            None => (given.as_str(), from_command_line),
        };
        let backend = match AnyBackend::load(spec, &backend_options) {
            Ok(backend) => backend,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        // A profile is reported under its own name, so two profiles of one model stay apart.
        let id = if profile.is_some() {
            given.clone()
        } else {
            backend.id()
        };
        if !seen.insert(id.clone()) {
            problems.push(format!(
                "backend {id} is named twice (to run one model from two servers, give each a profile in mcpick.toml)"
            ));
            continue;
        }
        parsed.push(ParsedBackend {
            given: given.clone(),
            spec: spec.to_string(),
            profile: profile.cloned(),
            backend,
            id,
        });
    }
    parsed
}

/// The response cache hosted lanes share, or `None` (offline runs never touch the cache file). A
/// cache that cannot be opened is a notice, not a problem: the run goes on without it.
pub(super) fn response_cache(
    options: &RunSettings,
    backends: &[ParsedBackend],
    notices: &mut Vec<String>,
) -> Option<Arc<ResponseCache>> {
    if options.no_cache || backends.iter().all(|p| p.backend.hosted().is_none()) {
        return None;
    }
    let path = options
        .cache
        .clone()
        .unwrap_or_else(ResponseCache::default_path);
    match ResponseCache::open(&path) {
        Ok(cache) => Some(Arc::new(cache)),
        Err(e) => {
            notices.push(format!("running without the response cache: {e}"));
            None
        }
    }
}

/// The lanes, in `--backend` order, and their manifest entries; the oracle learns `answers`.
pub(super) fn build_lanes(
    options: &RunSettings,
    backends: Vec<ParsedBackend>,
    limits: &SharedLimits,
    cache: Option<&Arc<ResponseCache>>,
    answers: OracleAnswers,
    problems: &mut Vec<String>,
) -> (Vec<Arc<BackendLane>>, Vec<LaneRecord>) {
    let mut lanes = Vec::new();
    let mut lane_manifest = Vec::new();
    let answers = Arc::new(answers);
    for parsed in backends {
        let ParsedBackend {
            given,
            spec,
            profile,
            backend,
            id,
        } = parsed;
        let backend = backend.with_answers(&answers);
        let profile = profile.as_ref();
        // `--batch` takes the hosted lanes (the ones with a batch API) to their provider's batch
        // API, at its price: half the list price, for OpenAI and Anthropic alike.
        let batch_api = options
            .batch
            .and_then(|mode| Some((mode, backend.batch_api()?)));
        let price = price_for(&given, &backend, profile, &limits.price_overrides)
            .map(|p| if batch_api.is_some() { p.batch() } else { p });
        if options.budget.is_some() && backend.hosted().is_some() && price.is_none() {
            problems.push(format!(
                "--budget needs a price for {id}: add --price {id}=IN,OUT (dollars per million tokens)"
            ));
        }
        // One local model computes one trial at a time: parallel trials would only share the
        // same cores and one KV cache.
        let concurrency = if backend.one_trial_at_a_time() {
            1
        } else if let Some((mode, _)) = &batch_api {
            // Every trial in flight puts its turn in the next batch.
            mode.size.max(1) as usize
        } else {
            profile
                .and_then(|p| p.concurrency)
                .unwrap_or(options.concurrency)
                .max(1) as usize
        };
        let requests_per_minute = profile
            .and_then(|p| p.requests_per_minute)
            .or(options.requests_per_minute);
        let tokens_per_minute = profile
            .and_then(|p| p.tokens_per_minute)
            .or(options.tokens_per_minute);
        let limiter = RateLimiter::new(requests_per_minute, tokens_per_minute);
        lane_manifest.push(LaneRecord {
            id: id.clone(),
            spec,
            hosted: backend.hosted().and_then(|c| serde_json::to_value(c).ok()),
            local: Some(backend.local_description()).filter(|d| !d.is_null()),
            concurrency,
            price,
            requests_per_minute,
            tokens_per_minute,
            // Only batch lanes say so, so the manifests of every other run stay as they were.
            batch: batch_api.as_ref().map(|(mode, api)| BatchRecord {
                provider: api.provider().into(),
                size: mode.size,
                poll_seconds: mode.poll,
            }),
        });
        let lane_cache = backend.hosted().and(cache.cloned());
        let mut lane = BackendLane::new(
            id.clone(),
            backend,
            concurrency,
            limits.retry,
            limiter,
            price,
            lane_cache,
        );
        if let Some((mode, api)) = batch_api {
            let poll = Duration::from_secs_f64(mode.poll.clamp(0.001, 86_400.0));
            let settings = BatchSettings::new(mode.size as usize, poll, limits.retry.timeout);
            let secrets = lane.backend.hosted().and_then(|c| c.api_key.clone());
            let queue = BatchQueue::new(id, api, settings, secrets.into_iter().collect());
            lane = lane.with_batch(queue);
        }
        lanes.push(Arc::new(lane));
    }
    (lanes, lane_manifest)
}

/// What a profile in `mcpick.toml` sets of a backend's settings.
fn profile_options(profile: &BackendProfile) -> BackendOptions {
    BackendOptions {
        base_url: profile.base_url.clone(),
        api_key_env: profile.api_key_env.clone(),
        max_tokens: profile.max_tokens,
        local: LocalOptions {
            model: profile.model.clone(),
            ..LocalOptions::default()
        },
    }
}

/// The config file and where it was read from (`None` when there is none).
pub(super) fn load_config(
    explicit: Option<&Path>,
) -> Result<(ConfigFile, Option<PathBuf>), String> {
    ConfigFile::load(explicit)
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
