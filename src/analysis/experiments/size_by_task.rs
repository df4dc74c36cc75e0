//! A sweep's figures with the task as the unit. A sweep meets every task at every size, and at each
//! size once per seed: the seeds share tasks, so the trials at one size are not independent
//! observations. Per size, each task's rate of right picks over its seeds is one observation, and
//! the interval is over tasks (`task_rate`). The toolset size where the fitted accuracy falls to
//! 90% gets an interval the same way: the tasks are resampled whole (every size and seed of a task
//! together), the logistic fit redone on each resample, and the 2.5th and 97.5th percentiles of
//! the sizes it gives taken — a resample whose fit never reaches 90% counting as unbounded.

use super::{BOOTSTRAP_SEED, numbers, scored, strings};
use crate::analysis::statistics::{SplitMix64, fit_logistic_in_log_n, task_rate};
use crate::score::Interval;
use polars::prelude::*;
use std::collections::BTreeMap;

/// Resamples behind the interval on N at 90%.
const RESAMPLES: usize = 400;

/// One task's trials at one size of a series: right picks, correct calls, trials.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    picks: u64,
    corrects: u64,
    trials: u64,
}

/// A series' trials by task, then by size.
#[derive(Debug, Default)]
pub struct SeriesByTask {
    tasks: BTreeMap<(String, String), BTreeMap<u32, Counts>>,
}

impl SeriesByTask {
    /// The right-pick and correct-call intervals over tasks at `size`.
    pub fn intervals_at(&self, size: u32) -> (Interval, Interval) {
        let rates = |of: fn(&Counts) -> u64| -> Vec<f64> {
            self.tasks
                .values()
                .filter_map(|sizes| sizes.get(&size))
                .filter(|c| c.trials > 0)
                .map(|c| of(c) as f64 / c.trials as f64)
                .collect()
        };
        (
            task_rate(&rates(|c| c.picks), 2_000, BOOTSTRAP_SEED),
            task_rate(&rates(|c| c.corrects), 2_000, BOOTSTRAP_SEED),
        )
    }

    /// The 95% interval on the size where the fitted accuracy falls to 90% of its value at the
    /// smallest size, by resampling tasks; the high end is infinite when 2.5% or more of the
    /// resamples never fall that far. `None` with fewer than two tasks.
    pub fn n_at_90_interval(&self) -> Option<(f64, f64)> {
        let tasks: Vec<&BTreeMap<u32, Counts>> = self.tasks.values().collect();
        if tasks.len() < 2 {
            return None;
        }
        let mut rng = SplitMix64::new(BOOTSTRAP_SEED ^ 0x006e_3930);
        let mut sizes: Vec<f64> = (0..RESAMPLES)
            .map(|_| {
                let mut points: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
                for _ in 0..tasks.len() {
                    let task = tasks[rng.below(tasks.len() as u64) as usize];
                    for (size, counts) in task {
                        let point = points.entry(*size).or_default();
                        point.0 += counts.picks;
                        point.1 += counts.trials;
                    }
                }
                let points: Vec<(f64, u64, u64)> = points
                    .into_iter()
                    .map(|(size, (picks, trials))| (f64::from(size), picks, trials))
                    .collect();
                fit_logistic_in_log_n(&points)
                    .and_then(|fit| fit.n_at_90_percent)
                    .unwrap_or(f64::INFINITY)
            })
            .collect();
        sizes.sort_by(f64::total_cmp);
        let at = |q: f64| sizes[((q * RESAMPLES as f64) as usize).min(RESAMPLES - 1)];
        Some((at(0.025), at(0.975)))
    }
}

/// Every sweep series' trials by task, keyed by (backend, variant, exposure).
pub fn series_by_task(
    frame: &DataFrame,
) -> PolarsResult<BTreeMap<(String, String, String), SeriesByTask>> {
    let table = scored(frame)
        .filter(col("size").gt(lit(0u32)))
        .select([
            col("backend"),
            col("variant"),
            col("exposure"),
            col("suite"),
            col("task"),
            col("size"),
            col("right_pick").cast(DataType::UInt64).alias("pick"),
            col("correct").cast(DataType::UInt64).alias("right"),
        ])
        .collect()?;
    let (backends, variants) = (strings(&table, "backend")?, strings(&table, "variant")?);
    let (exposures, suites) = (strings(&table, "exposure")?, strings(&table, "suite")?);
    let tasks = strings(&table, "task")?;
    let sizes = numbers(&table, "size")?;
    let (picks, corrects) = (numbers(&table, "pick")?, numbers(&table, "right")?);
    let mut series: BTreeMap<(String, String, String), SeriesByTask> = BTreeMap::new();
    for i in 0..table.height() {
        let key = (
            backends[i].clone(),
            variants[i].clone(),
            exposures[i].clone(),
        );
        let counts = series
            .entry(key)
            .or_default()
            .tasks
            .entry((suites[i].clone(), tasks[i].clone()))
            .or_default()
            .entry(sizes[i] as u32)
            .or_default();
        counts.picks += picks[i];
        counts.corrects += corrects[i];
        counts.trials += 1;
    }
    Ok(series)
}
