//! The clock `improve` keeps: what each step will cost, read from what this improve has measured
//! (a working-part run costs what the baseline's trials took; the held-out run as many trials per
//! task, twice over, with the arguments written; a rewriter ask what the last asks took), the plan
//! it says before the rounds start, and the `--minutes` budget: a step that would not leave time
//! for the held-out run is not started — a rewriter ask is skipped (the target keeps the rules'
//! candidate), a slate is not run, a round is not begun — and when even the held-out run no longer
//! fits, `improve` stops cleanly, to go on when run again. Pure but for the clock.

use crate::record::StoredTrial;
use std::time::{Duration, Instant};

/// What a rewriter ask is taken to cost before one has been timed: the default embedded rewriter
/// took 20 s an ask on travel's tools on this project's 2-core machine.
const ASK_GUESS: f64 = 20.0;
/// The held-out run writes the arguments of each pick, which working runs skip: on travel with the
/// default embedded model the held-out trials took a median 7.1 s, the working ones, stopping at
/// their pick, 3.4 s.
const ARGUMENTS_FACTOR: f64 = 2.0;

/// Costs learnt so far and the deadline, if any.
#[derive(Debug, Clone)]
pub struct Schedule {
    started: Instant,
    budget: Option<Duration>,
    /// Seconds a run on the working part takes.
    working_run: f64,
    /// Seconds the held-out run takes.
    held_out_run: f64,
    /// Seconds a rewriter ask takes, and how many were timed.
    ask: f64,
    asks_timed: u32,
}

impl Schedule {
    /// A schedule whose budget (`--minutes`) counts from now.
    pub fn new(minutes: Option<f64>) -> Schedule {
        Schedule {
            started: Instant::now(),
            budget: minutes.map(|m| Duration::from_secs_f64(m * 60.0)),
            working_run: 0.0,
            held_out_run: 0.0,
            ask: ASK_GUESS,
            asks_timed: 0,
        }
    }

    /// Learns the cost of runs from the baseline's trials, for `held_out` held-out tasks. A
    /// working run costs what the baseline's trials took together (a resumed one's included):
    /// a reworded list is evaluated anew, as the baseline's was. The held-out run restores both
    /// arms' lists (the baseline and the chosen run saved them), so it costs the typical trial —
    /// the median, which the few trials that evaluated a list do not move — per trial.
    pub fn learn_runs(&mut self, baseline: &[StoredTrial], held_out: usize) {
        self.working_run = baseline.iter().map(|t| t.latency_ms).sum::<f64>() / 1000.0;
        let mut latencies: Vec<f64> = baseline.iter().map(|t| t.latency_ms / 1000.0).collect();
        latencies.sort_by(f64::total_cmp);
        let typical = latencies.get(latencies.len() / 2).copied().unwrap_or(0.0);
        self.held_out_run = typical * (2 * held_out) as f64 * ARGUMENTS_FACTOR;
    }

    /// Learns from one timed rewriter ask.
    pub fn learn_ask(&mut self, seconds: f64) {
        self.asks_timed += 1;
        self.ask += (seconds - self.ask) / f64::from(self.asks_timed);
    }

    pub fn ask_seconds(&self) -> f64 {
        self.ask
    }

    pub fn working_run_seconds(&self) -> f64 {
        self.working_run
    }

    /// Whether `seconds` more work still leaves time for the held-out run.
    pub fn fits(&self, seconds: f64) -> bool {
        self.budget.is_none_or(|budget| {
            self.started.elapsed().as_secs_f64() + seconds + self.held_out_run
                <= budget.as_secs_f64()
        })
    }

    /// Whether the held-out run itself still fits.
    pub fn held_out_fits(&self) -> bool {
        self.fits(0.0)
    }

    /// What a round costs: an ask per target, and a run per slate (one per candidate of a
    /// target, the rules' included) and the combined one.
    pub fn round_seconds(&self, targets: usize, candidates: u32) -> f64 {
        let asks = if candidates > 0 { targets } else { 0 };
        let runs = if targets == 0 {
            0
        } else {
            candidates as usize + 2
        };
        asks as f64 * self.ask + runs as f64 * self.working_run
    }

    /// The plan in one line: the steps ahead and their estimated minutes, against the budget.
    pub fn plan(&self, rounds: u32, targets: usize, candidates: u32) -> String {
        let round = self.round_seconds(targets, candidates);
        let total = f64::from(rounds) * round + self.held_out_run;
        let budget = match self.budget {
            Some(b) => format!(
                "; {:.0} min of the --minutes {:.0} left",
                (b.as_secs_f64() - self.started.elapsed().as_secs_f64()).max(0.0) / 60.0,
                b.as_secs_f64() / 60.0
            ),
            None => String::new(),
        };
        format!(
            "plan: about {:.0} min more — per round {targets} rewriter ask(s) of ~{:.0} s and up to {} run(s) of ~{:.0} s on the working part, then the held-out run ~{:.0} s{budget}",
            total / 60.0,
            self.ask,
            if targets == 0 { 0 } else { candidates + 2 },
            self.working_run,
            self.held_out_run
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_fits_only_with_time_left_for_the_held_out_run() {
        let mut schedule = Schedule::new(Some(10.0));
        schedule.working_run = 120.0;
        schedule.held_out_run = 300.0;
        // 600 s in all: 120 s of work and the 300 s held-out run fit; 301 s of work does not.
        assert!(schedule.fits(120.0));
        assert!(!schedule.fits(301.0));
        assert!(schedule.held_out_fits());
        assert!(Schedule::new(None).fits(1e9), "no budget, no limit");
        schedule.learn_ask(10.0);
        schedule.learn_ask(30.0);
        assert_eq!(schedule.ask_seconds(), 20.0, "the mean of the timed asks");
        // Eighteen targets, one rewriter candidate: 18 asks and three runs (two slates, combined).
        assert_eq!(schedule.round_seconds(18, 1), 18.0 * 20.0 + 3.0 * 120.0);
        assert!(schedule.plan(1, 18, 1).contains("about 17 min more"));
    }
}
