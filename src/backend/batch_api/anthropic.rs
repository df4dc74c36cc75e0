//! Anthropic's Message Batches (docs.anthropic.com, "Batch processing"): `POST
//! /v1/messages/batches` with `requests: [{custom_id, params}]`, each `params` a Messages request;
//! `GET /v1/messages/batches/{id}` until `processing_status` is `ended`; then the JSONL at the
//! batch's `results_url`, one line `{custom_id, result}` each, `result.type` being `succeeded`
//! (with the `message`), `errored` (with the error), `canceled` or `expired`. A `results_url` on
//! another host than the API's is not followed with the key: the documented path on the API's own
//! host is read instead.

use super::{BatchItem, BatchItemResult, BatchState, ResultsAt, checked_id, item_error};
use crate::backend::BackendError;
use crate::backend::hosted::{HostedConfig, body_excerpt, send_json, send_text};
use serde_json::{Value, json};

const API_VERSION: &str = "2023-06-01";

#[derive(Debug, Clone)]
pub struct AnthropicBatches {
    config: HostedConfig,
    http: reqwest::Client,
}

impl AnthropicBatches {
    pub fn new(config: HostedConfig, http: reqwest::Client) -> AnthropicBatches {
        AnthropicBatches { config, http }
    }

    fn authorised(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let request = request.header("anthropic-version", API_VERSION);
        match &self.config.api_key {
            Some(key) => request.header("x-api-key", key),
            None => request,
        }
    }

    /// Creates the batch; `beta` is the `anthropic-beta` header its requests need (empty: none).
    pub async fn create(&self, beta: &str, items: &[BatchItem]) -> Result<String, BackendError> {
        let requests: Vec<Value> = items
            .iter()
            .map(|item| json!({"custom_id": item.custom_id, "params": item.body}))
            .collect();
        let mut request = self
            .http
            .post(format!("{}/v1/messages/batches", self.config.base_url))
            .json(&json!({"requests": requests}));
        if !beta.is_empty() {
            request = request.header("anthropic-beta", beta);
        }
        let batch = send_json(self.authorised(request), &self.config.api_key_env).await?;
        checked_id(batch["id"].as_str(), "the created batch", &batch)
    }

    pub async fn state(&self, batch_id: &str) -> Result<BatchState, BackendError> {
        let request = self.http.get(format!(
            "{}/v1/messages/batches/{batch_id}",
            self.config.base_url
        ));
        let batch = send_json(self.authorised(request), &self.config.api_key_env).await?;
        Ok(match batch["processing_status"].as_str() {
            Some("in_progress" | "canceling") => BatchState::Running,
            Some("ended") => BatchState::Ended(ResultsAt::Url(
                batch["results_url"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )),
            _ => {
                return Err(BackendError::Decode(format!(
                    "batch {batch_id} has no documented processing_status: {}",
                    body_excerpt(&batch.to_string())
                )));
            }
        })
    }

    /// The results file: at `results_url` when it is on the API's host, else at the documented path.
    pub async fn results_text(&self, batch_id: &str, url: &str) -> Result<String, BackendError> {
        let own = format!(
            "{}/v1/messages/batches/{batch_id}/results",
            self.config.base_url
        );
        let url = if same_origin(url, &self.config.base_url) {
            url.to_string()
        } else {
            if !url.is_empty() {
                tracing::warn!(
                    batch = batch_id,
                    url,
                    "results_url on another host; reading {own}"
                );
            }
            own
        };
        send_text(
            self.authorised(self.http.get(url)),
            &self.config.api_key_env,
        )
        .await
    }

    /// One line of the results file.
    pub fn outcome(&self, line: &Value) -> BatchItemResult {
        let result = &line["result"];
        match result["type"].as_str() {
            Some("succeeded") if result["message"].is_object() => Ok(result["message"].clone()),
            Some("errored") => {
                // The error object, nested in an error response as the API documents it now
                // (`{type: "error", error: {type, message}}`) or directly, as it first did.
                let error = &result["error"];
                let inner = if error["type"] == "error" {
                    &error["error"]
                } else {
                    error
                };
                Err(item_error(
                    inner["type"].as_str().unwrap_or("api_error"),
                    inner["message"].as_str().unwrap_or_default(),
                ))
            }
            Some("expired") => Err(BackendError::Transient(
                "the batch's 24-hour window closed before this request ran (expired)".into(),
            )),
            Some("canceled") => Err(BackendError::Transient(
                "the batch was cancelled before this request ran (canceled)".into(),
            )),
            _ => Err(BackendError::Decode(format!(
                "a batch result in no documented shape: {}",
                body_excerpt(&line.to_string())
            ))),
        }
    }
}

/// Whether two URLs share scheme, host and port.
fn same_origin(url: &str, base: &str) -> bool {
    let origin = |u: &str| -> Option<String> {
        let (scheme, rest) = u.split_once("://")?;
        let authority = rest.split(['/', '?', '#']).next()?;
        Some(format!(
            "{}://{}",
            scheme.to_ascii_lowercase(),
            authority.to_ascii_lowercase()
        ))
    };
    matches!((origin(url), origin(base)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_are_read_as_documented() {
        let config = HostedConfig::new(
            "m",
            Some("http://127.0.0.1:1"),
            "https://api.anthropic.com",
            Some("MCPICK_NO_SUCH_KEY"),
            "K",
        )
        .unwrap();
        let api = AnthropicBatches::new(config, reqwest::Client::new());
        let message = json!({"type": "message", "content": []});
        let ok = json!({"custom_id": "a", "result": {"type": "succeeded", "message": message}});
        assert_eq!(api.outcome(&ok), Ok(message));
        let invalid = json!({"custom_id": "b", "result": {"type": "errored", "error": {"type": "error",
            "error": {"type": "invalid_request_error", "message": "max_tokens too large"}}}});
        assert!(
            matches!(api.outcome(&invalid), Err(BackendError::BadRequest(m)) if m.contains("max_tokens"))
        );
        let older = json!({"custom_id": "c", "result": {"type": "errored", "error": {"type": "api_error", "message": "x"}}});
        assert!(matches!(
            api.outcome(&older),
            Err(BackendError::Transient(_))
        ));
        for kind in ["expired", "canceled"] {
            let line = json!({"custom_id": "d", "result": {"type": kind}});
            assert!(
                matches!(api.outcome(&line), Err(BackendError::Transient(m)) if m.contains(kind))
            );
        }
        for shapeless in [
            json!({"custom_id": "e", "result": {"type": "succeeded"}}),
            json!({"custom_id": "f"}),
        ] {
            assert!(matches!(
                api.outcome(&shapeless),
                Err(BackendError::Decode(_))
            ));
        }
    }

    #[test]
    fn results_are_only_read_with_the_key_on_the_apis_own_host() {
        assert!(same_origin(
            "https://api.anthropic.com/v1/messages/batches/x/results",
            "https://api.anthropic.com"
        ));
        assert!(same_origin(
            "http://127.0.0.1:4000/r",
            "http://127.0.0.1:4000"
        ));
        assert!(!same_origin(
            "http://127.0.0.1:4001/r",
            "http://127.0.0.1:4000"
        ));
        assert!(!same_origin(
            "https://evil.example/r",
            "https://api.anthropic.com"
        ));
        assert!(!same_origin("", "https://api.anthropic.com"));
    }
}
