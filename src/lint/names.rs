//! The name checks (principle 1, SEP-986, anti-pattern 2): characters, length, nesting, and a verb
//! first. A prefix every tool of a server shares (`browser_` on Playwright's 25 tools) is the
//! server's namespace, not the tool's first word: the verb is looked for after it. Also how a name
//! splits into words, which the parameter checks and `improve` use too.

use super::verbs::{is_operation_verb, is_verb, verb_lemma};
use super::{Finding, LintSeverity, Rule, push};
use crate::model::{Tool, Toolset};

/// A name prefix (as lowercase words) that every tool of the toolset shares, when there are at
/// least two tools and each has a word after it; empty when there is none. Words are split as
/// `name_tokens` splits them, so `browser_`, `browser-`, `browser.`, `browser/` and `browserX`
/// prefixes are all found.
pub fn namespace(toolset: &Toolset) -> Vec<String> {
    if toolset.tools.len() < 2 {
        return Vec::new();
    }
    let names: Vec<Vec<String>> = toolset.tools.iter().map(|t| name_tokens(&t.name)).collect();
    let mut shared = names[0].clone();
    for words in &names[1..] {
        let common = shared.iter().zip(words).take_while(|(a, b)| a == b).count();
        shared.truncate(common);
    }
    // Every tool must keep a word of its own after the namespace.
    let shortest = names.iter().map(Vec::len).min().unwrap_or(0);
    shared.truncate(shortest.saturating_sub(1));
    shared
}

pub(super) fn lint_name(tool: &Tool, namespace: &[String], findings: &mut Vec<Finding>) {
    let name = tool.name.as_str();
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        push(findings, Some(name), Rule::NameCharacters, LintSeverity::Warning, format!("name contains {bad:?}, outside SEP-986's A-Z a-z 0-9 _ - ."),
            "use only letters, digits, '_', '-' and '.'; some clients and model APIs reject other characters".into());
    }
    let length = name.chars().count();
    if length > 64 {
        push(
            findings,
            Some(name),
            Rule::NameTooLong,
            LintSeverity::Warning,
            format!("name is {length} characters"),
            "keep names within 64 characters (SEP-986 allows 128; older clients 64)".into(),
        );
    }
    let levels = name.matches(['.', '/']).count();
    if levels > 1 {
        push(findings, Some(name), Rule::NestedName, LintSeverity::Warning, format!("name has {levels} hierarchy separators"),
            "use a flat name with at most one separator, e.g. \"get_user\" instead of \"company.domain.tools.get_user_by_id_v2\"".into());
    }
    if name_verb(name, namespace).is_some() {
        return;
    }
    let words = own_words(name, namespace);
    let first = words.first().cloned().unwrap_or_default();
    let message = if namespace.is_empty() {
        format!("name starts with {first:?}, not a verb")
    } else {
        format!(
            "after the prefix {:?} all the toolset's tools share, the name starts with {first:?}, not a verb",
            namespace.join("_")
        )
    };
    push(
        findings,
        Some(name),
        Rule::NameNotVerbFirst,
        LintSeverity::Warning,
        message,
        rename_suggestion(tool, &words),
    );
}

/// The verb (as its lemma) a name leads with: the first word after the toolset's namespace (when
/// it has one), the first word of the name's last `.`/`/` segment (`github.create_issue`), or the
/// name's first word, whichever is a verb first in that order. `None` when none is.
pub fn name_verb(name: &str, namespace: &[String]) -> Option<String> {
    // A namespace first: `file_read` in a toolset of `file_*` tools reads, though "file" is a verb.
    let after_namespace = own_words(name, namespace)
        .into_iter()
        .next()
        .filter(|_| !namespace.is_empty());
    let last_segment = name_tokens(last_segment(name)).into_iter().next();
    let first = name_tokens(name).into_iter().next();
    [after_namespace, last_segment, first]
        .into_iter()
        .flatten()
        .find_map(|word| verb_lemma(&word))
}

/// The words of a name after the toolset's namespace.
fn own_words(name: &str, namespace: &[String]) -> Vec<String> {
    let words = name_tokens(name);
    if words.starts_with(namespace) {
        words[namespace.len()..].to_vec()
    } else {
        words
    }
}

