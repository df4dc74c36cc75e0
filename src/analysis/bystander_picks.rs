//! Who takes the suite's picks when bystander servers are shown beside it (`--bystanders`): per
//! backend and bystander server, how many trials whose task expects a call went first to one of
//! that server's tools, how many no-call tasks it drew a false call from, and which of its tools
//! did it. The servers' tools are known by the names the trials' server listed them under (the
//! manifest's `BystanderRecord`s, per suite). Pure: the records and trials come in as arguments.

use crate::record::{BystanderRecord, StoredTrial};
use crate::score::{Interval, wilson_interval};
use std::collections::{BTreeMap, BTreeSet};

/// One bystander server's take from one backend's trials.
#[derive(Debug, Clone, PartialEq)]
pub struct BystanderTake {
    pub backend: String,
    pub server: String,
    /// Its tools shown beside the suite (the largest count over the suites, which all show them).
    pub tools_shown: usize,
    /// Scored trials whose task expects a call.
    pub call_trials: u64,
    /// Of those, the ones whose first call went to this server's tools.
    pub picks_taken: u64,
    /// `picks_taken` of `call_trials` with its Wilson 95% interval; `None` when a task ran more
    /// than once (repeats), where the trials are not independent.
    pub taken_share: Option<Interval>,
    /// Scored trials whose task expects no call.
    pub no_call_trials: u64,
    /// Of those, the ones whose first call went to this server's tools.
    pub false_calls: u64,
    /// The server's tools that were called first, each with its count (names as served), most
    /// first.
    pub tools: Vec<(String, u64)>,
}

/// What the row of every bystander server together is called.
pub const ALL_BYSTANDERS: &str = "(all bystanders)";

