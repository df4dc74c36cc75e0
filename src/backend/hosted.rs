//! What the HTTP model backends share: where to send requests and which environment variable holds
//! the key, the system prompt every model gets when a task brings none, and the reading of HTTP
//! failures into `BackendError` classes (the runner retries only the classes worth retrying).
//! Keys are read from the environment when a backend is built and never written anywhere.

use super::BackendError;
use crate::observation::CallArguments;
use serde::Serialize;
use std::time::{Duration, SystemTime};

/// The system message sent when a task has none. Some OpenAI-compatible servers (llama.cpp's
/// `chatml-function-calling`) only put the tools into the prompt when a system message exists, and
/// every hosted model should see the same instruction, so it is always sent and recorded in the
/// manifest.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a helpful assistant with access to tools. When a tool fits the user's request, call it with the arguments the request gives. When no tool fits, answer in plain text without calling any tool.";

/// The default system prompt, stating the date the suite's tools answer as of when it has one.
pub fn default_system_prompt(today: Option<&str>) -> String {
    match today {
        Some(date) => format!("{DEFAULT_SYSTEM_PROMPT} Today is {date}."),
        None => DEFAULT_SYSTEM_PROMPT.to_string(),
    }
}

/// How to reach one hosted model.
#[derive(Debug, Clone, Serialize)]
pub struct HostedConfig {
    pub model: String,
    pub base_url: String,
    /// The environment variable the key was read from (named in auth errors).
    pub api_key_env: String,
    #[serde(skip)]
    pub api_key: Option<String>,
    pub max_tokens: u32,
    pub temperature: f64,
}

impl HostedConfig {
    /// Reads the key from `api_key_env`. A provider's own endpoint needs one; a custom `base_url`
    /// (a local server) may run without.
    pub fn new(
        model: &str,
        base_url: Option<&str>,
        default_base_url: &str,
        api_key_env: Option<&str>,
        default_api_key_env: &str,
    ) -> Result<HostedConfig, String> {
        if model.trim().is_empty() {
            return Err("name a model after the colon, e.g. openai:gpt-4o-mini".into());
        }
        let base_url = base_url
            .unwrap_or(default_base_url)
            .trim_end_matches('/')
            .to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(format!(
                "the base URL {base_url:?} must start with http:// or https://"
            ));
        }
        let api_key_env = api_key_env.unwrap_or(default_api_key_env).to_string();
        let api_key = std::env::var(&api_key_env).ok().filter(|k| !k.is_empty());
        if let Some(key) = &api_key
            && !key.bytes().all(|b| (0x21..0x7f).contains(&b))
        {
            return Err(format!(
                "the key in ${api_key_env} contains spaces or control characters; check the variable"
            ));
        }
        if api_key.is_none() && base_url == default_base_url.trim_end_matches('/') {
            return Err(format!(
                "no API key: set the environment variable {api_key_env} (or name another with --api-key-env)"
            ));
        }
        Ok(HostedConfig {
            model: model.to_string(),
            base_url,
            api_key_env,
            api_key,
            max_tokens: 1024,
            temperature: 0.0,
        })
    }
}

/// Classifies a failed HTTP answer.
pub fn error_for_status(
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
    api_key_env: &str,
) -> BackendError {
    let message = format!("HTTP {status}: {}", body_excerpt(body));
    match status {
        401 | 403 => BackendError::Auth {
            env_var: api_key_env.to_string(),
            detail: message,
        },
        429 => BackendError::RateLimited {
            retry_after_ms: retry_after.map(wait_millis),
        },
        408 | 409 | 500..=599 => BackendError::Transient(message),
        _ => BackendError::BadRequest(message),
    }
}

/// Sends a request to a provider and reads its JSON reply: a connection failure or a cut-off body
/// is transient, a status outside 2xx is classified by `error_for_status` (Anthropic's 529
/// "overloaded" as the 503 it means), a body that is not JSON is a decode error.
pub async fn send_json(
    request: reqwest::RequestBuilder,
    api_key_env: &str,
) -> Result<serde_json::Value, BackendError> {
    let body = send_text(request, api_key_env).await?;
    serde_json::from_str(&body)
        .map_err(|e| BackendError::Decode(format!("the reply is not JSON: {e}")))
}

/// Sends a request to a provider and reads its reply as text (a batch's JSONL results), with the
/// failures classified as `send_json` does.
pub async fn send_text(
    request: reqwest::RequestBuilder,
    api_key_env: &str,
) -> Result<String, BackendError> {
    let response = request.send().await.map_err(|e| {
        BackendError::Transient(if e.is_connect() {
            format!("cannot connect: {e}")
        } else {
            format!("HTTP failure: {e}")
        })
    })?;
    let status = response.status().as_u16();
    let wait = retry_after(response.headers());
    let body = response
        .text()
        .await
        .map_err(|e| BackendError::Transient(format!("the reply was cut off: {e}")))?;
    if !(200..300).contains(&status) {
        let status = if status == 529 { 503 } else { status };
        return Err(error_for_status(status, wait, &body, api_key_env));
    }
    Ok(body)
}

/// The wait a server asks for: `retry-after-ms` (OpenAI), or `Retry-After` in seconds or as an
/// HTTP date (RFC 9110 §10.2.3).
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return wait_of_seconds(ms / 1000.0);
    }
    let value = text("retry-after")?.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return wait_of_seconds(seconds);
    }
    let at = httpdate_to_system_time(value)?;
    Some(at.duration_since(SystemTime::now()).unwrap_or_default())
}

