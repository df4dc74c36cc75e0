//! The tool set one server serves at one moment: the compiled registry, each tool's `tools/list`
//! JSON serialised once (listing is string concatenation, not re-serialisation), a generation number
//! that changes on every reload, and opaque cursors for paged listing that a reload invalidates.

use crate::model::Tool;
use crate::registry::{RegistryError, ToolRegistry};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;

pub struct ServedTools {
    pub registry: ToolRegistry,
    /// `serde_json` text of each tool, in registry order.
    tool_json: Vec<String>,
    /// The whole single-page `tools/list` result, built once.
    full_list: String,
    pub generation: u64,
    /// The conformance fixture tools among them (their calls run a fixture, not a behaviour).
    fixture_names: HashSet<String>,
}

impl ServedTools {
    pub fn new(tools: Vec<Tool>) -> Result<ServedTools, RegistryError> {
        let registry = ToolRegistry::build(tools)?;
        let tool_json: Vec<String> = registry
            .tools()
            .iter()
            .map(|t| serde_json::to_string(&t.tool).unwrap_or_default())
            .collect();
        let full_list = list_result(&tool_json, None);
        Ok(ServedTools {
            registry,
            tool_json,
            full_list,
            generation: 0,
            fixture_names: HashSet::new(),
        })
    }

    /// Adds the conformance suite's fixture tools (`mcp::fixtures::tools()`).
    pub fn with_fixtures(
        tools: Vec<Tool>,
        fixtures: Vec<Tool>,
    ) -> Result<ServedTools, RegistryError> {
        let fixture_names = fixtures.iter().map(|t| t.name.clone()).collect();
        let mut all = tools;
        all.extend(fixtures);
        let mut served = ServedTools::new(all)?;
        served.fixture_names = fixture_names;
        Ok(served)
    }

    /// Whether `name` is a conformance fixture served by `with_fixtures`.
    pub fn is_fixture(&self, name: &str) -> bool {
        self.fixture_names.contains(name)
    }

    pub fn with_generation(mut self, generation: u64) -> ServedTools {
        self.generation = generation;
        self
    }

    /// The raw JSON `result` of a `tools/list` request, or why the cursor is refused.
    pub fn list_page(
        &self,
        cursor: Option<&Value>,
        page_size: Option<usize>,
    ) -> Result<Cow<'_, str>, String> {
        let start = match cursor {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => self.decode_cursor(cursor)?,
            Some(_) => return Err("Invalid params: cursor must be a string".to_string()),
        };
        let Some(size) = page_size.filter(|&s| s > 0) else {
            return if start == 0 {
                Ok(Cow::Borrowed(&self.full_list))
            } else {
                Err(stale())
            };
        };
        let end = (start + size).min(self.tool_json.len());
        let next = (end < self.tool_json.len()).then(|| self.encode_cursor(end));
        Ok(Cow::Owned(list_result(
            &self.tool_json[start..end],
            next.as_deref(),
        )))
    }

    fn encode_cursor(&self, offset: usize) -> String {
        format!("{:016x}{:08x}", self.generation, offset)
    }

    fn decode_cursor(&self, cursor: &str) -> Result<usize, String> {
        let invalid = || {
            format!(
                "Invalid params: cursor {cursor:?} was not issued by this server; list again without a cursor"
            )
        };
        if cursor.len() != 24 || !cursor.is_ascii() {
            return Err(invalid());
        }
        let generation = u64::from_str_radix(&cursor[..16], 16).map_err(|_| invalid())?;
        let offset = usize::from_str_radix(&cursor[16..], 16).map_err(|_| invalid())?;
        if generation != self.generation {
            return Err(stale());
        }
        if offset == 0 || offset >= self.tool_json.len() {
            return Err(invalid());
        }
        Ok(offset)
    }
}

fn stale() -> String {
    "Invalid params: the tool list changed since this cursor was issued; list again without a cursor".to_string()
}

fn list_result(tool_json: &[String], next_cursor: Option<&str>) -> String {
    let mut out = String::with_capacity(
        tool_json.iter().map(String::len).sum::<usize>() + tool_json.len() + 48,
    );
    out.push_str("{\"tools\":[");
    for (i, tool) in tool_json.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(tool);
    }
    out.push(']');
    if let Some(cursor) = next_cursor {
        out.push_str(",\"nextCursor\":\"");
        out.push_str(cursor);
        out.push('"');
    }
    out.push('}');
    out
}
