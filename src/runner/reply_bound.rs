//! How much of a provider's reply is kept. A reply is stored with its trial (and in the response
//! cache), so a provider that sends 30 MB of text would make `trials.jsonl` gigabytes long; the lane
//! keeps the first `MAX_KEPT_BYTES` of the reply's text and of any unparsable call arguments, and
//! says how long the original was. Scoring loses nothing: a reply with text is an answer whatever
//! its length, and malformed arguments are malformed from their first bytes.

use crate::backend::Reply;
use crate::observation::CallArguments;

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

fn bound(text: &mut String) {
    if text.len() <= MAX_KEPT_BYTES {
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
}
