//! `bm25`: a lexical retrieval baseline. The user's request is matched against each listed tool's
//! name, description and parameter descriptions with BM25; the best tool is called if its score clears
//! a threshold (otherwise the baseline abstains), with the arguments it can find verbatim in the
//! request: enum values it mentions, numbers, ISO dates, e-mail addresses, quoted text, and capitalised
//! names for other required strings. The floor any language model must beat on selection.

use super::{Reply, ToolCallRequest, Turn, last_user_text, tool_results};
use crate::observation::CallArguments;
use crate::ranking::{Bm25Index, listed_tool_document, terms};
use regex::Regex;
use serde_json::{Map, Value, json};
use std::sync::LazyLock;

#[derive(Debug, Clone)]
pub struct Bm25Backend {
    /// A best score below this means "no tool fits": the baseline calls nothing.
    pub threshold: f64,
}

impl Default for Bm25Backend {
    fn default() -> Self {
        Bm25Backend { threshold: 2.0 }
    }
}

impl Bm25Backend {
    pub fn complete(&self, turn: Turn<'_>) -> Reply {
        if tool_results(turn.messages) > 0 {
            return Reply {
                text: Some("Done.".into()),
                ..Reply::default()
            };
        }
        let request = last_user_text(turn.messages);
        let documents: Vec<Vec<String>> = turn
            .tools
            .iter()
            .map(|t| terms(&listed_tool_document(t)))
            .collect();
        let scores = Bm25Index::new(&documents).scores(&terms(request));
        let best = scores.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1));
        let Some((index, &score)) = best.filter(|(_, s)| **s >= self.threshold) else {
            return Reply {
                text: Some("None of the tools fits this request.".into()),
                ..Reply::default()
            };
        };
        let tool = &turn.tools[index];
        let arguments = fill_arguments(request, &tool["inputSchema"]);
        let name = tool["name"].as_str().unwrap_or_default().to_string();
        tracing::debug!("bm25 picked {name} with score {score:.2}");
        Reply {
            calls: vec![ToolCallRequest {
                id: "call_1".into(),
                tool: name,
                arguments: CallArguments::Parsed(arguments),
            }],
            ..Reply::default()
        }
    }
}

static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^\w.-])(-?\d+(?:\.\d+)?)(?:$|[^\w-])")
        .unwrap_or_else(|e| unreachable!("{e}"))
});
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d{4}-\d{2}-\d{2}\b").unwrap_or_else(|e| unreachable!("{e}")));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+").unwrap_or_else(|e| unreachable!("{e}"))
});
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""([^"]+)"|'([^']+)'|“([^”]+)”"#).unwrap_or_else(|e| unreachable!("{e}"))
});
static CAPITALISED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)").unwrap_or_else(|e| unreachable!("{e}"))
});

/// The arguments that can be read off the request verbatim.
pub(super) fn fill_arguments(request: &str, schema: &Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let lower = request.to_lowercase();
    let Some(properties) = schema["properties"].as_object() else {
        return arguments;
    };
    for (name, property) in properties {
        let is_required = required.contains(&name.as_str());
        let value = if let Some(options) = property["enum"].as_array() {
            options
                .iter()
                .find(|o| {
                    o.as_str()
                        .is_some_and(|s| lower.contains(&s.to_lowercase()))
                })
                .cloned()
        } else {
            match (property["type"].as_str(), property["format"].as_str()) {
                (Some("integer"), _) if is_required => NUMBER
                    .captures(request)
                    .and_then(|c| c[1].parse::<i64>().ok())
                    .map(|n| json!(n)),
                (Some("number"), _) if is_required => NUMBER
                    .captures(request)
                    .and_then(|c| c[1].parse::<f64>().ok())
                    .map(|n| json!(n)),
                (Some("string"), Some("date")) => DATE.find(request).map(|m| json!(m.as_str())),
                (Some("string"), Some("email")) => EMAIL.find(request).map(|m| json!(m.as_str())),
                (Some("string"), _) if is_required => {
                    quoted_or_capitalised(request).map(|s| json!(s))
                }
                _ => None,
            }
        };
        if let Some(value) = value {
            arguments.insert(name.clone(), value);
        }
    }
    arguments
}

fn quoted_or_capitalised(request: &str) -> Option<String> {
    if let Some(quoted) = QUOTED.captures(request) {
        return quoted
            .iter()
            .skip(1)
            .flatten()
            .next()
            .map(|m| m.as_str().to_string());
    }
    // Skip the sentence's first word, which is capitalised for grammar, not because it is a name.
    let rest = request
        .split_once(char::is_whitespace)
        .map_or("", |(_, rest)| rest);
    CAPITALISED.captures(rest).map(|c| c[1].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{ChatMessage, TrialLabel};

    #[test]
    fn picks_the_best_matching_tool_and_reads_arguments_off_the_request() {
        let tools = vec![
            json!({"name": "get_weather_forecast", "description": "Forecast for the next days in a city", "inputSchema": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string", "description": "City name"}, "days": {"type": "integer", "description": "How many days"}, "units": {"type": "string", "enum": ["metric", "imperial"]}}}}),
            json!({"name": "send_email", "description": "Send an email to a recipient", "inputSchema": {"type": "object", "properties": {"to": {"type": "string", "format": "email"}}}}),
        ];
        let messages = vec![ChatMessage::User {
            content: "What's the forecast in Lyon for the next days, in imperial please?".into(),
        }];
        let reply = Bm25Backend::default().complete(Turn {
            messages: &messages,
            tools: &tools,
            trial: TrialLabel {
                suite: "test",
                variant: None,
                task: "weather",
            },
            seed: 0,
            repeat: 0,
            deferred_tools: false,
        });
        assert_eq!(reply.calls.len(), 1, "{reply:?}");
        assert_eq!(reply.calls[0].tool, "get_weather_forecast");
        let CallArguments::Parsed(arguments) = &reply.calls[0].arguments else {
            panic!()
        };
        assert_eq!(arguments["city"], "Lyon");
        assert_eq!(arguments["units"], "imperial");

        let messages = vec![ChatMessage::User {
            content: "Thanks, bye!".into(),
        }];
        let reply = Bm25Backend::default().complete(Turn {
            messages: &messages,
            tools: &tools,
            trial: TrialLabel {
                suite: "test",
                variant: None,
                task: "weather",
            },
            seed: 0,
            repeat: 0,
            deferred_tools: false,
        });
        assert!(
            reply.calls.is_empty(),
            "abstains when nothing matches: {reply:?}"
        );
    }
}
