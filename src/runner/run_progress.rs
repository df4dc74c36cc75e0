//! What a run shows while its trials finish. On a terminal, a bar redrawn in place; anywhere else
//! (CI logs, a file, a pipe) a bar would hide itself and a 20-minute run would print nothing, so
//! a plain line goes to standard error every twentieth of the run or every 30 seconds, whichever
//! comes first, and once at the end; a run that ends within 10 seconds says only the end.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The longest a run outside a terminal stays silent while trials finish.
const PLAIN_INTERVAL: Duration = Duration::from_secs(30);
/// Before this, a twentieth of the run is not news: a quick run would print twenty lines at once.
const QUIET_START: Duration = Duration::from_secs(10);

/// A run's progress display.
pub enum RunProgress {
    Bar(ProgressBar),
    Lines(ProgressLines),
    Off,
}

impl RunProgress {
    /// A display for `total` trials: a bar on a terminal, lines elsewhere, nothing when `shown`
    /// is false (`--no-progress`).
    pub fn new(total: usize, shown: bool) -> RunProgress {
        if !shown || total == 0 {
            return RunProgress::Off;
        }
        if std::io::stderr().is_terminal() {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} trials · ETA {eta} · {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            RunProgress::Bar(bar)
        } else {
            RunProgress::Lines(ProgressLines::new(total, Instant::now()))
        }
    }

    /// One more trial finished; `status` is the accuracy so far per backend.
    pub fn advance(&mut self, status: &str) {
        match self {
            RunProgress::Bar(bar) => {
                bar.set_message(status.to_string());
                bar.inc(1);
            }
            RunProgress::Lines(lines) => {
                if let Some(line) = lines.advance(Instant::now(), status) {
                    eprintln!("{line}");
                }
            }
            RunProgress::Off => {}
        }
    }

    /// A message that must not be drawn over.
    pub fn println(&self, message: &str) {
        match self {
            RunProgress::Bar(bar) => bar.println(message),
            _ => eprintln!("{message}"),
        }
    }

    /// The run's last trial is in (or it stopped): the bar goes, the lines say where it ended.
    pub fn finish(&mut self, status: &str) {
        match self {
            RunProgress::Bar(bar) => bar.finish_and_clear(),
            RunProgress::Lines(lines) => {
                if let Some(line) = lines.last_line(Instant::now(), status) {
                    eprintln!("{line}");
                }
            }
            RunProgress::Off => {}
        }
    }
}

/// Plain progress lines: when to print one, and what it says.
pub struct ProgressLines {
    total: usize,
    done: usize,
    every: usize,
    started: Instant,
    last_printed: Instant,
    printed_at: usize,
}

impl ProgressLines {
    pub fn new(total: usize, now: Instant) -> ProgressLines {
        ProgressLines {
            total,
            done: 0,
            // About twenty lines for a whole run, however long.
            every: total.div_ceil(20).max(1),
            started: now,
            last_printed: now,
            printed_at: 0,
        }
    }

    /// Counts one trial; the line to print, when one is due.
    pub fn advance(&mut self, now: Instant, status: &str) -> Option<String> {
        self.done += 1;
        let due = (self.done.is_multiple_of(self.every)
            && now.duration_since(self.started) >= QUIET_START)
            || now.duration_since(self.last_printed) >= PLAIN_INTERVAL;
        if !due || self.done == self.total {
            // The last trial is said by `last_line`, once.
            return None;
        }
        Some(self.line(now, status))
    }

    /// The closing line, unless the last trial's line already said it all.
    pub fn last_line(&mut self, now: Instant, status: &str) -> Option<String> {
        (self.printed_at != self.done || self.done == 0).then(|| self.line(now, status))
    }

    fn line(&mut self, now: Instant, status: &str) -> String {
        self.last_printed = now;
        self.printed_at = self.done;
        let elapsed = now.duration_since(self.started);
        let left = if self.done > 0 && self.done < self.total {
            let per_trial = elapsed.as_secs_f64() / self.done as f64;
            format!(
                " · about {} left",
                duration_words((self.total - self.done) as f64 * per_trial)
            )
        } else {
            String::new()
        };
        let status = if status.is_empty() {
            String::new()
        } else {
            format!(" · {status}")
        };
        format!(
            "mcpick run: {}/{} trials ({:.0}%) · {} elapsed{left}{status}",
            self.done,
            self.total,
            100.0 * self.done as f64 / self.total.max(1) as f64,
            duration_words(elapsed.as_secs_f64()),
        )
    }
}

/// `42 s`, `3 min 10 s`, `1 h 05 min`.
fn duration_words(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_every_twentieth_of_the_run_and_once_at_the_end() {
        let start = Instant::now();
        let mut lines = ProgressLines::new(100, start);
        // One trial a second: quiet for the first ten, then a line every five trials.
        let printed: Vec<String> = (1..=100)
            .filter_map(|i| lines.advance(start + Duration::from_secs(i), "bm25 50%"))
            .collect();
        assert_eq!(printed.len(), 18, "{printed:#?}");
        assert_eq!(
            printed[0],
            "mcpick run: 10/100 trials (10%) · 10 s elapsed · about 1 min 30 s left · bm25 50%"
        );
        let last = lines
            .last_line(start + Duration::from_secs(100), "bm25 50%")
            .unwrap();
        assert_eq!(
            last,
            "mcpick run: 100/100 trials (100%) · 1 min 40 s elapsed · bm25 50%"
        );
    }

    #[test]
    fn a_quick_run_says_only_where_it_ended() {
        let start = Instant::now();
        let mut lines = ProgressLines::new(100, start);
        let printed = (1..=100)
            .filter_map(|i| lines.advance(start + Duration::from_millis(i * 20), ""))
            .count();
        assert_eq!(printed, 0);
        assert!(
            lines
                .last_line(start + Duration::from_secs(2), "")
                .is_some()
        );
    }

    #[test]
    fn a_slow_run_says_something_every_thirty_seconds() {
        let start = Instant::now();
        let mut lines = ProgressLines::new(1000, start);
        assert_eq!(lines.advance(start + Duration::from_secs(10), ""), None);
        let line = lines.advance(start + Duration::from_secs(31), "").unwrap();
        assert_eq!(
            line,
            "mcpick run: 2/1000 trials (0%) · 31 s elapsed · about 4 h 17 min left"
        );
        assert_eq!(lines.advance(start + Duration::from_secs(40), ""), None);
    }

    #[test]
    fn an_interrupted_run_ends_with_where_it_stopped() {
        let start = Instant::now();
        let mut lines = ProgressLines::new(10, start);
        lines.advance(start, "");
        let last = lines
            .last_line(start + Duration::from_secs(75), "")
            .unwrap();
        assert!(
            last.starts_with("mcpick run: 1/10 trials (10%) · 1 min 15 s elapsed"),
            "{last}"
        );
    }
}
