//! Description lints: what the source chapter (shared/seed, chapter 5 of a book on MCP) says makes a
//! tool easy or hard for a model to pick — its six design principles (§5.11) and seven anti-patterns
//! (§5.10) — turned into checks over one toolset, and a tool whose description marks it deprecated
//! (`deprecated`). Each finding names the tool, the rule, where in the chapter it comes from (in
//! English; the chapter's own words in Chinese are the rule's `passage`, for who asks) and a
//! concrete fix. Pure: takes a `Toolset`, returns findings, does no I/O. The rules are `rules`.

mod deprecated;
mod rules;

pub use rules::Rule;

use crate::model::{Tool, Toolset};
use crate::ranking::{is_cjk, similar_pairs, terms};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LintSeverity {
    Info,
    Warning,
    Error,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The tool (or first tool of a pair); `None` for toolset-wide findings.
    pub tool: Option<String>,
    pub rule: &'static str,
    pub severity: LintSeverity,
    pub message: String,
    pub suggestion: String,
    pub source: &'static str,
}

/// Descriptions whose TF-IDF cosine similarity reaches this are reported as a confusable pair.
pub const SIMILARITY_THRESHOLD: f64 = 0.5;

/// Lints a toolset; findings are ordered by tool position, then rule.
pub fn lint(toolset: &Toolset) -> Vec<Finding> {
    let mut findings = Vec::new();
    for tool in &toolset.tools {
        lint_description(tool, &mut findings);
        lint_name(tool, &mut findings);
        lint_parameters(tool, &mut findings);
        lint_annotations(tool, &mut findings);
    }
    deprecated::lint_deprecated(toolset, &mut findings);
    lint_tool_count(toolset, &mut findings);
    lint_similar_descriptions(toolset, &mut findings);
    findings
}

fn push(
    findings: &mut Vec<Finding>,
    tool: Option<&str>,
    rule: Rule,
    severity: LintSeverity,
    message: String,
    suggestion: String,
) {
    findings.push(Finding {
        tool: tool.map(str::to_string),
        rule: rule.id(),
        severity,
        message,
        suggestion,
        source: rule.source(),
    });
}

/// Words in a text: Latin words count one each; CJK characters about half a word each (two per word).
fn text_weight(text: &str) -> f64 {
    let cjk = text.chars().filter(|c| is_cjk(*c)).count();
    let latin_words = text
        .split(|c: char| !c.is_alphanumeric() || is_cjk(c))
        .filter(|w| !w.is_empty())
        .count();
    latin_words as f64 + cjk as f64 / 2.0
}

/// Descriptions shorter than this many words rarely say what, when, limits and formats.
const SHORT_DESCRIPTION_WORDS: f64 = 8.0;

fn lint_description(tool: &Tool, findings: &mut Vec<Finding>) {
    let name = Some(tool.name.as_str());
    let description = tool.description.as_deref().unwrap_or("").trim();
    if description.is_empty() {
        push(findings, name, Rule::EmptyDescription, LintSeverity::Error, "the tool has no description; a model has only its name to go on".into(),
            "write what it does, when to use it rather than its neighbours, its limits, and its argument formats".into());
        return;
    }
    let weight = text_weight(description);
    if weight < SHORT_DESCRIPTION_WORDS {
        push(findings, name, Rule::ShortDescription, LintSeverity::Warning,
            format!("description {description:?} is only ~{weight:.0} word(s); too short to say what, when, limits and formats"),
            "state what it returns, when to use it (and when not: name the neighbouring tool), its scope or limits, and argument formats with an example".into());
    }
}

fn lint_name(tool: &Tool, findings: &mut Vec<Finding>) {
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
    let first = verb_of(name);
    if !VERBS.contains(&first.as_str()) {
        push(
            findings,
            Some(name),
            Rule::NameNotVerbFirst,
            LintSeverity::Warning,
            format!("name starts with {first:?}, not a verb"),
            format!(
                "start with what the tool does, e.g. \"get_{}\", \"search_{}\" or \"create_{}\"",
                name_tail(name),
                name_tail(name),
                name_tail(name)
            ),
        );
    }
}

fn name_tail(name: &str) -> String {
    name_tokens(last_segment(name)).join("_")
}

/// The part after the last hierarchy separator: `github.create_issue` is verb-first.
fn last_segment(name: &str) -> &str {
    name.rsplit(['.', '/']).next().unwrap_or(name)
}

