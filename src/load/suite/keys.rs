//! Every key of a suite file or task record that the format does not have, found before the file is
//! deserialised, so one typo does not hide the rest: each is named with its line and column, the
//! nearest allowed key, and the keys allowed there. The allowed keys are read off the format's own
//! structs (`accepted_keys`), so the two cannot drift.

use crate::load::Diagnostic;
use crate::load::diagnostic::closest_name;
use crate::load::source::SourceText;
use crate::spec::{ExpectedCallSpec, MessageSpec, SuiteFile, TaskSpec};
use serde::de::{Deserialize, Deserializer, Visitor};
use serde_json::Value;
use std::ops::Range;

/// What each table of a suite may hold, and where nested tables are.
#[derive(Clone, Copy)]
enum Table {
    Suite,
    Task,
    Message,
    ExpectedCall,
    TaskTool,
}

impl Table {
    fn keys(self) -> &'static [&'static str] {
        match self {
            Table::Suite => accepted_keys::<SuiteFile>(),
            Table::Task => accepted_keys::<TaskSpec>(),
            Table::Message => accepted_keys::<MessageSpec>(),
            Table::ExpectedCall => accepted_keys::<ExpectedCallSpec>(),
            Table::TaskTool => &["tool", "as"],
        }
    }

    fn what(self) -> &'static str {
        match self {
            Table::Suite => "the suite",
            Table::Task => "a task",
            Table::Message => "a message",
            Table::ExpectedCall => "an expected call",
            Table::TaskTool => "a `tools` entry",
        }
    }

    /// The tables inside this one, by the key that holds a list of them.
    fn nested(self, key: &str) -> Option<Table> {
        match (self, key) {
            (Table::Suite, "task") => Some(Table::Task),
            (Table::Task, "messages") => Some(Table::Message),
            (Table::Task, "expect" | "expect_any_of" | "expect_all_of") => {
                Some(Table::ExpectedCall)
            }
            (Table::Task, "tools") => Some(Table::TaskTool),
            _ => None,
        }
    }
}

/// The unknown keys of a suite file (TOML), each an error at its key.
pub fn unknown_suite_keys(source: &SourceText) -> Vec<Diagnostic> {
    let Ok(root) = toml::de::DeTable::parse(&source.text) else {
        // Not TOML: the parser's own error is reported where the file is read.
        return Vec::new();
    };
    let mut found = Vec::new();
    toml_table(root.get_ref(), Table::Suite, &mut found);
    found
        .into_iter()
        .map(|(key, span, table)| {
            source
                .error(Some(&span), unknown(&key, table))
                .help(help(&key, table))
        })
        .collect()
}

/// The unknown keys of one task record (a JSON line), each an error at its line and column.
pub fn unknown_record_keys(
    path: &std::path::Path,
    line: usize,
    record: usize,
    text: &str,
    value: &Value,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    json_table(value, Table::Task, &mut found);
    found
        .into_iter()
        .map(|(key, table)| {
            let column = text
                .find(&format!("\"{key}\""))
                .map_or(1, |at| text[..at].chars().count() + 1);
            let mut d = Diagnostic::error(path, unknown(&key, table))
                .at(line, column)
                .help(help(&key, table));
            d.record = Some(record);
            d
        })
        .collect()
}

fn toml_table(
    table: &toml::de::DeTable<'_>,
    kind: Table,
    found: &mut Vec<(String, Range<usize>, Table)>,
) {
    for (key, value) in table {
        let name = key.get_ref().to_string();
        if !kind.keys().contains(&name.as_str()) {
            found.push((name, key.span(), kind));
            continue;
        }
        let Some(nested) = kind.nested(&name) else {
            continue;
        };
        match value.get_ref() {
            toml::de::DeValue::Array(items) => {
                for item in items {
                    if let toml::de::DeValue::Table(inner) = item.get_ref() {
                        toml_table(inner, nested, found);
                    }
                }
            }
            toml::de::DeValue::Table(inner) => toml_table(inner, nested, found),
            _ => {}
        }
    }
}

fn json_table(value: &Value, kind: Table, found: &mut Vec<(String, Table)>) {
    let Some(object) = value.as_object() else {
        return;
    };
    for (key, value) in object {
        if !kind.keys().contains(&key.as_str()) {
            found.push((key.clone(), kind));
            continue;
        }
        if let Some(nested) = kind.nested(key) {
            for item in value.as_array().into_iter().flatten() {
                json_table(item, nested, found);
            }
        }
    }
}

fn unknown(key: &str, table: Table) -> String {
    format!("unknown key `{key}` in {}", table.what())
}

fn help(key: &str, table: Table) -> String {
    let allowed = table.keys();
    match closest_name(key, allowed.iter().copied()) {
        Some(near) => format!(
            "did you mean `{near}`? The keys allowed here: {}",
            allowed.join(", ")
        ),
        None => format!("the keys allowed here: {}", allowed.join(", ")),
    }
}

/// The keys a struct of the file format accepts, read off its `Deserialize` (serde hands a
/// deserializer the field names of the struct it builds).
fn accepted_keys<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Catch(Option<&'static [&'static str]>);
    impl<'de> Deserializer<'de> for &mut Catch {
        type Error = serde::de::value::Error;
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = Some(fields);
            Err(serde::de::Error::custom("fields caught"))
        }
        fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("not a struct"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut catch = Catch(None);
    let _ = T::deserialize(&mut catch);
    catch.0.unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowed_keys_are_the_structs_fields() {
        assert!(
            Table::Task.keys().contains(&"tags") && Table::Task.keys().contains(&"expect_no_call")
        );
        assert!(Table::Suite.keys().contains(&"task"));
        assert_eq!(Table::Message.keys(), ["role", "content"]);
    }

    #[test]
    fn every_unknown_key_is_named_with_its_place() {
        let source = SourceText::new(
            "suite.toml".into(),
            format!(
                "format = {}\nsuite = \"s\"\ntoolset = \"t\"\ncolour = 1\n[[task]]\nid = \"a\"\ntag = [\"x\"]\nprompt = \"p\"\nexpect = [{{ tool = \"x\", arg = {{}} }}]\n[[task]]\nid = \"b\"\nprompts = \"q\"\n",
                crate::spec::FORMAT_VERSION
            ),
        );
        let found = unknown_suite_keys(&source);
        let places: Vec<(Option<usize>, String)> =
            found.iter().map(|d| (d.line, d.message.clone())).collect();
        assert_eq!(
            places,
            [
                (Some(4), "unknown key `colour` in the suite".to_string()),
                (Some(7), "unknown key `tag` in a task".to_string()),
                (Some(9), "unknown key `arg` in an expected call".to_string()),
                (Some(12), "unknown key `prompts` in a task".to_string()),
            ]
        );
        assert!(
            found[1]
                .help
                .as_deref()
                .unwrap()
                .starts_with("did you mean `tags`?")
        );
    }
}
