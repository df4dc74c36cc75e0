//! What `mcpick draft` asks the drafter for: per tool, N requests that need that tool and no other
//! (each in its own style — length, register, language); per confusable pair, a request that needs
//! one and not the other, both ways round; and requests no tool serves. Each ask is a system and a
//! user message and the JSON Schema its reply must follow (the expected call's `arguments` are the
//! tool's own `inputSchema`, so a grammar-held model writes them in shape). The prompt templates are
//! fixed text: their hash goes into the suite, so a suite says which prompts made it. Pure.

use crate::hashing::sha256_hex;
use crate::lint::similar_description_pairs;
use crate::model::{Tool, Toolset};
use serde_json::{Value, json};

/// How many requests of each kind to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AskCounts {
    pub per_tool: usize,
    pub pairs: bool,
    pub no_call: usize,
}

/// Who a drafted request is meant for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// This tool and no other.
    Tool(String),
    /// `tool`, where `not` (its confusable neighbour) would be wrong.
    Pair { tool: String, not: String },
    /// No tool: the assistant answers in text.
    NoCall,
}

impl Intent {
    /// The tool the request needs, if any.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Intent::Tool(tool) | Intent::Pair { tool, .. } => Some(tool),
            Intent::NoCall => None,
        }
    }
}

/// How a request should read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub label: &'static str,
    pub instruction: &'static str,
    /// The language asked for (a task's `lang`).
    pub lang: &'static str,
}

/// Styles, taken in turn (each tool starts at a different one, so every style and language is
/// spread over the toolset).
pub const STYLES: &[Style] = &[
    Style {
        label: "casual",
        instruction: "short and casual, like a quick chat message",
        lang: "en",
    },
    Style {
        label: "context",
        instruction: "a complete, polite sentence that says a little about why the user needs it",
        lang: "en",
    },
    Style {
        label: "terse",
        instruction: "terse: a few words, like a search query",
        lang: "en",
    },
    Style {
        label: "spanish",
        instruction: "written in Spanish",
        lang: "es",
    },
    Style {
        label: "long",
        instruction: "two or three sentences that mention the need among other details",
        lang: "en",
    },
    Style {
        label: "french",
        instruction: "written in French",
        lang: "fr",
    },
    Style {
        label: "question",
        instruction: "one direct question",
        lang: "en",
    },
    Style {
        label: "german",
        instruction: "written in German",
        lang: "de",
    },
];

/// One request to the drafter.
#[derive(Debug, Clone)]
pub struct Ask {
    /// Stable across runs of the same settings: `tool:NAME`, `pair:A:B`, `none:K`.
    pub id: String,
    pub intent: Intent,
    pub styles: Vec<Style>,
    pub system: String,
    pub user: String,
    /// The reply's shape: `{"requests": [...]}` with exactly `styles.len()` items, each naming its
    /// style first.
    pub schema: Value,
    /// Enough output tokens for the items asked for.
    pub max_tokens: u32,
}

/// No-call requests are asked for in asks of at most this many: a small model keeps a short list
/// apart.
pub const NO_CALL_PER_ASK: usize = 5;

const SYSTEM: &str = "You write test data for an AI assistant that uses tools. You write what real users type to the assistant, and for each message the exact tool call that serves it. Users do not know which tools exist: they never name a tool or a parameter. Reply with JSON only.";

const TOOL_TEMPLATE: &str = "The assistant has these tools:\n{catalogue}\n\nThe tool to write for:\nname: {name}\ndescription: {description}\nparameters (JSON Schema): {schema}\n\nWrite {count} different messages a user might send that need exactly this tool and no other tool above. Each message gives concrete values (names, places, amounts, dates as YYYY-MM-DD) in its own words. Never write the tool's name ({name}) or a parameter name in a message. For each, \"arguments\" is the call that serves it, holding only values the message states or clearly implies.\n\nAn example for another tool, find_recipes(ingredients, max_minutes):\n{\"requests\": [{\"request\": \"I've got leftover rice and two eggs, what can I cook in under 20 minutes?\", \"arguments\": {\"ingredients\": [\"rice\", \"eggs\"], \"max_minutes\": 20}}]}\n\nStyles, one per message in this order:\n{styles}";

const PAIR_TEMPLATE: &str = "The assistant has two tools that are easily confused.\n\nTool A: {name}\ndescription: {description}\nparameters (JSON Schema): {schema}\n\nTool B: {other}\ndescription: {other_description}\n\nWrite 1 message a user might send that needs tool A, where tool B would be the wrong choice. It gives concrete values in its own words. Never write a tool's name or a parameter name in the message. \"arguments\" is tool A's call that serves it, holding only values the message states or clearly implies.\nStyle: {styles}";