/// The first word of the last segment, where the verb belongs.
fn verb_of(name: &str) -> String {
    name_tokens(last_segment(name))
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// Whether a word (any case) is one of the verbs a tool name may start with.
pub fn is_action_verb(word: &str) -> bool {
    VERBS.contains(&word.to_lowercase().as_str())
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

fn lint_parameters(tool: &Tool, findings: &mut Vec<Finding>) {
    let name = Some(tool.name.as_str());
    let required: BTreeSet<&str> = tool.required_parameters().into_iter().collect();
    let parameters: Vec<(&String, &Value)> = tool.parameters().collect();
    for (param, schema) in &parameters {
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        if description.is_empty() {
            push(
                findings,
                name,
                Rule::ParamWithoutDescription,
                LintSeverity::Warning,
                format!("parameter {param:?} has no description"),
                format!("describe {param:?}: its meaning, format and an example value"),
            );
        } else if text_weight(description) < 2.0 || name_tokens(description) == name_tokens(param) {
            push(
                findings,
                name,
                Rule::ParamDescriptionUninformative,
                LintSeverity::Warning,
                format!("parameter {param:?} is described only as {description:?}"),
                format!(
                    "say what {param:?} means, its format or allowed values, and give an example value"
                ),
            );
        }
        if !required.contains(param.as_str()) {
            match schema.get("default") {
                Some(Value::Null) => push(
                    findings,
                    name,
                    Rule::NullDefault,
                    LintSeverity::Warning,
                    format!("optional parameter {param:?} defaults to null"),
                    format!(
                        "give {param:?} the value the common case needs (e.g. `timeout: 30` rather than `timeout: null`)"
                    ),
                ),
                None if schema.get("const").is_none() => push(
                    findings,
                    name,
                    Rule::OptionalWithoutDefault,
                    LintSeverity::Info,
                    format!("optional parameter {param:?} has no default"),
                    format!(
                        "declare the value used when {param:?} is left out, so the model can safely omit it"
                    ),
                ),
                _ => {}
            }
        }
    }
    for (i, (a, _)) in parameters.iter().enumerate() {
        for (b, _) in &parameters[i + 1..] {
            let (ta, tb) = (name_tokens(a), name_tokens(b));
            let (short, long) = if ta.len() <= tb.len() {
                (&ta, &tb)
            } else {
                (&tb, &ta)
            };
            if short.len() < long.len() && short.iter().all(|t| long.contains(t)) {
                push(findings, name, Rule::OverlappingParams, LintSeverity::Warning, format!("parameters {a:?} and {b:?} overlap in meaning"),
                    "merge them or rename one so a model knows which to fill (e.g. `id` next to `userId`)".into());
            }
        }
    }
}

fn lint_annotations(tool: &Tool, findings: &mut Vec<Finding>) {
    let name = Some(tool.name.as_str());
    let hints = tool.annotations.clone().unwrap_or_default();
    let verb = verb_of(&tool.name);
    if hints.read_only_hint == Some(true) && hints.destructive_hint == Some(true) {
        push(
            findings,
            name,
            Rule::ContradictoryHints,
            LintSeverity::Error,
            "readOnlyHint and destructiveHint are both true".into(),
            "a read-only tool cannot destroy data; set the hint that is true".into(),
        );
    }
    if DESTRUCTIVE_VERBS.contains(&verb.as_str()) {
        if hints.read_only_hint == Some(true) {
            push(findings, name, Rule::DestructiveWithoutHint, LintSeverity::Error, format!("a {verb:?} tool is marked readOnlyHint = true"),
                "clients skip confirmation for read-only tools; remove readOnlyHint and set destructiveHint = true".into());
        } else if hints.destructive_hint != Some(true) {
            push(findings, name, Rule::DestructiveWithoutHint, LintSeverity::Warning, format!("a {verb:?} tool does not declare destructiveHint = true"),
                "set annotations.destructiveHint = true so clients ask before calling it (and idempotentHint if a repeat is harmless)".into());
        }
    } else if READ_ONLY_VERBS.contains(&verb.as_str()) && hints.read_only_hint.is_none() {
        push(findings, name, Rule::ReadOnlyWithoutHint, LintSeverity::Info, format!("a {verb:?} tool does not declare readOnlyHint"),
            "set annotations.readOnlyHint = true if it changes nothing, so clients can call it without confirmation and in parallel".into());
    }
}

fn lint_tool_count(toolset: &Toolset, findings: &mut Vec<Finding>) {
    let n = toolset.tools.len();
    let severity = match n {
        0..=30 => return,
        31..=50 => LintSeverity::Warning,
        _ => LintSeverity::Error,
    };
    push(findings, None, Rule::TooManyTools, severity, format!("the toolset exposes {n} tools; selection accuracy tends to fall past 30 and sharply past 50"),
        "merge near-duplicates into one tool with an enum parameter, split the server by domain, or expose a search tool; measure with `mcpick sweep`".into());
}

/// The pairs of tools (by position) whose names and descriptions read alike, most alike first:
/// what the lint reports as confusable, and what `mcpick draft --pairs` writes contrasting requests
/// for.
pub fn similar_description_pairs(toolset: &Toolset) -> Vec<(usize, usize, f64)> {
    let documents: Vec<Vec<String>> = toolset
        .tools
        .iter()
        .map(|t| {
            terms(&format!(
                "{} {}",
                t.name.replace(['_', '-', '.'], " "),
                t.description.as_deref().unwrap_or("")
            ))
        })
        .collect();
    similar_pairs(&documents, SIMILARITY_THRESHOLD)
}

fn lint_similar_descriptions(toolset: &Toolset, findings: &mut Vec<Finding>) {
    for (i, j, similarity) in similar_description_pairs(toolset) {
        let (a, b) = (&toolset.tools[i].name, &toolset.tools[j].name);
        push(
            findings,
            Some(a),
            Rule::SimilarDescriptions,
            LintSeverity::Warning,
            format!(
                "{a:?} and {b:?} are described alike (TF-IDF cosine {similarity:.2}); models will confuse them"
            ),
            format!(
                "say in each when to use it rather than the other (time range, scope, input), e.g. \"{a}: … Not for …; use {b} for …\""
            ),
        );
    }
}

/// Verbs a tool name may start with (principle 1).
#[rustfmt::skip]
const VERBS: &[&str] = &[
    "get", "list", "search", "find", "switch", "create", "update", "delete", "remove", "add", "set", "send", "read",
    "write", "fetch", "lookup", "look", "query", "check", "compute", "calculate", "convert", "book", "cancel",
    "reserve", "move", "copy", "rename", "run", "start", "stop", "restart", "open", "close", "merge", "deploy",
    "rollback", "rerun", "build", "lint", "test", "commit", "push", "pull", "clone", "checkout", "diff", "grep",
    "compress", "extract", "share", "upload", "download", "append", "replace", "edit", "draft", "reply",
    "forward", "archive", "respond", "schedule", "invite", "transfer", "pay", "refund", "export", "import",
    "categorize", "categorise", "track", "turn", "toggle", "lock", "unlock", "arm", "disarm", "play", "pause",
    "resume", "dim", "activate", "deactivate", "enable", "disable", "record", "view", "show", "describe",
    "count", "estimate", "validate", "verify", "translate", "summarize", "summarise", "generate", "make",
    "post", "comment", "assign", "approve", "reject", "subscribe", "unsubscribe", "sync", "scan", "snooze",
    "mark", "flag", "tag", "label", "rate", "review", "compare", "plan", "route", "locate", "request", "return",
    "renew", "register", "login", "logout", "reset", "clear", "purge", "drop", "insert", "save", "load",
    "print", "call", "notify", "remind", "watch", "monitor", "measure", "analyze", "analyse", "preview",
    "apply", "submit", "confirm", "modify", "change", "adjust", "raise", "lower", "increase", "decrease",
    "trigger", "execute", "invoke", "handle", "manage", "do", "process", "ping", "echo", "reopen", "fork",
    "tail", "stat", "empty", "restore", "backup", "mute", "unmute", "skip", "queue", "shuffle", "vacuum",
    "clean", "dock", "take", "capture", "snapshot", "quote", "exchange", "withdraw", "deposit", "buy", "sell",
    "order", "ship", "issue", "revoke", "grant", "accept", "decline",
];

/// Verbs that usually change or destroy state (anti-pattern 6).
#[rustfmt::skip]
const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete", "remove", "drop", "destroy", "purge", "erase", "wipe", "reset", "overwrite", "cancel", "revoke",
    "unlock", "disarm", "rollback", "truncate", "kill", "terminate", "empty", "refund", "transfer", "pay",
    "withdraw", "sell",
];

/// Verbs that usually only read (principle 6: mark them read-only so clients need not confirm).
#[rustfmt::skip]
const READ_ONLY_VERBS: &[&str] = &[
    "get", "list", "search", "find", "read", "fetch", "lookup", "query", "check", "view", "show", "describe",
    "count", "estimate", "preview", "compute", "calculate", "diff", "grep", "locate", "compare", "quote",
    "validate", "verify",
];

#[cfg(test)]
mod tests {
    use super::*;

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
    fn chinese_text_is_weighed_by_characters() {
        assert!(text_weight("查询天气") < SHORT_DESCRIPTION_WORDS);
        assert!(
            text_weight(
                "查询指定城市的当前（今天）天气。不支持历史天气或未来预报。支持中国大陆、香港、台湾、海外主要城市。"
            ) >= SHORT_DESCRIPTION_WORDS
        );
        assert_eq!(text_weight("Get the weather"), 3.0);
    }

    #[test]
    fn similar_documents_pair_up_and_different_ones_do_not() {
        let docs: Vec<Vec<String>> = [
            "get weather current weather conditions for a city",
            "get weather forecast weather conditions for a city for the next days",
            "send email to a recipient with subject and body",
        ]
        .iter()
        .map(|t| terms(t))
        .collect();
        let pairs = similar_pairs(&docs, 0.5);
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
    }
}
