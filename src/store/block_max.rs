//! Top-k BM25 and the scores of given papers over the postings blocks,
//! decoding only the blocks that can matter.
//!
//! **Top-k** (block-max pruning over aligned intervals). The blocks' last
//! doc ids, over all query terms, cut the doc-id line into intervals; inside
//! one interval each term has exactly one block that may hold postings (or
//! none past its last block), so the sum of those blocks' bounds bounds the
//! score of every paper in the interval. Intervals are visited from the
//! highest bound down; each visited interval decodes its blocks (once: a
//! block spanning several intervals is kept) and scores its papers exactly.
//! Once `k` positive scores are known, the k-th best is the threshold; the
//! first interval whose bound is strictly below it ends the search, since
//! no paper in it or in any later interval can reach the cut (papers tied at
//! the cut are still scored, so all of them are returned).
//!
//! Inside an interval, MaxScore: the terms whose bounds, smallest first, sum
//! strictly below the threshold are not essential: a paper holding none of
//! the others cannot reach the cut. Only the essential terms' blocks are
//! merged for candidates; a candidate whose known part plus the other terms'
//! bounds is below the threshold is dropped, else the other terms are looked
//! up for it, largest bound first (each block decoded once), and it is
//! dropped as soon as its known part plus the bounds still to look up is.
//!
//! **Exact scores.** A paper's score is `0.0 + s₁ + s₂ + …` over the query
//! terms it holds in the order of `terms`, as in [`Store::bm25_all`], so the
//! same f64. The bound of a block is `score(max_tf, min_len)·(1 + 1e-9)`: in
//! exact arithmetic `score` grows with tf and falls with the length (for
//! `k1 ≥ 0`, `0 ≤ b ≤ 1`), and each computed f64 is within a few ulps
//! (~4e-16 relative) of the exact value, so a posting's computed score can
//! exceed the computed `score(max_tf, min_len)` by at most ~1e-15 relative;
//! summing a handful of terms in another order adds ~1e-16 per term. The
//! 1e-9 slack covers both with room to spare, so a bound never falls below
//! a score it bounds.
//!
//! [`Store::bm25_all`]: super::Store::bm25_all

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rusqlite::Connection;

use super::blocks::{BLOCK_SIZE, Field, decode, decode_into, term_id_df};
use super::lengths::Lengths;
use super::{IndexMeta, Posting};
use crate::bm25::{LengthNorms, TermWeight};
use crate::candidate::{Candidate, DocScores, TotalF64};

/// Relative slack on a block's bound (see the module documentation).
const BOUND_SLACK: f64 = 1.0 + 1e-9;

/// How much of the query's postings a top-k search decoded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeCount {
    /// Postings in the blocks decoded.
    pub decoded: u64,
    /// Postings of all the query's terms.
    pub total: u64,
}

/// One query term's blocks, their bounds and those decoded so far. The
/// blocks' blobs are copied into one buffer as the term's rows are read (a
/// common term at 1M has some 6,000 blocks: one allocation, not one each).
struct TermList {
    weight: TermWeight,
    blocks: Vec<BlockAt>,
    /// Every block's blob, one after the other in doc order.
    data: Vec<u8>,
    bounds: Vec<f64>,
    decoded: Vec<Option<Vec<Posting>>>,
}

/// A block as [`top_k`] needs it: its last doc, its count of postings and
/// where its blob ends in [`TermList::data`] (it starts where the one
/// before it ends).
struct BlockAt {
    last_doc: i64,
    n: u32,
    end: usize,
}

impl TermList {
    fn postings(&mut self, i: usize, lengths: &Lengths, count: &mut DecodeCount) -> anyhow::Result<&[Posting]> {
        if self.decoded[i].is_none() {
            let b = &self.blocks[i];
            let start = if i == 0 { 0 } else { self.blocks[i - 1].end };
            let p = decode(&self.data[start..b.end], b.n as usize, lengths)
                .map_err(|e| e.context(format!("index damaged: block ending at doc {}", b.last_doc)))?;
            count.decoded += p.len() as u64;
            self.decoded[i] = Some(p);
        }
        Ok(self.decoded[i].as_deref().unwrap_or_default())
    }
}