const NO_CALL_TEMPLATE: &str = "The assistant has these tools:\n{catalogue}\n\nWrite {count} different messages a user might send to this assistant that none of these tools can serve, so the assistant answers in words without calling a tool: about half are requests close to the assistant's subject that no tool above does, the rest plain conversation (a greeting, thanks, a general question answered from knowledge). Never write a tool's name in a message.\n\nAn example: {\"requests\": [{\"request\": \"thanks, that's all I needed today!\"}]}\n\nStyles, one per message in this order:\n{styles}";

/// The SHA-256 of the prompt templates and styles: a drafted suite names the prompts that made it.
pub fn template_hash() -> String {
    let styles: Vec<String> = STYLES
        .iter()
        .map(|s| format!("{}|{}|{}", s.label, s.instruction, s.lang))
        .collect();
    sha256_hex(
        [
            SYSTEM,
            TOOL_TEMPLATE,
            PAIR_TEMPLATE,
            NO_CALL_TEMPLATE,
            &styles.join("\n"),
        ]
        .join("\n\u{1e}\n")
        .as_bytes(),
    )
}

/// Every ask for a toolset, in a fixed order: tools in toolset order, then pairs, then no-call.
pub fn asks(toolset: &Toolset, counts: AskCounts) -> Vec<Ask> {
    let catalogue = catalogue(toolset);
    let mut asks = Vec::new();
    if counts.per_tool > 0 {
        for (position, tool) in toolset.tools.iter().enumerate() {
            let styles = styles_from(position, counts.per_tool);
            let user = fill(
                TOOL_TEMPLATE,
                &[
                    ("{catalogue}", &catalogue),
                    ("{name}", &tool.name),
                    ("{description}", description(tool)),
                    ("{schema}", &tool.input_schema.to_string()),
                    ("{count}", &styles.len().to_string()),
                    ("{styles}", &numbered(&styles)),
                ],
            );
            asks.push(call_ask(
                format!("tool:{}", tool.name),
                Intent::Tool(tool.name.clone()),
                tool,
                user,
                styles,
            ));
        }
    }
    if counts.pairs {
        for (k, (a, b)) in confusable_pairs(toolset).into_iter().enumerate() {
            for (one, other) in [(a, b), (b, a)] {
                let (tool, neighbour) = (&toolset.tools[one], &toolset.tools[other]);
                let styles = styles_from(k + one, 1);
                let user = fill(
                    PAIR_TEMPLATE,
                    &[
                        ("{name}", &tool.name),
                        ("{description}", description(tool)),
                        ("{schema}", &tool.input_schema.to_string()),
                        ("{other}", &neighbour.name),
                        ("{other_description}", description(neighbour)),
                        ("{styles}", styles[0].instruction),
                    ],
                );
                asks.push(call_ask(
                    format!("pair:{}:{}", tool.name, neighbour.name),
                    Intent::Pair {
                        tool: tool.name.clone(),
                        not: neighbour.name.clone(),
                    },
                    tool,
                    user,
                    styles,
                ));
            }
        }
    }
    let mut remaining = counts.no_call;
    let mut part = 0;
    while remaining > 0 {
        let styles = styles_from(part * NO_CALL_PER_ASK, remaining.min(NO_CALL_PER_ASK));
        remaining -= styles.len();
        let user = fill(
            NO_CALL_TEMPLATE,
            &[
                ("{catalogue}", &catalogue),
                ("{count}", &styles.len().to_string()),
                ("{styles}", &numbered(&styles)),
            ],
        );
        let item = json!({
            "type": "object",
            "properties": {"request": {"type": "string", "minLength": 2}},
            "required": ["request"],
            "additionalProperties": false
        });
        asks.push(Ask {
            id: format!("none:{part}"),
            intent: Intent::NoCall,
            schema: reply_schema(&item, &styles),
            max_tokens: 80 * styles.len() as u32 + 40,
            styles,
            system: SYSTEM.to_string(),
            user,
        });
        part += 1;
    }
    asks
}

/// Confusable pairs, by tool position: the lint's similar descriptions, then name neighbours (two
/// names sharing a word of four letters or more that is not a common verb of tool names), each
/// pair once, at most one per tool in the toolset.
pub fn confusable_pairs(toolset: &Toolset) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = similar_description_pairs(toolset)
        .into_iter()
        .map(|(i, j, _)| (i.min(j), i.max(j)))
        .collect();
    let words: Vec<Vec<String>> = toolset
        .tools
        .iter()
        .map(|t| {
            super::leakage::identifier_words(&t.name)
                .into_iter()
                .filter(|w| w.chars().count() >= 4 && !GENERIC_NAME_WORDS.contains(&w.as_str()))
                .collect()
        })
        .collect();
    for i in 0..words.len() {
        for j in i + 1..words.len() {
            if words[i].iter().any(|w| words[j].contains(w)) && !pairs.contains(&(i, j)) {
                pairs.push((i, j));
            }
        }
    }
    pairs.truncate(toolset.tools.len());
    pairs
}

/// Words many tool names share without making them neighbours.
const GENERIC_NAME_WORDS: &[&str] = &[
    "list", "create", "update", "delete", "remove", "read", "write", "search", "find", "fetch",
    "show", "check", "make", "info", "details", "data", "item", "items",
];

