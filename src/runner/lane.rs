//! A backend lane: one backend with everything that stands between the trial loop and its API — the
//! response cache, request and token rate limits, a per-request timeout, and retries with jittered
//! exponential backoff that honour `Retry-After`. Retries are counted and recorded with the trial,
//! never hidden; a reply served from the cache costs no request and no money. What a provider sends
//! back leaves the lane with the backend's key redacted (`redact`) and its texts bounded
//! (`reply_bound`), before it is cached, logged or stored. Under `--batch` a hosted lane's turns go
//! through its batch queue instead (`batch`): no rate limit or per-request timeout, since the
//! provider paces a batch itself, and a failed item's retry is simply the next batch round.

use super::batch::{BatchQueue, custom_id};
use super::cache::ResponseCache;
use super::reply_bound::bound_reply;
use crate::backend::redact;
use crate::backend::{AnyBackend, BackendError, DEFAULT_SYSTEM_PROMPT, Reply, Turn};
use crate::hashing::splitmix64;
use crate::settings::Price;
use serde_json::json;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// How often and how long to try one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// The longest wait a server may ask for; a longer `Retry-After` ends the request instead.
    pub max_wait: Duration,
    pub timeout: Duration,
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0-based): exponential, capped, with "equal jitter" (half
    /// fixed, half random) so parallel trials that failed together do not retry together. A
    /// server's `Retry-After` is a floor.
    pub fn delay(&self, retry: u32, error: &BackendError, random: u64) -> Duration {
        let ceiling = self
            .base_delay
            .saturating_mul(1u32 << retry.min(16))
            .min(self.max_delay);
        let half = ceiling / 2;
        let jitter = Duration::from_nanos(random % (half.as_nanos() as u64 + 1));
        let backoff = half + jitter;
        match error {
            BackendError::RateLimited {
                retry_after_ms: Some(ms),
            } => backoff.max(Duration::from_millis(*ms)),
            _ => backoff,
        }
    }
}

/// Requests and tokens per minute, enforced by waiting.
#[derive(Debug)]
pub struct RateLimiter {
    requests_per_minute: Option<u32>,
    tokens_per_minute: Option<u32>,
    state: tokio::sync::Mutex<LimiterState>,
}

#[derive(Debug)]
struct LimiterState {
    next_request: Instant,
    /// Tokens spent in the last minute, by when.
    window: VecDeque<(Instant, u64)>,
}

impl RateLimiter {
    pub fn new(requests_per_minute: Option<u32>, tokens_per_minute: Option<u32>) -> RateLimiter {
        RateLimiter {
            requests_per_minute: requests_per_minute.filter(|n| *n > 0),
            tokens_per_minute: tokens_per_minute.filter(|n| *n > 0),
            state: tokio::sync::Mutex::new(LimiterState {
                next_request: Instant::now(),
                window: VecDeque::new(),
            }),
        }
    }

    /// Waits until a request expected to use `tokens` may start, and books it.
    pub async fn acquire(&self, tokens: u64) {
        if self.requests_per_minute.is_none() && self.tokens_per_minute.is_none() {
            return;
        }
        // The lock is held while waiting so requests start in the order they asked.
        let mut state = self.state.lock().await;
        if let Some(rpm) = self.requests_per_minute {
            let start = state.request_slot(Instant::now(), rpm);
            tokio::time::sleep_until(start).await;
        }
        if let Some(tpm) = self.tokens_per_minute {
            while let Some(retry_at) = state.token_room(Instant::now(), tokens, tpm) {
                tokio::time::sleep_until(retry_at).await;
            }
        }
    }

    /// Books tokens a reply used beyond what was estimated.
    pub async fn record_extra(&self, tokens: u64) {
        if self.tokens_per_minute.is_some() && tokens > 0 {
            self.state
                .lock()
                .await
                .window
                .push_back((Instant::now(), tokens));
        }
    }
}