/// A wait a server gave in seconds: none when it is negative or not a number; one beyond what a
/// `Duration` holds (`1e300`, `inf`) saturates, and the runner refuses to wait that long anyway.
fn wait_of_seconds(seconds: f64) -> Option<Duration> {
    (seconds >= 0.0).then(|| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
}

/// A wait in whole milliseconds, saturating (`as u64` would wrap a huge one to a short wait).
pub fn wait_millis(wait: Duration) -> u64 {
    u64::try_from(wait.as_millis()).unwrap_or(u64::MAX)
}

/// Parses an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`.
fn httpdate_to_system_time(value: &str) -> Option<SystemTime> {
    let parts: Vec<&str> = value.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as i64
        + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    // An IMF-fixdate has a four-digit year; bounding it keeps the arithmetic below from overflowing.
    if !(1..=9999).contains(&year) || !(1..=31).contains(&day) {
        return None;
    }
    let hms: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    // Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + h * 3600 + m * 60 + s;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(u64::try_from(seconds).ok()?))
}

/// Arguments as a model sent them: a JSON object (or a string holding one) parses; anything else is
/// kept verbatim as malformed, to be scored `malformed_call`.
pub fn parse_arguments(value: &serde_json::Value) -> CallArguments {
    match value {
        serde_json::Value::Object(map) => CallArguments::Parsed(map.clone()),
        serde_json::Value::String(text) if text.trim().is_empty() => {
            // OpenAI sends "" for a call without arguments.
            CallArguments::Parsed(serde_json::Map::new())
        }
        serde_json::Value::String(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => CallArguments::Parsed(map),
            Ok(other) => CallArguments::Malformed {
                raw: text.clone(),
                reason: format!("a JSON {} where an object was expected", json_kind(&other)),
            },
            Err(e) => CallArguments::Malformed {
                raw: text.clone(),
                reason: format!("not JSON: {e}"),
            },
        },
        other => CallArguments::Malformed {
            raw: other.to_string(),
            reason: format!("a JSON {} where an object was expected", json_kind(other)),
        },
    }
}

/// Arguments as they go back to a provider in the conversation history.
pub fn arguments_text(arguments: &CallArguments) -> String {
    match arguments {
        CallArguments::Parsed(map) => serde_json::to_string(map).unwrap_or_default(),
        CallArguments::Malformed { raw, .. } => raw.clone(),
    }
}

/// The JSON type of a value, as error messages name it.
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// The start of a response body, for error messages (bodies can be huge HTML pages).
pub fn body_excerpt(body: &str) -> String {
    let flat: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};
    use serde_json::json;

    #[test]
    fn retry_after_reads_seconds_milliseconds_and_dates() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
        let mut dated = HeaderMap::new();
        dated.insert(
            "retry-after",
            HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"),
        );
        // A date in the past means "now".
        assert_eq!(retry_after(&dated), Some(Duration::ZERO));
        assert_eq!(
            httpdate_to_system_time("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777))
        );
        dated.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&dated), None);
    }

    #[test]
    fn waits_a_duration_cannot_hold_saturate_and_garbage_is_no_wait() {
        let wait = |name: &'static str, value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(name, HeaderValue::from_static(value));
            retry_after(&headers)
        };
        for huge in ["1e300", "inf", "18446744073709551616"] {
            assert_eq!(wait("retry-after", huge), Some(Duration::MAX), "{huge}");
        }
        for huge in ["1e300", "inf", "1e25"] {
            assert_eq!(wait("retry-after-ms", huge), Some(Duration::MAX), "{huge}");
        }
        for garbage in [
            "-1",
            "NaN",
            "-inf",
            "1,5",
            "Sun, 06 Nov 99999999999999999 08:49:37 GMT",
        ] {
            assert_eq!(wait("retry-after", garbage), None, "{garbage}");
        }
        let far = wait("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT").unwrap();
        assert!(far > Duration::from_secs(200 * 365 * 86_400));
        assert_eq!(wait_millis(Duration::MAX), u64::MAX);
        assert_eq!(
            error_for_status(429, Some(Duration::MAX), "", "K"),
            BackendError::RateLimited {
                retry_after_ms: Some(u64::MAX)
            }
        );
    }

    #[test]
    fn statuses_are_classified() {
        let env = "OPENAI_API_KEY";
        assert!(matches!(
            error_for_status(401, None, "", env),
            BackendError::Auth { env_var, .. } if env_var == env
        ));
        assert_eq!(
            error_for_status(429, Some(Duration::from_secs(3)), "", env),
            BackendError::RateLimited {
                retry_after_ms: Some(3000)
            }
        );
        assert!(matches!(
            error_for_status(503, None, "", env),
            BackendError::Transient(_)
        ));
        assert!(matches!(
            error_for_status(400, None, "bad", env),
            BackendError::BadRequest(m) if m.contains("bad")
        ));
    }

    #[test]
    fn arguments_parse_or_are_kept_as_malformed() {
        assert_eq!(
            parse_arguments(&json!("{\"city\": \"Oslo\"}")),
            CallArguments::Parsed(json!({"city": "Oslo"}).as_object().unwrap().clone())
        );
        assert_eq!(
            parse_arguments(&json!("")),
            CallArguments::Parsed(Default::default())
        );
        assert!(matches!(
            parse_arguments(&json!("{\"city\": ")),
            CallArguments::Malformed { raw, .. } if raw == "{\"city\": "
        ));
        assert!(matches!(
            parse_arguments(&json!("[1]")),
            CallArguments::Malformed { reason, .. } if reason.contains("array")
        ));
        assert!(matches!(
            parse_arguments(&json!(7)),
            CallArguments::Malformed { .. }
        ));
    }
}
