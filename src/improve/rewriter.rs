//! What the rewriter model is asked, and what is taken from its reply. The ask shows one target
//! tool — its wording, its parameters' schemas, its confusable neighbours' descriptions, the lint's
//! findings on it, and the working requests it lost or wrongly took — under fixed instructions that
//! carry the source chapter's principles; the reply's JSON Schema asks for exactly K wordings with
//! a description for every parameter, so a grammar-held model writes them in shape. The requests
//! shown come from the `Target`, which is built from working trials only. Pure.

use super::rules::sentence;
use super::targets::Target;
use super::wording::Wording;
use crate::backend::JsonAsk;
use crate::hashing::sha256_hex;
use crate::lint::Finding;
use crate::model::Toolset;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The instructions every ask starts with; their hash goes into IMPROVE.md. A small model fills
/// named slots far more reliably than it writes a description whole, so the ask names the parts a
/// description needs (what the tool does, the requests it serves, when each neighbour serves
/// instead) and the description is put together from them by code; a worked example from another
/// domain shows the slots filled.
pub const SYSTEM: &str = "You help describe the tools of an MCP server so that an AI assistant \
picks each tool for the requests it serves, and not for requests another tool serves. For one \
tool you fill in:\n\
- does: what the tool does and what it returns, in one plain sentence.\n\
- use_for: the kinds of requests it serves, in the words users write (times, situations, \
typical phrasings), as one phrase.\n\
- instead: for each neighbouring tool, the kinds of requests that tool serves instead.\n\
Be specific and plain. Describe; never promote: do not write \"always\", \"best\", \"must\" or \
\"use this first\". Write about the tool in general: do not copy the example requests.\n\
Example. The tool read_file (parameter path) with neighbours list_directory and search_files:\n\
{\"does\": \"Reads one text file and returns its contents\", \"use_for\": \"opening, showing or \
reading a file whose path is known, such as 'what does notes.txt say'\", \"instead\": \
{\"list_directory\": \"seeing which files a folder holds\", \"search_files\": \"finding files by \
name when the path is not known\"}}";

/// The tool a hosted rewriter submits its wordings through.
pub const SUBMIT: (&str, &str) = (
    "submit_wordings",
    "Submit the new wordings of the tool: each a description and a description of every parameter.",
);

/// The hash of the fixed instructions, for the record.
pub fn template_hash() -> String {
    sha256_hex(SYSTEM.as_bytes())
}

/// A rewriter ask, owned.
pub struct RewriteAsk {
    pub id: String,
    pub user: String,
    pub schema: Value,
    pub max_tokens: u32,
}

impl RewriteAsk {
    pub fn as_json_ask(&self) -> JsonAsk<'_> {
        JsonAsk {
            id: &self.id,
            system: SYSTEM,
            user: &self.user,
            schema: &self.schema,
            max_tokens: self.max_tokens,
            submit: SUBMIT,
        }
    }
}