impl LimiterState {
    /// When a request asked for at `now` may start under `rpm` requests a minute, evenly spaced;
    /// the slot is booked.
    fn request_slot(&mut self, now: Instant, rpm: u32) -> Instant {
        let start = self.next_request.max(now);
        self.next_request = start + Duration::from_secs_f64(60.0 / f64::from(rpm));
        start
    }

    /// Whether a request of `tokens` fits the last minute's window at `now` under `tpm` tokens a
    /// minute: `None` when it does (and it is booked), else when to look again (the oldest entry
    /// leaves the window then). A request larger than the whole budget waits for an empty window,
    /// then goes alone.
    fn token_room(&mut self, now: Instant, tokens: u64, tpm: u32) -> Option<Instant> {
        while self
            .window
            .front()
            .is_some_and(|(at, _)| now.duration_since(*at) >= Duration::from_secs(60))
        {
            self.window.pop_front();
        }
        let used: u64 = self.window.iter().map(|(_, t)| t).sum();
        if used == 0 || used + tokens <= u64::from(tpm) {
            self.window.push_back((now, tokens));
            return None;
        }
        let oldest = self.window.front().map_or(now, |(at, _)| *at);
        Some(oldest + Duration::from_secs(60))
    }
}

/// What one model reply took.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReplyCost {
    /// Requests sent (retries included; 0 when the cache answered).
    pub requests: u32,
    pub retries: u32,
    pub cached: bool,
    pub usd: f64,
}

/// One backend and its limits.
pub struct BackendLane {
    pub id: String,
    pub backend: AnyBackend,
    pub concurrency: usize,
    pub retry: RetryPolicy,
    pub limiter: RateLimiter,
    pub price: Option<Price>,
    pub cache: Option<Arc<ResponseCache>>,
    /// Under `--batch`, the queue this hosted lane's turns go through.
    pub batch: Option<Arc<BatchQueue>>,
    /// What must never be stored: the backend's API key.
    secrets: Vec<String>,
    /// Seeds the backoff jitter.
    jitter_state: AtomicU64,
}

impl BackendLane {
    pub fn new(
        id: String,
        backend: AnyBackend,
        concurrency: usize,
        retry: RetryPolicy,
        limiter: RateLimiter,
        price: Option<Price>,
        cache: Option<Arc<ResponseCache>>,
    ) -> BackendLane {
        let mut seed = [0u8; 8];
        // Jitter only spreads retries out; a failed draw just means less spread.
        let _ = getrandom::fill(&mut seed);
        let secrets = backend
            .hosted()
            .and_then(|config| config.api_key.clone())
            .into_iter()
            .collect();
        BackendLane {
            id,
            secrets,
            backend,
            concurrency,
            retry,
            limiter,
            price,
            cache,
            batch: None,
            jitter_state: AtomicU64::new(u64::from_le_bytes(seed)),
        }
    }

    /// The lane with its turns sent through a provider batch queue.
    pub fn with_batch(mut self, queue: Arc<BatchQueue>) -> BackendLane {
        self.batch = Some(queue);
        self
    }

