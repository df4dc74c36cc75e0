//! The providers' batch APIs as one interface: create a batch from requests named by custom ids,
//! ask how it stands, and fetch what each request got — OpenAI's Batch API (a JSONL file uploaded,
//! then `POST /batches`; results in an output and an error file) and Anthropic's Message Batches
//! (`POST /v1/messages/batches`; results as JSONL at the batch's `results_url`). This module owns
//! only the wire: which requests go together, when to poll and what to do with a failed item is the
//! runner's batch queue's (`runner::batch`).

mod anthropic;
mod openai;

pub use anthropic::AnthropicBatches;
pub use openai::OpenAiBatches;

use super::BackendError;
use serde_json::Value;

/// One request of a batch: its custom id and the body the provider's ordinary endpoint would get.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchItem {
    pub custom_id: String,
    pub body: Value,
}

/// A request as a backend prepares it for a batch: requests of one `group` can share a batch
/// (OpenAI's endpoint, such as `/v1/chat/completions`; Anthropic's beta header, or none).
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRequest {
    pub group: String,
    pub body: Value,
}

/// How a batch stands.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchState {
    /// Still validating or processing.
    Running,
    /// Processing ended (completed, expired or cancelled): results can be fetched from here.
    Ended(ResultsAt),
    /// The batch as a whole was refused (OpenAI's `failed`: its input did not validate).
    Failed(String),
}

/// Where an ended batch's results are.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultsAt {
    /// OpenAI's output and error files.
    Files(Vec<String>),
    /// Anthropic's `results_url`.
    Url(String),
}

/// What one request of a batch got: the provider's response body, as its ordinary endpoint would
/// have answered, or the reason there is none (classified like any HTTP failure, so the runner
/// retries expired and transient items and records the rest).
pub type BatchItemResult = Result<Value, BackendError>;

/// A provider's batch API.
#[derive(Debug, Clone)]
pub enum BatchApi {
    OpenAi(OpenAiBatches),
    Anthropic(AnthropicBatches),
}

impl BatchApi {
    /// The provider's name, as the run folder's batch journal records it.
    pub fn provider(&self) -> &'static str {
        match self {
            BatchApi::OpenAi(_) => "openai",
            BatchApi::Anthropic(_) => "anthropic",
        }
    }

    /// Submits `items` (one group) as a batch; its id.
    pub async fn create(&self, group: &str, items: &[BatchItem]) -> Result<String, BackendError> {
        match self {
            BatchApi::OpenAi(api) => api.create(group, items).await,
            BatchApi::Anthropic(api) => api.create(group, items).await,
        }
    }

    pub async fn state(&self, batch_id: &str) -> Result<BatchState, BackendError> {
        match self {
            BatchApi::OpenAi(api) => api.state(batch_id).await,
            BatchApi::Anthropic(api) => api.state(batch_id).await,
        }
    }

    /// Every result line of an ended batch, by custom id. A line that names no custom id cannot be
    /// given to any request and is left out (its request then has no result, which the queue
    /// retries); a line that names one but is in no documented shape is a decode error for it.
    pub async fn results(
        &self,
        batch_id: &str,
        at: &ResultsAt,
    ) -> Result<Vec<(String, BatchItemResult)>, BackendError> {
        let texts = match (self, at) {
            (BatchApi::OpenAi(api), ResultsAt::Files(files)) => {
                let mut texts = Vec::new();
                for file in files {
                    texts.push(api.file_content(file).await?);
                }
                texts
            }
            (BatchApi::Anthropic(api), ResultsAt::Url(url)) => {
                vec![api.results_text(batch_id, url).await?]
            }
            _ => {
                return Err(BackendError::Decode(format!(
                    "batch {batch_id}: results in a place this provider does not use"
                )));
            }
        };
        let mut outcomes = Vec::new();
        for text in texts {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let Ok(value) = serde_json::from_str::<Value>(line) else {
                    tracing::warn!(
                        batch = batch_id,
                        "a result line that is not JSON was skipped"
                    );
                    continue;
                };
                let Some(custom_id) = value["custom_id"].as_str() else {
                    tracing::warn!(
                        batch = batch_id,
                        "a result line without custom_id was skipped"
                    );
                    continue;
                };
                let outcome = match self {
                    BatchApi::OpenAi(api) => api.outcome(&value),
                    BatchApi::Anthropic(api) => api.outcome(&value),
                };
                outcomes.push((custom_id.to_string(), outcome));
            }
        }
        Ok(outcomes)
    }
}

/// Whether `id` can name a URL path segment as it is: 1 to 200 letters, digits, `_` and `-`. Every
/// id that goes into a path is checked by this, whether the provider just sent it or the run
/// folder's batch journal gave it back.
pub fn usable_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// An id the provider gave (a batch's, a file's), checked before it goes into a URL path or the
/// journal (`usable_id`).
fn checked_id(id: Option<&str>, what: &str, object: &Value) -> Result<String, BackendError> {
    match id {
        Some(id) if usable_id(id) => Ok(id.to_string()),
        _ => Err(BackendError::Decode(format!(
            "{what} has no usable id: {}",
            super::hosted::body_excerpt(&object.to_string())
        ))),
    }
}

/// The error type an item's failure names (`server_error`, `invalid_request_error`, …) read as a
/// class: request errors are the caller's and are recorded; anything else may pass on a retry.
fn item_error(kind: &str, message: &str) -> BackendError {
    let text = format!("{kind}: {message}");
    let refused = kind.starts_with("invalid_request")
        || kind == "not_found_error"
        || kind == "permission_error"
        || kind == "authentication_error"
        || kind == "request_too_large";
    if refused {
        BackendError::BadRequest(text)
    } else {
        BackendError::Transient(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_that_could_leave_their_path_segment_are_refused() {
        let object = json!({});
        for good in [
            "batch_abc123",
            "msgbatch_013Zva2CMHLNnXjNJJKqJ2EF",
            "file-XyZ",
        ] {
            assert_eq!(checked_id(Some(good), "b", &object).as_deref(), Ok(good));
        }
        for bad in ["", "../files", "a/b", "a?b", "id with space", "x%2F.."] {
            assert!(
                matches!(
                    checked_id(Some(bad), "b", &object),
                    Err(BackendError::Decode(_))
                ),
                "{bad}"
            );
        }
        assert!(checked_id(None, "b", &object).is_err());
        assert!(checked_id(Some(&"a".repeat(201)), "b", &object).is_err());
    }

    #[test]
    fn item_errors_are_refusals_or_worth_retrying() {
        assert!(matches!(
            item_error("invalid_request_error", "x"),
            BackendError::BadRequest(_)
        ));
        assert!(matches!(
            item_error("server_error", "x"),
            BackendError::Transient(_)
        ));
        assert!(matches!(
            item_error("overloaded_error", "x"),
            BackendError::Transient(_)
        ));
    }
}
