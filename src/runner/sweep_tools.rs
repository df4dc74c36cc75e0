//! Which tools a sweep trial shows: the task's gold tools plus distractors from a pool, for a toolset
//! size N, a distractor strategy and a seed. Two properties make a sweep readable and are tested
//! here: sets are **nested** (for one task and seed, the distractors of a smaller N are a prefix of
//! those of a larger N) and the **order** is a seeded shuffle that does not depend on N (so the
//! 15-tool list is the 5-tool list with tools inserted), with the gold tool's position recorded by
//! the caller. Pure: no I/O, same inputs → same tools.

use crate::hashing::{fnv1a, splitmix64};
use crate::model::{Task, Tool};
use crate::ranking::{Bm25Index, request_text, terms, tool_document};
use crate::settings::Distractors;

/// What a sweep trial's tools start from, before distractors from the pool.
#[derive(Debug, Clone, Copy)]
pub enum Shown<'a> {
    /// The arm's whole toolset: its gold tools are shown, the others are not.
    Toolset(&'a [Tool]),
    /// A task's own list: its gold tools, then its other tools as the first distractors (in seeded
    /// order), so a size at least the list's length shows the whole list plus distractors. The
    /// pool may hold the list's tools (a BFCL import is one toolset), under the names they are
    /// shown by or under their `toolset_names`: those are left out of it.
    OwnList {
        tools: &'a [Tool],
        toolset_names: &'a [String],
    },
}

/// The tools shown in one sweep trial, in the order the server lists them.
pub fn exposed_tools(
    shown: Shown<'_>,
    pool: &[Tool],
    task: &Task,
    size: usize,
    strategy: Distractors,
    seed: u32,
) -> Vec<Tool> {
    let (base, own, toolset_names): (&[Tool], &[Tool], &[String]) = match shown {
        Shown::Toolset(tools) => (tools, &[], &[]),
        Shown::OwnList {
            tools,
            toolset_names,
        } => (tools, tools, toolset_names),
    };
    let is_gold = |t: &Tool| task.expectation.calls().iter().any(|c| c.tool == t.name);
    let gold: Vec<&Tool> = base.iter().filter(|t| is_gold(t)).collect();
    let draw = |name: &str| {
        splitmix64(fnv1a(&task.id) ^ fnv1a(name) ^ u64::from(seed).wrapping_mul(0x9E37_79B9))
    };
    let mut own_distractors: Vec<&Tool> = own.iter().filter(|t| !is_gold(t)).collect();
    own_distractors.sort_by_key(|t| draw(&t.name));
    own_distractors.truncate(size.saturating_sub(gold.len()));
    let wanted = size.saturating_sub(gold.len() + own_distractors.len());
    let already_shown =
        |t: &Tool| toolset_names.contains(&t.name) || own.iter().any(|shown| shown.name == t.name);
    let mut ranked: Vec<usize> = (0..pool.len())
        .filter(|&i| !already_shown(&pool[i]))
        .collect();
    match strategy {
        Distractors::Random => ranked.sort_by_key(|&i| draw(&pool[i].name)),
        Distractors::Similar => {
            let documents: Vec<Vec<String>> =
                pool.iter().map(|t| terms(&tool_document(t))).collect();
            // The gold tools are the anchor; a task that expects no call is anchored on its request.
            let query = if gold.is_empty() {
                request_text(task.input.user_messages().into_iter()).to_string()
            } else {
                gold.iter()
                    .map(|t| tool_document(t))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let scores = Bm25Index::new(&documents).scores(&terms(&query));
            ranked.sort_by(|&a, &b| {
                scores[b]
                    .total_cmp(&scores[a])
                    .then_with(|| draw(&pool[a].name).cmp(&draw(&pool[b].name)))
            });
        }
    }
    let mut shown: Vec<Tool> = gold.into_iter().chain(own_distractors).cloned().collect();
    shown.extend(ranked.into_iter().take(wanted).map(|i| pool[i].clone()));
    // The listing order is a shuffle keyed by tool name, the same for every N: nested sets keep
    // their relative order, so position and count effects can be told apart.
    let order = |name: &str| splitmix64(draw(name) ^ 0x005E_ED0F_0D0E);
    shown.sort_by_key(|t| order(&t.name));
    shown
}

/// The distractor pool for one suite: every tool of `toolsets` except those of the suite's own
/// toolset, first occurrence of each name kept, none named like a tool the suite shows.
pub fn distractor_pool<'a>(
    toolsets: impl IntoIterator<Item = (&'a str, &'a [Tool])>,
    own_toolset: &str,
    own_tools: &[Tool],
) -> Vec<Tool> {
    let mut taken: std::collections::HashSet<&str> =
        own_tools.iter().map(|t| t.name.as_str()).collect();
    let mut pool = Vec::new();
    for (name, tools) in toolsets {
        if name == own_toolset {
            continue;
        }
        for tool in tools {
            if taken.insert(tool.name.as_str()) {
                pool.push(tool.clone());
            }
        }
    }
    pool
}

