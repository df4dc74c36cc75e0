//! How much of what a model sends is kept. A reply is stored with its trial (and in the response
//! cache), so a provider that sends 30 MB of text would make `trials.jsonl` gigabytes long; the lane
//! keeps the first `MAX_KEPT_BYTES` of the reply's text and of any unparsable call arguments, and
//! says how long the original was. Scoring loses nothing: a reply with text is an answer whatever
//! its length, and malformed arguments are malformed from their first bytes. Parsed arguments are
//! scored whole — the trial is judged on what the model sent — and bounded only when the trial is
//! stored (`bound_stored`): each long string keeps its first bytes with its full length and SHA-256,
//! so the stored line still says exactly what was sent; arguments still too large after that are
//! stored as their first bytes with their length and hash. A reply with arguments that large is
//! not put in the response cache (`cacheable`), so a cached reply is always the reply as scored.

use crate::backend::{ChatMessage, Reply};
use crate::observation::CallArguments;
use crate::record::StoredTrial;
use serde_json::{Map, Value};

/// What is kept of one text: 256 KiB.
pub const MAX_KEPT_BYTES: usize = 256 * 1024;

/// `reply` with each long text cut to its first `MAX_KEPT_BYTES` (at a character boundary) and a
/// note of its full size.
pub fn bound_reply(mut reply: Reply) -> Reply {
    if let Some(text) = reply.text.as_mut() {
        bound(text);
    }
    for call in &mut reply.calls {
        if let CallArguments::Malformed { raw, .. } = &mut call.arguments {
            bound(raw);
        }
    }
    for search in &mut reply.searches {
        bound(&mut search.query);
    }
    reply
}

/// The most a call's arguments may take on a stored line, after their long strings are bounded.
pub const MAX_KEPT_ARGUMENT_BYTES: usize = 1024 * 1024;

/// Whether a reply is small enough for the response cache: no call's arguments beyond what a trial
/// stores.
pub fn cacheable(reply: &Reply) -> bool {
    reply.calls.iter().all(|call| match &call.arguments {
        CallArguments::Parsed(map) => json_length(map) <= MAX_KEPT_ARGUMENT_BYTES,
        CallArguments::Malformed { .. } => true,
    })
}

/// `trial` as it is stored: the arguments of its calls (and of the calls in its transcript), the tool
/// results in its transcript and the verdict's quotes of them bounded. Called once the trial is
/// scored.
pub fn bound_stored(trial: &mut StoredTrial) {
    // The verdict's words quote the values they judge.
    bound(&mut trial.verdict.detail);
    for mismatch in &mut trial.verdict.mismatches {
        bound(&mut mismatch.problem);
    }
    for call in &mut trial.calls {
        bound_arguments(&mut call.arguments);
    }
    for message in &mut trial.transcript {
        match message {
            ChatMessage::Assistant { text, calls, .. } => {
                if let Some(text) = text {
                    bound(text);
                }
                for call in calls {
                    bound_arguments(&mut call.arguments);
                }
            }
            ChatMessage::Tool { content, .. } => bound(content),
            ChatMessage::System { .. } | ChatMessage::User { .. } => {}
        }
    }
}

fn bound_arguments(arguments: &mut CallArguments) {
    let CallArguments::Parsed(map) = arguments else {
        if let CallArguments::Malformed { raw, .. } = arguments {
            bound(raw);
        }
        return;
    };
    if json_length(map) <= MAX_KEPT_BYTES + NOTE_ROOM {
        return;
    }
    for value in map.values_mut() {
        bound_strings(value);
    }
    let length = json_length(map);
    if length > MAX_KEPT_ARGUMENT_BYTES {
        let mut raw = serde_json::to_string(map).unwrap_or_default();
        let hash = crate::hashing::sha256_hex(raw.as_bytes());
        bound(&mut raw);
        *arguments = CallArguments::Malformed {
            raw,
            reason: format!(
                "arguments of {length} bytes (SHA-256 {hash}), more than a stored trial keeps; the trial was scored on all of them"
            ),
        };
    }
}

/// Bounds every long string within `value`, with its length and hash.
fn bound_strings(value: &mut Value) {
    match value {
        Value::String(text) if text.len() > MAX_KEPT_BYTES + NOTE_ROOM => {
            let hash = crate::hashing::sha256_hex(text.as_bytes());
            bound(text);
            text.insert_str(text.len() - 1, &format!("; SHA-256 {hash}"));
        }
        Value::Array(items) => items.iter_mut().for_each(bound_strings),
        Value::Object(fields) => fields.values_mut().for_each(bound_strings),
        _ => {}
    }
}

