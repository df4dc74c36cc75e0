//! Provider batch mode (`--batch`): a lane's turns go to the provider's batch API instead of its
//! ordinary endpoint, at half the price. Each lane has a queue: a trial's turn waits in it while
//! others arrive (until none has come for a moment, or the batch is full), then the queue submits
//! them as one batch per group, records the batch in the run folder's journal, polls it with a
//! growing interval, and hands each result to the turn that asked. Multi-turn trials simply ask
//! again for their next turn, which goes in a later round. Requests are named by a hash of their
//! content, so a resumed run finds a request already submitted in the journal and polls that batch
//! rather than paying for it twice; a request whose result was a failure (expired, cancelled, a
//! server error) is forgotten, so the lane's retry submits it afresh. Nothing is lost: every
//! request ends with its result, or with an error the lane records.

mod journal;

pub use journal::{BatchJournal, SubmittedBatch};

use crate::backend::redact;
use crate::backend::{
    BackendError, BatchApi, BatchItem, BatchItemResult, BatchRequest, BatchState,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// How a lane batches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchSettings {
    /// The most requests one batch holds (and the trials the lane keeps in flight).
    pub max_requests: usize,
    /// The first wait before polling a batch; later waits grow by half, to `max_poll`.
    pub poll: Duration,
    pub max_poll: Duration,
    /// A batch is submitted once no request has joined it for this long.
    pub gather: Duration,
    /// The longest one call to the batch API may take.
    pub call_timeout: Duration,
}

impl BatchSettings {
    pub fn new(max_requests: usize, poll: Duration, call_timeout: Duration) -> BatchSettings {
        BatchSettings {
            max_requests: max_requests.max(1),
            poll,
            max_poll: poll.max(Duration::from_secs(300)),
            // A second covers the moment between one turn's result and the next turn (tools run
            // locally), so a round's requests go out together; it is nothing beside a batch's wait.
            gather: Duration::from_secs(1),
            call_timeout,
        }
    }
}

/// One lane's batch queue.
pub struct BatchQueue {
    backend: String,
    api: BatchApi,
    settings: BatchSettings,
    journal: OnceLock<Arc<BatchJournal>>,
    state: Mutex<QueueState>,
    /// The backend's key: what the provider sends back is logged without it.
    secrets: Vec<String>,
}

#[derive(Default)]
struct QueueState {
    /// Requests waiting to be submitted, with their group.
    pending: Vec<(String, BatchItem)>,
    /// Who waits for each custom id.
    waiters: HashMap<String, Vec<oneshot::Sender<BatchItemResult>>>,
    /// Custom ids submitted and not yet answered, with their batch.
    submitted: HashMap<String, String>,
    /// Results that came while nobody waited for them, kept for the first to ask: a resumed run
    /// polls a batch its trials then ask about one by one. A failure kept so goes to the asker's
    /// retry, not the queue, to decide whether to submit again.
    unclaimed: HashMap<String, BatchItemResult>,
    /// Batches being polled.
    polling: HashSet<String>,
    gathering: bool,
    last_added: Option<Instant>,
}

impl BatchQueue {
    pub fn new(
        backend: String,
        api: BatchApi,
        settings: BatchSettings,
        secrets: Vec<String>,
    ) -> Arc<BatchQueue> {
        Arc::new(BatchQueue {
            backend,
            api,
            settings,
            journal: OnceLock::new(),
            state: Mutex::new(QueueState::default()),
            secrets,
        })
    }

    /// An error as it may be logged: with the key redacted.
    fn loggable(&self, error: &BackendError) -> BackendError {
        redact(error.clone(), &self.secrets)
    }

