//! `mcpick import-bfcl` and `mcpick import-metatool`: read a public data set's files, translate them
//! (`crate::import`), write the toolset, suite, tasks and `IMPORT.md` into the output folder, and
//! say what was skipped. A file that cannot be read at all is exit 2; skipped records are not an
//! error (they are listed), but an import that translated nothing is.

use super::ExitStatus;
use super::resolve::required_out;
use crate::cli::{ImportBfclOptions, ImportMetatoolOptions};
use crate::import::bfcl::import_bfcl;
use crate::import::metatool::import_metatool;
use crate::import::{Imported, name_from_path};
use std::io::Write;
use std::path::Path;

pub fn run_import_bfcl(
    options: ImportBfclOptions,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let questions = match read(&options.questions) {
        Ok(text) => text,
        Err(message) => return fail("import-bfcl", &message, out),
    };
    let answers = match options.answers.as_deref().map(read).transpose() {
        Ok(text) => text,
        Err(message) => return fail("import-bfcl", &message, out),
    };
    let output = match required_out(&options.out) {
        Ok(output) => output,
        Err(message) => return fail("import-bfcl", &message, out),
    };
    let name = options
        .name
        .name
        .clone()
        .unwrap_or_else(|| name_from_path(&options.questions));
    let imported = import_bfcl(&questions, answers.as_deref(), &name);
    let mut source = options.questions.display().to_string();
    if let Some(answers) = &options.answers {
        source.push_str(&format!(" with answers {}", answers.display()));
    }
    finish("import-bfcl", &imported, &output, &source, out)
}

pub fn run_import_metatool(
    options: ImportMetatoolOptions,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let output = match required_out(&options.out) {
        Ok(output) => output,
        Err(message) => return fail("import-metatool", &message, out),
    };
    let name = options.name.name.as_deref().unwrap_or("metatool");
    let texts = read(&options.queries).and_then(|q| Ok((q, read(&options.descriptions)?)));
    let (queries, descriptions) = match texts {
        Ok(texts) => texts,
        Err(message) => return fail("import-metatool", &message, out),
    };
    let imported = match import_metatool(&queries, &descriptions, name) {
        Ok(imported) => imported,
        Err(message) => return fail("import-metatool", &message, out),
    };
    let source = format!(
        "{} with descriptions {}",
        options.queries.display(),
        options.descriptions.display()
    );
    finish("import-metatool", &imported, &output, &source, out)
}

/// How many notes and skipped records the terminal shows; IMPORT.md has them all.
const SHOWN: usize = 10;

fn print_skipped(imported: &Imported, limit: usize, out: &mut dyn Write) -> std::io::Result<()> {
    for skipped in imported.skipped.iter().take(limit) {
        writeln!(
            out,
            "  skipped {} (line {}): {}",
            skipped.record, skipped.line, skipped.reason
        )?;
    }
    if imported.skipped.len() > limit {
        writeln!(
            out,
            "  … {} more skipped, listed in IMPORT.md",
            imported.skipped.len() - limit
        )?;
    }
    Ok(())
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn fail(command: &str, message: &str, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
    writeln!(out, "mcpick {command}: {message}")?;
    Ok(ExitStatus::InvalidInput)
}

fn finish(
    command: &str,
    imported: &Imported,
    dir: &Path,
    source: &str,
    out: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    if imported.tasks.is_empty() {
        writeln!(
            out,
            "mcpick {command}: nothing translated ({})",
            imported.summary()
        )?;
        print_skipped(imported, 5, out)?;
        return Ok(ExitStatus::InvalidInput);
    }
    let written = imported.write(dir, source)?;
    writeln!(out, "{}: {}", dir.display(), imported.summary())?;
    for (kind, count) in imported.notes.iter().take(SHOWN) {
        writeln!(out, "  translated with a change: {kind} ({count})")?;
    }
    if imported.notes.len() > SHOWN {
        writeln!(
            out,
            "  … {} more kinds of change in IMPORT.md",
            imported.notes.len() - SHOWN
        )?;
    }
    print_skipped(imported, SHOWN, out)?;
    let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    writeln!(out, "wrote {}", files.join(", "))?;
    writeln!(
        out,
        "next: mcpick validate {0} && mcpick run {0} --backend oracle",
        dir.display()
    )?;
    Ok(ExitStatus::Success)
}
