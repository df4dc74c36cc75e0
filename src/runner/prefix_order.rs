//! The order a lane runs its trials in: for a local model, the order that evaluates least. Its
//! prompt is the system message (chat templates put a task's own before the tools), the tool list
//! in listing order, then the conversation, and its KV cache keeps the last prompt: the longer the
//! prefix two consecutive prompts share, the less it evaluates again. Sorting the prompts
//! lexicographically — by system message, then by the sequence of tools shown (each tool by a
//! fingerprint of its name, description and schemas), then by the rest of the conversation — makes
//! the sum of shared prefixes between neighbours as large as it can be (a depth-first walk of the
//! trie of prompts). A/B arms then run arm by arm (their descriptions differ from the first tool
//! on), a whole-toolset suite's tasks one after another, and a sweep's trials grouped by the tools
//! they open with. Every trial is independent and its seed is its own, so the order changes what is
//! evaluated, not what is asked; a local run stopped early (Ctrl-C) holds whole arms or sizes
//! rather than pairs until `--resume` completes them. Hosted lanes keep task order.

use super::plan::{PlannedTrial, RunPlan};
use crate::hashing::fnv1a;
use crate::model::{Role, TaskInput, Tool};

impl RunPlan {
    /// Every trial of the plan: each task under every condition (size, sweep seed, repeat) across
    /// the backends, in the order that lets consecutive prompts share the longest prefix.
    pub fn trials(&self) -> Vec<PlannedTrial> {
        in_prefix_order(self, self.trials_by_task())
    }
}

/// `trials` reordered, lane by lane, so each local lane's consecutive prompts share the longest
/// prefix. Other lanes keep task order: a provider caches prefixes of its own, not just the last
/// prompt, and task order keeps a run that a budget stops with its A/B pairs whole.
pub fn in_prefix_order(plan: &RunPlan, trials: Vec<PlannedTrial>) -> Vec<PlannedTrial> {
    // A sweep draws each condition's tools once, however many backends run it.
    let mut drawn: std::collections::HashMap<(usize, usize, u32, u32), Vec<u64>> =
        std::collections::HashMap::new();
    let mut keyed: Vec<(usize, Option<PromptKey>, PlannedTrial)> = trials
        .into_iter()
        .map(|trial| {
            if !plan.lanes[trial.lane].backend.reuses_last_prompt() {
                return (trial.lane, None, trial);
            }
            let condition = (trial.suite, trial.task, trial.size, trial.sweep_seed);
            let tools = drawn
                .entry(condition)
                .or_insert_with(|| plan.shown_tools(trial).iter().map(fingerprint).collect())
                .clone();
            let task = &plan.suites[trial.suite].tasks[trial.task];
            let (system, rest) = conversation_text(&task.input);
            (trial.lane, Some((system, tools, rest)), trial)
        })
        .collect();
    // Stable: trials with identical prompts (repeats), and every trial of a lane left in task
    // order, keep their order.
    keyed.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    keyed.into_iter().map(|(_, _, trial)| trial).collect()
}

/// What orders a local lane's prompts: system message, the tools shown, the rest.
type PromptKey = (String, Vec<u64>, String);

/// What a tool contributes to a prompt.
fn fingerprint(tool: &Tool) -> u64 {
    fnv1a(&format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        tool.name,
        tool.description.as_deref().unwrap_or_default(),
        tool.input_schema,
        tool.output_schema
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_default()
    ))
}

/// The task's own system message (empty without one) and the rest of its conversation.
fn conversation_text(input: &TaskInput) -> (String, String) {
    match input {
        TaskInput::Prompt(prompt) => (String::new(), prompt.clone()),
        TaskInput::Messages(messages) => {
            let (system, rest): (Vec<_>, Vec<_>) =
                messages.iter().partition(|m| m.role == Role::System);
            let join = |ms: Vec<&crate::model::Message>| {
                ms.iter()
                    .map(|m| m.content.as_str())
                    .collect::<Vec<_>>()
                    .join("\u{0}")
            };
            (join(system), join(rest))
        }
    }
}

/// The shared prefix, in tools, summed over neighbours: what the order gains.
#[cfg(test)]
fn shared_tools(sequences: &[Vec<u64>]) -> usize {
    sequences
        .windows(2)
        .map(|w| w[0].iter().zip(&w[1]).take_while(|(a, b)| a == b).count())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexicographic_order_shares_at_least_as_much_as_any_other_order() {
        // Every order of five small tool sequences: the sorted one shares the most.
        let sequences = vec![
            vec![1, 2, 3],
            vec![4, 5],
            vec![1, 2, 9],
            vec![4, 6],
            vec![1, 7],
        ];
        let mut sorted = sequences.clone();
        sorted.sort();
        let best = shared_tools(&sorted);
        let mut order: Vec<usize> = (0..sequences.len()).collect();
        let mut permutations = Vec::new();
        permute(&mut order, 0, &mut permutations);
        for permutation in permutations {
            let arranged: Vec<Vec<u64>> =
                permutation.iter().map(|&i| sequences[i].clone()).collect();
            assert!(shared_tools(&arranged) <= best, "{permutation:?}");
        }
        assert_eq!(best, 2 + 1 + 1);
    }

    /// A real A/B plan with hosted-style lanes: every trial once, lane after lane, each lane in
    /// task order (pairs stay together, so a budget that stops a run stops it between pairs).
    #[test]
    fn lanes_other_than_local_models_keep_task_order() {
        // The settings `mcpick ab tasks/travel.toml --variant travel-terse --variant travel-rich
        // --backend random --backend bm25` resolves to, as its manifest records them.
        let settings: crate::settings::RunSettings = serde_json::from_value(serde_json::json!({
            "paths": ["tasks/travel.toml"], "backends": ["random", "bm25"], "max_turns": 4,
            "variants": ["travel-terse", "travel-rich"], "config": null, "concurrency": 4,
            "requests_per_minute": null, "tokens_per_minute": null, "timeout": 120.0,
            "max_retries": 4, "budget": null, "price": [], "no_cache": false, "cache": null,
        }))
        .unwrap();
        let plan = RunPlan::resolve(&settings).unwrap();
        let key = |t: &PlannedTrial| (t.lane, t.suite, t.task, t.size, t.sweep_seed, t.repeat);
        let mut planned: Vec<_> = plan.trials_by_task().iter().map(key).collect();
        let ordered: Vec<_> = plan.trials().iter().map(key).collect();
        assert_eq!(ordered.len(), 2 * 2 * 53);
        planned.sort_by_key(|t| t.0);
        assert_eq!(ordered, planned);
    }

    fn permute(order: &mut Vec<usize>, k: usize, out: &mut Vec<Vec<usize>>) {
        if k == order.len() {
            out.push(order.clone());
            return;
        }
        for i in k..order.len() {
            order.swap(k, i);
            permute(order, k + 1, out);
            order.swap(k, i);
        }
    }
}
