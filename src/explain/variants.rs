//! The leave-one-out wordings `explain` runs: for each unit, a variant of the toolset as it is with
//! only that unit taken away — a sentence removed from the tool's description, or a parameter's
//! description emptied — built as `spec::VariantFile`s (written by `spec::toml_text`, read back by
//! the loader like any variant). Each is named `<toolset>-without-<n>`, n counting the units from 1
//! in the order given, so a name is short, valid and stable for a resumed run. Starting from a
//! variant of the toolset (`--variant`) is not handled here yet.

use super::units::{Unit, UnitKind, description_without};
use crate::model::Toolset;
use crate::spec::{DescribeSpec, Located, VariantFile};

/// One unit and the variant that lacks it.
#[derive(Debug, Clone)]
pub struct LeaveOneOut {
    pub unit: Unit,
    pub name: String,
    pub file: VariantFile,
}

/// A variant per unit of `units` (units of tools `toolset` lacks are skipped).
pub fn leave_one_out(toolset: &Toolset, units: &[Unit]) -> Vec<LeaveOneOut> {
    units
        .iter()
        .enumerate()
        .filter_map(|(k, unit)| {
            let tool = toolset.tool(&unit.tool)?;
            let name = format!("{}-without-{}", toolset.name, k + 1);
            let mut file = VariantFile::new(&name, &toolset.name);
            file.description = Some(format!(
                "{} without one unit of {}: {:?}",
                toolset.name, unit.tool, unit.text
            ));
            let mut describe = DescribeSpec::default();
            match (&unit.kind, &unit.param) {
                (UnitKind::Sentence, _) => {
                    describe.description = Some(description_without(
                        tool.description.as_deref().unwrap_or(""),
                        unit.index,
                    ));
                }
                (UnitKind::Parameter, Some(param)) => {
                    describe
                        .params
                        .insert(Located::new(param.clone()), String::new());
                }
                (UnitKind::Parameter, None) => return None,
            }
            file.describe
                .insert(Located::new(unit.tool.clone()), describe);
            Some(LeaveOneOut {
                unit: unit.clone(),
                name,
                file,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::units::units;
    use crate::load::Workspace;
    use crate::spec::toml_text;
    use std::path::PathBuf;

    #[test]
    fn each_variant_lacks_its_unit_and_nothing_else() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let base = Workspace::load(&[root.join("toolsets/travel.toml")]);
        let toolset = base.toolset("travel").unwrap();
        let tool = toolset.tool("get_weather").unwrap();
        let measured = units(tool);
        let variants = leave_one_out(toolset, &measured);
        assert_eq!(variants.len(), measured.len());
        let dir = tempfile::tempdir().unwrap();
        for variant in &variants {
            std::fs::write(
                dir.path().join(format!("{}.toml", variant.name)),
                toml_text(&variant.file).unwrap(),
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
            // Every other tool reads as it did.
            for (a, b) in worded.tools.iter().zip(&toolset.tools) {
                if a.name != "get_weather" {
                    assert_eq!(a.description, b.description);
                }
            }
        }
    }
}
