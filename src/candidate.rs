//! The one thing every stage passes on, a [`Candidate`] (a paper's doc id
//! and its score in that stage), and the one way of keeping the best of
//! them, [`top_k`].

use std::cmp::Ordering;
use std::collections::HashMap;

/// Scores by doc id. A query with a common term scores a fifth of the
/// corpus, so the map's hash matters: doc ids are integers SQLite assigns,
/// not user input, so a fast unkeyed hash (foldhash's, with a fixed seed)
/// needs no SipHash protection.
pub type DocScores = HashMap<i64, f64, foldhash::fast::FixedState>;

/// A paper in a stage's list: its doc id and its score there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub doc: i64,
    pub score: f64,
}

impl Candidate {
    /// Rank order: the higher score first, equal scores by the lower doc id.
    pub(crate) fn rank_order(a: &Candidate, b: &Candidate) -> Ordering {
        b.score.total_cmp(&a.score).then_with(|| a.doc.cmp(&b.doc))
    }
}

/// An f64 ordered by `total_cmp`, for a heap of scores or bounds (none NaN).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TotalF64(pub f64);
impl Eq for TotalF64 {}
impl PartialOrd for TotalF64 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TotalF64 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The `k` best candidates, best first, in [`Candidate::rank_order`]: by
/// score descending ([`f64::total_cmp`]), equal scores by doc id ascending.
/// A partial selection, then a sort of the `k` kept; `k` at least the count
/// sorts them all.
pub fn top_k(candidates: impl IntoIterator<Item = Candidate>, k: usize) -> Vec<Candidate> {
    if k == 0 {
        return Vec::new();
    }
    let mut all: Vec<Candidate> = candidates.into_iter().collect();
    if all.len() > k {
        all.select_nth_unstable_by(k - 1, Candidate::rank_order);
        all.truncate(k);
    }
    all.sort_by(Candidate::rank_order);
    all
}

/// The candidates of `scores` with a positive score, in no order.
pub(crate) fn positive(scores: &DocScores) -> impl Iterator<Item = Candidate> + '_ {
    scores.iter().filter(|&(_, &score)| score > 0.0).map(|(&doc, &score)| Candidate { doc, score })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(doc: i64, score: f64) -> Candidate {
        Candidate { doc, score }
    }

    #[test]
    fn top_k_orders_by_score_then_doc() {
        let all = [c(1, 0.5), c(3, 2.0), c(2, 2.0), c(4, 0.0), c(5, 1.0)];
        assert_eq!(top_k(all, 3), vec![c(2, 2.0), c(3, 2.0), c(5, 1.0)]);
        assert_eq!(top_k(all, 10), vec![c(2, 2.0), c(3, 2.0), c(5, 1.0), c(1, 0.5), c(4, 0.0)]);
        assert!(top_k(all, 0).is_empty());
        // A tie at the cut keeps the lower doc id.
        assert_eq!(top_k(all, 1), vec![c(2, 2.0)]);
        assert_eq!(top_k([c(9, -1.0), c(8, -0.0), c(7, 0.0)], 2), vec![c(7, 0.0), c(8, -0.0)]);
    }

    #[test]
    fn positive_drops_zero_scores() {
        let scores: DocScores = [(1, 0.5), (2, 0.0), (3, 2.0)].into_iter().collect();
        let mut p: Vec<i64> = positive(&scores).map(|c| c.doc).collect();
        p.sort_unstable();
        assert_eq!(p, vec![1, 3]);
    }
}