/// The blocks of each known term of `terms`, in the order of `terms`.
fn term_lists(conn: &Connection, meta: &IndexMeta, terms: &[(String, u32)]) -> anyhow::Result<Vec<TermList>> {
    let bm25 = meta.bm25();
    let mut lists = Vec::with_capacity(terms.len());
    let mut stmt = conn.prepare_cached(Field::Papers.select_all())?;
    for (term, count) in terms {
        let Some((term_id, df)) = term_id_df(conn, term)? else { continue };
        let weight = bm25.weight(meta.num_docs, meta.avgdl, df, *count);
        // Room for full blocks of `df` postings, about 2 bytes each (a
        // guess for the blobs: they grow past it if need be), up to 2^24
        // postings (a df read from a damaged file cannot ask for more).
        let room = usize::try_from(df.min(1 << 24)).unwrap_or(0);
        let (mut blocks, mut bounds) = (Vec::with_capacity(room.div_ceil(BLOCK_SIZE)), Vec::new());
        let mut data = Vec::with_capacity(room.saturating_mul(2));
        let mut rows = stmt.query([term_id])?;
        while let Some(row) = rows.next()? {
            let (last_doc, n, max_tf, min_len): (i64, u32, u32, u32) =
                (row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?);
            data.extend_from_slice(row.get_ref(4)?.as_blob()?);
            blocks.push(BlockAt { last_doc, n, end: data.len() });
            bounds.push(weight.score(max_tf, min_len) * BOUND_SLACK);
        }
        let decoded = vec![None; blocks.len()];
        lists.push(TermList { weight, blocks, data, bounds, decoded });
    }
    Ok(lists)
}

/// The `k` best scores seen, and every paper that was at least the k-th
/// best when it was scored (a superset of the answer, cut at the end).
struct TopK {
    k: usize,
    best: BinaryHeap<Reverse<TotalF64>>,
    kept: Vec<Candidate>,
}

impl TopK {
    /// The score a paper must reach to matter (0 until `k` are known).
    fn threshold(&self) -> f64 {
        if self.best.len() < self.k { 0.0 } else { self.best.peek().map_or(0.0, |s| s.0.0) }
    }

    fn offer(&mut self, doc: i64, score: f64) {
        if score <= 0.0 || score < self.threshold() {
            return;
        }
        self.kept.push(Candidate { doc, score });
        if self.best.len() < self.k {
            self.best.push(Reverse(TotalF64(score)));
        } else if self.best.peek().is_some_and(|s| score > s.0.0) {
            self.best.pop();
            self.best.push(Reverse(TotalF64(score)));
        }
    }

    fn finish(mut self) -> Vec<Candidate> {
        if self.best.len() == self.k {
            let cut = self.threshold();
            self.kept.retain(|c| c.score >= cut);
        }
        self.kept
    }
}

