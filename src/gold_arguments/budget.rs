//! How much work the search for satisfying arguments may do, so that loading any suite — `validate`,
//! and every command that loads one — ends in seconds and bounded memory, whatever the schemas and
//! matchers ask for. Work is counted in steps (a transition of an automaton, a character of a
//! value built or checked, a value compared with a regex), the same on every machine, so the same
//! files always get the same answer; a clock stands behind the count only as a backstop. What runs
//! out of steps is `Undecided` — "cannot say", with why — never "impossible": only a search that
//! finished proves there is no value. Values are built no larger than `MAX_VALUE_WEIGHT` and
//! schemas followed no deeper than `MAX_DEPTH`, so nothing a schema claims (`minItems:
//! 1000000000`, a `$ref` to itself) is allocated or recursed into.

use std::time::{Duration, Instant};

/// Steps one expected call's search may take.
pub const STEPS_PER_CALL: u64 = 3_000_000;
/// Steps the searches of one load may take together.
pub const STEPS_PER_LOAD: u64 = 30_000_000;
/// The clock's backstop for the searches of one load (their own time, not the load's).
pub const TIME_PER_LOAD: Duration = Duration::from_secs(6);
/// The largest value built or checked, in characters and items: a string of a million
/// characters is built; one of a billion items is not.
pub const MAX_VALUE_WEIGHT: u64 = 2_000_000;
/// How deep a value is built into a schema (and its `$ref`s).
pub const MAX_DEPTH: usize = 32;
/// The largest program a pattern may compile to (the `regex` crate's own default limit): `^\w{50000}$`
/// is refused, not built into gigabytes.
pub const NFA_SIZE_LIMIT: usize = 10 << 20;

/// Why the search could not say whether a value exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecided(pub String);

impl std::fmt::Display for Undecided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Steps left, and the clock's backstop: the time the searches may still take, counted only
/// while one runs (from `allot` to `settle`), so what a load does besides searching never turns a
/// search into "cannot tell".
#[derive(Debug, Clone)]
pub struct SearchBudget {
    steps: u64,
    /// Search time left when this budget was made or allotted.
    time: Duration,
    /// When that was.
    since: Instant,
    /// Steps since the clock was last read (it is read every 4,096).
    since_clock: u64,
}

impl SearchBudget {
    pub fn new(steps: u64, time: Duration) -> SearchBudget {
        SearchBudget {
            steps,
            time,
            since: Instant::now(),
            since_clock: 0,
        }
    }

    /// The budget of a load: every expected call of its suites shares it.
    pub fn for_load() -> SearchBudget {
        SearchBudget::new(STEPS_PER_LOAD, TIME_PER_LOAD)
    }

    /// The budget of one expected call searched alone.
    pub fn for_call() -> SearchBudget {
        SearchBudget::new(STEPS_PER_CALL, TIME_PER_LOAD)
    }

    /// A budget of at most `steps` out of this one, with its clock; `settle` takes back what it
    /// spent.
    pub fn allot(&self, steps: u64) -> SearchBudget {
        SearchBudget {
            steps: steps.min(self.steps),
            time: self.time,
            since: Instant::now(),
            since_clock: 0,
        }
    }

    /// Counts what `allotted` (out of `given` steps) spent against this budget, in steps and in
    /// time.
    pub fn settle(&mut self, given: u64, allotted: &SearchBudget) {
        let spent = given.min(self.steps).saturating_sub(allotted.steps);
        self.steps -= spent;
        self.time = self.time.saturating_sub(allotted.since.elapsed());
        if self.time.is_zero() {
            self.steps = 0;
        }
        self.since = Instant::now();
    }

    pub fn left(&self) -> u64 {
        self.steps
    }

    /// Takes `steps`, or says the search must stop.
    pub fn spend(&mut self, steps: u64) -> Result<(), Undecided> {
        if steps > self.steps {
            self.steps = 0;
            return Err(Undecided(
                "the search for a value reached its limit of work before finding one".into(),
            ));
        }
        self.steps -= steps;
        self.since_clock += steps;
        if self.since_clock >= 4096 {
            self.since_clock = 0;
            if self.since.elapsed() > self.time {
                self.steps = 0;
                return Err(Undecided(
                    "the search for a value ran out of time before finding one".into(),
                ));
            }
        }
        Ok(())
    }
}

/// What checking a value against a schema or a pattern costs: a step for each value in it and
/// for every sixteen characters (a scan of text is cheap beside a step of an automaton).
pub fn check_cost(value: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match value {
        Value::String(s) => 1 + s.len() as u64 / 16,
        Value::Array(items) => 1 + items.iter().map(check_cost).sum::<u64>(),
        Value::Object(map) => {
            1 + map
                .iter()
                .map(|(k, v)| k.len() as u64 / 16 + check_cost(v))
                .sum::<u64>()
        }
        _ => 1,
    }
}

/// The weight of a value: one for each value, plus each character of its strings and keys.
pub fn weight(value: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match value {
        Value::String(s) => 1 + s.len() as u64,
        Value::Array(items) => 1 + items.iter().map(weight).sum::<u64>(),
        Value::Object(map) => {
            1 + map
                .iter()
                .map(|(k, v)| k.len() as u64 + weight(v))
                .sum::<u64>()
        }
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allotment_is_settled_against_its_parent() {
        let mut load = SearchBudget::new(100, Duration::from_secs(60));
        let mut call = load.allot(30);
        call.spend(20).unwrap();
        load.settle(30, &call);
        assert_eq!(load.left(), 80);
        let mut call = load.allot(1000);
        assert!(call.spend(81).is_err());
        load.settle(1000, &call);
        assert_eq!(load.left(), 0);
    }

    #[test]
    fn the_clock_backs_the_count() {
        let mut budget = SearchBudget::new(u64::MAX, Duration::ZERO);
        std::thread::sleep(Duration::from_millis(2));
        assert!(budget.spend(5000).unwrap_err().0.contains("time"));
    }
}
