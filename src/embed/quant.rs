//! Exact nearest neighbours over the papers' int8 codes
//! (`store::vector_codes`): every paper's score is bounded from its codes
//! and the query's, the `k` best lower bounds set a floor, and only the
//! papers whose upper bound reaches it are scored again with their f32
//! vectors, by the same [`dot`] the f32 scan used. So the top `k` are the
//! f32 scan's own, ties and scores included, while a search reads a
//! quarter of the bytes and keeps no matrix in memory.
//!
//! The bound. A stored vector is `v = s·c + w` with `|w_j| ≤ s/2`; the
//! query is `q = t·d + r` with `d` in i16 and `|r_j| ≤ t/2`. With
//! `a = s·t·Σ d_j c_j` (exact in integers),
//! `q·v − a = t·Σ d_j w_j + Σ r_j v_j`, so
//! `|q·v − a| ≤ s/2·(‖q‖₁ + dim·t/2) + t/2·‖v‖₁`, with `‖v‖₁` bounded by the
//! stored `b`; the f32 dot product's own rounding adds at most
//! `dim·ε·‖q‖₁·max|v_j|`. Every factor is rounded up.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::candidate::{Candidate, TotalF64, top_k};
use crate::store::Store;

use super::dense::{dot, extend_from_le_bytes};

/// The papers' vectors of one model, scanned from their codes.
#[derive(Debug, Clone)]
pub struct PaperVectors {
    model_id: i64,
    dim: usize,
    len: usize,
}

/// A query's integer form and what its bound needs.
struct Query {
    /// The query in i16 (`q ≈ t·d`).
    d: Vec<i16>,
    /// The step `t`.
    t: f64,
    /// `e = s·per_scale + b·per_bound`: a vector's error bound from its scale `s` and L1 bound `b`.
    per_scale: f64,
    per_bound: f64,
}

impl Query {
    fn new(q: &[f32]) -> Query {
        let dim = q.len().max(1);
        // |d_j| · 127 · dim stays below i32::MAX, so the integer sum cannot overflow.
        let top = (i32::MAX as usize / (127 * dim)).min(i16::MAX as usize) as f64;
        let max = q.iter().fold(0f32, |m, x| m.max(x.abs())) as f64;
        let t = if max > 0.0 { max / top } else { 1.0 };
        let d = q.iter().map(|&x| (f64::from(x) / t).round().clamp(-top, top) as i16).collect();
        let l1: f64 = q.iter().map(|x| f64::from(x.abs())).sum();
        let eps = f64::from(f32::EPSILON);
        // s/2·(‖q‖₁ + dim·t/2), and the f32 dot's rounding (max |v_j| ≤ 127.5·s).
        let per_scale = (0.5 * (l1 + dim as f64 * t / 2.0) + 2.0 * dim as f64 * eps * l1 * 127.5) * 1.001;
        Query { d, t, per_scale, per_bound: t / 2.0 * 1.001 }
    }
}