/// Every (backend, bystander server) of the run, servers in the order the manifest lists them,
/// then the servers together (`ALL_BYSTANDERS`: a first call belongs to one server at most, so
/// their counts add up); empty when no suite showed bystanders.
pub fn bystander_takes(
    trials: &[StoredTrial],
    suites: &[(String, Vec<BystanderRecord>)],
) -> Vec<BystanderTake> {
    // (suite, served tool name) → server
    let mut owner: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    let mut servers: Vec<(&str, usize)> = Vec::new();
    for (suite, records) in suites {
        for record in records {
            for tool in &record.tools {
                owner.insert((suite.as_str(), tool.as_str()), record.server.as_str());
            }
            match servers.iter_mut().find(|(name, _)| *name == record.server) {
                Some((_, shown)) => *shown = (*shown).max(record.tools.len()),
                None => servers.push((record.server.as_str(), record.tools.len())),
            }
        }
    }
    if servers.is_empty() {
        return Vec::new();
    }
    let backends: BTreeSet<&str> = trials.iter().map(|t| t.backend.as_str()).collect();
    let mut takes = Vec::new();
    for backend in backends {
        let scored: Vec<&StoredTrial> = trials
            .iter()
            .filter(|t| t.backend == backend && t.scored())
            .collect();
        let expects_call = |t: &&&StoredTrial| !t.expected_tools.is_empty();
        let call_trials = scored.iter().filter(expects_call).count() as u64;
        let no_call_trials = scored.len() as u64 - call_trials;
        let tasks: BTreeSet<(&str, &str)> = scored
            .iter()
            .map(|t| (t.suite.as_str(), t.task.as_str()))
            .collect();
        let once_per_task = tasks.len() == scored.len();
        for &(server, tools_shown) in &servers {
            let taken_by = |t: &&&StoredTrial| {
                t.verdict.first_tool.as_deref().is_some_and(|tool| {
                    owner.get(&(t.suite.as_str(), tool)).copied() == Some(server)
                })
            };
            let picks_taken = scored.iter().filter(expects_call).filter(taken_by).count() as u64;
            let false_calls = scored
                .iter()
                .filter(|t| !expects_call(t))
                .filter(taken_by)
                .count() as u64;
            let mut tools: BTreeMap<&str, u64> = BTreeMap::new();
            for trial in scored.iter().filter(taken_by) {
                if let Some(tool) = trial.verdict.first_tool.as_deref() {
                    *tools.entry(tool).or_default() += 1;
                }
            }
            let mut tools: Vec<(String, u64)> = tools
                .into_iter()
                .map(|(tool, n)| (tool.to_string(), n))
                .collect();
            tools.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            takes.push(BystanderTake {
                backend: backend.to_string(),
                server: server.to_string(),
                tools_shown,
                call_trials,
                picks_taken,
                taken_share: once_per_task.then(|| wilson_interval(picks_taken, call_trials)),
                no_call_trials,
                false_calls,
                tools,
            });
        }
        let of_backend = &takes[takes.len() - servers.len()..];
        let picks_taken = of_backend.iter().map(|t| t.picks_taken).sum();
        let mut tools: Vec<(String, u64)> =
            of_backend.iter().flat_map(|t| t.tools.clone()).collect();
        tools.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        takes.push(BystanderTake {
            backend: backend.to_string(),
            server: ALL_BYSTANDERS.to_string(),
            tools_shown: servers.iter().map(|(_, shown)| shown).sum(),
            call_trials,
            picks_taken,
            taken_share: once_per_task.then(|| wilson_interval(picks_taken, call_trials)),
            no_call_trials,
            false_calls: of_backend.iter().map(|t| t.false_calls).sum(),
            tools,
        });
    }
    takes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Outcome;

    fn trial(task: &str, expected: &[&str], first: Option<&str>) -> StoredTrial {
        let mut trial = StoredTrial {
            suite: "travel".into(),
            backend: "bm25".into(),
            task: task.into(),
            expected_tools: expected.iter().map(|s| s.to_string()).collect(),
            ..StoredTrial::default()
        };
        trial.verdict.outcome = Outcome::WrongTool;
        trial.verdict.first_tool = first.map(str::to_string);
        trial
    }

    fn record(server: &str, tools: &[&str]) -> BystanderRecord {
        BystanderRecord {
            server: server.into(),
            source: format!("toolsets/bystanders/{server}.json"),
            tools: tools.iter().map(|s| s.to_string()).collect(),
            renamed: BTreeMap::new(),
        }
    }

    #[test]
    fn each_server_is_credited_with_the_first_picks_its_tools_took() {
        let trials = [
            trial("a", &["get_weather"], Some("git_log")),
            trial("b", &["get_weather"], Some("get_weather")),
            trial("c", &["convert_time"], Some("time__convert_time")),
            trial("d", &["book_flight"], Some("git_log")),
            trial("e", &[], Some("git_status")),
            trial("f", &[], None),
        ];
        let suites = vec![(
            "travel".to_string(),
            vec![
                record("git", &["git_log", "git_status"]),
                record("time", &["time__convert_time"]),
                record("memory", &["read_graph"]),
            ],
        )];
        let takes = bystander_takes(&trials, &suites);
        let git = &takes[0];
        assert_eq!((git.server.as_str(), git.tools_shown), ("git", 2));
        assert_eq!((git.picks_taken, git.call_trials), (2, 4));
        assert_eq!((git.false_calls, git.no_call_trials), (1, 2));
        assert_eq!(
            git.tools,
            [("git_log".to_string(), 2), ("git_status".to_string(), 1)]
        );
        assert_eq!(git.taken_share.unwrap().successes, 2);
        assert_eq!(takes[1].picks_taken, 1);
        assert_eq!((takes[2].picks_taken, takes[2].false_calls), (0, 0));
        let all = &takes[3];
        assert_eq!(all.server, ALL_BYSTANDERS);
        assert_eq!(
            (all.picks_taken, all.false_calls, all.tools_shown),
            (3, 1, 4)
        );
        // A task run twice: no interval over trials that are not independent.
        let mut repeated = trials.to_vec();
        repeated.push(trial("a", &["get_weather"], Some("git_log")));
        assert!(bystander_takes(&repeated, &suites)[0].taken_share.is_none());
        assert!(bystander_takes(&trials, &[]).is_empty());
    }
}