    /// Ties the queue to the run folder's journal and takes over what it lists for this backend:
    /// those requests are polled for, not submitted again.
    pub fn start(&self, journal: Arc<BatchJournal>, earlier: &[SubmittedBatch]) {
        let mut state = self.lock();
        for batch in earlier.iter().filter(|b| b.backend == self.backend) {
            for id in &batch.custom_ids {
                state.submitted.insert(id.clone(), batch.batch_id.clone());
            }
        }
        drop(state);
        let _ = self.journal.set(journal);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        // A panic while holding the lock leaves plain maps behind, still consistent enough.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The provider's response body for one request, once its batch has ended.
    pub async fn request(
        self: &Arc<Self>,
        custom_id: String,
        request: BatchRequest,
    ) -> BatchItemResult {
        let receiver = {
            let mut state = self.lock();
            if let Some(outcome) = state.unclaimed.remove(&custom_id) {
                return outcome;
            }
            let (sender, receiver) = oneshot::channel();
            let first = !state.waiters.contains_key(&custom_id);
            state
                .waiters
                .entry(custom_id.clone())
                .or_default()
                .push(sender);
            if let Some(batch) = state.submitted.get(&custom_id).cloned() {
                if state.polling.insert(batch.clone()) {
                    tokio::spawn(Arc::clone(self).poll(batch));
                }
            } else if first {
                let item = BatchItem {
                    custom_id,
                    body: request.body,
                };
                state.pending.push((request.group, item));
                state.last_added = Some(Instant::now());
                if !state.gathering {
                    state.gathering = true;
                    tokio::spawn(Arc::clone(self).gather());
                }
            }
            receiver
        };
        receiver.await.unwrap_or_else(|_| {
            Err(BackendError::Transient(
                "the batch queue stopped before the result came".into(),
            ))
        })
    }

    /// Waits for requests to stop arriving (or a full batch, or ten gathering periods), then
    /// submits what has gathered.
    async fn gather(self: Arc<Self>) {
        let mut started = Instant::now();
        loop {
            tokio::time::sleep(self.settings.gather).await;
            let (items, more) = {
                let mut state = self.lock();
                let quiet = state
                    .last_added
                    .is_none_or(|at| at.elapsed() >= self.settings.gather);
                let full = state.pending.len() >= self.settings.max_requests;
                let long = started.elapsed() >= self.settings.gather * 10;
                if !(quiet || full || long) {
                    continue;
                }
                let take = state.pending.len().min(self.settings.max_requests);
                let items: Vec<(String, BatchItem)> = state.pending.drain(..take).collect();
                // This task goes on only for what is left; a request arriving once it has let go
                // starts a new one.
                let more = !state.pending.is_empty();
                state.gathering = more;
                (items, more)
            };
            if !items.is_empty() {
                self.submit(items).await;
            }
            if !more {
                return;
            }
            started = Instant::now();
        }
    }

    /// Submits gathered requests, one batch per group, and starts polling each batch.
    async fn submit(self: &Arc<Self>, items: Vec<(String, BatchItem)>) {
        let mut groups: BTreeMap<String, Vec<BatchItem>> = BTreeMap::new();
        for (group, item) in items {
            groups.entry(group).or_default().push(item);
        }
        for (group, items) in groups {
            let ids: Vec<String> = items.iter().map(|i| i.custom_id.clone()).collect();
            let created = self.call(self.api.create(&group, &items)).await;
            let batch_id = match created {
                Ok(id) => id,
                Err(error) => {
                    tracing::warn!(backend = %self.backend, error = %self.loggable(&error), "a batch could not be created");
                    self.answer_all(&ids, &Err(error));
                    continue;
                }
            };
            tracing::info!(backend = %self.backend, batch = %batch_id, requests = ids.len(), "batch submitted");
            if let Some(journal) = self.journal.get() {
                let record = SubmittedBatch {
                    backend: self.backend.clone(),
                    provider: self.api.provider().into(),
                    batch_id: batch_id.clone(),
                    group,
                    custom_ids: ids.clone(),
                    submitted_at: std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs()),
                };
                if let Err(e) = journal.record(&record) {
                    tracing::warn!(journal = %journal.path().display(), %e,
                        "batch {batch_id} is not in the journal: a resumed run would submit its requests again");
                }
            }
            let mut state = self.lock();
            for id in ids {
                state.submitted.insert(id, batch_id.clone());
            }
            state.polling.insert(batch_id.clone());
            drop(state);
            tokio::spawn(Arc::clone(self).poll(batch_id));
        }
    }

