//! The frame layer: JSON-RPC 2.0 messages as bytes in and out. Parsing classifies every input as a
//! request, notification or response — or as the exact JSON-RPC error it deserves (`-32700` for text
//! that is not JSON, `-32600` for JSON that is not a message, batches included, since MCP 2025-11-25 has
//! no batching). Ids keep their type (number or string), because a response must echo them exactly.
//! Nothing here knows MCP methods.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// A request id, echoed with its original type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// One incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: RequestId,
        outcome: Result<Value, ErrorObject>,
    },
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    pub fn new(code: i64, message: impl Into<String>) -> ErrorObject {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// Why bytes are not a message, with the id to answer to when one could be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub id: Option<RequestId>,
    pub error: ErrorObject,
}

impl Message {
    /// Parses one message.
    pub fn parse(bytes: &[u8]) -> Result<Message, Rejection> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| Rejection {
            id: None,
            error: ErrorObject::new(PARSE_ERROR, format!("Parse error: {e}")),
        })?;
        Message::from_value(value)
    }

    /// Classifies an already-parsed JSON value.
    pub fn from_value(value: Value) -> Result<Message, Rejection> {
        let invalid = |id: Option<RequestId>, why: &str| Rejection {
            id,
            error: ErrorObject::new(INVALID_REQUEST, format!("Invalid Request: {why}")),
        };
        let mut object = match value {
            Value::Object(object) => object,
            Value::Array(_) => {
                return Err(invalid(
                    None,
                    "batches are not supported (MCP 2025-11-25 removed JSON-RPC batching); send one message at a time",
                ));
            }
            _ => return Err(invalid(None, "a message must be a JSON object")),
        };
        let id = match object.remove("id") {
            None => None,
            Some(Value::Number(n)) => match n.as_i64() {
                Some(n) => Some(RequestId::Number(n)),
                None => return Err(invalid(None, "id must be a string or an integer")),
            },
            Some(Value::String(s)) => Some(RequestId::String(s)),
            Some(Value::Null) => return Err(invalid(None, "id must not be null")),
            Some(_) => return Err(invalid(None, "id must be a string or an integer")),
        };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(invalid(id, "\"jsonrpc\" must be \"2.0\""));
        }
        let params = object.remove("params");
        if params.as_ref().is_some_and(|p| !p.is_object()) {
            // Valid JSON-RPC (positional params), but every MCP method takes named ones.
            return Err(Rejection {
                id,
                error: ErrorObject::new(
                    INVALID_PARAMS,
                    "Invalid params: MCP methods take params as an object",
                ),
            });
        }
        match (object.remove("method"), id) {
            (Some(Value::String(method)), Some(id)) => Ok(Message::Request { id, method, params }),
            (Some(Value::String(method)), None) => Ok(Message::Notification { method, params }),
            (Some(_), id) => Err(invalid(id, "method must be a string")),
            (None, Some(id)) => match (object.remove("result"), object.remove("error")) {
                (Some(result), None) => Ok(Message::Response {
                    id,
                    outcome: Ok(result),
                }),
                (None, Some(error)) => match serde_json::from_value::<ErrorObject>(error) {
                    Ok(error) => Ok(Message::Response {
                        id,
                        outcome: Err(error),
                    }),
                    Err(_) => Err(invalid(
                        Some(id),
                        "error must have an integer code and a message",
                    )),
                },
                _ => Err(invalid(
                    Some(id),
                    "a response has exactly one of result and error",
                )),
            },
            (None, None) => Err(invalid(
                None,
                "neither a request, a notification nor a response",
            )),
        }
    }
}

/// Encodes a successful response.
pub fn encode_result(id: &RequestId, result: &Value) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        result: &'a Value,
    }
    serde_json::to_string(&Out {
        jsonrpc: "2.0",
        id,
        result,
    })
    .unwrap_or_default()
}

/// A success response whose `result` is already JSON text (tools/list is serialised once).
pub fn encode_raw_result(id: &RequestId, raw_result: &str) -> String {
    let id = serde_json::to_string(id).unwrap_or_default();
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{raw_result}}}")
}

/// Encodes an error response; `id` is null when the request's id could not be read.
pub fn encode_error(id: Option<&RequestId>, error: &ErrorObject) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        jsonrpc: &'static str,
        id: Option<&'a RequestId>,
        error: &'a ErrorObject,
    }
    serde_json::to_string(&Out {
        jsonrpc: "2.0",
        id,
        error,
    })
    .unwrap_or_default()
}

