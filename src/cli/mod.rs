//! The command line as clap sees it: syntax and help text only. Nothing here opens a file or builds
//! anything; `commands` turns these values into work (through `commands::resolve`, into the
//! settings the library takes), and no other module sees them. The flags several commands share
//! are defined once, in `flags`, and flattened into each; a command's own flags live with it.

mod explain_options;
mod flags;
mod import_options;
mod run_options;
mod values;
mod writer_options;

pub use explain_options::ExplainOptions;
pub use flags::{
    AdjustFlag, AlphaFlag, BackendsFlag, BudgetFlag, EraChoice, FormatFlag, HostedFlags, JunitFlag,
    LiveServerFlags, ModelFlags, NameFlag, OutFlag, OutputFormat, ProfilesFlag, ProgressFlag,
    SeedFlag, VariantsFlag,
};
pub use import_options::{ImportBfclOptions, ImportMetatoolOptions, ImportOptions};
pub use run_options::{DistractorChoice, RunOptions};
pub use values::LONGEST_WAIT_SECONDS;
pub use writer_options::{DraftOptions, ImproveOptions};

use crate::lint::{Allowance, LintSeverity};
use clap::{ArgAction, Parser, Subcommand};
use std::path::PathBuf;
use values::parse_allowance;

/// mcpick — measure which MCP tools language models pick, and why.
#[derive(Debug, Parser)]
#[command(name = "mcpick", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load and cross-check toolsets, variants and suites; exit 0 only if all are valid (2 otherwise).
    Validate {
        /// Files or directories to check [default: toolsets/ and tasks/].
        paths: Vec<PathBuf>,
        #[command(flatten)]
        format: FormatFlag,
    },
    /// Review a toolset's names, descriptions, parameters and hints against the design principles.
    #[command(mut_arg("variants", |a| a
        .action(ArgAction::Set)
        .help("Lint the toolset as overlaid by this variant (a file, or a variant name in toolsets/variants/)")))]
    #[command(mut_arg("config", |a| a
        .help("Lint allowances (TOML: `[lint] allow`, `[lint.toolset.NAME] allow`) [default: mcpick.toml if it exists]")))]
    Lint {
        /// Toolset file, or the name of a toolset in toolsets/.
        toolset: String,
        #[command(flatten)]
        variant: VariantsFlag,
        #[command(flatten)]
        format: FormatFlag,
        /// Exit 1 when a finding at or above this severity is reported.
        #[arg(long, value_enum)]
        fail_on: Option<LintSeverity>,
        /// Show, under each finding, the source chapter's own words for its rule (in Chinese).
        #[arg(long)]
        sources: bool,
        /// Allow a rule for every tool (`RULE`) or for one tool (`TOOL:RULE`): its findings are
        /// counted, not listed, and `--fail-on` ignores them. Repeatable.
        #[arg(long, value_name = "[TOOL:]RULE", value_parser = parse_allowance)]
        allow: Vec<Allowance>,
        #[command(flatten)]
        config: ProfilesFlag,
    },
    /// Run every task of the suites against every backend and score the tool calls.
    Run(Box<RunOptions>),
    /// A paired description A/B test: `run` with two or more `--variant`s (`--graded` on), reported
    /// per backend on right picks (McNemar) and on how sure the model was (a sign-flip test on
    /// per-task p(right pick), or right picks over `--repeats`), with intervals, the smallest
    /// detectable difference and a verdict; and who gains at whose expense. A variant named twice
    /// is an A/A test.
    Ab(Box<RunOptions>),
    /// A toolset-size sweep: `run` with `--sizes`, reported as accuracy against the number of tools
    /// shown, by gold-tool position, with a logistic fit of where accuracy falls.
    Sweep(Box<RunOptions>),
    /// How many tasks a paired A/B test needs to detect a difference (McNemar, Connor 1987).
    Power {
        /// The difference in right picks to detect, as a fraction (0.1 = ten percentage points).
        #[arg(long)]
        difference: f64,
        /// The share of tasks where the two arms disagree (at least the difference; from a pilot
        /// run's A/B table, or a guess).
        #[arg(long)]
        discordant: f64,
        #[command(flatten)]
        alpha: AlphaFlag,
        /// The chance of detecting the difference when it is real.
        #[arg(long, default_value_t = 0.8)]
        power: f64,
    },
    /// Union the run folders of a split run's shards into one folder and rebuild its outputs;
    /// refuses shards of different plans, names shards and trials missing.
    #[command(mut_arg("out", |a| a
        .required(true)
        .help("The merged run folder (created; `run --resume` finishes it if trials are missing)")))]
    Merge {
        /// The shards' run folders (each holds manifest.json and trials.jsonl).
        #[arg(required = true)]
        run_dirs: Vec<std::path::PathBuf>,
        #[command(flatten)]
        out: OutFlag,
    },
    /// A regression gate: pair NEW's trials with BASE's (by suite, task, backend, repeat, seed and
    /// size, whatever the descriptions or variant names) and exit 1 when NEW picks right
    /// significantly less often (McNemar) or less often than --min-selection.
    Compare {
        /// The run to compare against (yesterday's descriptions, the main branch).
        base: std::path::PathBuf,
        /// The run being judged.
        new: std::path::PathBuf,
        #[command(flatten)]
        alpha: AlphaFlag,
        /// The lowest rate of right picks NEW may have, as a fraction (0.8 = 80%), per backend.
        #[arg(long, value_name = "FRACTION")]
        min_selection: Option<f64>,
        /// How many of BASE's trials NEW may lack (a NEW run cut short) before the runs cannot be
        /// compared [default: 0: every trial BASE has must be in NEW].
        #[arg(long, value_name = "N", default_value_t = 0)]
        allow_missing: usize,
        /// Non-inferiority: fail unless NEW is shown to be no worse than BASE by more than PP
        /// percentage points (the 95% interval on NEW − BASE lies above −PP).
        #[arg(long, value_name = "PP")]
        margin: Option<f64>,
        #[command(flatten)]
        adjust: AdjustFlag,
        #[command(flatten)]
        format: FormatFlag,
        #[command(flatten)]
        junit: JunitFlag,
    },
    /// Rebuild a run's summaries, trials.csv, trials.parquet and report.html from its trials.jsonl alone.
    Report {
        /// The run folder (it holds trials.jsonl).
        run_dir: std::path::PathBuf,
    },
    /// Serve a toolset over MCP, 2025-11-25 sessions and 2026-07-28 requests alike (stdio by default, or
    /// Streamable HTTP), reloading it when its file changes.
    Serve(ServeOptions),
    /// Snapshot a live MCP server's tools into a toolset file (JSON) that `validate` accepts.
    Import(ImportOptions),
    /// Translate a BFCL single-turn file (JSON Lines) and its possible answers into a toolset and a
    /// suite whose tasks keep their own function lists.
    ImportBfcl(ImportBfclOptions),
    /// Translate MetaTool's tool-selection CSV (Query,Tool) and tool descriptions into one toolset
    /// of all tools and one suite of one task per row.
    ImportMetatool(ImportMetatoolOptions),
    /// The models mcpick knows by name: size, licence, where they live and whether they are
    /// present; `--fetch NAME` brings one (verified by SHA-256). Also the prefix cache's size;
    /// `--clear-kv-cache` empties it.
    Models {
        /// Fetch these models now (repeatable; `all` for every one).
        #[arg(long, value_name = "NAME")]
        fetch: Vec<String>,
        /// Empty the prefix cache (the saved tool-list prompts of `local`; $MCPICK_KV_CACHE).
        #[arg(long)]
        clear_kv_cache: bool,
    },
    /// Draft a task suite for a toolset or a live server: a model writes requests and the calls that
    /// serve them, code checks each (leakage of the tool's name, the call against the schema and the
    /// request's words, near-duplicates, what the offline pickers choose), and DIR gets suite.toml,
    /// tasks.jsonl and DRAFT.md (every candidate kept or dropped, with why). Review with
    /// `mcpick review DIR`. A killed draft resumes when run again with the same settings.
    Draft(Box<DraftOptions>),
    /// Rewrite the tool descriptions a backend confuses, and keep only what wins on tasks it never
    /// saw: the suite is split once (seeded, stratified) into a working and a held-out part;
    /// candidates from a rewriter model and from the lint's rules for every weak tool are run
    /// together in a few runs on the working part, the best per tool combined, and the final
    /// wording is adopted only if it is significantly better on the held-out part. DIR gets variant.toml, IMPROVE.md, report.html and every trial; a killed
    /// improve resumes when run again. Exit 0 adopted, 1 not adopted.
    Improve(Box<ImproveOptions>),
    /// Which sentence of a description earns a tool its picks, and which steals them: each
    /// sentence and parameter description of the tool (named with --tool, or the most confused)
    /// and of its neighbours is left out in turn, and the tasks it can move are run without it
    /// beside the wording as it is, graded by the model's probabilities (local) or its picks over
    /// repeats (hosted). DIR gets EXPLAIN.md, explain.json, explain.html and every run; a killed
    /// explain resumes when run again.
    Explain(Box<ExplainOptions>),
    /// Walk a drafted suite's pending tasks in the terminal, one at a time: accept, reject, edit in
    /// $EDITOR, skip or quit; each decision is written at once. Without a terminal, lists what is
    /// pending and exits 2.
    Review {
        /// The folder `mcpick draft` wrote (or its suite file).
        dir: PathBuf,
    },
    /// Show the toolsets, variants and suites found.
    List {
        /// Directories to look in [default: toolsets/ and tasks/].
        paths: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("variants", |a| a
    .action(ArgAction::Set)
    .help("Serve the toolset as overlaid by this variant (a file, or a variant name in toolsets/variants/)")))]
