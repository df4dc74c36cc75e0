//! Lexical retrieval over tool descriptions: the tokeniser (Latin words without stop words, CJK
//! characters and bigrams, so Chinese and Japanese descriptions are comparable), TF-IDF cosine pairs
//! (the linter's confusable-description check) and BM25 ranking (the `bm25` baseline backend and the
//! sweep's `similar` distractors). Pure functions over strings.

use std::collections::{BTreeSet, HashMap};

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

/// Pairs of documents whose TF-IDF cosine similarity is at least `threshold`, most similar first.
pub fn similar_pairs(documents: &[Vec<String>], threshold: f64) -> Vec<(usize, usize, f64)> {
    let n = documents.len() as f64;
    let mut document_frequency: HashMap<&str, usize> = HashMap::new();
    for doc in documents {
        for term in doc.iter().map(String::as_str).collect::<BTreeSet<_>>() {
            *document_frequency.entry(term).or_default() += 1;
        }
    }
    let vectors: Vec<HashMap<&str, f64>> = documents
        .iter()
        .map(|doc| {
            let mut v: HashMap<&str, f64> = HashMap::new();
            for term in doc {
                *v.entry(term.as_str()).or_default() += 1.0;
            }
            for (term, weight) in v.iter_mut() {
                let idf = ((n + 1.0) / (document_frequency[term] as f64 + 1.0)).ln() + 1.0;
                *weight *= idf;
            }
            let norm = v.values().map(|w| w * w).sum::<f64>().sqrt();
            if norm > 0.0 {
                v.values_mut().for_each(|w| *w /= norm);
            }
            v
        })
        .collect();
    let mut pairs = Vec::new();
    for i in 0..vectors.len() {
        for j in i + 1..vectors.len() {
            let (small, large) = if vectors[i].len() <= vectors[j].len() {
                (&vectors[i], &vectors[j])
            } else {
                (&vectors[j], &vectors[i])
            };
            let cosine: f64 = small
                .iter()
                .filter_map(|(t, w)| large.get(t).map(|x| w * x))
                .sum();
            if cosine >= threshold {
                pairs.push((i, j, cosine));
            }
        }
    }
    pairs.sort_by(|a, b| b.2.total_cmp(&a.2));
    pairs
}

/// A BM25 index over documents (Okapi BM25, k1 = 1.2, b = 0.75).
pub struct Bm25Index {
    documents: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    average_length: f64,
    document_frequency: HashMap<String, usize>,
}

impl Bm25Index {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;

    /// Indexes documents given as terms (see `terms`).
    pub fn new(documents: &[Vec<String>]) -> Bm25Index {
        let mut document_frequency: HashMap<String, usize> = HashMap::new();
        let mut counted = Vec::with_capacity(documents.len());
        for doc in documents {
            let mut frequencies: HashMap<String, f64> = HashMap::new();
            for term in doc {
                *frequencies.entry(term.clone()).or_default() += 1.0;
            }
            for term in frequencies.keys() {
                *document_frequency.entry(term.clone()).or_default() += 1;
            }
            counted.push(frequencies);
        }
        let lengths: Vec<f64> = documents.iter().map(|d| d.len() as f64).collect();
        let average_length = if lengths.is_empty() {
            0.0
        } else {
            lengths.iter().sum::<f64>() / lengths.len() as f64
        };
        Bm25Index {
            documents: counted,
            lengths,
            average_length,
            document_frequency,
        }
    }

    /// The BM25 score of every document for a query (given as terms), in document order.
    pub fn scores(&self, query: &[String]) -> Vec<f64> {
        let n = self.documents.len() as f64;
        let unique: BTreeSet<&String> = query.iter().collect();
        self.documents
            .iter()
            .zip(&self.lengths)
            .map(|(frequencies, length)| {
                unique
                    .iter()
                    .filter_map(|term| {
                        let tf = *frequencies.get(*term)?;
                        let df = *self.document_frequency.get(*term)? as f64;
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        let norm = Self::K1
                            * (1.0 - Self::B + Self::B * length / self.average_length.max(1.0));
                        Some(idf * tf * (Self::K1 + 1.0) / (tf + norm))
                    })
                    .sum::<f64>()
                    // An empty float sum is -0.0; scores compare and print as plain zero.
                    + 0.0
            })
            .collect()
    }
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
    fn bm25_ranks_the_document_that_shares_rare_terms() {
        let docs: Vec<Vec<String>> = [
            "get weather current conditions city",
            "get weather forecast next days city",
            "send email recipient subject",
        ]
        .iter()
        .map(|t| terms(t))
        .collect();
        let index = Bm25Index::new(&docs);
        let scores = index.scores(&terms("weather forecast for the next days in Paris"));
        assert!(scores[1] > scores[0] && scores[0] > scores[2], "{scores:?}");
        assert!(
            index
                .scores(&terms("unrelated words only"))
                .iter()
                .all(|s| *s == 0.0)
        );
    }

    #[test]
    fn chinese_text_yields_characters_and_bigrams() {
        let t = terms("查询天气");
        assert!(
            t.contains(&"天气".to_string()) && t.contains(&"查".to_string()),
            "{t:?}"
        );
    }
}