/// Encodes a request.
pub fn encode_request(id: &RequestId, method: &str, params: Option<&Value>) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a Value>,
    }
    serde_json::to_string(&Out {
        jsonrpc: "2.0",
        id,
        method,
        params,
    })
    .unwrap_or_default()
}

/// Encodes a notification.
pub fn encode_notification(method: &str, params: Option<&Value>) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        jsonrpc: &'static str,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a Value>,
    }
    serde_json::to_string(&Out {
        jsonrpc: "2.0",
        method,
        params,
    })
    .unwrap_or_default()
}

/// `params` as an object (absent params are an empty object).
pub fn params_object(params: Option<Value>) -> Map<String, Value> {
    match params {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Result<Message, Rejection> {
        Message::parse(text.as_bytes())
    }

    #[test]
    fn ids_keep_their_type() {
        let Ok(Message::Request { id, .. }) =
            parse(r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#)
        else {
            panic!()
        };
        assert_eq!(
            encode_result(&id, &json!({})),
            r#"{"jsonrpc":"2.0","id":"7","result":{}}"#
        );
        let Ok(Message::Request { id, .. }) = parse(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#)
        else {
            panic!()
        };
        assert_eq!(
            encode_result(&id, &json!({})),
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#
        );
    }

    #[test]
    fn bad_input_gets_the_error_the_spec_names() {
        assert_eq!(parse("{not json").unwrap_err().error.code, PARSE_ERROR);
        assert_eq!(
            parse("\u{0}\u{1}garbage").unwrap_err().error.code,
            PARSE_ERROR
        );
        let batch = parse(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err();
        assert_eq!((batch.id, batch.error.code), (None, INVALID_REQUEST));
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)
                .unwrap_err()
                .error
                .code,
            INVALID_REQUEST
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#)
                .unwrap_err()
                .error
                .code,
            INVALID_REQUEST
        );
        let no_version = parse(r#"{"id":3,"method":"ping"}"#).unwrap_err();
        assert_eq!(
            (no_version.id, no_version.error.code),
            (Some(RequestId::Number(3)), INVALID_REQUEST)
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#)
                .unwrap_err()
                .error
                .code,
            INVALID_PARAMS
        );
        for params in ["[]", "1", "\"x\"", "true", "null"] {
            let text =
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{params}}}"#);
            let rejected = parse(&text).unwrap_err();
            assert_eq!(
                (rejected.id, rejected.error.code),
                (Some(RequestId::Number(7)), INVALID_PARAMS),
                "{params}"
            );
        }
        let text = encode_error(None, &ErrorObject::new(PARSE_ERROR, "Parse error"));
        assert_eq!(
            text,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        );
    }

    #[test]
    fn notifications_and_responses_are_told_apart() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Message::Response { outcome: Ok(_), .. })
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#),
            Ok(Message::Response {
                outcome: Err(_),
                ..
            })
        ));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        /// Fuzzing the frame layer: any bytes are a message or one of the three errors a frame can
        /// deserve, never a panic.
        #[test]
        fn any_bytes_are_a_message_or_a_frame_error(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            if let Err(rejection) = Message::parse(&bytes) {
                proptest::prop_assert!(
                    [PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS].contains(&rejection.error.code)
                );
            }
        }

        /// Any JSON value: a request exactly when it is an object with `"jsonrpc": "2.0"`, a
        /// string method, an integer or string id and object (or no) params.
        #[test]
        fn any_json_is_classified_as_documented(value in crate::json_strategy::any_json()) {
            let well_formed_request = value["jsonrpc"] == "2.0"
                && value["method"].is_string()
                && (value["id"].is_i64() || value["id"].is_string())
                && value.get("params").is_none_or(Value::is_object);
            let parsed = Message::from_value(value.clone());
            match parsed {
                Ok(Message::Request { .. }) => proptest::prop_assert!(well_formed_request, "{value}"),
                Err(rejection) => {
                    proptest::prop_assert!(!well_formed_request, "{value}");
                    proptest::prop_assert!([INVALID_REQUEST, INVALID_PARAMS].contains(&rejection.error.code));
                }
                Ok(_) => proptest::prop_assert!(!well_formed_request, "{value}"),
            }
        }
    }
}
