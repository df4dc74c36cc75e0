//! Asking the client for input in the middle of a tool call, written once and served in both eras.
//! A `Dialogue` is the rounds of input requests a tool needs (elicitation, sampling, roots), each
//! answered before the next is asked. On a session of the earlier eras the server sends each as a
//! request of its own and waits; in the 2026-07-28 era (SEP-2322) the call instead ends with an
//! `input_required` result naming what is missing, and the client retries the call with
//! `inputResponses` (and the signed `requestState` that says which round it is in). Either way the
//! tool sees the answers of its last round, checked for shape; what the client may be asked is
//! bounded by the capabilities it declared in this very request.

use crate::hashing::sha256_hex;
use crate::mcp::protocol::jsonrpc::{ErrorObject, INVALID_PARAMS};
use crate::mcp::protocol::revision::MISSING_REQUIRED_CLIENT_CAPABILITY;
use crate::mcp::state::request_state::StatePayload;
use crate::mcp::state::session::ToolCall;
use serde_json::{Map, Value, json};

/// One thing to ask the client, under the key its answer comes back with.
pub struct InputRequest {
    pub key: &'static str,
    pub method: &'static str,
    pub params: Value,
}

/// The rounds of input a tool needs, each answered before the next is asked.
pub struct Dialogue {
    pub rounds: Vec<Vec<InputRequest>>,
    /// Whether a stateless retry must bring back the `requestState` (always so past the first round).
    pub stateful: bool,
}

/// The `inputResponses` and `requestState` a stateless retry carries, as the request had them.
#[derive(Debug, Default)]
pub struct RoundInput {
    pub responses: Option<Value>,
    pub state: Option<Value>,
}

impl RoundInput {
    /// Takes the two fields out of a `tools/call`'s params.
    pub fn take(params: &mut Map<String, Value>) -> RoundInput {
        RoundInput {
            responses: params.remove("inputResponses"),
            state: params.remove("requestState"),
        }
    }
}

/// The call cannot go on yet: the result or error to answer with now.
pub type Interim = Result<Value, ErrorObject>;

/// The capability a client must declare to be asked `method`.
fn capability(method: &str) -> &'static str {
    match method {
        "sampling/createMessage" => "sampling",
        "roots/list" => "roots",
        _ => "elicitation",
    }
}

impl Dialogue {
    /// A dialogue of one round.
    pub fn single(requests: Vec<InputRequest>) -> Dialogue {
        Dialogue {
            rounds: vec![requests],
            stateful: false,
        }
    }

