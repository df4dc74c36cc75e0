//! `--server-instructions`: a server's `instructions` shown to the model as hosts show them — in
//! the system prompt, after the harness's own words and before a task's. Claude Desktop and other
//! hosts put each connected server's instructions there, so a run that asks sees what their users'
//! models see.

use crate::model::{Message, Role, TaskInput};

/// The text a host adds for `server`'s instructions.
pub fn instructions_block(server: &str, instructions: &str) -> String {
    format!(
        "Instructions from the MCP server \"{server}\":\n{}",
        instructions.trim()
    )
}

/// A task's input with `block` in its system message (one is made when it has none; a task's own
/// system message follows the block).
pub fn with_instructions(input: &mut TaskInput, block: &str) {
    match input {
        TaskInput::Prompt(prompt) => {
            *input = TaskInput::Messages(vec![
                Message {
                    role: Role::System,
                    content: block.to_string(),
                },
                Message {
                    role: Role::User,
                    content: std::mem::take(prompt),
                },
            ]);
        }
        TaskInput::Messages(messages) => match messages.iter_mut().find(|m| m.role == Role::System)
        {
            Some(system) => system.content = format!("{block}\n\n{}", system.content),
            None => messages.insert(
                0,
                Message {
                    role: Role::System,
                    content: block.to_string(),
                },
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_gets_a_system_message_and_a_task_system_message_follows_the_block() {
        let block = instructions_block("docs", "  Call resolve first. ");
        assert_eq!(
            block,
            "Instructions from the MCP server \"docs\":\nCall resolve first."
        );
        let mut prompt = TaskInput::Prompt("Find React".into());
        with_instructions(&mut prompt, &block);
        let TaskInput::Messages(messages) = &prompt else {
            panic!("a prompt became messages");
        };
        assert_eq!(messages[0].role, Role::System);
        assert_eq!(messages[0].content, block);
        assert_eq!(messages[1].content, "Find React");

        let mut own = TaskInput::Messages(vec![
            Message {
                role: Role::System,
                content: "Be brief.".into(),
            },
            Message {
                role: Role::User,
                content: "Hi".into(),
            },
        ]);
        with_instructions(&mut own, &block);
        let TaskInput::Messages(messages) = &own else {
            unreachable!()
        };
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].content, format!("{block}\n\nBe brief."));
    }
}