fn call_ask(id: String, intent: Intent, tool: &Tool, user: String, styles: Vec<Style>) -> Ask {
    let item = json!({
        "type": "object",
        "properties": {
            "request": {"type": "string", "minLength": 8},
            "arguments": tool.input_schema,
        },
        "required": ["request", "arguments"],
        "additionalProperties": false
    });
    Ask {
        id,
        intent,
        schema: reply_schema(&item, &styles),
        max_tokens: 160 * styles.len() as u32 + 40,
        styles,
        system: SYSTEM.to_string(),
        user,
    }
}

/// `{"requests": [...]}` with one item per style, each opening with its style (`"style": "…"`,
/// a constant): a model held to the schema writes the style just before the request, where even a
/// small one follows it, instead of reading a numbered list far above.
fn reply_schema(item: &Value, styles: &[Style]) -> Value {
    let items: Vec<Value> = styles
        .iter()
        .map(|style| {
            let mut item = item.clone();
            let properties = item["properties"].as_object().cloned().unwrap_or_default();
            let mut with_style = serde_json::Map::new();
            with_style.insert("style".into(), json!({"const": style.instruction}));
            with_style.extend(properties);
            item["properties"] = Value::Object(with_style);
            // Required, and so written first (llama.cpp writes required properties in order).
            if let Some(required) = item["required"].as_array_mut() {
                required.insert(0, json!("style"));
            }
            item
        })
        .collect();
    json!({
        "type": "object",
        "properties": {
            "requests": {
                "type": "array",
                // No `"items": false`: llama.cpp's converter reads `items` before
                // `prefixItems`; `maxItems` closes the list as well.
                "prefixItems": items,
                "minItems": styles.len(),
                "maxItems": styles.len()
            }
        },
        "required": ["requests"],
        "additionalProperties": false
    })
}

fn styles_from(start: usize, count: usize) -> Vec<Style> {
    (0..count)
        .map(|k| STYLES[(start + k) % STYLES.len()])
        .collect()
}

fn numbered(styles: &[Style]) -> String {
    styles
        .iter()
        .enumerate()
        .map(|(k, s)| format!("{}. {}", k + 1, s.instruction))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each tool's name and the first line of its description.
fn catalogue(toolset: &Toolset) -> String {
    toolset
        .tools
        .iter()
        .map(|t| {
            let first = description(t).lines().next().unwrap_or_default();
            format!("- {}: {first}", t.name)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn description(tool: &Tool) -> &str {
    tool.description.as_deref().unwrap_or_default()
}

fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_string(), |text, (slot, value)| {
            text.replace(slot, value)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toolset() -> Toolset {
        let tool = |name: &str, description: &str| {
            Tool::in_code(
                name,
                description.into(),
                json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
            )
        };
        Toolset {
            name: "t".into(),
            description: None,
            instructions: None,
            source: "t.toml".into(),
            variant: None,
            lint_allow: Vec::new(),
            registry: None,
            tools: vec![
                tool("get_weather", "Current weather for a city."),
                tool("get_weather_forecast", "Forecast for the coming days."),
                tool("book_hotel", "Reserve a hotel room."),
            ],
        }
    }

    #[test]
    fn asks_come_per_tool_then_pairs_then_no_call() {
        let asks = asks(
            &toolset(),
            AskCounts {
                per_tool: 3,
                pairs: true,
                no_call: 7,
            },
        );
        let ids: Vec<&str> = asks.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "tool:get_weather",
                "tool:get_weather_forecast",
                "tool:book_hotel",
                "pair:get_weather:get_weather_forecast",
                "pair:get_weather_forecast:get_weather",
                "none:0",
                "none:1"
            ]
        );
        // Each tool starts at its own style; the reply holds exactly the items asked for.
        assert_eq!(asks[0].styles[0].label, "casual");
        assert_eq!(asks[1].styles[0].label, "context");
        assert_eq!(asks[0].schema["properties"]["requests"]["minItems"], 3);
        // Each item opens with its style.
        let items = &asks[0].schema["properties"]["requests"]["prefixItems"];
        assert_eq!(
            items[1]["properties"]["style"]["const"],
            STYLES[1].instruction
        );
        assert_eq!(
            items[1]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .next()
                .unwrap(),
            "style"
        );
        assert_eq!(asks[5].styles.len() + asks[6].styles.len(), 7);
        // The expected call is held to the tool's own schema.
        assert_eq!(
            asks[0].schema["properties"]["requests"]["prefixItems"][0]["properties"]["arguments"]["required"],
            json!(["city"])
        );
        assert!(asks[3].user.contains("Tool B: get_weather_forecast"));
    }

    #[test]
    fn the_template_hash_is_stable_hex() {
        let hash = template_hash();
        assert_eq!(hash.len(), 64);
        assert_eq!(hash, template_hash());
    }
}
