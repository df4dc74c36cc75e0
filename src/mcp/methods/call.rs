//! `tools/call`: find the tool, validate the arguments with its compiled validator, run its simulated
//! behaviour (or a conformance fixture), and build the `CallToolResult`. Validation failures and tool
//! failures are `isError: true` results the model can learn from (SEP-1303); only a missing or unknown
//! tool is a JSON-RPC error (`-32602`), as the specification lists it among protocol errors.

use super::fixtures;
use super::input_required::RoundInput;
use super::notify::progress;
use crate::mcp::protocol::jsonrpc::{
    ErrorObject, INVALID_PARAMS, RequestId, encode_error, params_object,
};
use crate::mcp::state::served::ServedTools;
use crate::mcp::state::session::{Outbox, Session, ToolCall};
use crate::model::{Response, fill_template};
use crate::registry::RegisteredTool;
use crate::tool_exposure::SEARCH_TOOL_NAME;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A tools/call once its request is understood.
enum CallPlan {
    /// The answer is known at once: an error, a validation failure, or a behaviour that needs no
    /// waiting. Answering inline spares a task spawn and a wake-up per call.
    Ready(String),
    /// The call waits (simulated latency) or is a conformance fixture: it runs on a task of its own,
    /// where it can also be cancelled.
    Later(Box<PendingCall>),
}

/// A call that passed every check and still has to run.
struct PendingCall {
    tools: Arc<ServedTools>,
    name: String,
    arguments: Map<String, Value>,
    progress_token: Option<Value>,
    /// What a 2026-07-28 retry brings back (`inputResponses`, `requestState`).
    input: RoundInput,
}

/// Answers a `tools/call` on `outbox`: at once when no waiting is needed, otherwise on a task of its
/// own, so a slow tool never blocks the session and can be cancelled by its id.
pub(super) fn start(session: &Arc<Session>, id: RequestId, params: Option<Value>, outbox: Outbox) {
    let pending = match plan_call(session, &id, params_object(params)) {
        CallPlan::Ready(reply) => {
            let _ = outbox.send(reply);
            return;
        }
        CallPlan::Later(pending) => pending,
    };
    let session_for_task = Arc::clone(session);
    let call_id = id.clone();
    // Hold the lock across spawn and insert so a fast call cannot finish before it is registered.
    let mut in_flight = session.in_flight();
    let task = tokio::spawn(async move {
        let session = session_for_task;
        let call = ToolCall {
            session: &session,
            id: &call_id,
            outbox: &outbox,
        };
        let reply = finish_call(call, pending).await;
        session.in_flight().remove(&call_id);
        let _ = outbox.send(reply);
    });
    in_flight.insert(id, task.abort_handle());
}

/// Checks a tools/call request and answers it if no waiting is needed.
fn plan_call(session: &Session, id: &RequestId, mut params: Map<String, Value>) -> CallPlan {
    let invalid = |message: String| {
        CallPlan::Ready(encode_error(
            Some(id),
            &ErrorObject::new(INVALID_PARAMS, message),
        ))
    };
    let name = match params.remove("name") {
        Some(Value::String(name)) => name,
        _ => return invalid("Invalid params: tools/call needs a string \"name\"".into()),
    };
    let arguments = match params.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(arguments @ Value::Object(_)) => arguments,
        Some(_) => return invalid("Invalid params: \"arguments\" must be an object".into()),
    };
    let progress_token = params
        .get("_meta")
        .and_then(|m| m.get("progressToken"))
        .cloned();
    let input = RoundInput::take(&mut params);
    let tools = session.server.tools();
    let Some(tool) = tools.registry.get(&name) else {
        return invalid(format!("Unknown tool: {name}"));
    };
    if let Some(message) = validation_message(tool, &arguments) {
        return CallPlan::Ready(session.encode_result(id, error_result(&message)));
    }
    let Value::Object(arguments) = arguments else {
        return invalid("Invalid params: \"arguments\" must be an object".into());
    };
    if name == SEARCH_TOOL_NAME
        && let Some(search) = &session.server.search
    {
        let (result, found) = search.answer(&arguments);
        if let Some(served) = found {
            session.server.replace_tools(served);
        }
        return CallPlan::Ready(session.encode_result(id, result));
    }
    let (response, latency_ms) = tool.tool.behavior.respond(&arguments);
    if !tools.is_fixture(&name) && latency_ms == 0 {
        return CallPlan::Ready(
            session.encode_result(id, behavior_result(tool, response, &arguments)),
        );
    }
    CallPlan::Later(Box::new(PendingCall {
        tools,
        name,
        arguments,
        progress_token,
        input,
    }))
}

