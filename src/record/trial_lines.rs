//! `trials.jsonl` read back as outside input: line by line, each line kept to at most
//! `MAX_LINE_BYTES` in memory (one huge line cannot take the machine's memory), and each checked —
//! whole (a last line without its newline that is no whole trial was being written when the run
//! died), UTF-8, JSON, a trial
//! this version reads, no field mcpick never writes, a key of the folder's plan, not a key already
//! read. A line that fails is not a trial: it is named by its line number and why, with where its
//! bytes are, so the writer can set it aside (`set_aside`) and every reader can say so. Nothing is
//! counted that is not a planned trial, and nothing is dropped without a word.

use super::planned::PlannedKeys;
use super::trial::{StoredTrial, TrialKey};
use serde::Deserialize;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The longest line read into memory: 64 MiB. What a trial stores is bounded far below this
/// (`runner::reply_bound`), so a longer line was not written by mcpick.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The file the trials are in.
pub const TRIALS_FILE: &str = "trials.jsonl";

/// A line that is not one of the folder's trials: where it is, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct SetAside {
    /// 1-based line number in `trials.jsonl`.
    pub line: usize,
    /// Byte offset of the line's start, and its length (with its newline, if it has one).
    pub offset: u64,
    pub length: u64,
    pub reason: String,
}

impl SetAside {
    /// `trials.jsonl:LINE: why`, as every reader says it.
    pub fn describe(&self) -> String {
        format!("{TRIALS_FILE}:{}: {}", self.line, self.reason)
    }
}

/// A run folder's trials as read back.
#[derive(Debug, Default)]
pub struct StoredTrials {
    /// The lines that are the folder's trials, in file order, each key once.
    pub trials: Vec<StoredTrial>,
    /// The lines that are not, in file order.
    pub set_aside: Vec<SetAside>,
    /// Lines an earlier `--resume` set aside into `set-aside.jsonl` (filled by who reads the
    /// folder, `set_aside::count`).
    pub earlier_set_aside: usize,
}

/// Reads `trials.jsonl` of `folder`, each line checked against `plan` (`None`: a folder without a
/// manifest to check by, whose keys are taken as they are). A folder without the file is an error
/// of kind `NotFound`.
pub fn read_trials(folder: &Path, plan: Option<&PlannedKeys>) -> std::io::Result<StoredTrials> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(folder.join(TRIALS_FILE))?);
    let mut stored = StoredTrials::default();
    let mut seen: HashMap<TrialKey, usize> = HashMap::new();
    let mut line = Vec::new();
    let (mut number, mut offset) = (0usize, 0u64);
    loop {
        let (length, whole) = read_bounded_line(&mut reader, &mut line, MAX_LINE_BYTES)?;
        if length == 0 {
            break;
        }
        number += 1;
        let checked = if length > MAX_LINE_BYTES as u64 {
            Err(format!(
                "{length} bytes long, more than the {} MiB a line of trials may be",
                MAX_LINE_BYTES >> 20
            ))
        } else if line.trim_ascii().is_empty() {
            offset += length;
            continue;
        } else {
            // The last line without its newline is whole if it is a whole trial (a file written by
            // hand); otherwise the run stopped while writing it.
            parse_trial(&line)
                .map_err(|why| match whole {
                    true => why,
                    false => {
                        format!("cut short: no newline at its end and not a whole trial ({why})")
                    }
                })
                .and_then(|trial| {
                    let key = trial.key();
                    if let Some(why) = plan.and_then(|plan| plan.why_not(&key)) {
                        return Err(format!("not a trial of this folder's plan: {why}"));
                    }
                    match seen.get(&key) {
                        Some(first) => Err(format!(
                            "the same trial as line {first} (the first is kept)"
                        )),
                        None => {
                            seen.insert(key, number);
                            Ok(trial)
                        }
                    }
                })
        };
        match checked {
            Ok(trial) => stored.trials.push(trial),
            Err(reason) => stored.set_aside.push(SetAside {
                line: number,
                offset,
                length,
                reason,
            }),
        }
        offset += length;
    }
    Ok(stored)
}

/// One line (its newline included, if any) as a stored trial, or why it is not one.
fn parse_trial(line: &[u8]) -> Result<StoredTrial, String> {
    let text = std::str::from_utf8(line).map_err(|e| {
        format!(
            "bytes that are not UTF-8 (from byte {})",
            e.valid_up_to() + 1
        )
    })?;
    let text = text.trim_end();
    let trial = serde_json::from_str::<StoredTrial>(text).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => format!("not a trial this version reads ({e})"),
        _ => format!("not JSON ({e})"),
    })?;
    // The line is a JSON object (it read as a trial); its keys alone, without building its values.
    let TopLevelKeys(keys) = serde_json::from_str(text).unwrap_or_default();
    let unknown: Vec<String> = keys
        .into_iter()
        .filter(|name| !StoredTrial::writes_field(name))
        .take(5)
        .map(|name| format!("`{name}`"))
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "field(s) mcpick never writes: {}",
            unknown.join(", ")
        ));
    }
    Ok(trial)
}

/// The keys of a JSON object, its values skipped.
#[derive(Default)]
struct TopLevelKeys(Vec<String>);

impl<'de> Deserialize<'de> for TopLevelKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = TopLevelKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<TopLevelKeys, M::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(TopLevelKeys(keys))
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// Reads one line into `line`, keeping at most `max` bytes of it; returns the line's whole length
/// (0 at the end of the file) and whether it ended with a newline. Every file of a run folder that
/// is read line by line is read by this.
pub fn read_bounded_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(u64, bool)> {
    line.clear();
    let mut total = 0u64;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok((total, false));
        }
        let (take, ends) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let room = max.saturating_sub(line.len());
        line.extend_from_slice(&available[..take.min(room)]);
        total += take as u64;
        reader.consume(take);
        if ends {
            return Ok((total, true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_longer_than_the_bound_is_read_whole_but_kept_short() {
        let text = format!("{}\nab\ncut", "x".repeat(100));
        let mut reader = BufReader::with_capacity(8, text.as_bytes());
        let mut line = Vec::new();
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, 10).unwrap(),
            (101, true)
        );
        assert_eq!(line.len(), 10);
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, 10).unwrap(),
            (3, true)
        );
        assert_eq!(line, b"ab\n");
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, 10).unwrap(),
            (3, false)
        );
        assert_eq!(
            read_bounded_line(&mut reader, &mut line, 10).unwrap(),
            (0, false)
        );
    }
}
