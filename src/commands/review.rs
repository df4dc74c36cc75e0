//! `mcpick review DIR`: the pending drafted tasks of a suite, one at a time, like `git add -p`:
//! accept (y), reject (n), edit in `$VISUAL`/`$EDITOR` (e), skip (s), quit (q). Each decision is
//! written at once (`crate::review`), so quitting, Ctrl-C or a kill keeps what was decided and the
//! next review goes on with what is left. Without a terminal on stdin and stdout it lists what is
//! pending and exits 2 (a script must not hang on a question).

use super::ExitStatus;
use crate::review::{Decided, Decision, Record, ReviewFile, describe};
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

pub fn run_review(dir: &Path, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    review(dir, interactive, &mut std::io::stdin().lock(), &editor, out)
}

fn review(
    dir: &Path,
    interactive: bool,
    input: &mut dyn BufRead,
    editor: &str,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let opened = ReviewFile::open(dir).and_then(|file| {
        let pending = file.pending()?;
        let total = file.records()?.len();
        Ok((file, pending, total))
    });
    let (file, pending, total) = match opened {
        Ok(opened) => opened,
        Err(message) => {
            writeln!(out, "mcpick review: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    if pending.is_empty() {
        writeln!(
            out,
            "nothing to review: all {total} tasks of {} are accepted",
            file.tasks_file.display()
        )?;
        return Ok(ExitStatus::Success);
    }
    if !interactive {
        writeln!(
            out,
            "{} of {total} tasks await review (run `mcpick review {}` in a terminal):",
            pending.len(),
            dir.display()
        )?;
        for record in &pending {
            writeln!(out, "{}", describe(record))?;
        }
        return Ok(ExitStatus::InvalidInput);
    }
    let shared = file.shared_ids().unwrap_or_default();
    if !shared.is_empty() {
        writeln!(
            out,
            "note: more than one task has the id {} (`mcpick validate` refuses that); each is shown and decided on its own — edit one to give it an id of its own",
            shared
                .iter()
                .map(|id| format!("{:?}", crate::untrusted_text::shown(id, 80)))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    let (mut accepted, mut rejected, mut edited) = (0, 0, 0);
    'tasks: for (n, queued) in pending.iter().enumerate() {
        let mut shown = queued.clone();
        loop {
            // The file is the truth: the record as it is now, or nothing if it was decided or
            // removed elsewhere.
            let current = match file.current(&shown) {
                Ok(Some(current)) => current,
                Ok(None) => continue 'tasks,
                Err(message) => {
                    writeln!(out, "mcpick review: {message}")?;
                    break 'tasks;
                }
            };
            if current != shown {
                writeln!(out, "\n(it changed on disk since; as it is now)")?;
                shown = current;
            }
            writeln!(out, "\n({}/{}) {}", n + 1, pending.len(), describe(&shown))?;
            write!(out, "Accept this task [y,n,e,s,q,?]? ")?;
            out.flush()?;
            let mut answer = String::new();
            if input.read_line(&mut answer)? == 0 {
                break 'tasks;
            }
            let decision = match answer.trim() {
                "y" => Decision::Accept,
                "n" => Decision::Reject,
                "s" => continue 'tasks,
                "q" => break 'tasks,
                "e" => match edit(&shown, editor) {
                    Ok(record) => Decision::Replace(record),
                    Err(why) => {
                        writeln!(out, "the edit was not kept: {why}")?;
                        continue;
                    }
                },
                _ => {
                    writeln!(
                        out,
                        "y - accept this task\nn - reject it (moved to rejected.jsonl)\ne - edit it in {editor}\ns - skip it for now\nq - quit; decisions so far are kept"
                    )?;
                    continue;
                }
            };
            match file.decide(&shown, &decision) {
                Ok(Decided::Done) => match decision {
                    Decision::Accept => {
                        accepted += 1;
                        continue 'tasks;
                    }
                    Decision::Reject => {
                        rejected += 1;
                        continue 'tasks;
                    }
                    Decision::Replace(record) => {
                        edited += 1;
                        writeln!(out, "edited; the task again:")?;
                        shown = record;
                    }
                },
                Ok(Decided::Changed) => writeln!(
                    out,
                    "it changed on disk while you decided: nothing was written; here it is again"
                )?,
                Err(why) if matches!(decision, Decision::Replace(_)) => {
                    writeln!(out, "the edit was not kept: {why}")?
                }
                Err(why) => writeln!(out, "mcpick review: {why}")?,
            }
        }
    }
    let left = file.pending().map_or(0, |p| p.len());
    writeln!(
        out,
        "\naccepted {accepted}, rejected {rejected}, edited {edited}; {left} still pending"
    )?;
    Ok(ExitStatus::Success)
}

/// The record after the reviewer's editor is done with it, or why not. The scratch file is
/// created new in a folder of its own that only this user may enter (a name nobody can plant a
/// link at beforehand), and removed with its folder afterwards.
fn edit(record: &Record, editor: &str) -> Result<Record, String> {
    let scratch_dir = private_folder().map_err(|e| format!("a scratch folder: {e}"))?;
    let scratch = scratch_dir.join("task.json");
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&scratch)
            .map_err(|e| format!("{}: {e}", scratch.display()))?;
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(record.clone()))
            .unwrap_or_default();
        writeln!(file, "{text}").map_err(|e| format!("{}: {e}", scratch.display()))?;
        drop(file);
        // Through the shell, as git runs $EDITOR: it may carry arguments ("code --wait").
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("sh")
            .arg(&scratch)
            .status();
        match status {
            Err(e) => return Err(format!("cannot start {editor}: {e}")),
            Ok(status) if !status.success() => {
                return Err(format!("{editor} exited with {status}"));
            }
            Ok(_) => {}
        }
        let edited = std::fs::read_to_string(&scratch).map_err(|e| e.to_string())?;
        match serde_json::from_str::<serde_json::Value>(&edited) {
            Ok(serde_json::Value::Object(record))
                if record.get("id").is_some_and(serde_json::Value::is_string) =>
            {
                Ok(record)
            }
            Ok(_) => Err("the edited task is not a JSON object with an \"id\"".into()),
            Err(e) => Err(format!("the edited task is not JSON: {e}")),
        }
    })();
    let _ = std::fs::remove_dir_all(&scratch_dir);
    result
}

