//! The command line's flags resolved into the settings the library takes, once, for every command:
//! a run's `RunSettings`, the backend options the shared model and hosted flags ask for, the live
//! server a command reads, the folder it writes. Commands call these and never each other, and no
//! command fakes a parse to learn another's defaults: `RunSettings::default()` is them.

use crate::backend::{BackendOptions, LocalOptions, PrefixCacheUse};
use crate::cli::{
    BackendsFlag, BudgetFlag, DistractorChoice, EraChoice, HostedFlags, LiveServerFlags,
    ModelFlags, OutFlag, ProfilesFlag, RunOptions,
};
use crate::import::client_config::{ConfigChoice, ConfigFile, Environment};
use crate::import::live_server::{ChosenServer, HttpServer, ServerSource};
use crate::import::server_command::StdioServer;
use crate::mcp::client::Negotiation;
use crate::settings::{BatchMode, Distractors, RunSettings};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// How long a drafter's or rewriter's reply may take when `--timeout` does not say: it writes
/// several requests, or several wordings, in one reply.
pub const WRITER_TIMEOUT_SECONDS: f64 = 300.0;

/// The backend options the shared model and hosted-connection flags ask for: the one way from
/// flags to `BackendOptions`, for a run's backends, a drafter and a rewriter alike.
pub fn backend_options(model: &ModelFlags, hosted: &HostedFlags) -> BackendOptions {
    BackendOptions {
        base_url: hosted.base_url.clone(),
        api_key_env: hosted.api_key_env.clone(),
        max_tokens: hosted.max_tokens,
        local: LocalOptions {
            model: model.model.clone(),
            threads: model.threads,
            kv_cache: model.no_kv_cache.then_some(PrefixCacheUse::Off),
            ..LocalOptions::default()
        },
    }
}

/// The wait, in seconds, for one reply of a run's backend: `--timeout`, else a run's default.
pub fn reply_timeout(hosted: &HostedFlags) -> f64 {
    hosted.timeout.unwrap_or(RunSettings::default().timeout)
}

/// The wait for one reply of a model that writes (a drafter, a rewriter).
pub fn writer_timeout(hosted: &HostedFlags) -> Duration {
    let seconds = hosted.timeout.unwrap_or(WRITER_TIMEOUT_SECONDS);
    Duration::try_from_secs_f64(seconds.max(1.0)).unwrap_or(Duration::MAX)
}

/// The settings a run's command line asks for (`--out`, `--resume` and `--no-progress` stay with
/// the command: they say where and how, not what).
pub fn run_settings(options: &RunOptions) -> RunSettings {
    let defaults = RunSettings::default();
    let mut backend = backend_options(&options.model, &options.hosted);
    backend.local = LocalOptions {
        threads_batch: options.threads_batch,
        ctx_size: options.ctx_size,
        temperature: options.temperature,
        seed: options.seed.seed,
        graded: options.graded.then_some(true),
        ..backend.local
    };
    RunSettings {
        paths: options.paths.clone(),
        backends: options.backends.backends.clone(),
        max_turns: options.max_turns,
        scoring: options.scoring.clone(),
        tags: options.tags.clone(),
        variants: options.variants.variants.clone(),
        listed_last: Vec::new(),
        sizes: options.sizes.clone(),
        distractors: match options.distractors {
            DistractorChoice::Random => Distractors::Random,
            DistractorChoice::Similar => Distractors::Similar,
        },
        exposures: options.exposures.clone(),
        client: options.client.clone(),
        seeds: options.seeds,
        repeats: options.repeats,
        adjust: options.adjust.adjust,
        pool: options.pool.clone(),
        bystanders: options.bystanders.clone(),
        config: options.profiles.config.clone(),
        backend,
        concurrency: options.concurrency,
        requests_per_minute: options.requests_per_minute,
        tokens_per_minute: options.tokens_per_minute,
        timeout: reply_timeout(&options.hosted),
        max_retries: options.max_retries,
        max_retry_wait: options.max_retry_wait,
        budget: options.budget.budget,
        price: options.price.clone(),
        no_cache: options.no_cache,
        cache: options.cache.clone(),
        batch: options.batch.then_some(BatchMode {
            size: options.batch_size,
            poll: options.batch_poll,
        }),
        server_instructions: options.server_instructions,
        ..defaults
    }
}

