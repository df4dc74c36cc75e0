//! What a BFCL record says besides its functions and answers: its question's turns as a `prompt`
//! or `messages`. (The source language its category names is `score::bfcl::Language`, shared with
//! the checker.)

use serde_json::{Value, json};

/// The record's turns as a `prompt` (one user message) or `messages`.
pub fn conversation(question: &Value) -> Result<(&'static str, Value), String> {
    let turns = question.as_array().ok_or("`question` is not a list")?;
    let mut messages = Vec::new();
    for turn in turns {
        // Turns are lists of messages; a bare message is taken as a turn of one.
        let turn_messages = match turn {
            Value::Array(messages) => messages.as_slice(),
            single => std::slice::from_ref(single),
        };
        for message in turn_messages {
            let role = message["role"].as_str().ok_or("a message has no `role`")?;
            if !matches!(role, "system" | "user" | "assistant") {
                return Err(format!(
                    "a message has role {role:?}; single-turn tasks take system, user and assistant turns"
                ));
            }
            let content = message["content"]
                .as_str()
                .ok_or("a message's `content` is not a string")?;
            messages.push(json!({"role": role, "content": content}));
        }
    }
    match messages.as_slice() {
        [] => Err("`question` holds no message".into()),
        [only] if only["role"] == "user" => Ok(("prompt", only["content"].clone())),
        [.., last] if last["role"] == "user" => Ok(("messages", Value::Array(messages))),
        _ => Err("the conversation does not end with a user message".into()),
    }
}

#[cfg(test)]
mod tests {
    use crate::import::bfcl::tests::{imported, task};

    #[test]
    fn conversations_keep_their_turns() {
        let imported = imported();
        let messages = &task(&imported, "live_simple_0-0-0")["messages"];
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(messages[1]["content"], "Define serendipity.");
        assert!(task(&imported, "parallel_0")["prompt"].is_string());
    }
}
