//! The order a lane runs its trials in. A model's prompt is the tool list (in listing order), then
//! the conversation; the longer the prefix two consecutive prompts share, the less a local model
//! evaluates again (its KV cache keeps the last prompt) and the more a provider's prompt cache
//! serves. Sorting the prompts lexicographically — by the sequence of tools shown, each tool by a
//! fingerprint of its name, description and schemas, then by the request — makes the sum of shared
//! prefixes between neighbours as large as it can be (a depth-first walk of the trie of prompts).
//! A/B arms then run arm by arm (their descriptions differ from the first tool on), a whole-toolset
//! suite's tasks one after another, and a sweep's trials grouped by the tools they open with. The
//! order changes no result: every trial is independent and its seed is its own.

use super::plan::{PlannedTrial, RunPlan, fnv1a};
use crate::model::{Role, TaskInput, Tool};

/// `trials` reordered, lane by lane, so each lane's consecutive prompts share the longest prefix.
pub fn in_prefix_order(plan: &RunPlan, trials: Vec<PlannedTrial>) -> Vec<PlannedTrial> {
    // A sweep draws each condition's tools once, however many backends run it.
    let mut drawn: std::collections::HashMap<(usize, usize, u32, u32), Vec<u64>> =
        std::collections::HashMap::new();
    let mut keyed: Vec<(usize, String, Vec<u64>, String, PlannedTrial)> = trials
        .into_iter()
        .map(|trial| {
            let condition = (trial.suite, trial.task, trial.size, trial.sweep_seed);
            let tools = drawn
                .entry(condition)
                .or_insert_with(|| plan.shown_tools(trial).iter().map(fingerprint).collect())
                .clone();
            let task = &plan.suites[trial.suite].tasks[trial.task];
            let (system, rest) = conversation_text(&task.input);
            (trial.lane, system, tools, rest, trial)
        })
        .collect();
    // Stable: trials with identical prompts (repeats) keep their order.
    keyed.sort_by(|a, b| (a.0, &a.1, &a.2, &a.3).cmp(&(b.0, &b.1, &b.2, &b.3)));
    keyed.into_iter().map(|(_, _, _, _, trial)| trial).collect()
}

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
