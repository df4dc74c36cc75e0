//! Strings that satisfy several constraints at once: every pattern of `must_match` matches
//! somewhere in it (as `Regex::is_match` does), no pattern of `must_not_match` does, and its length
//! in characters is within bounds. Found by a breadth-first search over the product of the
//! patterns' lazy DFAs, one readable character at a time (lowercase letters first, then digits,
//! capitals, space, punctuation, then any other character a pattern names), so the first strings
//! found are the shortest and the most readable. A matcher's regex under a schema's `format`,
//! `pattern` and length bounds, with a behaviour rule's refusal to avoid, is such a problem: the
//! oracle's values and `validate`'s satisfiability checks both come from here. The search is
//! bounded: each automaton's program by `NFA_SIZE_LIMIT` and its cache by `CACHE_BYTES` (a pattern
//! like `^\w{50000}$` is refused as too large to search, not built into gigabytes), every
//! transition taken from the caller's `SearchBudget`. When the search cannot reach an answer, a
//! string built directly — the shortest match of each pattern, padded to the least length — is
//! tried before the search says it cannot tell.

use super::budget::{NFA_SIZE_LIMIT, SearchBudget};
use regex_automata::Input;
use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use std::collections::{HashSet, VecDeque};

/// Each automaton's cache of states.
const CACHE_BYTES: usize = 8 << 20;
/// What building one automaton (or one bounded regex) costs, in steps of the search.
pub const COMPILE_STEPS: u64 = 5_000;
/// The most steps one breadth-first search takes before the string is built directly.
const STEPS_PER_SEARCH: u64 = 400_000;

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
    /// The caller's budget ran out.
    OutOfWork(String),
}

impl Unsatisfiable {
    /// Why, in words, when the search could not tell (`None`: there is no such string).
    pub fn undecided(&self) -> Option<String> {
        match self {
            Unsatisfiable::NoString => None,
            Unsatisfiable::Unsearchable(why) => {
                Some(format!("a pattern cannot be searched: {why}"))
            }
            Unsatisfiable::TooLarge => {
                Some("the strings the patterns allow are too long or too many to search".into())
            }
            Unsatisfiable::OutOfWork(why) => Some(why.clone()),
        }
    }
}

struct Automaton {
    dfa: DFA,
    cache: Cache,
}

/// Up to `wanted` strings satisfying `constraints`, shortest first; when the search cannot tell,
/// a directly built one if it satisfies them.
pub fn satisfying_strings(
    constraints: &StringConstraints,
    wanted: usize,
    budget: &mut SearchBudget,
) -> Result<Vec<String>, Unsatisfiable> {
    let mut automata = automata(constraints, budget)?;
    // The search may take half of what is left, and no more than `STEPS_PER_SEARCH`: building
    // directly, and the caller's other searches, must still be possible after.
    let share = (budget.left() / 2).min(STEPS_PER_SEARCH);
    let mut searching = budget.allot(share);
    let searched = search(constraints, &mut automata, wanted, &mut searching);
    budget.settle(share, &searching);
    match searched {
        Err(cannot) if cannot != Unsatisfiable::NoString => {
            match padded_shortest(constraints, &mut automata, budget) {
                Some(found) => Ok(vec![found]),
                None => Err(cannot),
            }
        }
        result => result,
    }
}

/// One lazy DFA per pattern, `must_match`'s first, each within `NFA_SIZE_LIMIT`.
fn automata(
    constraints: &StringConstraints,
    budget: &mut SearchBudget,
) -> Result<Vec<Automaton>, Unsatisfiable> {
    let mut automata = Vec::new();
    for pattern in constraints
        .must_match
        .iter()
        .chain(&constraints.must_not_match)
    {
        // Building an automaton costs as much as a walk of a few thousand steps.
        budget
            .spend(COMPILE_STEPS + pattern.len() as u64)
            .map_err(|e| Unsatisfiable::OutOfWork(e.0))?;
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .cache_capacity(CACHE_BYTES)
                    .minimum_cache_clear_count(Some(0)),
            )
            .thompson(thompson::Config::new().nfa_size_limit(Some(NFA_SIZE_LIMIT)))
            .build(pattern)
            .map_err(|e| Unsatisfiable::Unsearchable(format!("{pattern}: {e}")))?;
        let cache = dfa.create_cache();
        automata.push(Automaton { dfa, cache });
    }
    Ok(automata)
}

/// Whether `text` holds a match of the automaton's pattern (as `Regex::is_match` says).
fn holds_match(automaton: &mut Automaton, text: &str) -> Result<bool, Unsatisfiable> {
    automaton
        .dfa
        .try_search_fwd(&mut automaton.cache, &Input::new(text).earliest(true))
        .map(|found| found.is_some())
        .map_err(|_| Unsatisfiable::TooLarge)
}