pub struct ServeOptions {
    /// Toolset file, or the name of a toolset in toolsets/.
    pub toolset: String,
    #[command(flatten)]
    pub variant: VariantsFlag,
    /// Speak newline-delimited JSON-RPC on stdin/stdout (the default).
    #[arg(long, conflicts_with = "http")]
    pub stdio: bool,
    /// Serve Streamable HTTP at http://ADDR/mcp; port 0 picks a free port (the URL is printed on stderr).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8808")]
    pub http: Option<std::net::SocketAddr>,
    /// List tools in pages of N with opaque cursors (default: all in one page, as most clients expect).
    #[arg(long, value_name = "N")]
    pub page_size: Option<usize>,
    /// Also serve the tools the official MCP conformance suite calls by name.
    #[arg(long)]
    pub conformance_fixtures: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The commands that take a wait in seconds, each with the flag and the other arguments
    /// it needs to parse.
    fn with_wait(flag: &str, value: &str) -> Vec<Vec<String>> {
        let commands: [&[&str]; 4] = [
            &["mcpick", "run", "s.toml", "--backend", "bm25"],
            &["mcpick", "draft", "t.toml", "-o", "d"],
            &[
                "mcpick",
                "improve",
                "s.toml",
                "--backend",
                "bm25",
                "-o",
                "d",
            ],
            &["mcpick", "run", "s.toml", "--backend", "bm25", "--batch"],
        ];
        commands
            .iter()
            .filter(|c| flag != "--batch-poll" || c.contains(&"--batch"))
            .filter(|c| flag == "--timeout" || c[1] == "run")
            .map(|c| {
                let mut args: Vec<String> = c.iter().map(|a| a.to_string()).collect();
                args.extend([flag.to_string(), value.to_string()]);
                args
            })
            .collect()
    }

