//! Near-duplicate drafted requests, of which one is kept: the same after normalisation (case,
//! punctuation, spacing, invisible characters and look-alike letters aside), or — when sentence embeddings are at hand — a cosine similarity of
//! their MiniLM embeddings (the `embed` baseline's model) of at least `NEAR_DUPLICATE_COSINE`. A
//! model asked for several requests often writes one twice with a word changed; two such tasks
//! would count one judgement twice. Pure: the embeddings are computed by the caller.

/// Two requests whose MiniLM embeddings reach this cosine similarity are one request: only a copy
/// with a word or two changed. Measured on all-MiniLM-L6-v2: "Is it raining in Oslo right now?" /
/// "is it raining in oslo at the moment" 0.97; looser rewordings of one request 0.67–0.90; the same
/// request for another city 0.58–0.80 (two tasks, not one).
pub const NEAR_DUPLICATE_COSINE: f32 = 0.95;

/// For each request, the index of an earlier request it duplicates (and the similarity: 1.0 for the
/// same text after normalisation), or `None` for the first of its kind. `embeddings`, when given,
/// are unit length and one per request.
pub fn duplicates_of(
    requests: &[String],
    embeddings: Option<&[Vec<f32>]>,
) -> Vec<Option<(usize, f32)>> {
    let normalised: Vec<String> = requests.iter().map(|r| normalise(r)).collect();
    let mut found: Vec<Option<(usize, f32)>> = Vec::with_capacity(requests.len());
    for k in 0..requests.len() {
        let mut duplicate = None;
        for earlier in 0..k {
            // Only a request that is itself kept can stand for another.
            if found[earlier].is_some() {
                continue;
            }
            if normalised[k] == normalised[earlier] {
                duplicate = Some((earlier, 1.0));
                break;
            }
            if let Some(vectors) = embeddings {
                let cosine: f32 = vectors[k]
                    .iter()
                    .zip(&vectors[earlier])
                    .map(|(a, b)| a * b)
                    .sum();
                if cosine >= NEAR_DUPLICATE_COSINE {
                    duplicate = Some((earlier, cosine));
                    break;
                }
            }
        }
        found.push(duplicate);
    }
    found
}

/// The text as the checks read it (`untrusted_text::folded`: a disguise is no new request), its
/// words apart from punctuation and spacing.
pub(super) fn normalise(text: &str) -> String {
    crate::untrusted_text::folded(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_after_normalisation_is_a_duplicate() {
        let requests = [
            "Is it raining in Oslo?".to_string(),
            "is it raining in oslo".to_string(),
            "Book a room in Rome".to_string(),
        ];
        assert_eq!(duplicates_of(&requests, None), [None, Some((0, 1.0)), None]);
    }

    #[test]
    fn close_embeddings_are_duplicates_of_a_kept_request_only() {
        let requests: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let unit = |x: f32| vec![x, (1.0 - x * x).sqrt()];
        // b is a near copy of a; c is near b but b is dropped, and c is far enough from a.
        let embeddings = vec![unit(1.0), unit(0.99), unit(0.9)];
        let found = duplicates_of(&requests, Some(&embeddings));
        assert_eq!(found[0], None);
        assert_eq!(found[1].map(|(k, _)| k), Some(0));
        assert_eq!(found[2], None, "{found:?}");
    }
}