    /// The answers of the last round, or what to answer now.
    pub async fn gather(
        self,
        call: &ToolCall<'_>,
        input: &RoundInput,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> Result<Map<String, Value>, Interim> {
        if call.session.is_stateless() {
            self.gather_stateless(call, input, tool, arguments)
        } else {
            self.gather_by_requests(call).await
        }
    }

    /// Earlier eras: each request is sent to the client and waited for.
    async fn gather_by_requests(self, call: &ToolCall<'_>) -> Result<Map<String, Value>, Interim> {
        let mut answers = Map::new();
        for round in self.rounds {
            answers.clear();
            for request in round {
                let needed = capability(request.method);
                if !call.session.client_declared(needed) {
                    return Err(Ok(refused(
                        needed,
                        &format!("the client did not declare the {needed} capability"),
                    )));
                }
                let reply = call
                    .session
                    .request_client(call.outbox, request.method, request.params)
                    .await;
                match reply.map(|r| (check_answer(request.method, &r), r)) {
                    Ok((Ok(()), reply)) => {
                        answers.insert(request.key.to_string(), reply);
                    }
                    Ok((Err(why), _)) => return Err(Ok(refused(needed, &why))),
                    Err(e) => return Err(Ok(refused(needed, &e.message))),
                }
            }
        }
        Ok(answers)
    }

    /// 2026-07-28: the answers travel in the retry; what is missing is asked for in an
    /// `input_required` result.
    fn gather_stateless(
        mut self,
        call: &ToolCall<'_>,
        input: &RoundInput,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> Result<Map<String, Value>, Interim> {
        let invalid = |message: String| Err(Err(ErrorObject::new(INVALID_PARAMS, message)));
        let digest = sha256_hex(Value::Object(arguments.clone()).to_string().as_bytes());
        let key = &call.session.server.state_key;
        let (round, state_given) = match &input.state {
            None | Some(Value::Null) => (0, false),
            Some(Value::String(state)) => match key.open(state, tool, &digest) {
                Ok(round) => (round as usize, true),
                Err(why) => return invalid(format!("Invalid params: {why}")),
            },
            Some(_) => return invalid("Invalid params: requestState must be a string".into()),
        };
        if round >= self.rounds.len() {
            return invalid(format!(
                "Invalid params: requestState names round {round}; {tool} has {}",
                self.rounds.len()
            ));
        }
        let empty = Map::new();
        let responses = match &input.responses {
            None => &empty,
            Some(Value::Object(responses)) => responses,
            Some(_) => {
                return invalid("Invalid params: inputResponses must be an object".into());
            }
        };
        let missing: Map<String, Value> = self.rounds[round]
            .iter()
            .map(|r| capability(r.method))
            .filter(|&needed| !call.session.client_declared(needed))
            .map(|needed| (needed.to_string(), json!({})))
            .collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.keys().map(String::as_str).collect();
            return Err(Err(ErrorObject {
                code: MISSING_REQUIRED_CLIENT_CAPABILITY,
                message: format!(
                    "{tool} needs the client's {} capability, which this request does not declare",
                    names.join(" and ")
                ),
                data: Some(json!({ "requiredCapabilities": missing })),
            }));
        }
        let mut answers = Map::new();
        for request in &self.rounds[round] {
            if let Some(answer) = responses.get(request.key) {
                if let Err(why) = check_answer(request.method, answer) {
                    return invalid(format!(
                        "Invalid params: inputResponses.{}: {why}",
                        request.key
                    ));
                }
                answers.insert(request.key.to_string(), answer.clone());
            }
        }
        // A stateful dialogue's answers count only with the state they answer.
        let answered = answers.len() == self.rounds[round].len() && (state_given || !self.stateful);
        let seal = |round: usize| key.seal(&StatePayload::new(tool, &digest, round as u32));
        if !answered {
            let state = self.stateful.then(|| seal(round));
            return Err(Ok(input_required(&self.rounds[round], state)));
        }
        if round + 1 == self.rounds.len() {
            return Ok(answers);
        }
        let next = self.rounds.swap_remove(round + 1);
        Err(Ok(input_required(&next, Some(seal(round + 1)))))
    }
}

/// The `input_required` result asking for `requests`.
fn input_required(requests: &[InputRequest], state: Option<String>) -> Value {
    let asked: Map<String, Value> = requests
        .iter()
        .map(|r| {
            (
                r.key.to_string(),
                json!({ "method": r.method, "params": r.params }),
            )
        })
        .collect();
    let mut result = json!({ "resultType": "input_required", "inputRequests": asked });
    if let Some(state) = state {
        result["requestState"] = json!(state);
    }
    result
}

/// Whether an answer has the shape its method's result has.
fn check_answer(method: &str, answer: &Value) -> Result<(), String> {
    let Some(answer) = answer.as_object() else {
        return Err(format!("the answer to {method} must be an object"));
    };
    match method {
        "sampling/createMessage" => {
            if !answer.get("role").is_some_and(Value::is_string)
                || !answer
                    .get("content")
                    .is_some_and(|c| c.is_object() || c.is_array())
            {
                return Err("a sampling answer needs a role and content".into());
            }
        }
        "roots/list" => {
            if !answer.get("roots").is_some_and(Value::is_array) {
                return Err("a roots answer needs a roots array".into());
            }
        }
        _ => match answer.get("action").and_then(Value::as_str) {
            Some("accept" | "decline" | "cancel") => {
                if answer.get("content").is_some_and(|c| !c.is_object()) {
                    return Err("an elicitation answer's content must be an object".into());
                }
            }
            _ => return Err("an elicitation answer needs action accept, decline or cancel".into()),
        },
    }
    Ok(())
}

/// The `isError` result of a tool whose client did not give what it asked.
pub fn refused(what: &str, why: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": format!("The client did not complete {what}: {why}") }], "isError": true })
}