/// The MCP revision `--era` asks a live server to be spoken to in.
pub fn negotiation(era: EraChoice) -> Negotiation {
    match era {
        EraChoice::Auto => Negotiation::Auto,
        EraChoice::Stateless => Negotiation::Stateless,
        EraChoice::Sessions => Negotiation::Sessions,
    }
}

/// A server of a config file that could not be made ready (a variable not set, a field
/// missing), by its name: the others of the file are still read.
#[derive(Debug, Clone)]
pub struct UnreadServer {
    pub name: String,
    pub message: String,
}

/// The live servers the flags name: the one `--stdio` or `--url` names, or those of
/// `--mcp-config` (the one `#NAME` picks, or every one), each ready or why not. clap lets at most
/// one kind through; the outer error is a file that cannot be read at all.
pub fn live_servers(
    flags: &LiveServerFlags,
) -> Result<Vec<Result<ChosenServer, UnreadServer>>, String> {
    let plain = |source| Ok(vec![Ok(ChosenServer::plain(source))]);
    match (&flags.stdio, &flags.url, &flags.mcp_config) {
        (Some(command), None, None) => plain(ServerSource::Stdio(StdioServer {
            line: command.clone(),
            env: flags.env.clone(),
            cwd: flags.cwd.clone(),
            argv: None,
        })),
        (None, Some(url), None) => plain(ServerSource::Http(HttpServer::at(url))),
        (None, None, Some(choice)) => configured_servers(flags, choice),
        _ => Err("give one of --stdio \"CMD ARGS\", --url URL or --mcp-config FILE[#NAME]".into()),
    }
}

/// The one live server of a command that reads one (`draft`): a config with several servers
/// and no `#NAME` is an error listing them.
pub fn one_live_server(flags: &LiveServerFlags) -> Result<ChosenServer, String> {
    if let Some(choice) = flags.mcp_config.as_ref().filter(|c| c.name.is_none()) {
        let config = ConfigFile::read(&choice.file)?;
        if config.names().len() > 1 {
            return Err(several_servers(&config));
        }
    }
    let mut servers = live_servers(flags)?;
    servers.remove(0).map_err(|unread| unread.message)
}

