//! What the rewriter model is asked, and what is taken from its reply. The ask shows one target
//! tool — its wording, its parameters' schemas, its confusable neighbours' descriptions, the lint's
//! findings on it, and the working requests it lost or wrongly took — under fixed instructions that
//! carry the source chapter's principles; the reply's JSON Schema asks for exactly K wordings with
//! a description for every parameter, so a grammar-held model writes them in shape. The requests
//! shown come from the `Target`, which is built from working trials only. Pure.

use super::targets::Target;
use super::wording::Wording;
use crate::backend::JsonAsk;
use crate::hashing::sha256_hex;
use crate::lint::Finding;
use crate::model::Toolset;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The instructions every ask starts with; their hash goes into IMPROVE.md.
pub const SYSTEM: &str = "You rewrite the description of one tool of an MCP server so that an AI \
assistant picks it for the requests it serves, and not for requests another tool serves. Follow \
these principles for tool descriptions:\n\
1. Start with what the tool does and what it returns.\n\
2. Say when to use it, and when not to: name the neighbouring tool to use instead.\n\
3. State its scope and limits (time range, units, what it does not cover).\n\
4. Describe every parameter: its meaning, its format or allowed values, and an example value.\n\
5. Be brief and plain: at most three sentences for the tool, one for each parameter.\n\
6. Describe; never promote. Do not write \"always\", \"best\", \"must\" or \"use this first\".\n\
Write about the tool in general: do not copy the example requests into the description.";

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
    let params: Vec<&String> = tool.parameters().map(|(name, _)| name).collect();
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
    if params.is_empty() {
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
    user.push_str(&format!(
        "\nWrite {count} different new wording(s) of {}: each a description of the tool and a description of every parameter.",
        tool.name
    ));
    let param_properties: serde_json::Map<String, Value> = params
        .iter()
        .map(|p| ((*p).clone(), json!({"type": "string"})))
        .collect();
    let item = json!({
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "params": {
                "type": "object",
                "properties": param_properties,
                "required": params,
                "additionalProperties": false
            }
        },
        "required": ["description", "params"],
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
        max_tokens: (count * (120 + 50 * params.len())) as u32,
    })
}

/// The first `count` wordings in a reply (exactly as many as were asked for: a rewriter that
/// answers forty for one does not multiply the runs), each checked for shape, and a note when the
/// reply held more; a reply without any is an error naming why.
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
        let wording: Wording = serde_json::from_value(item.clone())
            .map_err(|e| format!("the rewriter's wording {}: {e}", k + 1))?;
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
