//! How well a paper's sentences support one citing sentence (lexical).
//!
//! The paper's sentences are its title and the [`split_sentences`] of its
//! abstract. With `T` the distinct `english` terms of the citing sentence
//! (the claim) and `idf(t)` from the index ([`EvidenceQuery`]):
//!
//! ```text
//! bm25(s)      = Σ over t in T ∩ s of idf(t)·tf_norm(tf(t,s), len(s), avglen)
//!                (k1, b of SupportParams; avglen = mean sentence length of the paper)
//! self         = Σ over t in T of idf(t)·tf_norm(tf(t,claim), len(claim), len(claim))
//!                (the claim scored as its own sentence)
//! ratio        = min(1, max over s of bm25(s) / self)
//! cover(S)     = Σ over t in T found in S of idf(t) / Σ over t in T of idf(t)
//! sentence     = cover(the best sentence);  paper = cover(all the paper's sentences)
//! bigram       = share of the claim's adjacent term pairs that are adjacent in a sentence of the paper
//! score        = w_ratio·ratio + w_sentence·sentence + w_paper·paper + w_bigram·bigram
//! ```
//!
//! A citation is *supported* when `score ≥ threshold`, *weak* below it. The
//! defaults ([`SupportParams::default`]) were chosen on SciFact's train
//! claims (`litindex eval-citations --tune`) and measured on its dev claims
//! (docs/EVALUATION.md).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::evidence::{EvidenceQuery, split_sentences};

/// The scorer's parameters and the threshold of *supported*.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SupportParams {
    pub k1: f64,
    pub b: f64,
    pub w_ratio: f64,
    pub w_sentence: f64,
    pub w_paper: f64,
    pub w_bigram: f64,
    pub threshold: f64,
}

impl Default for SupportParams {
    fn default() -> Self {
        // `eval-citations --tune` on SciFact's train claims (docs/EVALUATION.md).
        SupportParams { k1: 0.6, b: 0.3, w_ratio: 0.3, w_sentence: 0.0, w_paper: 0.6, w_bigram: 0.1, threshold: 0.4348 }
    }
}

impl SupportParams {
    /// The combined score of the features `[ratio, sentence, paper, bigram]`.
    pub fn score(&self, f: [f64; 4]) -> f64 {
        self.w_ratio * f[0] + self.w_sentence * f[1] + self.w_paper * f[2] + self.w_bigram * f[3]
    }
}

/// How a paper supports a claim: the features, the score and the best sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Support {
    pub score: f64,
    pub ratio: f64,
    pub sentence_coverage: f64,
    pub paper_coverage: f64,
    pub bigram_coverage: f64,
    /// The paper's sentence with the highest BM25 for the claim (`None` when none matches a term).
    pub best_sentence: Option<String>,
}

