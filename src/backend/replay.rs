//! `replay:RUN_DIR[#BACKEND]`: answers with the replies a backend gave in a recorded run, turn by
//! turn, read from that run's `trials.jsonl`. Reruns and CI get a real model's behaviour without a
//! key; the tool results are produced afresh by our server, so a changed toolset shows up. A task the
//! recording lacks is an error for that trial, not a silent abstention.

use super::{BackendError, ChatMessage, Reply, Turn};
use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct ReplayBackend {
    /// The recorded backend's id, e.g. `openai:gpt-4o-mini`.
    pub recorded: String,
    pub source: String,
    /// (suite, task) → the recorded trial.
    trials: HashMap<(String, String), Recording>,
}

/// What one recorded trial's backend did.
#[derive(Debug, Clone)]
struct Recording {
    /// The assistant replies, in order.
    replies: Vec<Reply>,
    /// How the backend failed after its last reply, if it did.
    error: Option<String>,
}

#[derive(serde::Deserialize)]
struct RecordedTrial {
    suite: String,
    task: String,
    backend: String,
    transcript: Vec<ChatMessage>,
    #[serde(default)]
    backend_error: Option<String>,
}

impl ReplayBackend {
    /// Loads `folder/trials.jsonl`; `backend` picks one when the run has several.
    pub fn load(folder: &Path, backend: Option<&str>) -> Result<ReplayBackend, String> {
        let path = folder.join("trials.jsonl");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut by_backend: HashMap<String, HashMap<(String, String), Recording>> = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let trial: RecordedTrial = serde_json::from_str(line).map_err(|e| {
                format!("{}:{}: not a trial record: {e}", path.display(), number + 1)
            })?;
            let replies = trial
                .transcript
                .into_iter()
                .filter_map(|m| match m {
                    ChatMessage::Assistant {
                        text,
                        calls,
                        searches,
                    } => Some(Reply {
                        text,
                        calls,
                        searches,
                        ..Reply::default()
                    }),
                    _ => None,
                })
                .collect();
            by_backend.entry(trial.backend).or_default().insert(
                (trial.suite, trial.task),
                Recording {
                    replies,
                    error: trial.backend_error,
                },
            );
        }
        let mut recorded: Vec<&String> = by_backend.keys().collect();
        recorded.sort();
        let chosen = match backend {
            Some(b) => b.to_string(),
            None if recorded.len() == 1 => recorded[0].clone(),
            None => {
                return Err(format!(
                    "{} holds trials of {} backends; pick one with replay:{}#BACKEND (one of: {})",
                    path.display(),
                    recorded.len(),
                    folder.display(),
                    recorded
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        };
        let trials = by_backend
            .remove(&chosen)
            .ok_or_else(|| format!("{} has no trials of backend {chosen:?}", path.display()))?;
        Ok(ReplayBackend {
            recorded: chosen,
            source: folder.display().to_string(),
            trials,
        })
    }

    pub fn complete(&self, turn: Turn<'_>) -> Result<Reply, BackendError> {
        let key = (turn.trial.suite.to_string(), turn.trial.task.to_string());
        let recorded = self.trials.get(&key).ok_or_else(|| {
            BackendError::BadRequest(format!(
                "the recorded run {} has no trial for task {} of suite {}",
                self.source, turn.trial.task, turn.trial.suite
            ))
        })?;
        // The recording holds the task's own assistant messages too, at the same positions, so the
        // count of assistant messages so far indexes the next reply.
        let given = turn
            .messages
            .iter()
            .filter(|m| matches!(m, ChatMessage::Assistant { .. }))
            .count();
        match (recorded.replies.get(given), &recorded.error) {
            (Some(reply), _) => Ok(reply.clone()),
            // The recorded backend failed at this point: so does the replay (not retried).
            (None, Some(error)) => Err(BackendError::BadRequest(format!(
                "the recorded trial failed here: {error}"
            ))),
            (None, None) => Ok(Reply {
                text: Some("(the recording ends here)".into()),
                ..Reply::default()
            }),
        }
    }
}
