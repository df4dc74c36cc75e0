//! Text from outside — a drafter's requests, a rewriter's wordings, a task file a person edited, a
//! name in a model spec — as the checks read it and as files and terminals show it. The two are
//! kept apart on purpose:
//!
//! - **What checks read** (`folded`): every check that reads words (leakage of a tool's name,
//!   near-duplicates, the promotion screen) compares folded text, so a disguise cannot slip past:
//!   compatibility forms are unified (NFKC: fullwidth `ｇｅｔ`, mathematical `𝐠𝐞𝐭`), invisible
//!   characters removed (zero-width spaces and joiners, the soft hyphen, bidirectional controls:
//!   Unicode's default-ignorable code points), look-alike letters mapped to one prototype (the
//!   confusable skeleton of UTS #39, Unicode's security mechanisms, from `unicode-security`:
//!   Cyrillic `е` reads as Latin `e`), accents dropped, case folded. A skeleton is for comparing
//!   only, never for showing (UTS #39 says as much).
//! - **What is stored and shown** (`hidden_characters`, `shown`): characters that move the cursor,
//!   ring a bell, end a line where none is seen or reverse the text on screen (C0 and C1 controls
//!   other than tab and newline, DEL, the line and paragraph separators, the bidirectional marks,
//!   overrides and isolates) are refused where text is kept, and escaped (`\u{1b}`) wherever it is
//!   printed, with long text cut to a bound.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// `text` as the checks compare it: NFKC, default-ignorable code points removed, the UTS #39
/// skeleton, combining marks dropped, lower case. Apply it to both sides of a comparison.
pub fn folded(text: &str) -> String {
    // Lower case before the skeleton as well as after: the skeleton maps capital `I` to `l`,
    // which a lower-case `i` is not.
    let compatible: String = text.nfkc().collect::<String>().to_lowercase();
    unicode_security::skeleton(&compatible)
        .filter(|c| !is_combining_mark(*c))
        .collect::<String>()
        .to_lowercase()
}

/// `text` with compatibility forms unified and invisible characters removed, case and letters
/// kept: what an identifier splitter may read (`getWeather` keeps its capital).
pub fn visible(text: &str) -> String {
    text.nfkc().filter(|c| !invisible(*c)).collect()
}

/// Whether `c` is shown as nothing: a zero-width or formatting character (Unicode's
/// default-ignorable code points, which include the soft hyphen and the bidirectional controls).
pub fn invisible(c: char) -> bool {
    // The skeleton of a lone character drops it exactly when it is default-ignorable.
    let mut buffer = [0u8; 4];
    let text: &str = c.encode_utf8(&mut buffer);
    !c.is_whitespace() && !c.is_control() && unicode_security::skeleton(text).next().is_none()
}

/// Whether `c` may change what a terminal or an editor shows beyond itself: a control character
/// other than tab and newline (C0, DEL, C1), a line or paragraph separator, or a bidirectional
/// mark, embedding, override or isolate.
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// The hidden characters in `text`, each once, in order of first appearance.
pub fn hidden_characters(text: &str) -> Vec<char> {
    let mut found: Vec<char> = Vec::new();
    for c in text.chars().filter(|&c| is_hidden(c)) {
        if !found.contains(&c) {
            found.push(c);
        }
    }
    found
}

/// `text` as it may be printed: hidden characters written as `\u{…}` escapes, and cut after
/// `max_chars` characters with the length it had.
pub fn shown(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max_chars {
            let total = text.chars().count();
            out.push_str(&format!("… ({total} characters in all)"));
            return out;
        }
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` with hidden characters escaped and nothing cut: for a single line that is kept whole
/// (an id in a CSV cell, a path in a message).
pub fn escaped(text: &str) -> String {
    shown(text, usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disguises_fold_to_the_plain_word() {
        let plain = folded("get_weather");
        for disguised in [
            "get\u{200b}_weather",    // zero-width space
            "get_wea\u{00ad}ther",    // soft hyphen
            "g\u{0435}t_weather",     // Cyrillic е
            "ｇｅｔ＿ｗｅａｔｈｅｒ", // fullwidth
            "𝐠𝐞𝐭_𝐰𝐞𝐚𝐭𝐡𝐞𝐫",            // mathematical bold
            "GET_WEATHER",
            "get_w\u{2060}eather", // word joiner
            "get_weather\u{202e}", // right-to-left override
        ] {
            assert_eq!(folded(disguised), plain, "{disguised:?}");
        }
        assert_ne!(folded("get_feather"), plain);
        assert_eq!(folded("Internet"), folded("internet"));
        assert_eq!(folded("résumé"), folded("resume"));
    }

    #[test]
    fn visible_text_keeps_case_and_letters() {
        assert_eq!(visible("get\u{200b}Weather"), "getWeather");
        assert_eq!(visible("ｇｅｔＷｅａｔｈｅｒ"), "getWeather");
        assert!(invisible('\u{200b}') && invisible('\u{00ad}') && invisible('\u{202e}'));
        assert!(!invisible('a') && !invisible(' ') && !invisible('\n') && !invisible('е'));
    }

    #[test]
    fn hidden_characters_are_found_and_escaped_when_shown() {
        let hostile = "Book a table\u{1b}[2J\r\u{7}\0 for two\u{202e}owt";
        assert_eq!(
            hidden_characters(hostile),
            ['\u{1b}', '\r', '\u{7}', '\0', '\u{202e}']
        );
        let printed = shown(hostile, 1000);
        assert!(!printed.chars().any(is_hidden), "{printed:?}");
        assert!(
            printed.contains("\\u{1b}[2J\\u{d}\\u{7}\\u{0}"),
            "{printed:?}"
        );
        assert!(hidden_characters("two lines\nand a\ttab").is_empty());
        assert_eq!(shown("abcdef", 3), "abc… (6 characters in all)");
    }
}