/// Every paper whose score is positive and at least the k-th best positive
/// score (see [`super::Store::bm25_top_k`]), and how many postings that took.
pub(crate) fn top_k(
    conn: &Connection,
    meta: &IndexMeta,
    lengths: &Lengths,
    norms: &LengthNorms,
    terms: &[(String, u32)],
    k: usize,
) -> anyhow::Result<(Vec<Candidate>, DecodeCount)> {
    let mut count = DecodeCount::default();
    if k == 0 {
        return Ok((Vec::new(), count));
    }
    let mut lists = term_lists(conn, meta, terms)?;
    count.total = lists.iter().flat_map(|l| l.blocks.iter()).map(|b| u64::from(b.n)).sum();
    let mut ends: Vec<i64> = lists.iter().flat_map(|l| l.blocks.iter().map(|b| b.last_doc)).collect();
    ends.sort_unstable();
    ends.dedup();
    // For interval j, (ends[j-1], ends[j]], the block of each term that covers it.
    const NONE: u32 = u32::MAX;
    let t = lists.len();
    let mut at = vec![0usize; t];
    let mut cover: Vec<u32> = Vec::with_capacity(ends.len() * t);
    let mut order: Vec<(f64, usize)> = Vec::with_capacity(ends.len());
    for (j, &hi) in ends.iter().enumerate() {
        let mut bound = 0.0;
        for (i, l) in lists.iter().enumerate() {
            // `ends` and each term's blocks both ascend: a step at a time
            // is linear over all intervals (a binary search per interval
            // and term showed in the profile).
            while l.blocks.get(at[i]).is_some_and(|b| b.last_doc < hi) {
                at[i] += 1;
            }
            if at[i] < l.blocks.len() {
                bound += l.bounds[at[i]];
                cover.push(at[i] as u32);
            } else {
                cover.push(NONE);
            }
        }
        order.push((bound, j));
    }
    order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

    let mut top = TopK { k, best: BinaryHeap::with_capacity(k.min(1 << 16) + 1), kept: Vec::new() };
    let mut pos = vec![0usize; t];
    let mut active: Vec<Cursor> = Vec::with_capacity(t);
    let mut done: Vec<Cursor> = Vec::with_capacity(t);
    let mut essential = vec![false; t];
    let mut by_bound: Vec<usize> = Vec::with_capacity(t);
    let mut others: Vec<(usize, f64, f64)> = Vec::with_capacity(t);
    let mut parts = vec![0.0f64; t];
    for (bound, j) in order {
        let threshold = top.threshold();
        if bound < threshold {
            break;
        }
        let (lo, hi) = (if j == 0 { i64::MIN } else { ends[j - 1] }, ends[j]);
        let block_of = |i: usize| cover[j * t + i];
        // MaxScore inside the interval: the terms whose bounds, smallest
        // first, sum below the threshold cannot lift a paper to the cut on
        // their own, so only papers holding one of the other (essential)
        // terms are candidates; the rest are looked up per candidate.
        by_bound.clear();
        by_bound.extend((0..t).filter(|&i| block_of(i) != NONE));
        by_bound.sort_unstable_by(|&a, &b| {
            lists[a].bounds[block_of(a) as usize].total_cmp(&lists[b].bounds[block_of(b) as usize])
        });
        let mut sum = 0.0;
        essential.iter_mut().for_each(|e| *e = false);
        // The other terms, largest bound first, each with the sum of the
        // bounds of those after it (summed smallest first).
        others.clear();
        for &i in &by_bound {
            let b = lists[i].bounds[block_of(i) as usize];
            sum += b;
            essential[i] = sum >= threshold;
            if !essential[i] {
                let left = others.last().map_or(0.0, |&(_, left, b): &(usize, f64, f64)| left + b);
                others.push((i, left, b));
            }
        }
        others.reverse();
        let rest_bound = others.first().map_or(0.0, |&(_, left, b)| left + b);
        // The essential terms' postings in the interval, taken out of their
        // lists for the merge and put back after it: the merge then steps
        // only through the terms still holding postings, each a plain slice.
        for (i, l) in lists.iter_mut().enumerate() {
            pos[i] = 0;
            let b = block_of(i);
            if b == NONE || !essential[i] {
                continue;
            }
            l.postings(b as usize, lengths, &mut count)?;
            let postings = l.decoded[b as usize].take().unwrap_or_default();
            let (at, end) = (postings.partition_point(|p| p.doc <= lo), postings.partition_point(|p| p.doc <= hi));
            let cursor = Cursor { term: i, weight: l.weight, postings, at, end };
            if at < end { active.push(cursor) } else { done.push(cursor) }
        }
        // Merge them by doc.
        while let Some(doc) = active.iter().map(|c| c.postings[c.at].doc).min() {
            parts.iter_mut().for_each(|x| *x = 0.0);
            let mut a = 0;
            while a < active.len() {
                let c = &mut active[a];
                let p = c.postings[c.at];
                if p.doc == doc {
                    parts[c.term] = c.weight.score_with(p.tf, p.doc_len, norms);
                    c.at += 1;
                    if c.at == c.end {
                        done.push(active.swap_remove(a));
                        continue;
                    }
                }
                a += 1;
            }
            let known: f64 = parts.iter().sum();
            if (known + rest_bound) * BOUND_SLACK < top.threshold() {
                continue;
            }
            // The other terms looked up, largest bound first; once what is
            // known plus the bounds still to look up is below the cut, the
            // paper cannot reach it and their blocks are not decoded for it.
            let mut reachable = true;
            let mut known = known;
            for &(i, left, _) in &others {
                let weight = lists[i].weight;
                let p = lists[i].postings(block_of(i) as usize, lengths, &mut count)?;
                // Candidates come in doc order: each search starts where
                // the last one ended.
                let from = pos[i].min(p.len());
                match p[from..].binary_search_by_key(&doc, |p| p.doc) {
                    Ok(at) => {
                        parts[i] = weight.score_with(p[from + at].tf, p[from + at].doc_len, norms);
                        known += parts[i];
                        pos[i] = from + at + 1;
                    }
                    Err(at) => pos[i] = from + at,
                }
                if (known + left) * BOUND_SLACK < top.threshold() {
                    reachable = false;
                    break;
                }
            }
            if !reachable {
                continue;
            }
            // In term order, 0.0 for a term the paper lacks (x + 0.0 = x):
            // the f64 `bm25_all` gives.
            let score = parts.iter().fold(0.0, |acc, x| acc + x);
            top.offer(doc, score);
        }
        for c in done.drain(..) {
            lists[c.term].decoded[block_of(c.term) as usize] = Some(c.postings);
        }
    }
    Ok((top.finish(), count))
}

