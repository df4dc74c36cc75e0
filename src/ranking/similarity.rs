//! How alike two tool descriptions read: TF-IDF cosine similarity over their terms, for the
//! linter's check of confusable descriptions. Pure.

use std::collections::{BTreeSet, HashMap};

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