/// 1-based position of the first tool the task expects among `shown` (None for no-call tasks).
pub fn gold_position(shown: &[String], task: &Task) -> Option<usize> {
    shown
        .iter()
        .position(|name| task.expectation.calls().iter().any(|c| &c.tool == name))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Workspace;
    use std::path::PathBuf;

    /// The shipped data, and the distractor pool of the travel suite.
    fn travel_and_pool() -> (Workspace, Vec<Tool>) {
        let workspace = Workspace::load(&[PathBuf::from("toolsets"), PathBuf::from("tasks")]);
        let pool = distractor_pool(
            workspace
                .toolsets
                .iter()
                .map(|t| (t.name.as_str(), t.tools.as_slice())),
            "travel",
            &workspace.toolset("travel").unwrap().tools,
        );
        (workspace, pool)
    }

    fn travel_suite(workspace: &Workspace) -> &crate::model::Suite {
        workspace
            .suites
            .iter()
            .find(|s| s.name == "travel")
            .unwrap()
    }

    fn names(tools: &[Tool]) -> Vec<String> {
        tools.iter().map(|t| t.name.clone()).collect()
    }

    #[test]
    fn sets_are_nested_ordered_alike_and_reproducible() {
        let (workspace, pool) = travel_and_pool();
        let suite = travel_suite(&workspace);
        let own = &workspace.toolset("travel").unwrap().tools;
        assert!(pool.len() > 40, "pool of {}", pool.len());
        assert!(pool.iter().all(|t| own.iter().all(|o| o.name != t.name)));
        for strategy in [Distractors::Random, Distractors::Similar] {
            for task in suite.tasks.iter().take(10) {
                let mut previous: Vec<String> = Vec::new();
                for size in [5, 15, 30] {
                    let shown = names(&exposed_tools(
                        Shown::Toolset(own),
                        &pool,
                        task,
                        size,
                        strategy,
                        3,
                    ));
                    assert_eq!(
                        shown,
                        names(&exposed_tools(
                            Shown::Toolset(own),
                            &pool,
                            task,
                            size,
                            strategy,
                            3
                        ))
                    );
                    let gold = own
                        .iter()
                        .filter(|t| task.expectation.calls().iter().any(|c| c.tool == t.name))
                        .count();
                    assert_eq!(shown.len(), size.max(gold), "{}", task.id);
                    // Nested, and the smaller list keeps its order inside the larger one.
                    let kept: Vec<&String> =
                        shown.iter().filter(|n| previous.contains(n)).collect();
                    assert_eq!(kept, previous.iter().collect::<Vec<_>>(), "{}", task.id);
                    for expected in task.expectation.calls() {
                        assert!(
                            shown.contains(&expected.tool),
                            "{} lacks its gold tool",
                            task.id
                        );
                    }
                    previous = shown;
                }
            }
        }
    }

    #[test]
    fn seeds_move_the_gold_tool_and_similar_draws_related_tools() {
        let (workspace, pool) = travel_and_pool();
        let suite = travel_suite(&workspace);
        let own = &workspace.toolset("travel").unwrap().tools;
        let task = suite
            .tasks
            .iter()
            .find(|t| !t.expectation.calls().is_empty())
            .unwrap();
        let positions: std::collections::BTreeSet<Option<usize>> = (0..20)
            .map(|seed| {
                let shown = names(&exposed_tools(
                    Shown::Toolset(own),
                    &pool,
                    task,
                    30,
                    Distractors::Random,
                    seed,
                ));
                gold_position(&shown, task)
            })
            .collect();
        assert!(
            positions.len() >= 8,
            "gold positions over 20 seeds: {positions:?}"
        );
        assert!(positions.iter().all(Option::is_some));
        // Different seeds draw different random distractors; `similar` does not depend on the draw
        // except to break ties.
        let draw = |seed| {
            names(&exposed_tools(
                Shown::Toolset(own),
                &pool,
                task,
                10,
                Distractors::Random,
                seed,
            ))
        };
        let (a, b) = (draw(1), draw(2));
        let mut sorted_a = a.clone();
        let mut sorted_b = b.clone();
        sorted_a.sort();
        sorted_b.sort();
        assert_ne!(sorted_a, sorted_b);
    }

    /// A task's own list is shown whole once the size allows, and the pool never adds a tool the
    /// list already shows, under its shown name or its toolset name.
    #[test]
    fn an_own_list_comes_first_and_is_left_out_of_the_pool() {
        let (workspace, _) = travel_and_pool();
        // The pool holds every toolset, the task's own included (as for a BFCL import).
        let pool = distractor_pool(
            workspace
                .toolsets
                .iter()
                .map(|t| (t.name.as_str(), t.tools.as_slice())),
            "",
            &[],
        );
        let travel = &workspace.toolset("travel").unwrap().tools;
        let pick = |name: &str| travel.iter().find(|t| t.name == name).unwrap().clone();
        let mut renamed = pick("search_flights");
        renamed.name = "find_flights".into();
        let own = vec![pick("get_weather"), renamed, pick("book_hotel")];
        let toolset_names: Vec<String> = ["get_weather", "search_flights", "book_hotel"]
            .map(String::from)
            .to_vec();
        let task = travel_suite(&workspace)
            .tasks
            .iter()
            .find(|t| {
                t.expectation
                    .calls()
                    .iter()
                    .any(|c| c.tool == "get_weather")
            })
            .unwrap();
        let shown = Shown::OwnList {
            tools: &own,
            toolset_names: &toolset_names,
        };
        let mut previous: Vec<String> = Vec::new();
        // At the pool's size every tool the pool may add is shown: none of them may repeat the list.
        for size in [2, 3, 8, 20, pool.len()] {
            let names = names(&exposed_tools(
                shown,
                &pool,
                task,
                size,
                Distractors::Random,
                0,
            ));
            assert_eq!(names.len(), size);
            assert!(names.contains(&"get_weather".to_string()), "{names:?}");
            if size >= own.len() {
                assert!(own.iter().all(|t| names.contains(&t.name)), "{names:?}");
            }
            assert!(!names.contains(&"search_flights".to_string()), "{names:?}");
            let unique: std::collections::HashSet<&String> = names.iter().collect();
            assert_eq!(unique.len(), names.len(), "{names:?}");
            assert!(
                previous.iter().all(|n| names.contains(n)),
                "nested: {previous:?} {names:?}"
            );
            previous = names;
        }
    }
}
