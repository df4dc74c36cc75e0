//! Strings that satisfy several constraints at once: every pattern of `must_match` matches
//! somewhere in it (as `Regex::is_match` does), no pattern of `must_not_match` does, and its length
//! in characters is within bounds. Found by a breadth-first search over the product of the
//! patterns' lazy DFAs, one readable character at a time (lowercase letters first, then digits,
//! capitals, space, punctuation, then any other character a pattern names), so the first strings
//! found are the shortest and the most readable. A matcher's regex under a schema's `format`,
//! `pattern` and length bounds, with a behaviour rule's refusal to avoid, is such a problem: the
//! oracle's values and `validate`'s satisfiability checks both come from here.

use regex_automata::Input;
use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use std::collections::{HashSet, VecDeque};

/// What the strings must satisfy.
#[derive(Debug, Clone, Default)]
pub struct StringConstraints {
    pub must_match: Vec<String>,
    pub must_not_match: Vec<String>,
    pub min_chars: usize,
    pub max_chars: Option<usize>,
}

/// The longest string the search builds, when nothing bounds it tighter.
const LONGEST: usize = 96;
/// Product states the search may visit before it gives up (a problem this large is not a suite's).
const MOST_STATES: usize = 200_000;

/// Why no string was found.
#[derive(Debug, Clone, PartialEq)]
pub enum Unsatisfiable {
    /// No string of at most the bound satisfies every constraint.
    NoString,
    /// A pattern cannot be searched this way (and the caller should fall back).
    Unsearchable(String),
    /// The search grew too large to finish, or reached the longest string it builds without an
    /// answer: longer strings may still satisfy the constraints.
    TooLarge,
}

struct Automaton {
    dfa: DFA,
    cache: Cache,
}

/// Up to `wanted` strings satisfying `constraints`, shortest first.
pub fn satisfying_strings(
    constraints: &StringConstraints,
    wanted: usize,
) -> Result<Vec<String>, Unsatisfiable> {
    let positives = constraints.must_match.len();
    let mut automata = Vec::new();
    for pattern in constraints
        .must_match
        .iter()
        .chain(&constraints.must_not_match)
    {
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .cache_capacity(16 << 20)
                    .minimum_cache_clear_count(Some(0)),
            )
            .build(pattern)
            .map_err(|e| Unsatisfiable::Unsearchable(format!("{pattern}: {e}")))?;
        let cache = dfa.create_cache();
        automata.push(Automaton { dfa, cache });
    }
    let units = alphabet(constraints);
    let longest = constraints.max_chars.unwrap_or(LONGEST).min(LONGEST);
    // Cut off by the search's own bound (not the constraints'): no answer then proves nothing.
    let bounded_by_search = constraints.max_chars.is_none_or(|max| max > LONGEST);
    let mut cut_off = false;
    let start: Vec<LazyStateID> = automata
        .iter_mut()
        .map(|a| a.dfa.start_state_forward(&mut a.cache, &Input::new("")))
        .collect::<Result<_, _>>()
        .map_err(|e| Unsatisfiable::Unsearchable(e.to_string()))?;
    // A node: the automata's states, which patterns have matched so far (a bit each), the text.
    let mut queue: VecDeque<(Vec<LazyStateID>, u64, String)> = VecDeque::new();
    let mut seen: HashSet<(Vec<LazyStateID>, u64, usize)> = HashSet::new();
    let mut found = Vec::new();
    let matched_at_start = flags(&start);
    if matched_at_start >> positives != 0 {
        return Err(Unsatisfiable::NoString);
    }
    queue.push_back((start, matched_at_start, String::new()));
    let all_positive = if positives == 64 {
        u64::MAX
    } else {
        (1u64 << positives) - 1
    };
    while let Some((states, matched, text)) = queue.pop_front() {
        let chars = text.chars().count();
        if chars >= constraints.min_chars {
            let mut at_end = matched;
            let mut refused = false;
            for (k, (automaton, &state)) in automata.iter_mut().zip(&states).enumerate() {
                let eoi = automaton
                    .dfa
                    .next_eoi_state(&mut automaton.cache, state)
                    .map_err(|_| Unsatisfiable::TooLarge)?;
                if eoi.is_match() {
                    if k < positives {
                        at_end |= 1 << k;
                    } else {
                        refused = true;
                    }
                }
            }
            if !refused && at_end & all_positive == all_positive {
                found.push(text.clone());
                if found.len() >= wanted {
                    break;
                }
            }
        }
        if chars >= longest {
            cut_off |= bounded_by_search;
            continue;
        }
        'units: for unit in &units {
            let mut next = states.clone();
            let mut next_matched = matched;
            for (k, automaton) in automata.iter_mut().enumerate() {
                for byte in unit.bytes() {
                    let state = automaton
                        .dfa
                        .next_state(&mut automaton.cache, next[k], byte)
                        .map_err(|_| Unsatisfiable::TooLarge)?;
                    // A match state says a match ended just before this byte.
                    if state.is_match() {
                        if k < positives {
                            next_matched |= 1 << k;
                        } else {
                            continue 'units;
                        }
                    }
                    if state.is_quit() {
                        continue 'units;
                    }
                    next[k] = state;
                }
                // A pattern that has not matched and can no longer match ends this path.
                if next[k].is_dead() && k < positives && next_matched & (1 << k) == 0 {
                    continue 'units;
                }
            }
            let key = (
                next.clone(),
                next_matched,
                (chars + 1).min(constraints.min_chars),
            );
            if seen.insert(key) {
                if seen.len() > MOST_STATES {
                    return Err(Unsatisfiable::TooLarge);
                }
                let mut longer = text.clone();
                longer.push_str(unit);
                queue.push_back((next, next_matched, longer));
            }
        }
    }
    match (found.is_empty(), cut_off) {
        (false, _) => Ok(found),
        (true, true) => Err(Unsatisfiable::TooLarge),
        (true, false) => Err(Unsatisfiable::NoString),
    }
}