/// A new folder under the system's temporary folder with a random name, created by this call
/// (never one that was there) and open to this user alone.
fn private_folder() -> std::io::Result<std::path::PathBuf> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    for _ in 0..16 {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(std::io::Error::other)?;
        let path =
            std::env::temp_dir().join(format!("mcpick-review-{}", crate::hashing::hex(&random)));
        match builder.create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name for a scratch folder"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The toolset's tools; `folder` puts the format header before them.
    const TOOLS: &str = "name = \"mini\"\n\n[[tool]]\nname = \"get_weather\"\ndescription = \"Current weather for a city.\"\n[tool.inputSchema]\ntype = \"object\"\nrequired = [\"city\"]\nproperties.city = { type = \"string\" }\n";

    fn task(id: &str, city: &str) -> String {
        json!({"id": id, "prompt": format!("Is it raining in {city}?"),
            "expect": [{"tool": "get_weather", "args": {"city": city}}], "review": "draft"})
        .to_string()
    }

    /// A suite folder whose task file holds `lines`.
    fn folder(lines: &[String]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let format = crate::spec::FORMAT_VERSION;
        std::fs::write(
            dir.path().join("mini.toml"),
            format!("format = {format}\n{TOOLS}"),
        )
        .unwrap();
        let mut suite = crate::spec::SuiteFile::new("s", "mini.toml");
        suite.tasks_file = Some(crate::spec::Located::new("tasks.jsonl".into()));
        std::fs::write(
            dir.path().join("suite.toml"),
            crate::spec::toml_text(&suite).unwrap(),
        )
        .unwrap();
        std::fs::write(dir.path().join("tasks.jsonl"), lines.join("\n") + "\n").unwrap();
        dir
    }

    fn records(path: &Path) -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Answers the questions in turn; before each answer, does what `meanwhile` says to the
    /// folder (a person editing the file in another window while the question waits).
    struct Person<'a> {
        answers: std::collections::VecDeque<&'a str>,
        meanwhile: Box<dyn FnMut(usize) + 'a>,
        asked: usize,
        pending: Vec<u8>,
    }

    impl std::io::Read for Person<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.pending.is_empty() {
                let Some(answer) = self.answers.pop_front() else {
                    return Ok(0);
                };
                (self.meanwhile)(self.asked);
                self.asked += 1;
                self.pending = format!("{answer}\n").into_bytes();
            }
            let n = self.pending.len().min(buf.len());
            buf[..n].copy_from_slice(&self.pending[..n]);
            self.pending.drain(..n);
            Ok(n)
        }
    }

    fn review_with(dir: &Path, answers: &[&str], meanwhile: impl FnMut(usize)) -> String {
        let person = Person {
            answers: answers.iter().copied().collect(),
            meanwhile: Box::new(meanwhile),
            asked: 0,
            pending: Vec::new(),
        };
        let mut input = std::io::BufReader::new(person);
        let mut out = Vec::new();
        review(dir, true, &mut input, "true", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn an_edit_made_on_disk_while_a_question_waits_is_kept() {
        let dir = folder(&[task("one", "Oslo"), task("two", "Rome")]);
        let tasks = dir.path().join("tasks.jsonl");
        let said = review_with(dir.path(), &["y", "y"], |asked| {
            if asked == 0 {
                // The person fixes task two by hand while task one's question waits.
                let text = std::fs::read_to_string(&tasks).unwrap();
                std::fs::write(&tasks, text.replace("Rome", "Roma")).unwrap();
            }
        });
        let kept = records(&tasks);
        assert_eq!(kept[0]["review"], "accepted", "{said}");
        assert_eq!(kept[1]["prompt"], "Is it raining in Roma?", "{said}");
        assert_eq!(kept[1]["review"], "accepted", "{said}");
        assert!(
            said.contains("accepted 2, rejected 0, edited 0; 0 still pending"),
            "{said}"
        );
    }

    #[test]
    fn a_task_changed_on_disk_after_it_was_shown_is_shown_again_not_decided() {
        let dir = folder(&[task("one", "Oslo")]);
        let tasks = dir.path().join("tasks.jsonl");
        let said = review_with(dir.path(), &["n", "y"], |asked| {
            if asked == 0 {
                let text = std::fs::read_to_string(&tasks).unwrap();
                std::fs::write(&tasks, text.replace("Oslo", "Bergen")).unwrap();
            }
        });
        assert!(said.contains("changed on disk"), "{said}");
        assert!(said.contains("Is it raining in Bergen?"), "{said}");
        let kept = records(&tasks);
        assert_eq!(
            kept.len(),
            1,
            "the rejection of what was shown was not applied: {said}"
        );
        assert_eq!(kept[0]["review"], "accepted");
        assert_eq!(kept[0]["prompt"], "Is it raining in Bergen?");
        assert!(!dir.path().join("rejected.jsonl").exists());
    }

    #[test]
    fn two_tasks_with_one_id_are_two_decisions() {
        for second in [task("dup", "Rome"), task("dup", "Oslo")] {
            let dir = folder(&[task("dup", "Oslo"), second.clone()]);
            let said = review_with(dir.path(), &["y", "n"], |_| {});
            assert!(
                said.contains("more than one task has the id \"dup\""),
                "{said}"
            );
            assert!(said.contains("(2/2) dup (draft)"), "{said}");
            let kept = records(&dir.path().join("tasks.jsonl"));
            assert_eq!(kept.len(), 1, "{said}");
            assert_eq!(kept[0]["review"], "accepted");
            assert_eq!(kept[0]["prompt"], "Is it raining in Oslo?");
            let rejected = records(&dir.path().join("rejected.jsonl"));
            assert_eq!(rejected.len(), 1);
            assert_eq!(rejected[0], serde_json::from_str::<Value>(&second).unwrap());
        }
    }

    #[test]
    fn an_edit_is_kept_unless_it_brings_a_new_error_and_then_is_taken_back_where_it_went() {
        // Two tasks share an id (an error the suite has before any edit): giving the second an
        // id of its own is kept.
        let dir = folder(&[task("dup", "Oslo"), task("dup", "Rome")]);
        let tasks = dir.path().join("tasks.jsonl");
        let file = ReviewFile::open(dir.path()).unwrap();
        let second: Record = serde_json::from_str(&task("dup", "Rome")).unwrap();
        let mut renamed = second.clone();
        renamed.insert("id".into(), json!("rome"));
        assert_eq!(
            file.decide(&second, &Decision::Replace(renamed)).unwrap(),
            Decided::Done
        );
        assert_eq!(records(&tasks)[1]["id"], "rome");
        // An edit that brings a new error (an unknown tool) is taken back at its own line, even
        // where another line holds the same record.
        let first: Record = serde_json::from_str(&task("dup", "Oslo")).unwrap();
        let mut broken = first.clone();
        broken.insert("expect".into(), json!([{"tool": "no_such_tool"}]));
        let error = file.decide(&first, &Decision::Replace(broken)).unwrap_err();
        assert!(error.contains("no_such_tool"), "{error}");
        assert_eq!(records(&tasks)[0], Value::Object(first));
        assert_eq!(records(&tasks)[1]["id"], "rome");
    }

    #[test]
    fn a_rejection_that_meets_a_changed_file_writes_nothing() {
        let dir = folder(&[task("one", "Oslo")]);
        let tasks = dir.path().join("tasks.jsonl");
        let said = review_with(dir.path(), &["n", "s"], |asked| {
            if asked == 0 {
                let text = std::fs::read_to_string(&tasks).unwrap();
                std::fs::write(&tasks, text.replace("Oslo", "Bergen")).unwrap();
            }
        });
        assert!(said.contains("changed on disk"), "{said}");
        assert!(!dir.path().join("rejected.jsonl").exists(), "{said}");
        assert_eq!(records(&tasks).len(), 1);
    }

    #[test]
    fn other_lines_are_kept_byte_for_byte() {
        let dir = folder(&[]);
        let tasks = dir.path().join("tasks.jsonl");
        let crlf = format!("{}\r\n{}\n", task("one", "Oslo"), task("two", "Rome"));
        std::fs::write(&tasks, &crlf).unwrap();
        let file = ReviewFile::open(dir.path()).unwrap();
        let two: Record = serde_json::from_str(&task("two", "Rome")).unwrap();
        assert_eq!(file.decide(&two, &Decision::Accept).unwrap(), Decided::Done);
        let now = std::fs::read_to_string(&tasks).unwrap();
        assert!(
            now.starts_with(&format!("{}\r\n", task("one", "Oslo"))),
            "{now:?}"
        );
    }

    #[test]
    fn control_characters_in_a_request_are_shown_escaped() {
        let hostile = json!({"id": "x\u{1b}[2J", "prompt": "Rain\r\u{7} in Oslo?\u{202e}",
            "expect": [{"tool": "get_weather", "args": {"city": "Oslo"}}], "review": "draft"});
        let dir = folder(&[hostile.to_string()]);
        let said = review_with(dir.path(), &["s"], |_| {});
        assert!(
            !said.chars().any(crate::untrusted_text::is_hidden),
            "{said:?}"
        );
        assert!(
            said.contains("x\\u{1b}[2J") && said.contains("Rain\\u{d}\\u{7}"),
            "{said}"
        );
    }

    #[test]
    fn the_scratch_file_is_new_in_a_private_folder_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let editor = format!(
            "sh -c 'ls -ld \"$(dirname \"$0\")\" > {0}; echo \"$0\" >> {0}; sed -i s/Oslo/Bergen/ \"$0\"'",
            seen.display()
        );
        let record: Record = serde_json::from_str(&task("one", "Oslo")).unwrap();
        let edited = edit(&record, &editor).unwrap();
        assert_eq!(edited["prompt"], "Is it raining in Bergen?");
        let seen = std::fs::read_to_string(&seen).unwrap();
        assert!(seen.starts_with("drwx------"), "{seen}");
        let scratch = seen.lines().nth(1).unwrap();
        assert!(!Path::new(scratch).exists());
        assert!(!Path::new(scratch).parent().unwrap().exists());
        // Two scratch folders are never one.
        let (a, b) = (private_folder().unwrap(), private_folder().unwrap());
        assert_ne!(a, b);
        for folder in [a, b] {
            std::fs::remove_dir(folder).unwrap();
        }
    }
}
