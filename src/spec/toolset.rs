//! Toolset files: `[[tool]]` entries with MCP's tool fields plus a `behavior` table for the simulation.
//! A tool and its annotations are open objects in MCP's schema, so keys this build does not know are
//! kept (`extra`) and written back and served as they came; the loader refuses only a key that looks
//! like a misspelling of a known one.

use super::Located;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A toolset file in TOML.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsetFile {
    pub format: Located<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Located<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What the server asks hosts to tell the model (MCP's `instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Where `mcpick import` took the tools from (as in a JSON toolset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<Value>,
    /// `[lint] allow = [...]`: lint rules allowed for this toolset (`RULE` or `TOOL:RULE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lint: Option<LintAllow>,
    #[serde(rename = "tool", default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Located<ToolSpec>>,
}

/// The lint rules a toolset file (its `lint` table or key) or `mcpick.toml`'s
/// `[lint.toolset.NAME]` allows: each `RULE` (for every tool) or `TOOL:RULE` (for one tool).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LintAllow {
    #[serde(default)]
    pub allow: Vec<String>,
}

/// A toolset file in JSON, as `import` writes it: a header and MCP's tool objects as a server
/// lists them. The loader reads the header's keys and takes the tools one by one as `ToolSpec`s
/// (`load::toolset`), so a tool it cannot read is named alone; this is the shape it reads.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct ToolsetDocument {
    pub format: u32,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What the server asks hosts to tell the model (MCP's `instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Where `mcpick import` took the tools from and the MCP revision it spoke.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<Value>,
    pub tools: Vec<Value>,
}

impl ToolsetDocument {
    /// The same toolset as a TOML file, for an output named `.toml`; a tool that is not a tool,
    /// or a value TOML cannot hold (a `null` in a schema), is an error naming it.
    pub fn to_toml_file(&self) -> Result<ToolsetFile, String> {
        let tools = self
            .tools
            .iter()
            .map(|tool| {
                serde_json::from_value::<ToolSpec>(tool.clone())
                    .map(Located::new)
                    .map_err(|e| format!("tool {}: {e}", tool["name"]))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ToolsetFile {
            format: Located::new(self.format),
            name: Some(Located::new(self.name.clone())),
            description: self.description.clone(),
            instructions: self.instructions.clone(),
            imported: self.imported.clone(),
            lint: None,
            tools,
        })
    }

    /// A JSON toolset of `tools`, in the format this build reads.
    pub fn new(name: &str, description: Option<String>, tools: Vec<Value>) -> ToolsetDocument {
        ToolsetDocument {
            format: super::FORMAT_VERSION,
            name: name.to_string(),
            description,
            instructions: None,
            imported: None,
            tools,
        }
    }
}

/// One tool as written: MCP `Tool` fields, spelled as the specification spells them, plus `behavior`.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct ToolSpec {
    pub name: Located<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Located<String>>,
    #[serde(
        rename = "inputSchema",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub input_schema: Option<Located<Value>>,
    #[serde(
        rename = "outputSchema",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub output_schema: Option<Located<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behavior: Option<Located<BehaviorSpec>>,
    /// Keys MCP's `Tool` object does not define (a server may send its own): passed through.
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl ToolSpec {
    /// The keys a tool may have that this build reads, as the file spells them.
    pub const KNOWN_KEYS: [&'static str; 10] = [
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "execution",
        "_meta",
        "behavior",
    ];
}

/// What the simulated tool answers: a default response, optional rules tried first, optional latency.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BehaviorSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    #[serde(rename = "rule", default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Located<ResponseRuleSpec>>,
}

/// A rule: when the arguments match `when`, answer with this response instead of the default.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ResponseRuleSpec {
    pub when: Located<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
}

impl ToolAnnotations {
    /// The keys MCP defines for annotations.
    pub const KNOWN_KEYS: [&'static str; 5] = [
        "title",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];
}

/// MCP `ToolAnnotations`: hints about a tool's effects, an optional display title, and whatever else
/// a server puts there (chrome-devtools-mcp sends `category`), kept as sent.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(
        rename = "readOnlyHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_only_hint: Option<bool>,
    #[serde(
        rename = "destructiveHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub destructive_hint: Option<bool>,
    #[serde(
        rename = "idempotentHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub idempotent_hint: Option<bool>,
    #[serde(
        rename = "openWorldHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub open_world_hint: Option<bool>,
    /// Keys the specification does not define: passed through to clients unchanged.
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}