/// Which automata report a match in these states (a bit each).
fn flags(states: &[LazyStateID]) -> u64 {
    states
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_match())
        .fold(0, |bits, (k, _)| bits | (1 << k))
}

/// The characters strings are built from, most readable first: ASCII letters, digits, space and
/// punctuation, then every other character the patterns name.
fn alphabet(constraints: &StringConstraints) -> Vec<String> {
    let mut units: Vec<String> = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ -_.:/@+,;()#'!?&=*%$~[]{}<>|^\"\\`"
        .chars()
        .map(String::from)
        .collect();
    let mut extra: Vec<char> = constraints
        .must_match
        .iter()
        .flat_map(|p| p.chars())
        .filter(|c| !c.is_ascii())
        .collect();
    extra.sort_unstable();
    extra.dedup();
    units.extend(extra.into_iter().map(String::from));
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constraints(
        must: &[&str],
        must_not: &[&str],
        min: usize,
        max: Option<usize>,
    ) -> StringConstraints {
        StringConstraints {
            must_match: must.iter().map(|s| s.to_string()).collect(),
            must_not_match: must_not.iter().map(|s| s.to_string()).collect(),
            min_chars: min,
            max_chars: max,
        }
    }

    #[test]
    fn a_regex_under_a_date_time_format_gets_a_full_timestamp() {
        let date_time = super::super::formats::format_pattern("date-time").unwrap();
        let found = satisfying_strings(
            &constraints(&["^2026-03-13T07:45", date_time], &[], 0, None),
            1,
        )
        .unwrap();
        assert_eq!(found, ["2026-03-13T07:45:00Z"]);
    }

    #[test]
    fn lengths_and_refusals_are_kept() {
        let found = satisfying_strings(&constraints(&["(?i)fail"], &[], 5, None), 1).unwrap();
        assert_eq!(found[0].chars().count(), 5);
        assert!(regex::Regex::new("(?i)fail").unwrap().is_match(&found[0]));
        // A commit hook refusing messages without ':' or parentheses.
        let found =
            satisfying_strings(&constraints(&["(?i)wip"], &["^[^:()]*$"], 0, None), 1).unwrap();
        assert!(
            found[0].contains("wip") && found[0].contains([':', '(', ')']),
            "{found:?}"
        );
    }

    #[test]
    fn a_string_longer_than_the_search_builds_is_not_called_impossible() {
        let long = format!("^{}$", "ab".repeat(60));
        assert_eq!(
            satisfying_strings(&constraints(&[&long], &[], 0, None), 1),
            Err(Unsatisfiable::TooLarge)
        );
    }

    #[test]
    fn impossible_combinations_are_said_to_be_so() {
        assert_eq!(
            satisfying_strings(&constraints(&["^[0-9]+$", "^[a-z]+$"], &[], 0, None), 1),
            Err(Unsatisfiable::NoString)
        );
        assert_eq!(
            satisfying_strings(&constraints(&["^abc$"], &[], 0, Some(2)), 1),
            Err(Unsatisfiable::NoString)
        );
        assert_eq!(
            satisfying_strings(&constraints(&["x"], &["x"], 0, None), 1),
            Err(Unsatisfiable::NoString)
        );
    }

    #[test]
    fn characters_the_patterns_name_are_reachable() {
        let found = satisfying_strings(&constraints(&["北京|上海"], &[], 0, None), 1).unwrap();
        assert_eq!(found, ["上海"]);
    }
}
