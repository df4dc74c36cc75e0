//! The units `explain` measures: each sentence of a tool's description, and each parameter's
//! description whole. A sentence ends at `.`, `!` or `?` followed by white space (or the end of the
//! text), or at `。`, `！`, `？` (which need no space after them), or at a line break; it does not end
//! after a known abbreviation ("e.g.", "i.e.", "etc.", "vs.", "approx.", "no.", "Mr.", "Dr." and the
//! like, in any case), after a single letter ("U.S."), inside a number ("3.5") or a name with no
//! space after its dot ("example.com", "v1.2"). Closing quotes and brackets after the mark stay
//! with the sentence they close. The pieces put back together, in order, are the description as it
//! was, white space aside — a person can predict where every cut falls. A description without one
//! sentence keeps every other character as it was (line breaks included).

use crate::model::Tool;

/// What a unit is part of.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    Sentence,
    Parameter,
}

/// One unit of one tool's wording.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unit {
    pub tool: String,
    pub kind: UnitKind,
    /// The parameter a `Parameter` unit describes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The sentence's position in the description (0-based), for a `Sentence`.
    #[serde(skip)]
    pub index: usize,
    pub text: String,
}

/// Words after whose dot a sentence does not end (compared without case and without the dot).
const ABBREVIATIONS: [&str; 22] = [
    "e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "excl", "max", "min", "no", "nos", "mr",
    "mrs", "ms", "dr", "st", "jr", "sr", "inc", "ltd", "co",
];

fn ends_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"' || c == '\'')
        .next()
        .unwrap_or("")
        .to_lowercase();
    // A single letter ("U.S.", "a.") or a run of letter-dot pairs ("e.g", "i.e").
    let single = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
    let dotted = word.len() > 1
        && word
            .split('.')
            .all(|part| part.chars().count() == 1 && part.chars().all(char::is_alphabetic));
    single || dotted || ABBREVIATIONS.contains(&word.as_str())
}

/// Where each sentence of `text` lies, as byte ranges of `text` trimmed of white space, in order;
/// none for text that is only white space.
fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let bytes: Vec<usize> = text
        .char_indices()
        .map(|(at, _)| at)
        .chain(std::iter::once(text.len()))
        .collect();
    let mut spans = Vec::new();
    let mut push = |from: usize, to: usize| {
        let (mut from, mut to) = (from, to);
        while from < to && chars[from].is_whitespace() {
            from += 1;
        }
        while to > from && chars[to - 1].is_whitespace() {
            to -= 1;
        }
        if from < to {
            spans.push((bytes[from], bytes[to]));
        }
    };
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mut end = None;
        if matches!(c, '\n' | '。' | '！' | '？') {
            end = Some(i + 1);
        } else if matches!(c, '.' | '!' | '?') {
            // Closing quotes and brackets belong to the sentence they close.
            let mut after = i + 1;
            while after < chars.len() && matches!(chars[after], '"' | '\'' | ')' | ']' | '”' | '’')
            {
                after += 1;
            }
            let followed_by_space = after == chars.len() || chars[after].is_whitespace();
            let before: String = chars[start..i].iter().collect();
            if followed_by_space && !(c == '.' && ends_abbreviation(&before)) {
                end = Some(after);
            }
        }
        if let Some(end) = end {
            push(start, end);
            start = end;
            i = end;
            continue;
        }
        i += 1;
    }
    push(start, chars.len());
    spans
}

/// The sentences of `text`, trimmed, in order; none for text that is only white space.
pub fn sentences(text: &str) -> Vec<String> {
    sentence_spans(text)
        .into_iter()
        .map(|(from, to)| text[from..to].to_string())
        .collect()
}

/// Every unit of `tool`: its description's sentences, then each described parameter (in the
/// schema's order).
pub fn units(tool: &Tool) -> Vec<Unit> {
    let mut units: Vec<Unit> = sentences(tool.description.as_deref().unwrap_or(""))
        .into_iter()
        .enumerate()
        .map(|(index, text)| Unit {
            tool: tool.name.clone(),
            kind: UnitKind::Sentence,
            param: None,
            index,
            text,
        })
        .collect();
    if let Some(properties) = tool.input_schema["properties"].as_object() {
        for (name, schema) in properties {
            if let Some(text) = schema["description"]
                .as_str()
                .filter(|t| !t.trim().is_empty())
            {
                units.push(Unit {
                    tool: tool.name.clone(),
                    kind: UnitKind::Parameter,
                    param: Some(name.clone()),
                    index: 0,
                    text: text.to_string(),
                });
            }
        }
    }
    units
}