/// How well the paper (`title`, `abstract_`) supports `claim`, whose terms'
/// idfs `query` holds (`EvidenceQuery::new(store, claim)`).
pub fn support(query: &EvidenceQuery, claim: &str, title: &str, abstract_: &str, params: &SupportParams) -> Support {
    let claim_tokens = Analyzer::English.tokenize(claim);
    let claim_tf = counts(&claim_tokens);
    let terms: Vec<(&str, f64)> = claim_tf.keys().filter_map(|&t| query.idf(t).map(|w| (t, w))).collect();
    let bm25 = Bm25 { k1: params.k1, b: params.b };
    let len = claim_tokens.len() as u32;
    let own: f64 = terms.iter().map(|&(t, w)| w * bm25.tf_norm(claim_tf[t], len, len as f64)).sum();
    let total_idf: f64 = terms.iter().map(|&(_, w)| w).sum();

    let mut sentences: Vec<&str> = vec![title];
    sentences.extend(split_sentences(abstract_).into_iter().map(|r| &abstract_[r]));
    let tokens: Vec<Vec<String>> = sentences.iter().map(|s| Analyzer::English.tokenize(s)).collect();
    let avglen = tokens.iter().map(Vec::len).sum::<usize>() as f64 / tokens.len().max(1) as f64;
    let mut best: Option<(usize, f64)> = None;
    let mut in_paper: HashSet<&str> = HashSet::new();
    for (i, toks) in tokens.iter().enumerate() {
        let tf = counts(toks);
        let score: f64 =
            terms.iter().filter_map(|&(t, w)| tf.get(t).map(|&f| w * bm25.tf_norm(f, toks.len() as u32, avglen))).sum();
        in_paper.extend(terms.iter().filter(|(t, _)| tf.contains_key(t)).map(|&(t, _)| t));
        if score > 0.0 && best.is_none_or(|(_, b)| score > b) {
            best = Some((i, score));
        }
    }
    let cover = |found: &dyn Fn(&str) -> bool| {
        if total_idf > 0.0 {
            terms.iter().filter(|(t, _)| found(t)).map(|&(_, w)| w).sum::<f64>() / total_idf
        } else {
            0.0
        }
    };
    let (ratio, sentence_coverage) = match best {
        Some((i, score)) if own > 0.0 => {
            let best_terms = counts(&tokens[i]);
            ((score / own).min(1.0), cover(&|t| best_terms.contains_key(t)))
        }
        _ => (0.0, 0.0),
    };
    let paper_coverage = cover(&|t| in_paper.contains(t));
    let pairs: HashSet<(&str, &str)> =
        tokens.iter().flat_map(|t| t.windows(2).map(|w| (w[0].as_str(), w[1].as_str()))).collect();
    let claim_pairs: HashSet<(&str, &str)> = claim_tokens.windows(2).map(|w| (w[0].as_str(), w[1].as_str())).collect();
    let bigram_coverage = if claim_pairs.is_empty() {
        0.0
    } else {
        claim_pairs.iter().filter(|p| pairs.contains(p)).count() as f64 / claim_pairs.len() as f64
    };
    Support {
        score: params.score([ratio, sentence_coverage, paper_coverage, bigram_coverage]),
        ratio,
        sentence_coverage,
        paper_coverage,
        bigram_coverage,
        best_sentence: best.map(|(i, _)| sentences[i].to_string()),
    }
}

/// Term counts.
fn counts(tokens: &[String]) -> HashMap<&str, u32> {
    let mut tf: HashMap<&str, u32> = HashMap::new();
    for t in tokens {
        *tf.entry(t.as_str()).or_default() += 1;
    }
    tf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(claim: &str) -> EvidenceQuery {
        EvidenceQuery::from_idf(Analyzer::English.tokenize(claim).into_iter().map(|t| (t, 1.0)))
    }

    #[test]
    fn a_sentence_saying_the_claim_scores_one() {
        let claim = "BRCA1 mutations raise breast cancer risk.";
        let p = SupportParams::default();
        // Every sentence as long as the claim: the length normalisation is 1, as in the self-score.
        let (title, text) = (
            "Zebra giraffe lion tiger bear wolf",
            "Cats dogs birds fish frogs mice. BRCA1 mutations raise breast cancer risk.",
        );
        let s = support(&query(claim), claim, title, text, &p);
        assert!((s.ratio - 1.0).abs() < 1e-9, "{s:?}");
        assert!((s.paper_coverage - 1.0).abs() < 1e-9 && (s.sentence_coverage - 1.0).abs() < 1e-9);
        assert_eq!(s.best_sentence.as_deref(), Some("BRCA1 mutations raise breast cancer risk."));
        assert!(s.score >= p.threshold);
        let none = support(&query(claim), claim, "Zebras", "Zebras have stripes.", &p);
        assert_eq!((none.score, none.best_sentence), (0.0, None));
        let half = support(&query(claim), claim, "", "Breast tissue was imaged. Cancer was rare.", &p);
        assert!(half.paper_coverage > 0.3 && half.paper_coverage < 0.5, "{half:?}");
        assert!(half.ratio < s.ratio && half.score < s.score);
    }
}
