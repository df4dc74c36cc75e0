//! A task's shape, checked: its conversation (roles in an order a chat can have) and its own tool
//! list (every entry a toolset tool, every shown name once). Part of `TaskChecks` (`task`), which
//! checks the rest of a task.

use super::place::Place;
use super::task::TaskChecks;
use crate::load::Diagnostic;
use crate::load::diagnostic::closest_name;
use crate::model::{Message, Role, TaskTool};
use crate::spec::TaskToolSpec;
use std::ops::Range;

impl TaskChecks<'_> {
    pub(super) fn messages(
        &self,
        id: &str,
        written: Vec<crate::spec::MessageSpec>,
        place: &Place<'_>,
        id_span: Option<&Range<usize>>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Message>> {
        let mut messages = Vec::with_capacity(written.len());
        for message in written {
            let role = match message.role.value.as_str() {
                "system" => Role::System,
                "user" => Role::User,
                "assistant" => Role::Assistant,
                other => {
                    diagnostics.push(place.error(
                        message.role.span.as_ref(),
                        format!("task {id:?}: unknown role {other:?}"),
                        "use \"system\", \"user\" or \"assistant\"".into(),
                    ));
                    return None;
                }
            };
            messages.push(Message {
                role,
                content: message.content,
            });
        }
        if messages.last().map(|m| m.role) != Some(Role::User) {
            diagnostics.push(place.error(
                id_span,
                format!("task {id:?}: `messages` must end with a user turn"),
                "the model answers the last user message; add or move it to the end".into(),
            ));
            return None;
        }
        Some(messages)
    }

    /// A task's own tool list: every entry a toolset tool, every shown name once.
    /// An empty list is a task shown no tools at all, which can only expect no call (BFCL has such
    /// irrelevance records).
    pub(super) fn task_tools(
        &self,
        id: &str,
        written: Vec<TaskToolSpec>,
        expects_no_call: bool,
        place: &Place<'_>,
        id_span: Option<&Range<usize>>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<TaskTool> {
        if written.is_empty() && !expects_no_call {
            diagnostics.push(place.error(
                id_span,
                format!("task {id:?}: `tools` is empty"),
                "list the toolset tools this task is shown, or drop `tools` to show the whole toolset (a task shown no tools must `expect_no_call`)"
                    .into(),
            ));
        }
        let mut tools: Vec<TaskTool> = Vec::with_capacity(written.len());
        for entry in written {
            let (tool, name) = match entry {
                TaskToolSpec::Name(name) => (name.clone(), name),
                TaskToolSpec::Renamed { tool, shown_as } => (tool, shown_as),
            };
            if self.toolset.tool(&tool).is_none() {
                let help =
                    match closest_name(&tool, self.toolset.tools.iter().map(|t| t.name.as_str())) {
                        Some(near) => format!("did you mean {near:?}?"),
                        None => format!("add the tool to toolset {:?}", self.toolset.name),
                    };
                diagnostics.push(place.error(
                    id_span,
                    format!(
                        "task {id:?} lists tool {tool:?}, which toolset {:?} does not have",
                        self.toolset.name
                    ),
                    help,
                ));
            } else if tools.iter().any(|t| t.name == name) {
                diagnostics.push(place.error(
                    id_span,
                    format!("task {id:?} shows two tools named {name:?}"),
                    "a client calls tools by name: give each tool of the list its own `as` name"
                        .into(),
                ));
            }
            tools.push(TaskTool { tool, name });
        }
        tools
    }
}