/// The description without sentence `index` and the white space that parted it from the next
/// sentence (from the one before, for the last): every other character stays as it was, so the
/// variant differs from the description in that sentence alone. Out of range: the description.
pub fn description_without(description: &str, index: usize) -> String {
    let spans = sentence_spans(description);
    let Some(&(from, to)) = spans.get(index) else {
        return description.to_string();
    };
    let (from, to) = match (spans.get(index + 1), index.checked_sub(1).map(|k| spans[k])) {
        (Some(&(next, _)), _) => (from, next),
        (None, Some((_, previous_end))) => (previous_end, to),
        (None, None) => (from, to),
    };
    format!("{}{}", &description[..from], &description[to..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_where_a_person_expects() {
        assert_eq!(
            sentences(
                "Current weather. Use for \"now\" questions, e.g. \"is it raining?\" Not for forecasts (use get_forecast)."
            ),
            vec![
                "Current weather.",
                "Use for \"now\" questions, e.g. \"is it raining?\"",
                "Not for forecasts (use get_forecast)."
            ]
        );
        assert_eq!(
            sentences("Costs 3.5 USD, i.e. about 3 EUR. See example.com for v1.2 rules! Really?"),
            vec![
                "Costs 3.5 USD, i.e. about 3 EUR.",
                "See example.com for v1.2 rules!",
                "Really?"
            ]
        );
        assert_eq!(
            sentences("Flights in the U.S. and abroad. Max. 9 passengers"),
            vec!["Flights in the U.S. and abroad.", "Max. 9 passengers"]
        );
        // CJK marks end a sentence without a space; a line break ends one too.
        assert_eq!(
            sentences("查询天气。返回温度！\nSecond line"),
            vec!["查询天气。", "返回温度！", "Second line"]
        );
        assert!(sentences("  \n ").is_empty());
        // Put back together, nothing is lost but white space.
        let text = "One. Two, e.g. three!  Four?";
        let joined: String = sentences(text).concat();
        assert_eq!(joined.replace(' ', ""), text.replace(' ', ""));
    }

    #[test]
    fn a_tool_has_sentence_and_parameter_units() {
        let tool = Tool::in_code(
            "get_weather",
            "Current weather. Not forecasts.".into(),
            serde_json::json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name"},
                "units": {"type": "string"}
            }}),
        );
        let units = units(&tool);
        let kinds: Vec<(&UnitKind, Option<&str>, &str)> = units
            .iter()
            .map(|u| (&u.kind, u.param.as_deref(), u.text.as_str()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (&UnitKind::Sentence, None, "Current weather."),
                (&UnitKind::Sentence, None, "Not forecasts."),
                (&UnitKind::Parameter, Some("city"), "City name"),
            ]
        );
        assert_eq!(
            description_without("Current weather. Not forecasts. Metric.", 1),
            "Current weather. Metric."
        );
    }

    #[test]
    fn a_description_without_a_sentence_keeps_every_other_character() {
        let text =
            "  Daily forecast: highs and lows.\nUse for tomorrow;  not now.\n\nNo past dates! ";
        assert_eq!(
            description_without(text, 0),
            "  Use for tomorrow;  not now.\n\nNo past dates! "
        );
        assert_eq!(
            description_without(text, 1),
            "  Daily forecast: highs and lows.\nNo past dates! "
        );
        // The last goes with the white space before it.
        assert_eq!(
            description_without(text, 2),
            "  Daily forecast: highs and lows.\nUse for tomorrow;  not now. "
        );
        assert_eq!(description_without("Only one.", 0), "");
        assert_eq!(description_without(text, 7), text);
        // Multibyte text cuts on character boundaries.
        assert_eq!(description_without("天气。明天的预报。", 0), "明天的预报。");
    }
}