    #[test]
    fn waits_beyond_a_week_or_not_finite_are_refused_by_name() {
        for value in ["inf", "1e300", "NaN", "-1", "0", "604801", "soon", ""] {
            for args in with_wait("--timeout", value) {
                let error = Cli::try_parse_from(&args).unwrap_err().to_string();
                // "-1" reads as a flag to clap; every other value reaches the parser.
                assert!(
                    error.contains("--timeout") || value == "-1",
                    "{args:?}: {error}"
                );
            }
        }
        for args in with_wait("--timeout", "0.5") {
            assert!(Cli::try_parse_from(&args).is_ok(), "{args:?}");
        }
        assert!(Cli::try_parse_from(&with_wait("--max-retry-wait", "0")[0]).is_ok());
        assert!(Cli::try_parse_from(&with_wait("--max-retry-wait", "inf")[0]).is_err());
        assert!(Cli::try_parse_from(&with_wait("--batch-poll", "1e300")[0]).is_err());
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    /// Every long flag, wherever it appears, is the same argument: one id, one way of taking
    /// values, one type. A flag defined twice with different types or meanings fails here.
    #[test]
    fn every_long_flag_has_one_meaning() {
        use clap::CommandFactory;
        let mut cli = Cli::command();
        cli.build();
        let mut seen: std::collections::HashMap<String, (String, String, String)> =
            std::collections::HashMap::new();
        for command in cli.get_subcommands() {
            for arg in command.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                // `serve --stdio` is the server's side of the same transport that `import --stdio
                // CMD` and `draft --stdio CMD` start a server on: it takes no command.
                if command.get_name() == "serve" && long == "stdio" {
                    continue;
                }
                let shape = (
                    arg.get_id().to_string(),
                    format!("{:?}", arg.get_num_args()),
                    format!("{:?}", arg.get_value_parser().type_id()),
                );
                match seen.get(long) {
                    Some(first) => assert_eq!(
                        first,
                        &shape,
                        "--{long} in `{}` differs from its first definition",
                        command.get_name()
                    ),
                    None => {
                        seen.insert(long.to_string(), shape);
                    }
                }
            }
        }
        assert!(seen.len() > 40, "{} long flags", seen.len());
    }