    /// Polls one batch until it ends, then hands out its results. Failures to reach the API are
    /// retried (the batch is still there); a batch that cannot be read at all, or that failed as a
    /// whole, fails its requests, which the lane may submit again.
    async fn poll(self: Arc<Self>, batch_id: String) {
        let mut wait = self.settings.poll;
        loop {
            tokio::time::sleep(wait).await;
            wait = wait.mul_f64(1.5).min(self.settings.max_poll);
            let state = match self.call(self.api.state(&batch_id)).await {
                Ok(state) => state,
                Err(error @ (BackendError::Transient(_) | BackendError::RateLimited { .. })) => {
                    tracing::warn!(backend = %self.backend, batch = %batch_id, error = %self.loggable(&error), "polling again later");
                    continue;
                }
                Err(BackendError::BadRequest(reason)) => {
                    let error = BackendError::Transient(format!(
                        "batch {batch_id} cannot be read ({reason}); its requests go in a new batch"
                    ));
                    return self.fail_batch(&batch_id, error);
                }
                Err(error) => return self.fail_batch(&batch_id, error),
            };
            let at = match state {
                BatchState::Running => continue,
                BatchState::Failed(reason) => {
                    let error =
                        BackendError::BadRequest(format!("batch {batch_id} failed: {reason}"));
                    return self.fail_batch(&batch_id, error);
                }
                BatchState::Ended(at) => at,
            };
            match self.call(self.api.results(&batch_id, &at)).await {
                Ok(outcomes) => return self.deliver(&batch_id, outcomes),
                Err(error @ (BackendError::Transient(_) | BackendError::RateLimited { .. })) => {
                    tracing::warn!(backend = %self.backend, batch = %batch_id, error = %self.loggable(&error), "fetching the results again later");
                }
                Err(error) => return self.fail_batch(&batch_id, error),
            }
        }
    }

    /// One call to the batch API, bounded by the run's timeout.
    async fn call<T>(
        &self,
        call: impl std::future::Future<Output = Result<T, BackendError>>,
    ) -> Result<T, BackendError> {
        tokio::time::timeout(self.settings.call_timeout, call)
            .await
            .unwrap_or_else(|_| {
                Err(BackendError::Transient(format!(
                    "the batch API did not answer within {:.1} s",
                    self.settings.call_timeout.as_secs_f64()
                )))
            })
    }

    /// Hands an ended batch's results to their requests; a request of the batch without a result
    /// line gets a transient error, so it is submitted again rather than lost.
    fn deliver(&self, batch_id: &str, outcomes: Vec<(String, BatchItemResult)>) {
        let mut state = self.lock();
        state.polling.remove(batch_id);
        for (id, outcome) in outcomes {
            // A line for a request that has since gone into a later batch is the older answer.
            if state.submitted.get(&id).map(String::as_str) != Some(batch_id) {
                continue;
            }
            state.submitted.remove(&id);
            hand_out(&mut state, &id, &outcome);
        }
        let missing: Vec<String> = state
            .submitted
            .iter()
            .filter(|(_, batch)| batch.as_str() == batch_id)
            .map(|(id, _)| id.clone())
            .collect();
        drop(state);
        let error = BackendError::Transient(format!(
            "batch {batch_id} ended without a result for this request"
        ));
        self.answer_all(&missing, &Err(error));
    }

    /// Fails every request still waiting on `batch_id`.
    fn fail_batch(&self, batch_id: &str, error: BackendError) {
        tracing::warn!(backend = %self.backend, batch = %batch_id, error = %self.loggable(&error), "batch abandoned");
        let ids: Vec<String> = {
            let mut state = self.lock();
            state.polling.remove(batch_id);
            state
                .submitted
                .iter()
                .filter(|(_, batch)| batch.as_str() == batch_id)
                .map(|(id, _)| id.clone())
                .collect()
        };
        self.answer_all(&ids, &Err(error));
    }

    /// Gives `outcome` to everyone waiting for `ids`, and forgets where they were submitted.
    fn answer_all(&self, ids: &[String], outcome: &BatchItemResult) {
        let mut state = self.lock();
        for id in ids {
            state.submitted.remove(id);
            hand_out(&mut state, id, outcome);
        }
    }
}

/// Gives `outcome` to everyone waiting for `id`; one nobody waits for is kept for the first to ask.
fn hand_out(state: &mut QueueState, id: &str, outcome: &BatchItemResult) {
    let waiters = state.waiters.remove(id).unwrap_or_default();
    if waiters.is_empty() {
        state.unclaimed.insert(id.to_string(), outcome.clone());
        return;
    }
    for waiter in waiters {
        let _ = waiter.send(outcome.clone());
    }
}

/// A request's custom id: its content hash (the response cache's key), shortened to what both
/// providers accept (`^[a-zA-Z0-9_-]{1,64}$`).
pub fn custom_id(request_key: &str) -> String {
    let hex: String = request_key
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(40)
        .collect();
    format!("mcpick-{hex}")
}
