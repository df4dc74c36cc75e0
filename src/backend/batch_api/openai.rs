//! OpenAI's Batch API (platform.openai.com/docs/guides/batch): the requests go up as a JSONL file
//! (`POST /files`, `purpose=batch`), one line `{custom_id, method, url, body}` each; `POST /batches`
//! starts the batch over that file for one endpoint with a 24-hour window; `GET /batches/{id}` tells
//! its status (`validating`, `in_progress`, `finalizing`, then `completed`, `expired`, `cancelled`
//! or `failed`); an ended batch's `output_file_id` holds the answered requests and its
//! `error_file_id` the others (`GET /files/{id}/content`), each line `{custom_id, response:
//! {status_code, body}, error}`. Requests the window closed on are in the error file with the code
//! `batch_expired`.

use super::{BatchItem, BatchItemResult, BatchState, ResultsAt, checked_id, item_error};
use crate::backend::BackendError;
use crate::backend::hosted::{HostedConfig, body_excerpt, error_for_status, send_json, send_text};
use serde_json::{Value, json};

#[derive(Debug, Clone)]
pub struct OpenAiBatches {
    config: HostedConfig,
    http: reqwest::Client,
}

impl OpenAiBatches {
    pub fn new(config: HostedConfig, http: reqwest::Client) -> OpenAiBatches {
        OpenAiBatches { config, http }
    }

    fn authorised(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.config.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// Uploads the input file, then creates the batch over it; the batch's id.
    pub async fn create(
        &self,
        endpoint: &str,
        items: &[BatchItem],
    ) -> Result<String, BackendError> {
        let mut jsonl = String::new();
        for item in items {
            let line = json!({"custom_id": item.custom_id, "method": "POST", "url": endpoint,
                "body": item.body});
            jsonl.push_str(&line.to_string());
            jsonl.push('\n');
        }
        let (content_type, body) = multipart_upload(&jsonl);
        let upload = self
            .http
            .post(format!("{}/files", self.config.base_url))
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body);
        let file = send_json(self.authorised(upload), &self.config.api_key_env).await?;
        let file_id = id_of(&file, "the uploaded file")?;
        let create = self
            .http
            .post(format!("{}/batches", self.config.base_url))
            .json(&json!({"input_file_id": file_id, "endpoint": endpoint,
                "completion_window": "24h", "metadata": {"created_by": "mcpick"}}));
        let batch = send_json(self.authorised(create), &self.config.api_key_env).await?;
        id_of(&batch, "the created batch")
    }

    pub async fn state(&self, batch_id: &str) -> Result<BatchState, BackendError> {
        let request = self
            .http
            .get(format!("{}/batches/{batch_id}", self.config.base_url));
        let batch = send_json(self.authorised(request), &self.config.api_key_env).await?;
        let status = batch["status"].as_str().unwrap_or_default();
        Ok(match status {
            "validating" | "in_progress" | "finalizing" | "cancelling" => BatchState::Running,
            "completed" | "expired" | "cancelled" => {
                let mut files = Vec::new();
                for field in ["output_file_id", "error_file_id"] {
                    match batch[field].as_str() {
                        None | Some("") => {}
                        id => files.push(checked_id(id, field, &batch)?),
                    }
                }
                BatchState::Ended(ResultsAt::Files(files))
            }
            "failed" => {
                let reasons: Vec<String> = batch["errors"]["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|e| {
                        let line = e["line"]
                            .as_u64()
                            .map(|l| format!(" (line {l})"))
                            .unwrap_or_default();
                        format!(
                            "{}{line}: {}",
                            e["code"].as_str().unwrap_or("error"),
                            e["message"].as_str().unwrap_or_default()
                        )
                    })
                    .collect();
                BatchState::Failed(if reasons.is_empty() {
                    "the batch failed validation".to_string()
                } else {
                    reasons.join("; ")
                })
            }
            other => {
                return Err(BackendError::Decode(format!(
                    "batch {batch_id} has the status {other:?}, which the Batch API does not document: {}",
                    body_excerpt(&batch.to_string())
                )));
            }
        })
    }

    pub async fn file_content(&self, file_id: &str) -> Result<String, BackendError> {
        let request = self
            .http
            .get(format!("{}/files/{file_id}/content", self.config.base_url));
        send_text(self.authorised(request), &self.config.api_key_env).await
    }

    /// One line of an output or error file.
    pub fn outcome(&self, line: &Value) -> BatchItemResult {
        let response = &line["response"];
        if let Some(status) = response["status_code"].as_u64() {
            let body = &response["body"];
            if (200..300).contains(&status) {
                return if body.is_object() {
                    Ok(body.clone())
                } else {
                    Err(BackendError::Decode(format!(
                        "a batch result whose response.body is not an object: {}",
                        body_excerpt(&body.to_string())
                    )))
                };
            }
            let error = &body["error"];
            let message = match (error["type"].as_str(), error["message"].as_str()) {
                (Some(kind), Some(message)) => format!("{kind}: {message}"),
                (None, Some(message)) => message.to_string(),
                _ => body.to_string(),
            };
            let status = u16::try_from(status).unwrap_or(500);
            return Err(error_for_status(
                status,
                None,
                &message,
                &self.config.api_key_env,
            ));
        }
        let error = &line["error"];
        match error["code"].as_str() {
            Some("batch_expired") => Err(BackendError::Transient(
                "the batch's 24-hour window closed before this request ran (batch_expired)".into(),
            )),
            Some("batch_cancelled") => Err(BackendError::Transient(
                "the batch was cancelled before this request ran (batch_cancelled)".into(),
            )),
            Some(code) => Err(item_error(
                code,
                error["message"].as_str().unwrap_or_default(),
            )),
            None => Err(BackendError::Decode(format!(
                "a batch result with neither a response nor an error code: {}",
                body_excerpt(&line.to_string())
            ))),
        }
    }
}