/// An essential term's postings in one interval, `postings[at..end]` still
/// to merge (its block's decoded postings, on loan from its list).
struct Cursor {
    term: usize,
    weight: TermWeight,
    postings: Vec<Posting>,
    at: usize,
    end: usize,
}

/// The scores of `docs` (those matching no term left out). For each term
/// its blocks are read in doc order beside the sorted `docs`, and only a
/// block that may hold one of them is decoded (into one reused buffer) and
/// joined with them; no block is kept. A merged set of 50,000 papers at 1M
/// decodes most blocks of a common term, so what this saves is the copy
/// and the allocation of each, and a lookup per paper.
pub(crate) fn scores_of(
    conn: &Connection,
    meta: &IndexMeta,
    lengths: &Lengths,
    norms: &LengthNorms,
    terms: &[(String, u32)],
    docs: &[i64],
) -> anyhow::Result<DocScores> {
    let mut want = docs.to_vec();
    want.sort_unstable();
    want.dedup();
    let mut sums: Vec<Option<f64>> = vec![None; want.len()];
    let bm25 = meta.bm25();
    let mut buf = Vec::new();
    let mut stmt = conn.prepare_cached(Field::Papers.select_all())?;
    for (term, count) in terms {
        let Some((term_id, df)) = term_id_df(conn, term)? else { continue };
        let weight = bm25.weight(meta.num_docs, meta.avgdl, df, *count);
        let mut rows = stmt.query([term_id])?;
        // `want[i..]`: the papers not yet past the blocks read.
        let mut i = 0usize;
        while i < want.len() {
            let Some(row) = rows.next()? else { break };
            let last_doc: i64 = row.get(0)?;
            let end = i + want[i..].partition_point(|&d| d <= last_doc);
            if end == i {
                continue;
            }
            let n: u32 = row.get(1)?;
            let data = row.get_ref(4)?.as_blob()?;
            decode_into(data, n as usize, lengths, &mut buf)
                .map_err(|e| e.context(format!("index damaged: block ending at doc {last_doc}")))?;
            let mut p = buf.iter().peekable();
            for (doc, sum) in want[i..end].iter().zip(&mut sums[i..end]) {
                while p.next_if(|q| q.doc < *doc).is_some() {}
                if let Some(q) = p.next_if(|q| q.doc == *doc) {
                    *sum = Some(sum.unwrap_or(0.0) + weight.score_with(q.tf, q.doc_len, norms));
                }
            }
            i = end;
        }
    }
    // Sized at once: collected through a filter, the map would grow by
    // doubling (a merged set of 50,000 papers: five tables, each copied).
    let mut scores = DocScores::with_capacity_and_hasher(sums.iter().flatten().count(), Default::default());
    scores.extend(want.into_iter().zip(sums).filter_map(|(doc, s)| Some((doc, s?))));
    Ok(scores)
}

#[cfg(test)]
#[path = "block_max_tests.rs"]
pub(super) mod tests;