/// The ask for `count` wordings of `target` in round `round`. `requests` gives a working task's
/// text by id.
pub fn rewrite_ask(
    round: u32,
    target: &Target,
    toolset: &Toolset,
    findings: &[Finding],
    requests: &BTreeMap<String, String>,
    count: usize,
) -> Option<RewriteAsk> {
    let tool = toolset.tool(&target.standing.tool)?;
    let mut user = format!(
        "The tool: {}\nIts description now: {:?}\nIts parameters:\n",
        tool.name,
        tool.description.as_deref().unwrap_or("")
    );
    let required = tool.required_parameters();
    let has_params = tool.parameters().next().is_some();
    for (name, schema) in tool.parameters() {
        let mut shown = schema.clone();
        if let Some(object) = shown.as_object_mut() {
            object.remove("description");
        }
        user.push_str(&format!(
            "- {name} ({}): described as {:?}; schema {shown}\n",
            if required.contains(&name.as_str()) {
                "required"
            } else {
                "optional"
            },
            schema
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
        ));
    }
    if !has_params {
        user.push_str("(none)\n");
    }
    let neighbours: Vec<String> = target
        .neighbours
        .iter()
        .filter_map(|n| toolset.tool(n))
        .map(|n| {
            format!(
                "- {}: {:?}\n",
                n.name,
                n.description.as_deref().unwrap_or("")
            )
        })
        .collect();
    if !neighbours.is_empty() {
        user.push_str("Tools it is confused with:\n");
        user.push_str(&neighbours.concat());
    }
    let notes: Vec<String> = findings
        .iter()
        .filter(|f| f.tool.as_deref() == Some(tool.name.as_str()))
        .map(|f| format!("- {}: {} (fix: {})\n", f.rule, f.message, f.suggestion))
        .collect();
    if !notes.is_empty() {
        user.push_str("What a description checker found:\n");
        user.push_str(&notes.concat());
    }
    let shown = |misses: &[super::targets::Miss], lost: bool| -> String {
        misses
            .iter()
            .filter_map(|m| {
                let text = requests.get(&m.task)?;
                Some(if lost {
                    format!("- {text:?} (the assistant chose {})\n", m.picked)
                } else {
                    format!("- {text:?} (this needs {})\n", m.expected)
                })
            })
            .collect()
    };
    let lost = shown(&target.lost, true);
    if !lost.is_empty() {
        user.push_str(&format!(
            "Requests {} should have been chosen for, but was not:\n{lost}",
            tool.name
        ));
    }
    let took = shown(&target.took, false);
    if !took.is_empty() {
        user.push_str(&format!(
            "Requests {} was chosen for, wrongly:\n{took}",
            tool.name
        ));
    }
    user.push_str(&super::attribution::attribution_lines(target));
    let named: Vec<&String> = target
        .neighbours
        .iter()
        .filter(|n| toolset.tool(n).is_some())
        .take(NEIGHBOURS_ASKED)
        .collect();
    user.push_str(&format!(
        "\nFill in {count} different version(s) of does, use_for and instead for {}{}.",
        tool.name,
        if named.is_empty() {
            String::new()
        } else {
            format!(
                " (instead: {})",
                named
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ));
    let instead: serde_json::Map<String, Value> = named
        .iter()
        .map(|n| ((*n).clone(), json!({"type": "string"})))
        .collect();
    let mut properties = json!({
        "does": {"type": "string"},
        "use_for": {"type": "string"},
    });
    let mut required = vec!["does", "use_for"];
    if !named.is_empty() {
        properties["instead"] = json!({
            "type": "object",
            "properties": instead,
            "required": named,
            "additionalProperties": false
        });
        required.push("instead");
    }
    let item = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    });
    let schema = json!({
        "type": "object",
        "properties": {
            "wordings": {
                "type": "array",
                "prefixItems": vec![item; count],
                "minItems": count,
                "maxItems": count
            }
        },
        "required": ["wordings"],
        "additionalProperties": false
    });
    Some(RewriteAsk {
        id: format!("improve:r{round}:{}", tool.name),
        user,
        schema,
        // The default 1.5B model wrote up to ~150 tokens for `does` and `use_for` together and
        // ~60 for an `instead`; a limit of 120 + 40 a neighbour cut 5 of 18 replies short.
        max_tokens: (count * (200 + 80 * named.len())) as u32,
    })
}

/// The first `count` wordings in a reply (exactly as many as were asked for: a rewriter that
/// answers forty for one does not multiply the runs), each checked for shape, and a note when the
/// reply held more; a reply without any is an error naming why. A wording in slots (`does`,
/// `use_for`, `instead`) becomes a description — "DOES. Use it for USE_FOR. For WHEN, use
/// NEIGHBOUR instead." — with no parameter changed; one given whole (`description`, `params`, as
/// a hosted rewriter may answer) is taken as it is.
pub fn wordings_from(
    reply: &Value,
    count: usize,
) -> Result<(Vec<Wording>, Option<String>), String> {
    let items = reply
        .get("wordings")
        .and_then(Value::as_array)
        .ok_or("the rewriter's reply has no \"wordings\" list")?;
    let note = (items.len() > count).then(|| {
        format!(
            "the rewriter answered {} wordings for the {count} asked: only the first {count} were taken",
            items.len()
        )
    });
    let mut wordings = Vec::new();
    for (k, item) in items.iter().take(count).enumerate() {
        let wording = if item.get("description").is_some() {
            serde_json::from_value::<Wording>(item.clone())
                .map_err(|e| format!("the rewriter's wording {}: {e}", k + 1))?
        } else {
            let slots: Slots = serde_json::from_value(item.clone())
                .map_err(|e| format!("the rewriter's wording {}: {e}", k + 1))?;
            slots.wording()
        };
        wordings.push(Wording {
            description: wording.description.trim().to_string(),
            params: wording
                .params
                .into_iter()
                .map(|(p, t)| (p, t.trim().to_string()))
                .collect(),
        });
    }
    if wordings.is_empty() {
        return Err("the rewriter's reply holds no wording".into());
    }
    Ok((wordings, note))
}

/// At most this many neighbours get an "instead" slot.
const NEIGHBOURS_ASKED: usize = 3;

/// A wording in the slots the ask names.
#[derive(serde::Deserialize)]
struct Slots {
    does: String,
    use_for: String,
    #[serde(default)]
    instead: BTreeMap<String, String>,
}

impl Slots {
    fn wording(&self) -> Wording {
        let mut parts = vec![sentence(&self.does)];
        let use_for = self.use_for.trim().trim_end_matches('.');
        if !use_for.is_empty() {
            parts.push(format!("Use it for {}.", lowercase_first(use_for)));
        }
        for (neighbour, when) in &self.instead {
            let when = when.trim().trim_end_matches('.');
            if !when.is_empty() {
                parts.push(format!(
                    "For {}, use {neighbour} instead.",
                    lowercase_first(when)
                ));
            }
        }
        Wording {
            description: parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
            params: BTreeMap::new(),
        }
    }
}

/// `text` with its first letter lower-cased, unless it opens an acronym or a name in capitals
/// ("US AQI", "PM2.5").
fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text.to_string(),
    }
}
