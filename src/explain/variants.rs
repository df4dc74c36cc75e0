//! The leave-one-out wordings `explain` runs: for each unit, the starting wording with only that
//! unit taken away — a sentence removed from the tool's description, or a parameter's description
//! emptied — written through the starting point's overlay (`wording::Overlay`: the starting
//! variant's own file, or an empty overlay on the toolset), so each is a variant file `ab` and
//! `serve` take as they are. `improve` builds them on its current wording the same way. Each is named `<stem>-without-<n>`, n counting the units from 1 in
//! the order given, so a name is short, valid and stable for a resumed run.

use super::units::{Unit, UnitKind, description_without};
use crate::model::Toolset;
use crate::wording::{Overlay, Wording};
use std::collections::BTreeMap;

/// One unit, the name of the variant that lacks it, and that variant's file text.
#[derive(Debug, Clone)]
pub struct LeaveOneOut {
    pub unit: Unit,
    pub name: String,
    pub text: String,
}

/// A variant per unit of `units`, built on `overlay` with `wordings` (the tools already reworded,
/// by served name; none for the starting wording itself) over `toolset`, which reads as they make
/// it; units of tools `toolset` lacks are skipped.
pub fn leave_one_out(
    overlay: &Overlay,
    wordings: &BTreeMap<String, Wording>,
    toolset: &Toolset,
    stem: &str,
    units: &[Unit],
) -> Result<Vec<LeaveOneOut>, String> {
    let mut variants = Vec::new();
    for (k, unit) in units.iter().enumerate() {
        let Some(tool) = toolset.tool(&unit.tool) else {
            continue;
        };
        // Only the unit's own text changes: parameters left out of a wording keep theirs (one
        // without a description must not gain an empty one).
        let mut wording = wordings
            .get(&unit.tool)
            .cloned()
            .unwrap_or_else(|| Wording {
                description: String::new(),
                params: BTreeMap::new(),
            });
        wording.description = tool.description.clone().unwrap_or_default();
        match (&unit.kind, &unit.param) {
            (UnitKind::Sentence, _) => {
                wording.description = description_without(&wording.description, unit.index);
            }
            (UnitKind::Parameter, Some(param)) => {
                wording.params.insert(param.clone(), String::new());
            }
            (UnitKind::Parameter, None) => continue,
        }
        let name = format!("{stem}-without-{}", k + 1);
        let note = format!(
            "{stem} without one unit of {}: {:?} (written by mcpick explain)",
            unit.tool, unit.text
        );
        let mut reworded = wordings.clone();
        reworded.insert(unit.tool.clone(), wording);
        let text = overlay.render(&name, &note, &reworded)?;
        variants.push(LeaveOneOut {
            unit: unit.clone(),
            name,
            text,
        });
    }
    Ok(variants)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::units::units;
    use crate::load::Workspace;
    use std::path::PathBuf;

    #[test]
    fn each_variant_lacks_its_unit_and_nothing_else() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let base = Workspace::load(&[root.join("toolsets/travel.toml")]);
        let toolset = base.toolset("travel").unwrap();
        let tool = toolset.tool("get_weather").unwrap();
        let measured = units(tool);
        let overlay = Overlay::new(None, "travel").unwrap();
        let variants =
            leave_one_out(&overlay, &BTreeMap::new(), toolset, "travel", &measured).unwrap();
        assert_eq!(variants.len(), measured.len());
        let dir = tempfile::tempdir().unwrap();
        for variant in &variants {
            std::fs::write(
                dir.path().join(format!("{}.toml", variant.name)),
                &variant.text,
            )
            .unwrap();
        }
        let loaded =
            Workspace::load(&[root.join("toolsets/travel.toml"), dir.path().to_path_buf()]);
        assert!(!loaded.has_errors(), "{:?}", loaded.files);
        for variant in &variants {
            let worded = loaded
                .worded("travel", Some(&variant.name))
                .unwrap()
                .toolset();
            let changed = worded.tool("get_weather").unwrap();
            match variant.unit.kind {
                UnitKind::Sentence => {
                    let description = changed.description.as_deref().unwrap();
                    assert!(!description.contains(&variant.unit.text), "{description}");
                    // Exactly the sentence is gone: the line break between the others stays.
                    let original = tool.description.as_deref().unwrap();
                    assert_eq!(
                        description,
                        crate::explain::description_without(original, variant.unit.index)
                    );
                    assert_eq!(
                        description.len() + variant.unit.text.len() + 1,
                        original.len()
                    );
                    // The other sentences are all still there.
                    for other in measured
                        .iter()
                        .filter(|u| u.kind == UnitKind::Sentence && u.index != variant.unit.index)
                    {
                        assert!(description.contains(&other.text), "{description}");
                    }
                }
                UnitKind::Parameter => {
                    let param = variant.unit.param.as_deref().unwrap();
                    assert_eq!(changed.input_schema["properties"][param]["description"], "");
                }
            }
            // Every other tool reads as it did, and so do the other parameters.
            for (a, b) in worded.tools.iter().zip(&toolset.tools) {
                if a.name != "get_weather" {
                    assert_eq!(a.description, b.description);
                }
            }
            for (param, schema) in tool.parameters() {
                if variant.unit.param.as_deref() != Some(param.as_str()) {
                    assert_eq!(
                        changed.input_schema["properties"][param]["description"],
                        schema["description"]
                    );
                }
            }
        }
    }
}
