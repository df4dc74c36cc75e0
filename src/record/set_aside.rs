//! `set-aside.jsonl`: where the lines of `trials.jsonl` that are not the folder's trials go when a
//! run is resumed — a line cut short by a kill, bytes that are not UTF-8, a trial of another plan or
//! shard, a field or outcome no version writes, a second copy of a trial. Each is appended with when,
//! from which line, why, and its bytes (as text when it is UTF-8, else base64), synced to disk, and
//! only then is `trials.jsonl` rewritten without it: a kill in between leaves a line in both files,
//! never in neither. Nothing a folder held is deleted; readers count what was set aside.

use super::trial_lines::{SetAside, TRIALS_FILE};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The side file's name in a run folder.
pub const SET_ASIDE_FILE: &str = "set-aside.jsonl";

/// Lines kept as text in the side file up to this size; longer ones (and lines that are not
/// UTF-8) as base64, streamed.
const TEXT_UP_TO: u64 = 1 << 20;

/// How many lines were set aside into the folder's side file before (0 without one).
pub fn count(folder: &Path) -> std::io::Result<usize> {
    let file = match File::open(folder.join(SET_ASIDE_FILE)) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut reader = BufReader::new(file);
    let mut lines = 0;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(lines);
        }
        lines += available.iter().filter(|b| **b == b'\n').count();
        let n = available.len();
        reader.consume(n);
    }
}

/// Moves `lines` (read from the folder's `trials.jsonl`, in file order) into the side file, then
/// rewrites `trials.jsonl` without them. `stamp` says when.
pub fn move_aside(folder: &Path, lines: &[SetAside], stamp: &str) -> std::io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    let trials_path = folder.join(TRIALS_FILE);
    let mut trials = File::open(&trials_path)?;
    let mut side = File::options()
        .create(true)
        .append(true)
        .open(folder.join(SET_ASIDE_FILE))?;
    for line in lines {
        let head = serde_json::json!({
            "set_aside": stamp,
            "from": format!("{TRIALS_FILE}:{}", line.line),
            "reason": line.reason,
            "bytes": line.length,
        })
        .to_string();
        // The record is the head's fields and one more, the line itself.
        let mut record = head[..head.len() - 1].to_string();
        trials.seek(SeekFrom::Start(line.offset))?;
        let mut bytes = (&mut trials).take(line.length);
        let text = if line.length <= TEXT_UP_TO {
            let mut kept = Vec::new();
            bytes.read_to_end(&mut kept)?;
            match String::from_utf8(kept) {
                Ok(text) => Ok(text),
                Err(e) => Err(e.into_bytes()),
            }
        } else {
            Err(Vec::new())
        };
        match text {
            Ok(text) => {
                record.push_str(&format!(
                    ",\"text\":{}}}\n",
                    serde_json::Value::String(text)
                ));
                side.write_all(record.as_bytes())?;
            }
            Err(small) => {
                record.push_str(",\"base64\":\"");
                side.write_all(record.as_bytes())?;
                {
                    let mut encoder = base64::write::EncoderWriter::new(&mut side, &STANDARD);
                    if small.is_empty() {
                        trials.seek(SeekFrom::Start(line.offset))?;
                        std::io::copy(&mut (&mut trials).take(line.length), &mut encoder)?;
                    } else {
                        encoder.write_all(&small)?;
                    }
                    encoder.finish()?;
                }
                side.write_all(b"\"}\n")?;
            }
        }
    }
    side.sync_all()?;
    drop(side);
    let total = trials.metadata()?.len();
    crate::file_replace::replace_with(&trials_path, |out: &mut File| {
        let mut at = 0u64;
        for line in lines
            .iter()
            .map(|l| (l.offset, l.length))
            .chain([(total, 0)])
        {
            trials.seek(SeekFrom::Start(at))?;
            std::io::copy(&mut (&mut trials).take(line.0 - at), out)?;
            at = line.0 + line.1;
        }
        Ok::<(), std::io::Error>(())
    })
}

/// A side-file line's bytes, back as they were (for a test or a person putting a line back).
pub fn original_bytes(record: &serde_json::Value) -> Option<Vec<u8>> {
    match (record["text"].as_str(), record["base64"].as_str()) {
        (Some(text), _) => Some(text.as_bytes().to_vec()),
        (None, Some(encoded)) => STANDARD.decode(encoded).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::trial_lines::read_trials;

    #[test]
    fn lines_set_aside_leave_the_trials_and_keep_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let good = std::fs::read_to_string("docs/runs/tool-search-local/trials.jsonl").unwrap();
        let good: Vec<&str> = good.lines().take(3).collect();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(format!("{}\n", good[0]).as_bytes());
        bytes.extend_from_slice(b"{\"not\": \"a trial\"}\n");
        bytes.extend_from_slice(format!("{}\n", good[1]).as_bytes());
        bytes.extend_from_slice(b"\xff\xfe broken\n");
        bytes.extend_from_slice(format!("{}\n", good[2]).as_bytes());
        bytes.extend_from_slice(b"{\"suite\":\"cut");
        std::fs::write(dir.path().join(TRIALS_FILE), &bytes).unwrap();
        let stored = read_trials(dir.path(), None).unwrap();
        assert_eq!(stored.trials.len(), 3);
        let lines: Vec<usize> = stored.set_aside.iter().map(|s| s.line).collect();
        assert_eq!(lines, [2, 4, 6]);
        assert!(stored.set_aside[1].reason.contains("not UTF-8"));
        assert!(stored.set_aside[2].reason.contains("cut short"));
        move_aside(dir.path(), &stored.set_aside, "2026-12-05T00:00:00Z").unwrap();
        let kept = std::fs::read_to_string(dir.path().join(TRIALS_FILE)).unwrap();
        assert_eq!(kept, format!("{}\n{}\n{}\n", good[0], good[1], good[2]));
        let side = std::fs::read_to_string(dir.path().join(SET_ASIDE_FILE)).unwrap();
        let records: Vec<serde_json::Value> = side
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records[0]["from"], "trials.jsonl:2");
        assert_eq!(
            original_bytes(&records[1]).unwrap(),
            b"\xff\xfe broken\n".to_vec()
        );
        assert_eq!(original_bytes(&records[2]).unwrap(), b"{\"suite\":\"cut");
        let again = read_trials(dir.path(), None).unwrap();
        assert_eq!((again.trials.len(), again.set_aside.len()), (3, 0));
        assert_eq!(count(dir.path()).unwrap(), 3);
    }

    /// A whole trial on the last line without its newline (a file written by hand) is a trial,
    /// and the file is known not to end a line.
    #[test]
    fn a_whole_last_line_without_its_newline_is_a_trial() {
        let dir = tempfile::tempdir().unwrap();
        let good = std::fs::read_to_string("docs/runs/tool-search-local/trials.jsonl").unwrap();
        let good: Vec<&str> = good.lines().take(2).collect();
        std::fs::write(
            dir.path().join(TRIALS_FILE),
            format!("{}\n{}", good[0], good[1]),
        )
        .unwrap();
        let stored = read_trials(dir.path(), None).unwrap();
        assert_eq!((stored.trials.len(), stored.set_aside.len()), (2, 0));
        assert!(!crate::record::ends_with_newline(&dir.path().join(TRIALS_FILE)).unwrap());
    }
}