fn json_length(map: &Map<String, Value>) -> usize {
    serde_json::to_vec(map).map_or(usize::MAX, |bytes| bytes.len())
}

/// Room past `MAX_KEPT_BYTES` for the note a bounded text ends with, so that bounding a text
/// twice (the lane's reply, then the stored trial) keeps the first note.
const NOTE_ROOM: usize = 256;

fn bound(text: &mut String) {
    if text.len() <= MAX_KEPT_BYTES + NOTE_ROOM {
        return;
    }
    let total = text.len();
    let mut cut = MAX_KEPT_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(&format!("… [mcpick kept the first {cut} of {total} bytes]"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ToolCallRequest;

    #[test]
    fn long_texts_keep_a_prefix_and_their_size_and_short_ones_are_untouched() {
        let huge = "é".repeat(MAX_KEPT_BYTES); // two bytes a character
        let reply = Reply {
            text: Some(huge.clone()),
            calls: vec![ToolCallRequest {
                id: "c".into(),
                tool: "t".into(),
                arguments: CallArguments::Malformed {
                    raw: huge,
                    reason: "not JSON".into(),
                },
            }],
            input_tokens: 1,
            output_tokens: 2,
            searches: Vec::new(),
            actions: Vec::new(),
        };
        let kept = bound_reply(reply);
        let text = kept.text.unwrap();
        assert!(text.len() < MAX_KEPT_BYTES + 100);
        assert!(
            text.ends_with(&format!("of {} bytes]", 2 * MAX_KEPT_BYTES)),
            "{}",
            &text[text.len() - 60..]
        );
        let CallArguments::Malformed { raw, .. } = &kept.calls[0].arguments else {
            panic!()
        };
        assert!(raw.contains("mcpick kept the first"));
        let short = Reply {
            text: Some("hello".into()),
            ..Reply::default()
        };
        assert_eq!(bound_reply(short.clone()), short);
    }

    /// A 5 MB string argument is stored as its first bytes with its length and hash; arguments of
    /// a million small items as their first bytes; short arguments as they are.
    #[test]
    fn stored_arguments_keep_a_prefix_their_length_and_hash() {
        let city = "Oslo ".repeat(1_000_000);
        let call = |arguments: Value| crate::observation::ObservedCall {
            tool: "weather.get".into(),
            arguments: CallArguments::Parsed(arguments.as_object().unwrap().clone()),
            result_is_error: None,
            reply: 0,
        };
        let mut trial = StoredTrial {
            calls: vec![
                call(serde_json::json!({"city": city, "days": 3})),
                call(serde_json::json!({"ids": vec![7; 1_000_000]})),
                call(serde_json::json!({"city": "Oslo"})),
            ],
            ..StoredTrial::default()
        };
        let reply = Reply {
            calls: vec![ToolCallRequest {
                id: "c".into(),
                tool: "weather.get".into(),
                arguments: trial.calls[0].arguments.clone(),
            }],
            ..Reply::default()
        };
        assert!(!cacheable(&reply));
        bound_stored(&mut trial);
        let CallArguments::Parsed(first) = &trial.calls[0].arguments else {
            panic!("{:?}", trial.calls[0].arguments)
        };
        let kept = first["city"].as_str().unwrap();
        let hash = crate::hashing::sha256_hex(city.as_bytes());
        assert!(
            kept.ends_with(&format!("of 5000000 bytes; SHA-256 {hash}]")),
            "{}",
            &kept[kept.len() - 120..]
        );
        assert_eq!(first["days"], 3);
        let CallArguments::Malformed { reason, .. } = &trial.calls[1].arguments else {
            panic!()
        };
        assert!(
            reason.contains("SHA-256") && reason.contains("scored on all"),
            "{reason}"
        );
        assert_eq!(
            trial.calls[2].arguments,
            CallArguments::Parsed(
                serde_json::json!({"city": "Oslo"})
                    .as_object()
                    .unwrap()
                    .clone()
            )
        );
        assert!(serde_json::to_vec(&trial).unwrap().len() < 3 * MAX_KEPT_BYTES);
    }
}
