//! BM25 over the stored postings, the three ways a search asks for it:
//! every matching paper ([`Store::bm25_all`]), the best `k`
//! ([`Store::bm25_top_k`]), and the scores of given papers
//! ([`Store::bm25_scores_of`]: papers the walk reached). All three score a
//! paper the same way, `Σ over the query's terms of weight.score(tf, doc_len)`
//! in the order of `terms`, so a paper gets the same f64 from each.

use crate::bm25::LengthNorms;
use crate::candidate::{Candidate, DocScores};

use super::block_max::DecodeCount;
use super::blocks::Field;
use super::{IndexMeta, Store};

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
    /// particular order; empty when `k` is 0 or nothing matches. Decodes only
    /// the postings blocks whose bound can reach the cut (block-max pruning,
    /// see [`super::block_max`]).
    pub fn bm25_top_k(&self, terms: &[(String, u32)], k: usize) -> anyhow::Result<Vec<Candidate>> {
        Ok(self.bm25_top_k_counted(terms, k)?.0)
    }

    /// [`Store::bm25_top_k`], with how many of the terms' postings it decoded.
    pub fn bm25_top_k_counted(
        &self,
        terms: &[(String, u32)],
        k: usize,
    ) -> anyhow::Result<(Vec<Candidate>, DecodeCount)> {
        let meta = self.meta()?;
        let norms = self.length_norms(&meta);
        super::block_max::top_k(&self.conn, &meta, &*self.lengths(Field::Papers)?, &norms, terms, k)
    }

    /// The BM25 scores of `docs` (those matching no term are left out);
    /// decodes only the blocks that may hold one of them.
    pub fn bm25_scores_of(&self, terms: &[(String, u32)], docs: &[i64]) -> anyhow::Result<DocScores> {
        let meta = self.meta()?;
        let norms = self.length_norms(&meta);
        super::block_max::scores_of(&self.conn, &meta, &*self.lengths(Field::Papers)?, &norms, terms, docs)
    }

    /// The length table of the index's BM25 parameters and average length,
    /// made once and kept while they hold (a write that moves the average
    /// makes a new one).
    fn length_norms(&self, meta: &IndexMeta) -> std::sync::Arc<LengthNorms> {
        let (bm25, avg) = (meta.bm25(), meta.avgdl);
        if let Some(norms) = self.norms.borrow().as_ref().filter(|n| n.is_for(bm25, avg)) {
            return norms.clone();
        }
        let norms = std::sync::Arc::new(LengthNorms::new(bm25, avg));
        *self.norms.borrow_mut() = Some(norms.clone());
        norms
    }
}