/// A verb-first name for a tool whose name does not start with one: an operation verb further in
/// the name moved first (`screencast_start` → `start_screencast`), else the verb its description
/// opens with (`directory_tree`, "Get a recursive tree view…" → `get_directory_tree`), else the
/// common verbs as examples. Never puts a verb before a verb.
fn rename_suggestion(tool: &Tool, words: &[String]) -> String {
    if let Some(at) = words.iter().position(|w| is_operation_verb(w)) {
        let mut renamed = vec![words[at].clone()];
        renamed.extend(
            words
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != at)
                .map(|(_, w)| w.clone()),
        );
        return format!(
            "lead with what the tool does, e.g. \"{}\"",
            renamed.join("_")
        );
    }
    let rest = words.join("_");
    let opening = tool
        .description
        .as_deref()
        .and_then(|d| {
            d.split(|c: char| !c.is_alphanumeric())
                .find(|w| !w.is_empty())
        })
        .and_then(verb_lemma)
        .filter(|verb| verb != "use");
    match opening {
        Some(verb) => {
            format!("lead with what the tool does, as its description does, e.g. \"{verb}_{rest}\"")
        }
        None => format!(
            "lead with what the tool does, e.g. \"get_{rest}\", \"search_{rest}\" or \"create_{rest}\""
        ),
    }
}

/// The part after the last hierarchy separator: `github.create_issue` is verb-first.
fn last_segment(name: &str) -> &str {
    name.rsplit(['.', '/']).next().unwrap_or(name)
}

/// Whether a word (any case, or an inflection) is a verb a tool name may start with.
pub fn is_action_verb(word: &str) -> bool {
    is_verb(word)
}

/// A tool name split into lowercase words: `getUserById` and `get_user_by_id` give the same tokens.
pub fn name_tokens(name: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                tokens.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            tokens.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn toolset(names: &[&str]) -> Toolset {
        Toolset {
            name: "t".into(),
            description: None,
            instructions: None,
            source: "t.toml".into(),
            variant: None,
            lint_allow: Vec::new(),
            registry: None,
            tools: names
                .iter()
                .map(|n| Tool::in_code(n, "A tool for tests.".into(), json!({"type": "object"})))
                .collect(),
        }
    }

    fn not_verb_first(names: &[&str]) -> Vec<(String, String)> {
        let toolset = toolset(names);
        let namespace = namespace(&toolset);
        let mut findings = Vec::new();
        for tool in &toolset.tools {
            lint_name(tool, &namespace, &mut findings);
        }
        findings
            .into_iter()
            .filter(|f| f.rule == Rule::NameNotVerbFirst.id())
            .map(|f| (f.tool.unwrap_or_default(), f.suggestion))
            .collect()
    }

    #[test]
    fn names_split_into_words_however_written() {
        assert_eq!(name_tokens("getUserById"), vec!["get", "user", "by", "id"]);
        assert_eq!(
            name_tokens("get_user-by.id"),
            vec!["get", "user", "by", "id"]
        );
        assert_eq!(name_tokens("DATA_EXPORT_v2"), vec!["data", "export", "v2"]);
    }

    #[test]
    fn a_prefix_every_tool_shares_is_a_namespace_whatever_the_separator() {
        for names in [
            ["browser_close", "browser_navigate_back"],
            ["browser-close", "browser-navigate-back"],
            ["browser.close", "browser.navigate_back"],
            ["browserClose", "browserNavigateBack"],
        ] {
            assert_eq!(namespace(&toolset(&names)), vec!["browser"], "{names:?}");
            assert!(not_verb_first(&names).is_empty(), "{names:?}");
        }
        assert!(namespace(&toolset(&["get_weather", "book_hotel"])).is_empty());
        assert!(namespace(&toolset(&["only_tool"])).is_empty());
    }

    #[test]
    fn the_namespace_leaves_every_tool_a_word_of_its_own() {
        assert_eq!(
            namespace(&toolset(&["memory", "memory_create"])),
            Vec::<String>::new()
        );
        assert_eq!(
            namespace(&toolset(&["db_user_get", "db_user_list"])),
            vec!["db", "user"]
        );
    }

    #[test]
    fn a_noun_after_the_namespace_is_still_found() {
        let found = not_verb_first(&["browser_close", "browser_tabs"]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "browser_tabs");
    }

    #[test]
    fn suggestions_never_put_a_verb_before_a_verb() {
        let found = not_verb_first(&["screencast_start", "directory_tree", "kill_process"]);
        let suggestion = |tool: &str| {
            found
                .iter()
                .find(|(t, _)| t == tool)
                .map(|(_, s)| s.clone())
                .unwrap_or_default()
        };
        assert!(suggestion("screencast_start").contains("\"start_screencast\""));
        assert!(suggestion("directory_tree").contains("\"get_directory_tree\""));
        assert!(!found.iter().any(|(t, _)| t == "kill_process"));
    }

    #[test]
    fn the_description_s_opening_verb_names_the_rename() {
        let mut toolset = toolset(&["new_page"]);
        toolset.tools[0].description = Some("Opens a new tab and loads a URL in it.".into());
        let mut findings = Vec::new();
        lint_name(&toolset.tools[0], &[], &mut findings);
        assert!(
            findings[0].suggestion.contains("\"open_new_page\""),
            "{findings:?}"
        );
    }
}
