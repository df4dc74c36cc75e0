//! The terms a text is compared by, for every lexical ranking and similarity here: lowercase Latin
//! words without stop words, and CJK characters and bigrams, so Chinese and Japanese descriptions are
//! comparable too. Pure functions over strings.

/// Whether a character is Chinese, Japanese or Korean script.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Lowercase terms of a text: Latin words (minus stop words), CJK characters and CJK bigrams.
pub fn terms(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for word in text
        .split(|c: char| !c.is_alphanumeric() || is_cjk(c))
        .filter(|w| !w.is_empty())
    {
        let word = word.to_lowercase();
        if !STOP_WORDS.contains(&word.as_str()) {
            terms.push(word);
        }
    }
    let cjk: Vec<char> = text.chars().collect();
    for (k, c) in cjk.iter().enumerate() {
        if is_cjk(*c) {
            terms.push(c.to_string());
            if let Some(next) = cjk.get(k + 1).filter(|n| is_cjk(**n)) {
                terms.push(format!("{c}{next}"));
            }
        }
    }
    terms
}

#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "by", "with", "as", "at",
    "it", "its", "this", "that", "from", "use", "e", "g", "eg", "such", "not", "only", "one", "you", "your",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_text_yields_characters_and_bigrams() {
        let t = terms("查询天气");
        assert!(
            t.contains(&"天气".to_string()) && t.contains(&"查".to_string()),
            "{t:?}"
        );
    }
}