/// The message for a config with several servers where one is wanted.
pub fn several_servers(config: &ConfigFile) -> String {
    let file = config.path.display();
    format!(
        "{file} has {} servers; pick one with --mcp-config {file}#NAME:\n{}",
        config.names().len(),
        config
            .names()
            .iter()
            .map(|name| format!("  {file}#{name}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// The servers of `--mcp-config`, filled in from the environment; `--env` and `--cwd` apply to
/// a stdio server on top of what the file says.
fn configured_servers(
    flags: &LiveServerFlags,
    choice: &ConfigChoice,
) -> Result<Vec<Result<ChosenServer, UnreadServer>>, String> {
    let config = ConfigFile::read(&choice.file)?;
    let environment = Environment::from_process(&flags.inputs, config.workspace())
        .with_input_defaults(config.input_defaults());
    let names: Vec<&str> = match &choice.name {
        Some(name) => vec![name.as_str()],
        None => config.names(),
    };
    if let Some(name) = &choice.name
        && !config.names().contains(&name.as_str())
    {
        // A name the file lacks is a mistake in the command, not in one server.
        return Err(config.server(name, &environment).err().unwrap_or_default());
    }
    Ok(names
        .into_iter()
        .map(|name| {
            let mut server = config
                .server(name, &environment)
                .map_err(|message| UnreadServer {
                    name: name.to_string(),
                    message,
                })?;
            if let ServerSource::Stdio(stdio) = &mut server.source {
                stdio.env.extend(flags.env.iter().cloned());
                if let Some(cwd) = &flags.cwd {
                    stdio.cwd = Some(cwd.clone());
                }
            }
            let mut recorded = vec![("config".to_string(), json!(server.origin))];
            if let Some(registry) = &server.registry {
                recorded.push(("registry".to_string(), json!(registry)));
            }
            Ok(ChosenServer {
                name: Some(server.name),
                source: server.source,
                recorded,
            })
        })
        .collect())
}

/// The folder (or file) a command that must write is told to write to. clap requires the flag
/// for these commands; a caller that built the options by hand gets an error, not a panic.
pub fn required_out(flag: &OutFlag) -> Result<PathBuf, String> {
    flag.out
        .clone()
        .ok_or_else(|| "give -o/--out, where to write".to_string())
}

/// The folder and the one backend of a command that measures one (`improve`, `explain`); `what`
/// says what the backend is for, in the error when it is missing.
pub fn out_and_backend(
    out: &OutFlag,
    backends: &BackendsFlag,
    what: &str,
) -> Result<(PathBuf, String), String> {
    let folder = required_out(out)?;
    let backend = backends
        .backends
        .first()
        .cloned()
        .ok_or_else(|| format!("give --backend, {what}"))?;
    Ok((folder, backend))
}

/// The runs of a command that measures one backend (`improve`, `explain`): `RunSettings::default()`
/// with the shared flags, graded as in `ab` — how sure the model was counts, not only what it
/// picked.
pub fn graded_run(
    backend: &str,
    model: &ModelFlags,
    hosted: &HostedFlags,
    profiles: &ProfilesFlag,
    budget: &BudgetFlag,
) -> RunSettings {
    let mut measured = backend_options(model, hosted);
    measured.local.graded = Some(true);
    RunSettings {
        backends: vec![backend.to_string()],
        config: profiles.config.clone(),
        budget: budget.budget,
        backend: measured,
        timeout: reply_timeout(hosted),
        ..RunSettings::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn run_options(args: &[&str]) -> RunOptions {
        let mut all = vec!["mcpick", "run"];
        all.extend_from_slice(args);
        match Cli::parse_from(all).command {
            Command::Run(options) => *options,
            _ => unreachable!("the arguments name the run command"),
        }
    }

    /// The defaults a command without a run's flags takes (`RunSettings::default()`) are the ones
    /// `mcpick run` gives when no flag is set: the two cannot drift apart.
    #[test]
    fn a_bare_run_resolves_to_the_default_settings() {
        assert_eq!(
            run_settings(&run_options(&["--backend", "bm25"])),
            RunSettings {
                backends: vec!["bm25".into()],
                ..RunSettings::default()
            }
        );
    }

    #[test]
    fn shared_flags_reach_the_backend_options_and_the_run() {
        let settings = run_settings(&run_options(&[
            "--backend",
            "local",
            "--model",
            "m.gguf",
            "--threads",
            "3",
            "--threads-batch",
            "5",
            "--seed",
            "7",
            "--timeout",
            "9",
            "--base-url",
            "http://127.0.0.1:1/v1",
            "--api-key-env",
            "KEY",
            "--max-tokens",
            "11",
            "--no-kv-cache",
            "--budget",
            "2",
            "--config",
            "c.toml",
        ]));
        let local = &settings.backend.local;
        assert_eq!(local.model.as_deref(), Some("m.gguf"));
        assert_eq!((local.threads, local.threads_batch), (Some(3), Some(5)));
        assert_eq!(
            (local.seed, local.kv_cache),
            (Some(7), Some(PrefixCacheUse::Off))
        );
        assert_eq!(settings.timeout, 9.0);
        assert_eq!(settings.budget, Some(2.0));
        assert_eq!(settings.config, Some(PathBuf::from("c.toml")));
        assert_eq!(settings.backend.max_tokens, Some(11));
        assert_eq!(settings.backend.api_key_env.as_deref(), Some("KEY"));
        assert_eq!(
            settings.backend.base_url.as_deref(),
            Some("http://127.0.0.1:1/v1")
        );
    }

    #[test]
    fn a_writer_waits_longer_unless_told() {
        assert_eq!(
            writer_timeout(&HostedFlags::default()),
            Duration::from_secs(300)
        );
        let told = HostedFlags {
            timeout: Some(30.0),
            ..HostedFlags::default()
        };
        assert_eq!(writer_timeout(&told), Duration::from_secs(30));
    }
}