/// The breadth-first search.
fn search(
    constraints: &StringConstraints,
    automata: &mut [Automaton],
    wanted: usize,
    budget: &mut SearchBudget,
) -> Result<Vec<String>, Unsatisfiable> {
    let positives = constraints.must_match.len();
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
        budget
            .spend((units.len() * automata.len()) as u64)
            .map_err(|e| Unsatisfiable::OutOfWork(e.0))?;
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

/// A string built without searching: the shortest match of one of the patterns, stretched or
/// padded with one readable character up to the least length, if it satisfies every constraint
/// (checked with the search's own automata).
fn padded_shortest(
    constraints: &StringConstraints,
    automata: &mut [Automaton],
    budget: &mut SearchBudget,
) -> Option<String> {
    let positives = constraints.must_match.len();
    let most = constraints
        .max_chars
        .unwrap_or(usize::MAX)
        .min(super::budget::MAX_VALUE_WEIGHT as usize);
    for pattern in &constraints.must_match {
        let Some(shortest) = super::instances::shortest_match(pattern) else {
            continue;
        };
        let length = shortest.chars().count();
        let missing = constraints.min_chars.saturating_sub(length);
        if length + missing > most {
            continue;
        }
        // Stretched inside the pattern (its first unbounded repetition written more times), then
        // padded at either end.
        let mut tries: Vec<String> = super::instances::stretched_match(pattern, missing)
            .into_iter()
            .collect();
        for filler in ['a', '0', ' ', 'x'] {
            let padding: String = std::iter::repeat_n(filler, missing).collect();
            tries.push(format!("{shortest}{padding}"));
            tries.push(format!("{padding}{shortest}"));
        }
        for text in tries {
            budget
                .spend(1 + (text.len() * automata.len()) as u64)
                .ok()?;
            let mut fits = text.chars().count() >= constraints.min_chars;
            for (k, automaton) in automata.iter_mut().enumerate() {
                if !fits {
                    break;
                }
                let matched = holds_match(automaton, &text).ok()?;
                fits = matched == (k < positives);
            }
            if fits {
                return Some(text);
            }
        }
    }
    None
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

    fn budget() -> SearchBudget {
        SearchBudget::for_call()
    }

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
            &mut budget(),
        )
        .unwrap();
        assert_eq!(found, ["2026-03-13T07:45:00Z"]);
    }

    #[test]
    fn lengths_and_refusals_are_kept() {
        let found = satisfying_strings(&constraints(&["(?i)fail"], &[], 5, None), 1, &mut budget())
            .unwrap();
        assert_eq!(found[0].chars().count(), 5);
        assert!(regex::Regex::new("(?i)fail").unwrap().is_match(&found[0]));
        // A commit hook refusing messages without ':' or parentheses.
        let found = satisfying_strings(
            &constraints(&["(?i)wip"], &["^[^:()]*$"], 0, None),
            1,
            &mut budget(),
        )
        .unwrap();
        assert!(
            found[0].contains("wip") && found[0].contains([':', '(', ')']),
            "{found:?}"
        );
    }

    #[test]
    fn a_string_longer_than_the_search_builds_is_built_or_not_called_impossible() {
        let long = format!("^{}$", "ab".repeat(60));
        assert_eq!(
            satisfying_strings(&constraints(&[&long], &[], 0, None), 1, &mut budget()),
            Ok(vec!["ab".repeat(60)])
        );
        // A long string both must hold, which neither's shortest match is: the search cannot
        // reach it, and says so rather than "impossible".
        let prefix = format!("^{}c", "ab".repeat(60));
        assert_eq!(
            satisfying_strings(
                &constraints(&[&prefix, "x"], &[], 0, None),
                1,
                &mut budget()
            ),
            Err(Unsatisfiable::TooLarge)
        );
        // Padded to a length the search never builds.
        let found =
            satisfying_strings(&constraints(&["a"], &[], 1_000_000, None), 1, &mut budget())
                .unwrap();
        assert_eq!(found[0].chars().count(), 1_000_000);
    }

    #[test]
    fn a_pattern_too_large_to_compile_is_undecided_and_small_in_memory() {
        let result = satisfying_strings(
            &constraints(&["^a", r"^\w{50000}$"], &[], 0, None),
            1,
            &mut budget(),
        );
        assert!(
            matches!(&result, Err(Unsatisfiable::Unsearchable(_))),
            "{result:?}"
        );
    }

    #[test]
    fn a_budget_spent_is_said_to_be_so() {
        let mut small = SearchBudget::new(10, std::time::Duration::from_secs(60));
        let result = satisfying_strings(
            &constraints(&["^[a-z]{20}$", "q.*z"], &[], 0, None),
            1,
            &mut small,
        );
        assert!(
            matches!(result, Err(Unsatisfiable::OutOfWork(_))),
            "{result:?}"
        );
    }

    #[test]
    fn impossible_combinations_are_said_to_be_so() {
        assert_eq!(
            satisfying_strings(
                &constraints(&["^[0-9]+$", "^[a-z]+$"], &[], 0, None),
                1,
                &mut budget(),
            ),
            Err(Unsatisfiable::NoString)
        );
        assert_eq!(
            satisfying_strings(&constraints(&["^abc$"], &[], 0, Some(2)), 1, &mut budget(),),
            Err(Unsatisfiable::NoString)
        );
        assert_eq!(
            satisfying_strings(&constraints(&["x"], &["x"], 0, None), 1, &mut budget(),),
            Err(Unsatisfiable::NoString)
        );
    }

    #[test]
    fn characters_the_patterns_name_are_reachable() {
        let found =
            satisfying_strings(&constraints(&["北京|上海"], &[], 0, None), 1, &mut budget())
                .unwrap();
        assert_eq!(found, ["上海"]);
    }
}
