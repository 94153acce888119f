//! BM25 over the stored postings, the three ways a search asks for it:
//! every matching paper ([`Store::bm25_all`]), the best `k`
//! ([`Store::bm25_top_k`]), and the scores of given papers
//! ([`Store::bm25_scores_of`]: papers the walk reached). All three score a
//! paper the same way, `Σ over the query's terms of weight.score(tf, doc_len)`
//! in the order of `terms`, so a paper gets the same f64 from each.

use crate::candidate::{Candidate, DocScores, positive};

use super::Store;

impl Store {
    /// BM25 of every paper matching at least one of `terms` (each with its
    /// count in the query), by doc id. Exhaustive: the reference the other
    /// two are tested against.
    pub fn bm25_all(&self, terms: &[(String, u32)]) -> anyhow::Result<DocScores> {
        let meta = self.meta()?;
        let bm25 = meta.bm25();
        let mut scores = DocScores::default();
        for (term, count) in terms {
            if let Some((df, postings)) = self.postings(term)? {
                if scores.capacity() < postings.len() {
                    scores.reserve(postings.len() - scores.len());
                }
                let weight = bm25.weight(meta.num_docs, meta.avgdl, df, *count);
                for p in postings {
                    *scores.entry(p.doc).or_default() += weight.score(p.tf, p.doc_len);
                }
            }
        }
        Ok(scores)
    }

    /// Every paper whose BM25 score is positive and at least the `k`-th best
    /// positive score (so papers tied at the cut are all returned), in no
    /// particular order; empty when `k` is 0 or nothing matches.
    pub fn bm25_top_k(&self, terms: &[(String, u32)], k: usize) -> anyhow::Result<Vec<Candidate>> {
        let scores = self.bm25_all(terms)?;
        let Some(cut) = crate::candidate::top_k(positive(&scores), k).last().map(|c| c.score) else {
            return Ok(Vec::new());
        };
        Ok(positive(&scores).filter(|c| c.score >= cut).collect())
    }

    /// The BM25 scores of `docs` (those matching no term are left out).
    pub fn bm25_scores_of(&self, terms: &[(String, u32)], docs: &[i64]) -> anyhow::Result<DocScores> {
        let all = self.bm25_all(terms)?;
        Ok(docs.iter().filter_map(|d| all.get(d).map(|&s| (*d, s))).collect())
    }
}