    /// The backend's reply to one turn, through cache, limits, timeout and retries.
    pub async fn complete(&self, turn: Turn<'_>) -> (Result<Reply, BackendError>, ReplyCost) {
        let mut cost = ReplyCost::default();
        let hosted = self.backend.hosted();
        // Hosted requests are named by their content: the cache's key, and a batch item's id.
        let request_key = hosted
            .filter(|_| self.cache.is_some() || self.batch.is_some())
            .map(|config| {
                let mut request = json!({
                    "backend": self.backend.id(),
                    "config": config,
                    "system_prompt": DEFAULT_SYSTEM_PROMPT,
                    "messages": turn.messages,
                    "tools": turn.tools,
                });
                // Only later repeats get their own entries, so first trials keep the keys they had.
                if turn.repeat > 0 {
                    request["repeat"] = json!(turn.repeat);
                }
                if turn.deferred_tools {
                    request["deferred_tools"] = json!(true);
                }
                ResponseCache::key(&request)
            });
        let cache_key = request_key
            .as_ref()
            .filter(|_| self.cache.is_some())
            .cloned();
        if let (Some(cache), Some(key)) = (&self.cache, &cache_key)
            && let Some(reply) = cache.get(key)
        {
            cost.cached = true;
            return (Ok(reply), cost);
        }
        if let (Some(queue), Some(key)) = (&self.batch, &request_key)
            && let Some(request) = self.backend.batch_request(&turn)
        {
            return self
                .complete_in_batches(queue, custom_id(key), request, turn, cache_key)
                .await;
        }
        let estimate = if hosted.is_some() {
            estimate_tokens(&turn)
        } else {
            0
        };
        let mut retry = 0;
        loop {
            self.limiter.acquire(estimate).await;
            cost.requests += 1;
            let result =
                match tokio::time::timeout(self.retry.timeout, self.backend.complete(turn)).await {
                    Ok(result) => result,
                    Err(_) => Err(BackendError::Transient(format!(
                        "no reply within {:.1} s",
                        self.retry.timeout.as_secs_f64()
                    ))),
                };
            let result = match result {
                Ok(reply) => Ok(redact(bound_reply(reply), &self.secrets)),
                Err(error) => Err(redact(error, &self.secrets)),
            };
            match result {
                Ok(reply) => {
                    let used = reply.input_tokens + reply.output_tokens;
                    self.limiter
                        .record_extra(used.saturating_sub(estimate))
                        .await;
                    self.book(&reply, cache_key.as_deref(), &mut cost);
                    return (Ok(reply), cost);
                }
                Err(error) if retry < self.retry.max_retries && is_retryable(&error) => {
                    let random = splitmix64(self.jitter_state.fetch_add(1, Ordering::Relaxed));
                    let wait = self.retry.delay(retry, &error, random);
                    if let BackendError::RateLimited {
                        retry_after_ms: Some(ms),
                    } = &error
                        && Duration::from_millis(*ms) > self.retry.max_wait
                    {
                        // Waiting a day, or forever, would look like a hang; the trial is kept
                        // as an error (a later --resume runs it again) and the run goes on.
                        let refused = BackendError::Transient(format!(
                            "rate limited: the server asks to wait {}, longer than --max-retry-wait ({} s)",
                            describe_wait(Duration::from_millis(*ms)),
                            self.retry.max_wait.as_secs_f64()
                        ));
                        tracing::warn!(backend = %self.id, "{refused}");
                        return (Err(refused), cost);
                    }
                    tracing::info!(backend = %self.id, %error, ?wait, "retrying");
                    tokio::time::sleep(wait).await;
                    retry += 1;
                    cost.retries = retry;
                }
                Err(error) => return (Err(error), cost),
            }
        }
    }

    /// A turn through the lane's batch queue. A retryable failure (an expired or cancelled item, a
    /// server error, a batch that could not be created) goes into the next batch round, up to
    /// `--max-retries` times; the round itself is the wait.
    async fn complete_in_batches(
        &self,
        queue: &Arc<BatchQueue>,
        custom_id: String,
        request: crate::backend::BatchRequest,
        turn: Turn<'_>,
        cache_key: Option<String>,
    ) -> (Result<Reply, BackendError>, ReplyCost) {
        let mut cost = ReplyCost::default();
        let mut retry = 0;
        loop {
            cost.requests += 1;
            let result = queue
                .request(custom_id.clone(), request.clone())
                .await
                .and_then(|body| self.backend.parse_batch_reply(&turn, &body));
            match result {
                Ok(reply) => {
                    let reply = redact(bound_reply(reply), &self.secrets);
                    self.book(&reply, cache_key.as_deref(), &mut cost);
                    return (Ok(reply), cost);
                }
                Err(error) if retry < self.retry.max_retries && is_retryable(&error) => {
                    let error = redact(error, &self.secrets);
                    tracing::info!(backend = %self.id, %error, "submitting again in the next batch");
                    retry += 1;
                    cost.retries = retry;
                }
                Err(error) => return (Err(redact(error, &self.secrets)), cost),
            }
        }
    }

