//! The query's BM25 as a search reads it: either every matching paper's
//! score, computed once ([`Lexical::All`]: a filter's [`super::filter::Gate::best`]
//! and feedback's expansion need the whole map), or the store's two narrow
//! calls ([`Lexical::Lazy`]): [`Store::bm25_top_k`] for the first stage's
//! list and [`Store::bm25_scores_of`] for the papers the merge holds. The
//! store gives a paper the same f64 from all three calls, so both ways give
//! the same ranking, bit for bit (checked in `tests` below).

use super::filter::Gate;
use crate::candidate::{Candidate, DocScores, positive, top_k};
use crate::store::Store;

/// Where a search's BM25 scores come from.
pub(super) enum Lexical<'a> {
    /// Every matching paper's score (the query's own, or with feedback's expansion added).
    All(&'a DocScores),
    /// Asked of the store as needed.
    Lazy { store: &'a Store, terms: &'a [(String, u32)] },
}

impl Lexical<'_> {
    /// Every paper with a positive score at least the `k`-th best (ties at
    /// the cut all included), in no order; empty when `k` is 0.
    pub(super) fn top(&self, k: usize) -> anyhow::Result<Vec<Candidate>> {
        match self {
            Lexical::All(scores) => {
                let Some(cut) = top_k(positive(scores), k).last().map(|c| c.score) else {
                    return Ok(Vec::new());
                };
                Ok(positive(scores).filter(|c| c.score >= cut).collect())
            }
            Lexical::Lazy { store, terms } => store.bm25_top_k(terms, k),
        }
    }

    /// The `k` best papers with a positive score, best first (score
    /// descending, ties by doc id): [`top_k`] over [`Lexical::top`].
    pub(super) fn best(&self, k: usize) -> anyhow::Result<Vec<Candidate>> {
        Ok(top_k(self.top(k)?, k))
    }

    /// The `k` best papers through `gate` (see [`Lexical::top`] for an open
    /// gate and [`Gate::best`] for a closed one, which needs every score:
    /// a closed gate comes only with [`Lexical::All`]).
    pub(super) fn top_through(&self, k: usize, gate: &mut Gate) -> anyhow::Result<Vec<Candidate>> {
        match self {
            _ if gate.is_open() => self.top(k),
            Lexical::All(scores) => gate.best(scores, k),
            Lexical::Lazy { store, terms } => gate.best(&store.bm25_all(terms)?, k),
        }
    }

    /// The scores of `docs` (papers matching no term are left out).
    pub(super) fn scores_of(&self, docs: &[i64]) -> anyhow::Result<DocScores> {
        match self {
            Lexical::All(scores) => Ok(docs.iter().filter_map(|d| scores.get(d).map(|&s| (*d, s))).collect()),
            Lexical::Lazy { store, terms } => store.bm25_scores_of(terms, docs),
        }
    }
}