    /// The spellings scripts used before the flags were shared still parse, to the same value.
    #[test]
    fn old_spellings_still_parse() {
        let written = |args: &[&str]| -> Option<PathBuf> {
            let mut all = vec!["mcpick"];
            all.extend_from_slice(args);
            let cli = Cli::try_parse_from(&all).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            match cli.command {
                Command::Run(o) => o.out.out,
                Command::Draft(o) => o.out.out,
                Command::Improve(o) => o.out.out,
                Command::Explain(o) => o.out.out,
                Command::Merge { out, .. } => out.out,
                Command::Import(o) => o.out.out,
                Command::ImportBfcl(o) => o.out.out,
                Command::ImportMetatool(o) => o.out.out,
                _ => None,
            }
        };
        let d = Some(PathBuf::from("d"));
        for args in [
            &["run", "--backend", "bm25", "--out", "d"][..],
            &["run", "--backend", "bm25", "-o", "d"],
            &["draft", "t.toml", "-o", "d"],
            &["draft", "t.toml", "--out", "d"],
            &["improve", "s.toml", "--backend", "bm25", "--out", "d"],
            &["merge", "a", "b", "--output", "d"],
            &["merge", "a", "b", "-o", "d"],
            &["import", "--url", "http://127.0.0.1:1/mcp", "--output", "d"],
            &["import", "--stdio", "x", "-o", "d"],
            &["import-bfcl", "q.json", "--output", "d"],
            &[
                "import-metatool",
                "q.csv",
                "--descriptions",
                "p.json",
                "--output",
                "d",
            ],
        ] {
            assert_eq!(written(args), d, "{args:?}");
        }
        // Required where the command cannot do without it, single where it takes one.
        for args in [
            &["mcpick", "draft", "t.toml"][..],
            &["mcpick", "improve", "s.toml", "--backend", "bm25"],
            &["mcpick", "improve", "s.toml", "-o", "d"],
            &[
                "mcpick",
                "improve",
                "s.toml",
                "--backend",
                "a",
                "--backend",
                "b",
                "-o",
                "d",
            ],
            &["mcpick", "lint", "t", "--variant", "a", "--variant", "b"],
            &["mcpick", "merge", "a"],
            &["mcpick", "import", "-o", "d"],
            &["mcpick", "run", "--resume", "r", "--out", "d"],
            &[
                "mcpick",
                "draft",
                "t.toml",
                "-o",
                "d",
                "--seed",
                "4294967296",
            ],
        ] {
            assert!(Cli::try_parse_from(args).is_err(), "{args:?} parsed");
        }
        let Command::Run(run) =
            Cli::parse_from(["mcpick", "run", "--backend", "a", "--backend", "b"]).command
        else {
            unreachable!()
        };
        assert_eq!(run.backends.backends, ["a", "b"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever number is given, a wait that parses fits in a `Duration`.
        #[test]
        fn any_wait_that_parses_is_a_duration(value in prop_oneof![
            any::<f64>().prop_map(|x| x.to_string()),
            (-10i64..700_000).prop_map(|x| x.to_string()),
            any::<f64>().prop_map(|x| format!("{x:e}")),
        ]) {
            for args in with_wait("--timeout", &value) {
                if let Ok(cli) = Cli::try_parse_from(&args) {
                    let seconds = match cli.command {
                        Command::Run(o) => o.hosted.timeout,
                        Command::Draft(o) => o.hosted.timeout,
                        Command::Improve(o) => o.hosted.timeout,
                        _ => None,
                    };
                    let seconds = seconds.expect("the arguments name --timeout");
                    prop_assert!(std::time::Duration::try_from_secs_f64(seconds).is_ok());
                    prop_assert!(seconds > 0.0 && seconds <= LONGEST_WAIT_SECONDS);
                }
            }
        }
    }
}