    /// Books a reply: its price (the batch price on a batch lane) and its cache entry.
    fn book(&self, reply: &Reply, cache_key: Option<&str>, cost: &mut ReplyCost) {
        cost.usd += self
            .price
            .map_or(0.0, |p| p.cost(reply.input_tokens, reply.output_tokens));
        if let (Some(cache), Some(key)) = (&self.cache, cache_key)
            && super::reply_bound::cacheable(reply)
        {
            cache.put(key, reply);
        }
    }
}

/// A wait as a person reads it: `86400 s`, or `longer than a century` for one nobody can serve.
fn describe_wait(wait: Duration) -> String {
    if wait > Duration::from_secs(100 * 365 * 86_400) {
        "longer than a century".to_string()
    } else {
        format!("{} s", wait.as_secs())
    }
}

fn is_retryable(error: &BackendError) -> bool {
    matches!(
        error,
        BackendError::RateLimited { .. } | BackendError::Transient(_)
    )
}

/// A rough count of a request's tokens (`tool_exposure::estimated_tokens`), for rate limiting only.
fn estimate_tokens(turn: &Turn<'_>) -> u64 {
    let bytes = serde_json::to_string(turn.messages).map_or(0, |s| s.len())
        + serde_json::to_string(turn.tools).map_or(0, |s| s.len());
    crate::tool_exposure::estimated_tokens(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: RetryPolicy = RetryPolicy {
        max_retries: 4,
        base_delay: Duration::from_millis(500),
        max_delay: Duration::from_secs(8),
        max_wait: Duration::from_secs(60),
        timeout: Duration::from_secs(1),
    };

    #[test]
    fn backoff_doubles_within_jitter_and_respects_retry_after() {
        let transient = BackendError::Transient("x".into());
        for retry in 0..6 {
            let ceiling = Duration::from_millis(500 * (1 << retry)).min(Duration::from_secs(8));
            for random in [0, 7, u64::MAX / 3, u64::MAX] {
                let wait = POLICY.delay(retry, &transient, random);
                assert!(wait >= ceiling / 2 && wait <= ceiling, "{retry}: {wait:?}");
            }
        }
        let limited = BackendError::RateLimited {
            retry_after_ms: Some(3_000),
        };
        assert!(POLICY.delay(0, &limited, 0) >= Duration::from_secs(3));
    }

    // The limiter's schedule, checked at given instants (no clock is paused or waited on).
    fn empty_state(now: Instant) -> LimiterState {
        LimiterState {
            next_request: now,
            window: VecDeque::new(),
        }
    }

    #[test]
    fn request_limit_spaces_requests_evenly() {
        let now = Instant::now();
        let mut state = empty_state(now);
        // 120 per minute: one each 500 ms, the first at once, asked for all at the same moment.
        let starts: Vec<Duration> = (0..5).map(|_| state.request_slot(now, 120) - now).collect();
        let expected: Vec<Duration> = (0..5).map(|i| Duration::from_millis(500 * i)).collect();
        assert_eq!(starts, expected);
        // A request asked for after the booked slots have passed starts when asked.
        let later = now + Duration::from_secs(10);
        assert_eq!(state.request_slot(later, 120), later);
    }

    #[test]
    fn token_limit_waits_for_the_window_to_clear() {
        let now = Instant::now();
        let mut state = empty_state(now);
        assert_eq!(state.token_room(now, 600, 1000), None);
        assert_eq!(state.token_room(now, 300, 1000), None);
        // 1,200 would exceed the minute's 1,000: look again when the first booking leaves the window.
        let minute = now + Duration::from_secs(60);
        assert_eq!(state.token_room(now, 300, 1000), Some(minute));
        assert_eq!(state.token_room(minute, 300, 1000), None);
        // Larger than the whole budget: goes once the window is empty, alone.
        let later = minute + Duration::from_secs(60);
        assert_eq!(state.token_room(later, 5000, 1000), None);
        assert_eq!(
            state.token_room(later, 1, 1000),
            Some(later + Duration::from_secs(60))
        );
    }
}
