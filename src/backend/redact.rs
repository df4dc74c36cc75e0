//! Secrets out of everything a provider sends back. A provider may echo the request — its
//! `Authorization` header in a 400 body, the key in a model's text — and whatever the lane returns
//! is stored: in `trials.jsonl` and the files derived from it, in the response cache, in the log.
//! So the lane (and a model that writes JSON, `json_writer`) passes every reply and every error
//! through `redact` before anyone sees it, replacing
//! each configured secret (a hosted backend's API key) with `[REDACTED]`.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Secrets shorter than this are not looked for: replacing a two-letter "key" everywhere would
/// mangle every record, and no provider issues keys that short.
const MIN_SECRET_LEN: usize = 8;

/// `value` with every occurrence of each secret replaced, in every string it holds (texts, error
/// messages, call arguments, map keys). Values without a secret come back untouched.
pub fn redact<T: Serialize + DeserializeOwned>(value: T, secrets: &[String]) -> T {
    let secrets: Vec<&str> = secrets
        .iter()
        .map(String::as_str)
        .filter(|s| s.len() >= MIN_SECRET_LEN)
        .collect();
    if secrets.is_empty() {
        return value;
    }
    // A secret holds no character JSON escapes (keys with spaces or control characters are refused
    // when read), so it appears in the serialised text exactly as it does in the strings.
    let Ok(text) = serde_json::to_string(&value) else {
        return value;
    };
    if !secrets.iter().any(|s| text.contains(s)) {
        return value;
    }
    let cleaned = secrets
        .iter()
        .fold(text, |text, secret| text.replace(secret, REDACTED));
    serde_json::from_str(&cleaned).unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{BackendError, Reply, ToolCallRequest};
    use crate::observation::CallArguments;

    const KEY: &str = "sk-test-0123456789abcdef";

    #[test]
    fn an_echoed_key_is_replaced_in_errors_and_replies() {
        let error = BackendError::BadRequest(format!(
            "HTTP 400: {{\"error\": \"bad header Authorization: Bearer {KEY}\"}}"
        ));
        let cleaned = redact(error, &[KEY.to_string()]);
        let BackendError::BadRequest(message) = &cleaned else {
            panic!("{cleaned:?}");
        };
        assert!(
            !message.contains(KEY) && message.contains("Bearer [REDACTED]"),
            "{message}"
        );

        let reply = Reply {
            text: Some(format!("your key is {KEY}, twice: {KEY}")),
            calls: vec![ToolCallRequest {
                id: "c1".into(),
                tool: "echo".into(),
                arguments: CallArguments::Malformed {
                    raw: format!("{{\"key\": \"{KEY}"),
                    reason: "cut off".into(),
                },
            }],
            input_tokens: 3,
            output_tokens: 4,
            searches: Vec::new(),
            actions: Vec::new(),
        };
        let cleaned = redact(reply, &[KEY.to_string()]);
        let text = serde_json::to_string(&cleaned).unwrap();
        assert!(!text.contains(KEY), "{text}");
        assert_eq!(text.matches(REDACTED).count(), 3, "{text}");
        assert_eq!((cleaned.input_tokens, cleaned.output_tokens), (3, 4));
    }

    #[test]
    fn nothing_changes_without_a_secret_or_with_a_short_one() {
        let error = BackendError::Transient("HTTP 503: try later".into());
        assert_eq!(redact(error.clone(), &[KEY.to_string()]), error);
        let message = BackendError::Transient("the key abc appears".into());
        assert_eq!(redact(message.clone(), &["abc".to_string()]), message);
        assert_eq!(redact(message.clone(), &[]), message);
    }
}