/// `Σ d_j·c_j` in integers (written so the compiler vectorises it).
#[inline(always)]
fn int_dot(d: &[i16], c: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (cd, cc) = (d.chunks_exact(16), c.chunks_exact(16));
    let (rd, rc) = (cd.remainder(), cc.remainder());
    for (x, y) in cd.zip(cc) {
        for i in 0..16 {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let mut sum: i32 = acc.iter().sum();
    for (x, y) in rd.iter().zip(rc) {
        sum += i32::from(*x) * i32::from(*y);
    }
    sum
}

/// [`int_dot`] of `d` with each row of `codes` (rows of `d.len()`), into `out`.
#[inline(always)]
fn int_dots_any(d: &[i16], codes: &[i8], out: &mut [i32]) {
    for (o, c) in out.iter_mut().zip(codes.chunks_exact(d.len().max(1))) {
        *o = int_dot(d, c);
    }
}

/// [`int_dots_any`] compiled for AVX2: the same integers, faster than the
/// baseline x86-64 instructions (a diagnostic timed under load, not a
/// figure: docs/PERFORMANCE.md, "The codes read on one core, scored on the
/// other").
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn int_dots_avx2(d: &[i16], codes: &[i8], out: &mut [i32]) {
    int_dots_any(d, codes, out)
}

/// [`int_dot`] of `d` with each row of `codes`, into `out`, with the widest
/// instructions the CPU has. Integer sums: exact, whichever runs.
fn int_dots(d: &[i16], codes: &[i8], out: &mut [i32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { int_dots_avx2(d, codes, out) };
        return;
    }
    int_dots_any(d, codes, out)
}

/// A candidate of the scan: its doc and the upper bound of its score.
#[derive(Clone, Copy)]
struct Upper {
    doc: i64,
    upper: f64,
}

/// The `k` largest lower bounds seen, and the candidates whose upper bound
/// reaches the smallest of them.
struct Floor {
    k: usize,
    lowers: BinaryHeap<Reverse<TotalF64>>,
    candidates: Vec<Upper>,
}

impl Floor {
    fn new(k: usize) -> Floor {
        Floor { k, lowers: BinaryHeap::with_capacity(k + 1), candidates: Vec::new() }
    }

    /// The floor: no paper scoring below it can be among the `k` best.
    fn level(&self) -> f64 {
        if self.lowers.len() < self.k {
            f64::NEG_INFINITY
        } else {
            self.lowers.peek().map_or(f64::NEG_INFINITY, |l| l.0.0)
        }
    }

    #[inline]
    fn push(&mut self, doc: i64, approx: f64, err: f64) {
        let (lower, upper) = (approx - err, approx + err);
        if upper < self.level() {
            return;
        }
        if self.lowers.len() < self.k {
            self.lowers.push(Reverse(TotalF64(lower)));
        } else if lower > self.level() {
            self.lowers.pop();
            self.lowers.push(Reverse(TotalF64(lower)));
        }
        self.candidates.push(Upper { doc, upper });
        if self.candidates.len() >= 2 * self.k + 4096 {
            self.prune();
        }
    }

    fn prune(&mut self) {
        let level = self.level();
        self.candidates.retain(|c| c.upper >= level);
    }
}

impl PaperVectors {
    /// The vectors of `model_id` (dimension `dim`) in `store`.
    pub fn open(store: &Store, model_id: i64, dim: usize) -> anyhow::Result<PaperVectors> {
        let len = usize::try_from(store.vector_code_count(model_id)?).unwrap_or(usize::MAX);
        Ok(PaperVectors { model_id, dim, len })
    }

    /// How many vectors the model has (their papers indexed or not).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The f32 vector of `doc`, when its paper is indexed and has one.
    pub fn vector(&self, store: &Store, doc: i64) -> anyhow::Result<Option<Vec<f32>>> {
        let Some(bytes) = store.paper_vector(self.model_id, doc)? else { return Ok(None) };
        anyhow::ensure!(
            bytes.len() == self.dim * 4,
            "the stored vector of doc {doc} has {} bytes, expected {} ({} dimensions)",
            bytes.len(),
            self.dim * 4,
            self.dim
        );
        let mut v = Vec::with_capacity(self.dim);
        extend_from_le_bytes(&mut v, &bytes);
        Ok(Some(v))
    }

    /// The dot product of `query` with the vector of `doc` (the cosine, for unit vectors).
    pub fn score(&self, store: &Store, doc: i64, query: &[f32]) -> anyhow::Result<Option<f32>> {
        Ok(self.vector(store, doc)?.map(|v| dot(&v, query)))
    }

    /// The `k` best papers for `query` as candidates (doc, score), best
    /// first, ties by doc: those of a scan of every f32 vector.
    pub fn top_k(&self, store: &Store, query: &[f32], k: usize) -> anyhow::Result<Vec<Candidate>> {
        Ok(self.search(store, query, k)?.0)
    }

    /// [`PaperVectors::top_k`], and every indexed paper's score: exact
    /// for the papers rescored (the `k` best among them), else estimated
    /// from its codes.
    pub fn search(&self, store: &Store, query: &[f32], k: usize) -> anyhow::Result<(Vec<Candidate>, Estimates)> {
        anyhow::ensure!(query.len() == self.dim, "the query has {} dimensions, the vectors {}", query.len(), self.dim);
        let q = Query::new(query);
        let mut floor = Floor::new(k);
        let mut estimates = Estimates::for_rows(self.len);
        let mut dots = Vec::new();
        store.for_each_code_chunk(self.model_id, self.dim, |chunk| {
            dots.resize(chunk.len(), 0);
            int_dots(&q.d, chunk.codes(), &mut dots);
            for (r, &dot) in dots.iter().enumerate() {
                if !chunk.indexed(r) {
                    continue;
                }
                let s = f64::from(chunk.scale(r));
                let approx = s * q.t * f64::from(dot);
                let doc = chunk.doc(r);
                let err = s * q.per_scale + f64::from(chunk.bound(r)) * q.per_bound + 1e-9;
                estimates.set(doc, approx, err);
                if k > 0 {
                    floor.push(doc, approx, err);
                }
            }
            Ok(())
        })?;
        floor.prune();
        let mut docs: Vec<i64> = floor.candidates.iter().map(|c| c.doc).collect();
        docs.sort_unstable();
        let mut scored = Vec::with_capacity(docs.len());
        for doc in docs {
            if let Some(s) = self.score(store, doc, query)? {
                estimates.exact.insert(doc, s);
                scored.push(Candidate { doc, score: f64::from(s) });
            }
        }
        Ok((top_k(scored, k), estimates))
    }

    /// Every indexed paper's score for `query`, estimated from its codes
    /// (the scan of [`PaperVectors::search`] without its top `k`).
    pub fn estimates(&self, store: &Store, query: &[f32]) -> anyhow::Result<Estimates> {
        Ok(self.search(store, query, 0)?.1)
    }

    /// Makes the scores of `docs` in `estimates` exact: each paper's f32
    /// dot product with `query`, as [`PaperVectors::search`] rescores.
    pub fn rescore(
        &self,
        store: &Store,
        query: &[f32],
        estimates: &mut Estimates,
        docs: impl IntoIterator<Item = i64>,
    ) -> anyhow::Result<()> {
        for doc in docs {
            if !estimates.is_exact(doc) {
                if let Some(s) = self.score(store, doc, query)? {
                    estimates.insert_exact(doc, s);
                }
            }
        }
        Ok(())
    }
}

/// Every indexed paper's score for one query: the f32 dot product for the
/// papers scored with their vector, else the estimate from the codes
/// (within the bound `e` of the module's notes; its typical error is
/// expected to be `s/√12 · ‖q‖₂`: about 0.0005 for a unit query and a
/// scale near 0.0016, by arithmetic, not measured).
#[derive(Debug, Clone, Default)]
pub struct Estimates {
    exact: HashMap<i64, f32>,
    /// By doc id, NaN for none.
    near: Vec<f32>,
    /// By doc id: how far the estimate in `near` may be from the f32 score.
    near_err: Vec<f32>,
    /// A doc id past the array's bound (a row numbered by hand): estimate and bound.
    far: HashMap<i64, (f32, f32)>,
    bound: usize,
}

impl Estimates {
    fn for_rows(rows: usize) -> Estimates {
        let bound = rows.saturating_mul(8).saturating_add(1 << 20);
        let room = rows.min(bound);
        Estimates { bound, near: Vec::with_capacity(room), near_err: Vec::with_capacity(room), ..Estimates::default() }
    }

    /// `doc`'s estimate `approx`, within `err` of its f32 score; both kept
    /// as f32, the bound widened for the estimate's rounding to f32 and
    /// its own.
    fn set(&mut self, doc: i64, approx: f64, err: f64) {
        let score = approx as f32;
        let err = ((err + (f64::from(score) - approx).abs()) as f32).next_up();
        match usize::try_from(doc).ok().filter(|&d| d < self.bound) {
            Some(d) => {
                if self.near.len() <= d {
                    // Grown by doubling: one resize a row was a third of the
                    // scan's scoring at 1M papers.
                    let len = (d + 1).max(self.near.len().saturating_mul(2)).min(self.bound);
                    self.near.resize(len, f32::NAN);
                    self.near_err.resize(len, 0.0);
                }
                self.near[d] = score;
                self.near_err[d] = err;
            }
            None => {
                self.far.insert(doc, (score, err));
            }
        }
    }

    /// Records `doc`'s exact score.
    pub fn insert_exact(&mut self, doc: i64, score: f32) {
        self.exact.insert(doc, score);
    }

    /// `doc`'s score, exact when known, else its estimate; `None` for a
    /// paper without a vector.
    pub fn get(&self, doc: i64) -> Option<f32> {
        self.with_error(doc).map(|(score, _)| score)
    }

    /// `doc`'s score and how far it may be from the f32 score (0 when it
    /// is that score); `None` for a paper without a vector.
    pub fn with_error(&self, doc: i64) -> Option<(f32, f32)> {
        if let Some(&s) = self.exact.get(&doc) {
            return Some((s, 0.0));
        }
        let (s, e) = match usize::try_from(doc).ok().and_then(|d| self.near.get(d).zip(self.near_err.get(d))) {
            Some((&s, &e)) => (s, e),
            None => *self.far.get(&doc)?,
        };
        (!s.is_nan()).then_some((s, e))
    }

    /// Every paper with a score, in doc order for the array's ids (then
    /// the others').
    pub fn docs(&self) -> impl Iterator<Item = i64> + '_ {
        let near = self.near.iter().enumerate().filter(|(_, s)| !s.is_nan()).map(|(d, _)| d as i64);
        near.chain(self.far.keys().copied())
    }

    /// Whether `doc`'s score is exact.
    pub fn is_exact(&self, doc: i64) -> bool {
        self.exact.contains_key(&doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::vector_codes::{by_hand, quantise};

    /// The bound holds: for seeded vectors and queries, the f32 dot product
    /// lies within the error of the integer approximation.
    #[test]
    fn the_f32_score_lies_within_the_bound() {
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        for dim in [1usize, 3, 16, 17, 384, 1024] {
            for _ in 0..50 {
                let v: Vec<f32> = (0..dim).map(|_| next()).collect();
                let qv: Vec<f32> = (0..dim).map(|_| next() * 3.0).collect();
                let (s, c) = quantise(&v);
                let l1: f32 = c.iter().map(|&x| f32::from(x).abs()).sum::<f32>() + dim as f32 / 2.0;
                let b = s * l1 * 1.0001;
                let q = Query::new(&qv);
                let approx = f64::from(s) * q.t * f64::from(int_dot(&q.d, &c));
                let err = f64::from(s) * q.per_scale + f64::from(b) * q.per_bound + 1e-9;
                let exact = f64::from(dot(&v, &qv));
                assert!((exact - approx).abs() <= err, "dim {dim}: {exact} vs {approx} ± {err}");
                // The bound is useful: not wider than a tenth of the vectors' spread.
                if dim >= 16 {
                    assert!(err < 0.1 * f64::from(s) * 127.0 * qv.iter().map(|x| x.abs()).sum::<f32>() as f64);
                }
            }
        }
    }

    /// Papers 1..=9000 (three chunks of doc ids) with vectors whose
    /// coordinates are one of five values, so that equal scores are common;
    /// vectors of docs 9001..=9100 whose papers do not exist, and one of the
    /// wrong size. Written by hand (as a user's sqlite3 would), so every
    /// chunk is still marked dirty.
    fn index(dir: &std::path::Path) -> (std::path::PathBuf, Vec<(i64, Vec<f32>)>) {
        let path = dir.join("v.db");
        crate::store::create_index(&path, crate::analyzer::Analyzer::Plain, crate::bm25::Bm25::default(), |_| Ok(()))
            .unwrap();
        let mut state = 3u64;
        let mut rows = Vec::new();
        let mut blobs = Vec::new();
        for doc in 1..=9100i64 {
            let v: Vec<f32> = (0..8)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((state >> 33) % 5) as f32 / 2.0 - 1.0
                })
                .collect();
            blobs.push((doc, super::super::dense::to_le_bytes(&v)));
            if doc <= 9000 {
                rows.push((doc, v));
            }
        }
        blobs.push((9200, vec![0]));
        let papers: Vec<i64> = (1..=9000).collect();
        by_hand::write(&path, 8, &papers, &blobs);
        (path, rows)
    }

    fn agree(path: &std::path::Path, rows: &[(i64, Vec<f32>)]) {
        let store = Store::open(path).unwrap();
        let vectors = PaperVectors::open(&store, 1, 8).unwrap();
        let mut dense = super::super::DenseIndex::new(8);
        for (doc, v) in rows {
            dense.push(*doc, v);
        }
        let queries = [
            [1.0f32, 0.5, 0.0, -0.5, -1.0, 0.25, 0.0, 1.0],
            [0.1; 8],
            [0.0; 8],
            [-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ];
        for q in &queries {
            for k in [1, 3, 10, 100, 4095, 9001, 20_000] {
                let key = |c: &[Candidate]| c.iter().map(|c| (c.doc, c.score.to_bits())).collect::<Vec<_>>();
                assert_eq!(key(&vectors.top_k(&store, q, k).unwrap()), key(&dense.top_k(q, k)), "k {k}, query {q:?}");
            }
            for doc in [1, 4096, 9000, 9001, 9200, 77_777] {
                assert_eq!(vectors.score(&store, doc, q).unwrap(), dense.score(doc, q), "doc {doc}");
            }
            // Every indexed paper has a score: exact for the rescored, within the bound for the rest.
            let (top, estimates) = vectors.search(&store, q, 10).unwrap();
            for doc in (1..=9300).chain([77_777]) {
                let (got, want) = (estimates.get(doc), dense.score(doc, q));
                assert_eq!(got.is_some(), want.is_some(), "doc {doc}");
                if let (Some((est, err)), Some(want)) = (estimates.with_error(doc), want) {
                    let off = (f64::from(est) - f64::from(want)).abs();
                    assert!(off <= f64::from(err), "doc {doc}: {est} is {off} from {want}, beyond its bound {err}");
                }
                if let (Some(got), Some(want)) = (got, want) {
                    if estimates.is_exact(doc) {
                        assert_eq!(got, want, "doc {doc}");
                    } else {
                        assert!((got - want).abs() <= 0.01 * q.iter().map(|x| x.abs()).sum::<f32>(), "doc {doc}");
                    }
                }
            }
            assert!(top.iter().all(|c| estimates.is_exact(c.doc)));
        }
    }

    /// The chunks reach the scan in chunk order, read on one thread and
    /// handed to it on another; the scan's error is the one returned, and
    /// the reading stops with it.
    #[test]
    fn the_scan_sees_every_chunk_in_order_and_its_error_stops_the_reading() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = index(dir.path());
        assert_eq!(by_hand::refresh(&path), (0, 3));
        let store = Store::open(&path).unwrap();
        let mut seen = Vec::new();
        store
            .for_each_code_chunk(1, 8, |c| {
                seen.push((c.doc(0), c.len()));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, [(1, 4095), (4096, 4096), (8192, 909)], "chunk 2 holds 8192..=9100");
        let mut calls = 0;
        let err = store
            .for_each_code_chunk(1, 8, |c| {
                calls += 1;
                anyhow::ensure!(c.doc(0) < 4096, "stop at doc {}", c.doc(0));
                Ok(())
            })
            .unwrap_err();
        assert_eq!((err.to_string(), calls), ("stop at doc 4096".to_string(), 2));
    }

    /// The codes' top k is the f32 scan's, scores and ties included:
    /// chunks still marked dirty (read from `vectors`), written, and after
    /// an edit and a deleted paper.
    #[test]
    fn the_top_k_is_the_f32_scans_whether_the_chunks_are_written_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut rows) = index(dir.path());
        agree(&path, &rows);
        assert_eq!(by_hand::refresh(&path), (0, 3), "no chunk marked, three written");
        let store = Store::open(&path).unwrap();
        assert_eq!(PaperVectors::open(&store, 1, 8).unwrap().len(), 9100, "the papers' and the orphans'");
        let report = store.check();
        // (The hand-made papers have no postings; only the vectors' invariants are of this test.)
        let of = |name: &str| report.invariants.iter().find(|i| i.name == name).unwrap();
        assert!(of("vector-codes").ok, "{:?}", of("vector-codes").examples);
        assert_eq!(of("vector-dim").examples, ["doc 9200: vector of 1 bytes for model 1, whose dimension is 8"]);
        drop(store);
        agree(&path, &rows);
        let v = vec![1.0f32; 8];
        // `embed`'s upsert, twice in one chunk (its conflict clause governs the triggers' inserts too).
        for doc in [5000, 5001] {
            by_hand::upsert(&path, doc, &super::super::dense::to_le_bytes(&v));
        }
        by_hand::delete_paper(&path, 17);
        rows.retain(|r| r.0 != 17);
        for r in rows.iter_mut().filter(|r| r.0 == 5000 || r.0 == 5001) {
            r.1 = v.clone();
        }
        agree(&path, &rows);
        // A stale chunk (written, then its source changed behind the marks) is reported.
        by_hand::refresh(&path);
        by_hand::delete_vector_unmarked(&path, 6000);
        let report = Store::open(&path).unwrap().check();
        let codes = report.invariants.iter().find(|i| i.name == "vector-codes").unwrap();
        assert!(!codes.ok && codes.examples[0].starts_with("model 1, chunk 1: "), "{:?}", codes.examples);
    }

    #[test]
    fn the_integer_dot_product_is_exact_at_its_extremes() {
        let dim = 384;
        let q = Query::new(&vec![1.0f32; dim]);
        assert!(q.d.iter().all(|&d| i64::from(d) * 127 * dim as i64 <= i64::from(i32::MAX)));
        let c = vec![127i8; dim];
        let expected: i64 = q.d.iter().map(|&d| i64::from(d) * 127).sum();
        assert_eq!(i64::from(int_dot(&q.d, &c)), expected);
        let c = vec![-127i8; dim];
        assert_eq!(i64::from(int_dot(&q.d, &c)), -expected);
    }

    /// The dispatched row-by-row products (AVX2 on a CPU that has it) are
    /// the plain ones, for dimensions with and without a remainder of 16,
    /// at the extremes of both types and in between.
    #[test]
    fn the_wide_products_are_the_plain_ones() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for dim in [1, 15, 16, 17, 384, 385] {
            let q: Vec<f32> = (0..dim).map(|_| next() as f32 / u32::MAX as f32 * 2.0 - 1.0).collect();
            let mut d = Query::new(&q).d;
            d[0] = if dim > 1 { i16::MIN + 1 } else { d[0] };
            let rows = 37;
            let mut codes: Vec<i8> = (0..rows * dim).map(|_| (next() % 255) as i32 as i8).collect();
            codes[..dim].fill(-127);
            codes[dim..2 * dim].fill(127);
            let mut out = vec![0; rows];
            int_dots(&d, &codes, &mut out);
            let plain: Vec<i32> = codes
                .chunks_exact(dim)
                .map(|c| c.iter().zip(&d).map(|(&c, &d)| i32::from(c) * i32::from(d)).sum())
                .collect();
            assert_eq!(out, plain, "dim {dim}");
        }
    }
}
