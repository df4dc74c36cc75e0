//! `mcpick review DIR`: the pending drafted tasks of a suite, one at a time, like `git add -p`:
//! accept (y), reject (n), edit in `$VISUAL`/`$EDITOR` (e), skip (s), quit (q). Each decision is
//! written at once (`crate::review`), so quitting, Ctrl-C or a kill keeps what was decided and the
//! next review goes on with what is left. Without a terminal on stdin and stdout it lists what is
//! pending and exits 2 (a script must not hang on a question).

use super::ExitStatus;
use crate::review::{ReviewFile, describe};
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
    let mut file = match ReviewFile::open(dir) {
        Ok(file) => file,
        Err(message) => {
            writeln!(out, "mcpick review: {message}")?;
            return Ok(ExitStatus::InvalidInput);
        }
    };
    let pending = file.pending();
    if pending.is_empty() {
        writeln!(
            out,
            "nothing to review: all {} tasks of {} are accepted",
            file.len(),
            file.tasks_file.display()
        )?;
        return Ok(ExitStatus::Success);
    }
    if !interactive {
        writeln!(
            out,
            "{} of {} tasks await review (run `mcpick review {}` in a terminal):",
            pending.len(),
            file.len(),
            dir.display()
        )?;
        for &k in &pending {
            writeln!(out, "{}", describe(file.record(k)))?;
        }
        return Ok(ExitStatus::InvalidInput);
    }
    // Ids, not positions: a rejection moves the records after it.
    let ids: Vec<String> = pending
        .iter()
        .map(|&k| {
            file.record(k)["id"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let (mut accepted, mut rejected, mut edited) = (0, 0, 0);
    'tasks: for (n, id) in ids.iter().enumerate() {
        loop {
            let Some(position) = (0..file.len()).find(|&k| file.record(k)["id"] == id.as_str())
            else {
                continue 'tasks;
            };
            writeln!(
                out,
                "\n({}/{}) {}",
                n + 1,
                ids.len(),
                describe(file.record(position))
            )?;
            write!(out, "Accept this task [y,n,e,s,q,?]? ")?;
            out.flush()?;
            let mut answer = String::new();
            if input.read_line(&mut answer)? == 0 {
                break 'tasks;
            }
            match answer.trim() {
                "y" => {
                    file.accept(position)?;
                    accepted += 1;
                    continue 'tasks;
                }
                "n" => {
                    file.reject(position)?;
                    rejected += 1;
                    continue 'tasks;
                }
                "s" => continue 'tasks,
                "q" => break 'tasks,
                "e" => match edit(&mut file, position, editor) {
                    Ok(()) => {
                        edited += 1;
                        writeln!(out, "edited; the task again:")?;
                    }
                    Err(why) => writeln!(out, "the edit was not kept: {why}")?,
                },
                _ => writeln!(
                    out,
                    "y - accept this task\nn - reject it (moved to rejected.jsonl)\ne - edit it in {editor}\ns - skip it for now\nq - quit; decisions so far are kept"
                )?,
            }
        }
    }
    let left = file.pending().len();
    writeln!(
        out,
        "\naccepted {accepted}, rejected {rejected}, edited {edited}; {left} still pending"
    )?;
    Ok(ExitStatus::Success)
}

/// Opens the record in the editor and keeps the result if the suite still loads.
fn edit(file: &mut ReviewFile, position: usize, editor: &str) -> Result<(), String> {
    let record = serde_json::Value::Object(file.record(position).clone());
    let scratch = std::env::temp_dir().join(format!(
        "mcpick-review-{}-{position}.json",
        std::process::id()
    ));
    std::fs::write(
        &scratch,
        serde_json::to_string_pretty(&record).unwrap_or_default() + "\n",
    )
    .map_err(|e| e.to_string())?;
    // Through the shell, as git runs $EDITOR: it may carry arguments ("code --wait").
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&scratch)
        .status();
    let edited = std::fs::read_to_string(&scratch);
    let _ = std::fs::remove_file(&scratch);
    match status {
        Err(e) => return Err(format!("cannot start {editor}: {e}")),
        Ok(status) if !status.success() => return Err(format!("{editor} exited with {status}")),
        Ok(_) => {}
    }
    file.replace_record(position, &edited.map_err(|e| e.to_string())?)
}
