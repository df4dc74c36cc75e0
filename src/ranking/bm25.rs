//! Okapi BM25 (k1 = 1.2, b = 0.75) over the one document a tool is found by — its name as words,
//! title, description, and each parameter's name and description — built the same from a toolset's
//! `Tool` and from a tool as `tools/list` gives it. `Bm25Ranker` is the ranker `retrieve:bm25:K`,
//! `search-tool` and `--distractors similar` use; the `bm25` baseline backend ranks with the same
//! index and document.

use super::ToolRanker;
use super::terms::terms;
use crate::model::Tool;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// A BM25 index over documents (Okapi BM25, k1 = 1.2, b = 0.75).
pub struct Bm25Index {
    documents: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    average_length: f64,
    document_frequency: HashMap<String, usize>,
}

impl Bm25Index {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;

    /// Indexes documents given as terms (see `terms`).
    pub fn new(documents: &[Vec<String>]) -> Bm25Index {
        let mut document_frequency: HashMap<String, usize> = HashMap::new();
        let mut counted = Vec::with_capacity(documents.len());
        for doc in documents {
            let mut frequencies: HashMap<String, f64> = HashMap::new();
            for term in doc {
                *frequencies.entry(term.clone()).or_default() += 1.0;
            }
            for term in frequencies.keys() {
                *document_frequency.entry(term.clone()).or_default() += 1;
            }
            counted.push(frequencies);
        }
        let lengths: Vec<f64> = documents.iter().map(|d| d.len() as f64).collect();
        let average_length = if lengths.is_empty() {
            0.0
        } else {
            lengths.iter().sum::<f64>() / lengths.len() as f64
        };
        Bm25Index {
            documents: counted,
            lengths,
            average_length,
            document_frequency,
        }
    }

    /// The BM25 score of every document for a query (given as terms), in document order.
    pub fn scores(&self, query: &[String]) -> Vec<f64> {
        let n = self.documents.len() as f64;
        let unique: BTreeSet<&String> = query.iter().collect();
        self.documents
            .iter()
            .zip(&self.lengths)
            .map(|(frequencies, length)| {
                unique
                    .iter()
                    .filter_map(|term| {
                        let tf = *frequencies.get(*term)?;
                        let df = *self.document_frequency.get(*term)? as f64;
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        let norm = Self::K1
                            * (1.0 - Self::B + Self::B * length / self.average_length.max(1.0));
                        Some(idf * tf * (Self::K1 + 1.0) / (tf + norm))
                    })
                    .sum::<f64>()
                    // An empty float sum is -0.0; scores compare and print as plain zero.
                    + 0.0
            })
            .collect()
    }
}

/// Okapi BM25 over each tool's document.
#[derive(Debug, Default, Clone, Copy)]
pub struct Bm25Ranker;

impl ToolRanker for Bm25Ranker {
    fn scores(&self, request: &str, tools: &[Tool]) -> Result<Vec<f64>, String> {
        let documents: Vec<Vec<String>> = tools.iter().map(|t| terms(&tool_document(t))).collect();
        Ok(Bm25Index::new(&documents).scores(&terms(request)))
    }
}

/// The text a toolset's tool is found by.
pub fn tool_document(tool: &Tool) -> String {
    document(
        &tool.name,
        [tool.title.as_deref(), tool.description.as_deref()],
        tool.parameters(),
    )
}

/// The text a tool as `tools/list` gives it is found by: the same as its `Tool`'s.
pub fn listed_tool_document(tool: &Value) -> String {
    let parameters = tool["inputSchema"]["properties"]
        .as_object()
        .into_iter()
        .flatten();
    document(
        tool["name"].as_str().unwrap_or_default(),
        [tool["title"].as_str(), tool["description"].as_str()],
        parameters,
    )
}

/// The one document: the name as words, the title and description, then each parameter's name as
/// words and its description.
fn document<'a>(
    name: &str,
    texts: [Option<&str>; 2],
    parameters: impl Iterator<Item = (&'a String, &'a Value)>,
) -> String {
    let mut text = name.replace(['_', '-', '.'], " ");
    for part in texts.into_iter().flatten() {
        text.push(' ');
        text.push_str(part);
    }
    for (name, property) in parameters {
        text.push(' ');
        text.push_str(&name.replace('_', " "));
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            text.push(' ');
            text.push_str(description);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::top_k;
    use serde_json::json;

    fn tool(name: &str, description: &str) -> Tool {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}),
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            extra: serde_json::Map::new(),
            behavior: Default::default(),
            line: None,
        }
    }

    #[test]
    fn bm25_ranks_the_tool_that_shares_the_request_words() {
        let tools = [
            tool("send_email", "Send an email to a recipient"),
            tool("get_weather_forecast", "Forecast for the next days"),
            tool("get_current_weather", "Current conditions now"),
        ];
        let scores = Bm25Ranker
            .scores("What is the forecast for the next days in Lyon?", &tools)
            .unwrap();
        assert_eq!(top_k(&scores, 1, true), vec![1], "{scores:?}");
        let none = Bm25Ranker.scores("zzz qqq", &tools).unwrap();
        assert!(top_k(&none, 3, true).is_empty());
    }

    #[test]
    fn a_tool_and_its_listing_make_the_same_document() {
        let mut weather = tool("get_weather_forecast", "Forecast for the next days");
        weather.title = Some("Weather forecast".into());
        let listed = serde_json::to_value(&weather).unwrap();
        assert_eq!(tool_document(&weather), listed_tool_document(&listed));
        assert_eq!(
            tool_document(&weather),
            "get weather forecast Weather forecast Forecast for the next days city City name"
        );
    }

    #[test]
    fn bm25_ranks_the_document_that_shares_rare_terms() {
        let docs: Vec<Vec<String>> = [
            "get weather current conditions city",
            "get weather forecast next days city",
            "send email recipient subject",
        ]
        .iter()
        .map(|t| terms(t))
        .collect();
        let index = Bm25Index::new(&docs);
        let scores = index.scores(&terms("weather forecast for the next days in Paris"));
        assert!(scores[1] > scores[0] && scores[0] > scores[2], "{scores:?}");
        assert!(
            index
                .scores(&terms("unrelated words only"))
                .iter()
                .all(|s| *s == 0.0)
        );
    }
}