fn id_of(object: &Value, what: &str) -> Result<String, BackendError> {
    checked_id(object["id"].as_str(), what, object)
}

/// A `multipart/form-data` body (RFC 7578) with the two fields the Files API takes: `purpose` and
/// the `file`. Its content type, with the boundary, and the body.
fn multipart_upload(jsonl: &str) -> (String, Vec<u8>) {
    // A boundary the content cannot hold: JSON lines never contain a bare CRLF.
    let boundary = format!("mcpick-batch-{:016x}", crate::hashing::fnv1a(jsonl));
    let mut body = Vec::with_capacity(jsonl.len() + 400);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"mcpick-batch.jsonl\"\r\n\
             Content-Type: application/jsonl\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(jsonl.as_bytes());
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api() -> OpenAiBatches {
        let config = HostedConfig::new(
            "m",
            Some("http://127.0.0.1:1/v1"),
            "https://api.openai.com/v1",
            Some("MCPICK_NO_SUCH_KEY"),
            "K",
        )
        .unwrap();
        OpenAiBatches::new(config, reqwest::Client::new())
    }

    #[test]
    fn result_lines_are_read_as_documented() {
        let api = api();
        let ok = json!({"id": "batch_req_1", "custom_id": "a", "response": {"status_code": 200,
            "request_id": "r", "body": {"choices": []}}, "error": null});
        assert_eq!(api.outcome(&ok), Ok(json!({"choices": []})));
        let refused = json!({"custom_id": "b", "response": {"status_code": 400,
            "body": {"error": {"message": "bad tools"}}}, "error": null});
        assert!(
            matches!(api.outcome(&refused), Err(BackendError::BadRequest(m)) if m.contains("bad tools"))
        );
        let failed = json!({"custom_id": "c", "response": {"status_code": 500, "body": {}}});
        assert!(matches!(
            api.outcome(&failed),
            Err(BackendError::Transient(_))
        ));
        let expired = json!({"custom_id": "d", "response": null, "error": {"code": "batch_expired",
            "message": "This request could not be executed before the completion window expired."}});
        assert!(
            matches!(api.outcome(&expired), Err(BackendError::Transient(m)) if m.contains("batch_expired"))
        );
        let shapeless = json!({"custom_id": "e", "response": {"status_code": 200, "body": "hi"}});
        assert!(matches!(
            api.outcome(&shapeless),
            Err(BackendError::Decode(_))
        ));
        assert!(matches!(
            api.outcome(&json!({"custom_id": "f"})),
            Err(BackendError::Decode(_))
        ));
    }

    #[test]
    fn the_upload_is_a_multipart_form_with_purpose_and_file() {
        let (content_type, body) = multipart_upload("{\"a\":1}\n");
        let boundary = content_type.split("boundary=").nth(1).unwrap();
        let text = String::from_utf8(body).unwrap();
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.contains("name=\"purpose\"\r\n\r\nbatch\r\n"));
        assert!(text.contains("filename=\"mcpick-batch.jsonl\""));
        assert!(text.contains("\r\n\r\n{\"a\":1}\n\r\n"));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    }
}
