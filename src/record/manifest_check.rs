//! A manifest read back is outside input: someone may have edited it, copied it from another run
//! or forged a field. This checks what `Manifest::read` parsed against itself before anyone acts
//! on it: every number within the bounds the CLI puts on it (a `repeats` of four billion must not
//! reach an allocation), the shard inside its split, the trial count equal to what the plan it
//! records holds, and the plan hash equal to the hash of its settings and files as they are on
//! disk — the hash is over the text, so a manifest written by any version checks the same. When
//! the hash does not match, the per-setting hashes the plan recorded name the setting that changed.

use super::manifest::Manifest;
use crate::hashing::sha256_hex;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Eight hex digits naming a plan: its settings (as JSON) and every file it read, with its SHA-256.
pub fn plan_hash(options: &Value, files: &Value) -> String {
    let digest = sha256_hex(
        json!({"options": options, "files": files})
            .to_string()
            .as_bytes(),
    );
    digest[..8].to_string()
}

/// Each setting's own hash (eight hex digits of its JSON), so a changed manifest can say which.
pub fn setting_hashes(options: &Value) -> BTreeMap<String, String> {
    options
        .as_object()
        .map(|settings| {
            settings
                .iter()
                .map(|(name, value)| {
                    (
                        name.clone(),
                        sha256_hex(value.to_string().as_bytes())[..8].to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Why `manifest` (parsed from `text`) cannot be trusted: empty when it can.
pub fn problems(manifest: &Manifest, text: &Value) -> Vec<String> {
    let mut problems = bound_problems(manifest);
    let options = text.get("options").unwrap_or(&Value::Null);
    let files = text.get("files").cloned().unwrap_or_else(|| json!({}));
    if let Err(hash) = plan_hash_holds(manifest, options, &files) {
        problems.push(edited(manifest, options, &hash));
    }
    problems
}

/// Whether `manifest`'s plan hash is the hash of its settings and `files`: the settings as its text
/// has them (`options`: how any version wrote them), or as this version's `RunSettings` holds them
/// (how the plan hashed them: an `f32` such as a temperature is hashed widened, and written short).
/// `Err` carries the hash the settings as written give.
pub fn plan_hash_holds(manifest: &Manifest, options: &Value, files: &Value) -> Result<(), String> {
    let written = plan_hash(options, files);
    let typed = serde_json::to_value(&manifest.options).map(|typed| plan_hash(&typed, files));
    if written == manifest.plan_hash || typed.is_ok_and(|typed| typed == manifest.plan_hash) {
        Ok(())
    } else {
        Err(written)
    }
}

/// What a manifest whose settings and files no longer hash to its plan hash says.
fn edited(manifest: &Manifest, options: &Value, hash: &str) -> String {
    let now = setting_hashes(options);
    let recorded = &manifest.setting_hashes;
    let mut changed: Vec<String> = Vec::new();
    if !recorded.is_empty() {
        for (name, value) in now.iter() {
            if recorded.get(name) != Some(value) {
                let shown = options.get(name).map_or(String::new(), |v| {
                    let text = v.to_string();
                    let short: String = text.chars().take(80).collect();
                    format!(
                        " (now {short}{})",
                        if short.len() < text.len() { "…" } else { "" }
                    )
                });
                changed.push(format!("`{name}`{shown}"));
            }
        }
        changed.extend(
            recorded
                .keys()
                .filter(|n| !now.contains_key(*n))
                .map(|n| format!("`{n}` (removed)")),
        );
    }
    let what = if changed.is_empty() {
        "its settings or the file hashes it lists were changed".to_string()
    } else {
        format!(
            "the setting(s) {} changed after the run was planned",
            changed.join(", ")
        )
    };
    format!(
        "{what}: they hash to {hash}, not to the plan hash {} the run was made under, so the trials beside it are not this plan's. To run the new plan, start it into a new folder (`mcpick run … --out NEW_DIR`); this folder keeps the run it holds (put the manifest back to resume it)",
        manifest.plan_hash
    )
}

/// The CLI's bounds, and the shard and trial count the manifest's own plan allows.
fn bound_problems(manifest: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    let options = &manifest.options;
    let mut within = |name: &str, value: u64, low: u64, high: u64| {
        if !(low..=high).contains(&value) {
            problems.push(format!("setting `{name}` is {value}, outside {low}..={high} (the bounds `mcpick run` puts on it)"));
        }
    };
    within("repeats", options.repeats.into(), 1, 1_000);
    within("seeds", options.seeds.into(), 1, 10_000);
    within("concurrency", options.concurrency.into(), 1, 256);
    within("max_turns", options.max_turns as u64, 1, 1_000);
    within("sizes (how many)", options.sizes.len() as u64, 0, 1_000);
    for size in &options.sizes {
        within("sizes", (*size).into(), 1, 100_000);
    }
    within(
        "exposures (how many)",
        options.exposures.len() as u64,
        0,
        100,
    );
    within(
        "backends (how many)",
        options.backends.len() as u64,
        1,
        1_000,
    );
    within(
        "variants (how many)",
        options.variants.len() as u64,
        0,
        1_000,
    );
    let local = &options.backend.local;
    for (name, value) in [
        ("threads", local.threads),
        ("threads_batch", local.threads_batch),
    ] {
        if let Some(value) = value {
            within(name, value.into(), 1, 256);
        }
    }
    if let Some(ctx) = local.ctx_size {
        within("ctx_size", ctx.into(), 256, 1_048_576);
    }
    if let Some(batch) = &options.batch {
        within("batch.size", batch.size.into(), 1, 50_000);
    }
    for lane in &manifest.backends {
        // A batch lane keeps a batch's worth of trials in flight.
        let most = lane.batch.as_ref().map_or(256, |_| 50_000);
        within(
            &format!("backends[{}].concurrency", lane.id),
            lane.concurrency as u64,
            1,
            most,
        );
    }
    for (name, value, low) in [
        ("timeout", Some(options.timeout), f64::MIN_POSITIVE),
        ("max_retry_wait", Some(options.max_retry_wait), 0.0),
        ("budget", options.budget, 0.0),
        ("batch.poll", options.batch.as_ref().map(|b| b.poll), 0.0),
    ] {
        if let Some(value) = value.filter(|v| !(v.is_finite() && *v >= low)) {
            problems.push(format!(
                "setting `{name}` is {value}, not a finite number ≥ {low}"
            ));
        }
    }
    if let Some(shard) = manifest.shard {
        if shard.count == 0 || shard.count > 100_000 || shard.index >= shard.count {
            problems.push(format!(
                "`shard` says shard {} of {}: a shard's index runs from 0 to one less than the count, and a run has 1 to 100000 shards",
                shard.index, shard.count
            ));
        }
        if shard.trials > manifest.trials {
            problems.push(format!(
                "`shard` says it owns {} trials of a plan of {}",
                shard.trials, manifest.trials
            ));
        }
    }
    for merged in manifest.merged_from.iter().flatten() {
        if let Some(shard) = merged
            .shard
            .filter(|s| s.count == 0 || s.count > 100_000 || s.index >= s.count)
        {
            problems.push(format!(
                "`merged_from` names shard {} of {} ({})",
                shard.index, shard.count, merged.folder
            ));
        }
    }
    for suite in &manifest.suites {
        if !suite.task_ids.is_empty() && suite.task_ids.len() != suite.tasks {
            problems.push(format!(
                "suite {} lists {} task ids for {} tasks",
                suite.suite,
                suite.task_ids.len(),
                suite.tasks
            ));
        }
    }
    if problems.is_empty()
        && let Some(planned) = planned_trials(manifest)
        && planned != manifest.trials
    {
        problems.push(format!(
            "`trials` says {}, but the plan it records (its suites, backends, sizes, seeds, exposures and repeats) holds {planned}",
            manifest.trials
        ));
    }
    problems
}

/// The trials of the plan the manifest records: every suite's tasks under every lane and
/// condition (`None` when the product does not fit a machine word, which the bounds rule out).
fn planned_trials(manifest: &Manifest) -> Option<usize> {
    let options = &manifest.options;
    let seeds = if options.sizes.is_empty() {
        1
    } else {
        options.seeds as usize
    };
    let tasks: usize = manifest
        .suites
        .iter()
        .map(|s| s.tasks)
        .try_fold(0usize, |sum, n| sum.checked_add(n))?;
    tasks
        .checked_mul(manifest.backends.len())?
        .checked_mul(options.sizes.len().max(1))?
        .checked_mul(seeds)?
        .checked_mul(options.repeats as usize)?
        .checked_mul(options.exposures.len().max(1))
}