/// Runs a call that has to wait, and returns the encoded response.
async fn finish_call(call: ToolCall<'_>, pending: Box<PendingCall>) -> String {
    let PendingCall {
        tools,
        name,
        arguments,
        progress_token,
        input,
    } = *pending;
    if tools.is_fixture(&name)
        && let Some(outcome) =
            fixtures::run(&name, &call, &arguments, progress_token.as_ref(), &input).await
    {
        return match outcome {
            Ok(result) => call.session.encode_result(call.id, result),
            Err(error) => encode_error(Some(call.id), &error),
        };
    }
    let Some(tool) = tools.registry.get(&name) else {
        return encode_error(
            Some(call.id),
            &ErrorObject::new(INVALID_PARAMS, format!("Unknown tool: {name}")),
        );
    };
    let (response, latency_ms) = tool.tool.behavior.respond(&arguments);
    let half = Duration::from_millis(latency_ms / 2);
    tokio::time::sleep(half).await;
    if let Some(token) = &progress_token {
        progress(&call, token, 1.0, Some(2.0), None);
    }
    tokio::time::sleep(Duration::from_millis(latency_ms) - half).await;
    call.session
        .encode_result(call.id, behavior_result(tool, response, &arguments))
}

/// An actionable message listing what is wrong with the arguments, or `None` if they are valid.
fn validation_message(tool: &RegisteredTool, instance: &Value) -> Option<String> {
    if tool.input.is_valid(instance) {
        return None;
    }
    let problems: Vec<String> = tool
        .input
        .iter_errors(instance)
        .take(5)
        .map(|error| {
            let path = error.instance_path().to_string();
            let parameter = path.trim_start_matches('/').split('/').next().unwrap_or("");
            let hint = tool
                .tool
                .input_schema
                .get("properties")
                .and_then(|p| p.get(parameter))
                .and_then(|p| p.get("description"))
                .and_then(Value::as_str)
                .map(|d| format!(" ({parameter}: {d})"))
                .unwrap_or_default();
            let at = if path.is_empty() {
                String::new()
            } else {
                format!("{path}: ")
            };
            format!("{at}{error}{hint}")
        })
        .collect();
    Some(format!(
        "Invalid arguments for tool {}: {}. Fix the arguments to match the tool's inputSchema and call it again.",
        tool.tool.name,
        problems.join("; ")
    ))
}

fn error_result(message: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": message }], "isError": true })
}

/// The result of a file-defined behaviour.
fn behavior_result(
    tool: &RegisteredTool,
    response: &Response,
    arguments: &Map<String, Value>,
) -> Value {
    let defaults = &tool.defaults;
    match response {
        Response::Text {
            template,
            structured,
        } => {
            let mut content = vec![
                json!({ "type": "text", "text": fill_template(template, arguments, defaults) }),
            ];
            if let Some(structured) = structured {
                // Clients that ignore structuredContent still see the same data (MCP asks for this).
                content.push(json!({ "type": "text", "text": structured.to_string() }));
                return json!({ "content": content, "structuredContent": structured });
            }
            json!({ "content": content })
        }
        Response::Structured(structured) => json!({
            "content": [{ "type": "text", "text": structured.to_string() }],
            "structuredContent": structured,
        }),
        Response::Error(template) => error_result(&fill_template(template, arguments, defaults)),
        Response::Echo => {
            json!({ "content": [{ "type": "text", "text": Value::Object(arguments.clone()).to_string() }] })
        }
    }
}
