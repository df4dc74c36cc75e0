//! The importers as clap sees them: a live server's tools (`import`), and the public data sets
//! (`import-bfcl`, `import-metatool`), each writing a toolset (and a suite) under `-o/--out`.

use super::flags::{LiveServerFlags, NameFlag, OutFlag};
use std::path::PathBuf;

#[derive(Debug, Clone, clap::Args)]
#[command(
    mut_arg("stdio", |a| a.required_unless_present_any(["url", "mcp_config"])),
    mut_arg("out", |a| a
        .required_unless_present("mcp_config")
        .value_name("FILE")
        .help("Where to write the toolset, e.g. toolsets/github.json; with --mcp-config, a folder for one toolset per server [default: toolsets]")),
    mut_arg("name", |a| a.help("The toolset's name [default: the output file's name]")),
)]
pub struct ImportOptions {
    #[command(flatten)]
    pub server: LiveServerFlags,
    #[command(flatten)]
    pub out: OutFlag,
    #[command(flatten)]
    pub name: NameFlag,
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    mut_arg("out", |a| a
        .required(true)
        .help("The folder to write toolset.json, suite.toml, tasks.jsonl and IMPORT.md into")),
    mut_arg("name", |a| a.help("The suite's and toolset's name [default: from the questions file's name]")),
)]
pub struct ImportBfclOptions {
    /// A BFCL questions file, e.g. BFCL_v4_simple_python.json (JSON Lines).
    pub questions: PathBuf,
    /// Its possible answers, e.g. possible_answer/BFCL_v4_simple_python.json (not needed for the
    /// irrelevance and live_relevance files).
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutFlag,
    #[command(flatten)]
    pub name: NameFlag,
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    mut_arg("out", |a| a
        .required(true)
        .help("The folder to write toolset.json, suite.toml, tasks.jsonl and IMPORT.md into")),
    mut_arg("name", |a| a.help("The suite's and toolset's name [default: metatool]")),
)]
pub struct ImportMetatoolOptions {
    /// MetaTool's queries: a CSV with `Query` and `Tool` columns, e.g. dataset/data/all_clean_data.csv.
    pub queries: PathBuf,
    /// The tool descriptions: a JSON object of name → description, e.g. dataset/plugin_des.json.
    #[arg(long, value_name = "FILE")]
    pub descriptions: PathBuf,
    #[command(flatten)]
    pub out: OutFlag,
    #[command(flatten)]
    pub name: NameFlag,
}
