//! A tool's wording — its description and parameter descriptions, what a variant overlay's
//! `[describe.TOOL]` holds — and where the commands that reword a toolset start from: the suite and
//! its toolset under the starting wording (`start`), and the variant files built on it (`overlay`:
//! the starting variant's own file, or an empty overlay, with new wordings set). `apply` puts
//! wordings on a toolset in memory, so the lint and the checks read exactly what the model will be
//! served. `improve` writes its candidates this way, and `explain` its leave-one-out wordings.

mod overlay;
mod start;

pub use overlay::Overlay;
pub use start::{Start, load_start};

use crate::model::{Tool, Toolset};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// New text for one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wording {
    pub description: String,
    /// Parameter name → its new description (parameters left out keep theirs).
    #[serde(default)]
    pub params: BTreeMap<String, String>,
}

impl Wording {
    /// A bounded copy, for keeping and showing a wording that was turned away: each text cut
    /// (with its length said) and hidden characters escaped, at most 64 parameters.
    pub fn excerpt(&self) -> Wording {
        use crate::untrusted_text::shown;
        Wording {
            description: shown(&self.description, 700),
            params: self
                .params
                .iter()
                .take(64)
                .map(|(name, text)| (shown(name, 80), shown(text, 300)))
                .collect(),
        }
    }
}

/// The wording a tool has now.
pub fn wording_of(tool: &Tool) -> Wording {
    Wording {
        description: tool.description.clone().unwrap_or_default(),
        params: tool
            .parameters()
            .map(|(name, schema)| {
                (
                    name.clone(),
                    schema
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                )
            })
            .collect(),
    }
}

/// `toolset` with each tool named in `wordings` reworded (parameters it does not have are ignored:
/// the checks report them).
pub fn apply(toolset: &Toolset, wordings: &BTreeMap<String, Wording>) -> Toolset {
    let mut reworded = toolset.clone();
    for tool in &mut reworded.tools {
        let Some(wording) = wordings.get(&tool.name) else {
            continue;
        };
        tool.description = Some(wording.description.clone());
        for (param, text) in &wording.params {
            if let Some(property) = tool
                .input_schema
                .get_mut("properties")
                .and_then(|p| p.get_mut(param))
                .and_then(Value::as_object_mut)
            {
                property.insert("description".into(), Value::String(text.clone()));
            }
        }
    }
    reworded
}
