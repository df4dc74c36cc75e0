//! The house rule ARCHITECTURE.md states, checked on the source: no import circle between the files
//! of `src/`. Each file's references to other modules — `use` declarations and paths written out in
//! code (`crate::…`, `super::…`, `self::…`) — are resolved to the file that defines the item, through
//! a module's `pub use` re-exports. A folder's `mod.rs` (and `lib.rs`, the crate's) is the folder
//! itself, so references between it and the files inside its folder are containment, not arrows.
//! Test modules (`#[cfg(test)]`) are left out: they are not part of what the library builds.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A source file: its path under the crate root, its module path, and its code without comments,
/// string literals and test modules.
struct SourceFile {
    path: String,
    module: Vec<String>,
    code: String,
}

fn source_files(root: &Path) -> Vec<SourceFile> {
    let mut paths = Vec::new();
    collect(&root.join("src"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let relative = path
                .strip_prefix(root)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            if relative == "src/main.rs" {
                return None;
            }
            let text = std::fs::read_to_string(&path).ok()?;
            Some(SourceFile {
                module: module_path(&relative),
                code: without_tests(&without_comments_and_strings(&text)),
                path: relative,
            })
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; `src/lib.rs` is the crate.
fn module_path(relative: &str) -> Vec<String> {
    let inner = relative.trim_start_matches("src/").trim_end_matches(".rs");
    let mut parts: Vec<String> = inner.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Code with comments and the contents of string and char literals blanked out.
fn without_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && is_raw_string(&chars, i) {
            let mut hashes = 0;
            i += 1;
            while chars.get(i) == Some(&'#') {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && (0..hashes).all(|h| chars.get(i + 1 + h) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && is_char_literal(&chars, i) {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `r"…"` or `r#"…"#`, not an identifier ending in r.
fn is_raw_string(chars: &[char], i: usize) -> bool {
    let starts_word = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let mut j = i + 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    starts_word && chars.get(j) == Some(&'"')
}

/// `'x'` or `'\n'`, not a lifetime.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    matches!(
        (chars.get(i + 1), chars.get(i + 2)),
        (Some('\\'), _) | (Some(_), Some('\''))
    )
}

/// Code without `#[cfg(test)]` modules, inline or declared.
fn without_tests(code: &str) -> String {
    let mut code = code.to_string();
    while let Some(at) = code.find("#[cfg(test)]") {
        let after = &code[at..];
        let end = match (after.find('{'), after.find(';')) {
            (Some(open), semicolon) if semicolon.is_none_or(|s| open < s) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, c) in after[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (_, Some(semicolon)) => semicolon + 1,
            _ => after.len(),
        };
        code.replace_range(at..at + end, "");
    }
    code
}

/// The paths a `use` tree names: `a::{b, c::{d, e as f}}` is `a::b`, `a::c::d`, `a::c::e`.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut paths = Vec::new();
    expand(&[], &tree, &mut paths);
    paths
}

fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let mut depth = 0;
    let mut start = 0;
    let bytes = tree.as_bytes();
    let mut parts = Vec::new();
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&tree[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some(open) = part.find('{') {
            let head: Vec<String> = segments(part[..open].trim_end_matches(':'));
            let inner = &part[open + 1..part.rfind('}').unwrap_or(part.len())];
            let next: Vec<String> = prefix.iter().cloned().chain(head).collect();
            expand(&next, inner, out);
        } else {
            let name = part.split(" as ").next().unwrap_or(part);
            let mut path: Vec<String> = prefix.iter().cloned().chain(segments(name)).collect();
            if path.last().is_some_and(|s| s == "self") {
                path.pop();
            }
            out.push(path);
        }
    }
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A path made absolute from the module it is written in; `None` for other crates.
fn absolute(
    module: &[String],
    path: &[String],
    modules: &HashMap<Vec<String>, usize>,
) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" | "mcpick" => Some(path[1..].to_vec()),
        "self" => Some(module.iter().chain(&path[1..]).cloned().collect()),
        "super" => {
            let mut base = module.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            Some(base.into_iter().chain(rest.iter().cloned()).collect())
        }
        // `use child::Item` in a module file names one of its own modules.
        _ => {
            let child: Vec<String> = module
                .iter()
                .chain(std::iter::once(first))
                .cloned()
                .collect();
            modules
                .contains_key(&child)
                .then(|| module.iter().chain(path).cloned().collect())
        }
    }
}

/// What each module re-exports with `pub use`: item name → the absolute path it stands for.
fn re_exports(
    files: &[SourceFile],
    modules: &HashMap<Vec<String>, usize>,
) -> Vec<HashMap<String, Vec<String>>> {
    files
        .iter()
        .map(|file| {
            let mut names = HashMap::new();
            for tree in use_trees(&file.code, true) {
                for path in use_paths(&tree) {
                    if let (Some(name), Some(target)) =
                        (path.last(), absolute(&file.module, &path, modules))
                    {
                        names.insert(name.clone(), target);
                    }
                }
            }
            names
        })
        .collect()
}

/// The trees of the file's `use` declarations (only `pub use` ones when `public`).
fn use_trees(code: &str, public: bool) -> Vec<String> {
    let mut trees = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let before = rest[..at].trim_end();
        let is_public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let after = &rest[at + 3..];
        let Some(end) = after.find(';') else { break };
        if !public || is_public {
            trees.push(after[..end].to_string());
        }
        rest = &after[end..];
    }
    trees
}

/// Where `word` starts as a whole word in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if boundary(before) && boundary(after) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The file an absolute path lands in: the deepest module along it, followed through re-exports.
fn resolve(
    path: &[String],
    modules: &HashMap<Vec<String>, usize>,
    exports: &[HashMap<String, Vec<String>>],
    depth: usize,
) -> Option<usize> {
    (0..=path.len()).rev().find_map(|k| {
        let file = *modules.get(&path[..k])?;
        if let Some(item) = path.get(k)
            && depth < 8
            && let Some(target) = exports[file].get(item)
        {
            let mut through: Vec<String> = target.clone();
            through.extend(path[k + 1..].iter().cloned());
            return resolve(&through, modules, exports, depth + 1).or(Some(file));
        }
        Some(file)
    })
}

/// Paths written out in code: `crate::a::b`, `super::x`, `self::y` (visibility paths left out).
fn written_paths(code: &str) -> Vec<Vec<String>> {
    let code = code.replace("pub(in ", "pub(");
    let mut paths = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(start) {
            let at = from + found;
            let boundary = code[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
            let end = code[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            if boundary {
                paths.push(segments(&code[at..end]));
            }
            from = end.max(at + start.len());
        }
    }
    paths
}

/// The folder a module file stands for (`mod.rs`, `lib.rs`), if it is one.
fn folder_of(path: &str) -> Option<&str> {
    (path.ends_with("/mod.rs") || path.ends_with("/lib.rs"))
        .then(|| &path[..path.rfind('/').unwrap_or(0)])
}

fn contains(outer: &str, inner: &str) -> bool {
    folder_of(outer).is_some_and(|folder| inner.starts_with(&format!("{folder}/")))
}

/// Every arrow between files: which file refers to which.
fn arrows(files: &[SourceFile]) -> Vec<BTreeSet<usize>> {
    let modules: HashMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.clone(), i))
        .collect();
    let exports = re_exports(files, &modules);
    files
        .iter()
        .enumerate()
        .map(|(i, file)| {
            let mut paths: Vec<Vec<String>> = use_trees(&file.code, false)
                .iter()
                .flat_map(|t| use_paths(t))
                .collect();
            paths.extend(written_paths(&file.code));
            paths
                .iter()
                .filter_map(|path| absolute(&file.module, path, &modules))
                .filter_map(|path| resolve(&path, &modules, &exports, 0))
                .filter(|&j| {
                    j != i
                        && !contains(&file.path, &files[j].path)
                        && !contains(&files[j].path, &file.path)
                })
                .collect()
        })
        .collect()
}

/// The strongly connected groups of more than one file (Tarjan's algorithm).
fn circles(arrows: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct Walk<'a> {
        arrows: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(w: &mut Walk<'_>, v: usize) {
        w.index[v] = Some(w.next);
        w.low[v] = w.next;
        w.next += 1;
        w.stack.push(v);
        w.on_stack[v] = true;
        for &u in w.arrows[v].iter() {
            match w.index[u] {
                None => {
                    visit(w, u);
                    w.low[v] = w.low[v].min(w.low[u]);
                }
                Some(index) if w.on_stack[u] => w.low[v] = w.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(w.low[v]) == w.index[v] {
            let mut group = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on_stack[u] = false;
                group.push(u);
                if u == v {
                    break;
                }
            }
            if group.len() > 1 {
                w.found.push(group);
            }
        }
    }
    let n = arrows.len();
    let mut walk = Walk {
        arrows,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if walk.index[v].is_none() {
            visit(&mut walk, v);
        }
    }
    walk.found
}

#[test]
fn no_file_of_src_is_in_an_import_circle() {
    let files = source_files(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(files.len() > 100, "read {} files", files.len());
    let arrows = arrows(&files);
    let mut report: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for group in circles(&arrows) {
        let names: Vec<String> = group.iter().map(|&i| files[i].path.clone()).collect();
        let mut lines = Vec::new();
        for &a in &group {
            for &b in &arrows[a] {
                if group.contains(&b) {
                    lines.push(format!("  {} -> {}", files[a].path, files[b].path));
                }
            }
        }
        lines.sort();
        report.insert(names.join(", "), lines);
    }
    let text: Vec<String> = report
        .iter()
        .map(|(group, lines)| format!("circle: {group}\n{}", lines.join("\n")))
        .collect();
    assert!(text.is_empty(), "{}", text.join("\n"));
}

/// The checker finds a circle where there is one, so a pass means something.
#[test]
fn the_checker_sees_a_circle_between_two_sibling_files() {
    let file = |path: &str, code: &str| SourceFile {
        path: path.into(),
        module: module_path(path),
        code: without_tests(&without_comments_and_strings(code)),
    };
    let files = [
        file("src/lib.rs", "pub mod a;"),
        file("src/a/mod.rs", "mod x; mod y; pub use x::Thing;"),
        file("src/a/x.rs", "use super::y::Other; pub struct Thing;"),
        file(
            "src/a/y.rs",
            "pub struct Other; fn f() { let _ = crate::a::Thing; } // crate::nowhere\n#[cfg(test)] mod tests { use super::super::z; }",
        ),
    ];
    let drawn = arrows(&files);
    assert_eq!(drawn[2], BTreeSet::from([3]), "x uses y");
    assert_eq!(
        drawn[3],
        BTreeSet::from([2]),
        "y uses x through a's re-export"
    );
    assert_eq!(circles(&drawn).len(), 1);
    // A module file and the files of its own folder are containment, not a circle.
    let facade = [
        file("src/lib.rs", "pub mod b;"),
        file("src/b/mod.rs", "mod c; pub struct Shared; pub use c::run;"),
        file("src/b/c.rs", "use super::Shared; pub fn run() {}"),
    ];
    assert!(circles(&arrows(&facade)).is_empty());
}

/// ARCHITECTURE.md: commands are peers that resolve their flags through `commands::resolve` and
/// call the library; no command's file refers to another command's.
#[test]
fn no_command_imports_another() {
    let files = source_files(Path::new(env!("CARGO_MANIFEST_DIR")));
    let arrows = arrows(&files);
    let shared = ["src/commands/mod.rs", "src/commands/resolve.rs"];
    let is_command = |path: &str| path.starts_with("src/commands/") && !shared.contains(&path);
    let mut found = Vec::new();
    for (a, targets) in arrows.iter().enumerate() {
        for &b in targets {
            if is_command(&files[a].path) && is_command(&files[b].path) {
                found.push(format!("{} -> {}", files[a].path, files[b].path));
            }
        }
    }
    let commands = files.iter().filter(|f| is_command(&f.path)).count();
    assert!(commands > 10, "read {commands} command files");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// ARCHITECTURE.md: the format version is stamped by the `spec` types' constructors alone; no other
/// file of `src/` (tests included) spells a format header by hand.
#[test]
fn only_spec_spells_a_format_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    collect(&root.join("src"), &mut paths);
    let headers = ["format = 1", "\"format\": 1", "\\\"format\\\": 1"];
    let mut found = Vec::new();
    for path in &paths {
        let relative = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if relative.starts_with("src/spec/") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (n, line) in text.lines().enumerate() {
            if headers.iter().any(|h| line.contains(h)) {
                found.push(format!("{relative}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(paths.len() > 100);
    assert!(found.is_empty(), "{}", found.join("\n"));
}
