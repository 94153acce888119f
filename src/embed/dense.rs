//! Exact nearest neighbours by cosine over one contiguous buffer of unit
//! vectors: the whole matrix is read once per process, and a query is a
//! tight dot-product loop over it (split over the cores by rayon for large
//! indexes) plus [`crate::candidate::top_k`], the partial selection of the best `k`.

use std::collections::HashMap;
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::candidate::{Candidate, top_k};

/// Rows at which a scan is split across threads.
const PARALLEL_ROWS: usize = 32_768;
/// Rows per task of a split scan.
const ROWS_PER_TASK: usize = 4096;

/// `n` unit vectors of dimension `dim`, row-major in one buffer, with the
/// key (a paper's doc id) of each row.
#[derive(Debug, Clone, Default)]
pub struct DenseIndex {
    dim: usize,
    keys: Vec<i64>,
    data: Vec<f32>,
    /// Each key's row, made at the first look-up after a push.
    row_of: OnceLock<RowOf>,
}

/// The row of each key: an array by key when the keys are doc ids or
/// passage ids (small integers, few gaps: 4 bytes a key), else a map. At
/// 1M rows the map's inserts were 13 % of a hybrid `search` process.
#[derive(Debug, Clone)]
enum RowOf {
    Dense(Vec<u32>),
    Map(HashMap<i64, usize>),
}

impl RowOf {
    fn new(keys: &[i64]) -> RowOf {
        let max = keys.iter().copied().max().unwrap_or(0);
        let room = (keys.len() as i64).saturating_mul(8).saturating_add(1 << 20);
        if keys.iter().all(|&k| k >= 0) && max < room && keys.len() < u32::MAX as usize {
            let mut rows = vec![u32::MAX; max as usize + 1];
            for (row, &k) in keys.iter().enumerate() {
                rows[k as usize] = row as u32;
            }
            RowOf::Dense(rows)
        } else {
            RowOf::Map(keys.iter().enumerate().map(|(row, &k)| (k, row)).collect())
        }
    }

    fn get(&self, key: i64) -> Option<usize> {
        match self {
            RowOf::Dense(rows) => {
                let row = *rows.get(usize::try_from(key).ok()?)?;
                (row != u32::MAX).then_some(row as usize)
            }
            RowOf::Map(map) => map.get(&key).copied(),
        }
    }
}

impl DenseIndex {
    /// An empty index of dimension `dim`.
    pub fn new(dim: usize) -> DenseIndex {
        DenseIndex { dim, ..DenseIndex::default() }
    }

    /// An empty index of dimension `dim` with room for `rows` rows, so that
    /// loading at most as many grows no buffer: at 1M rows the matrix is 1.5 GB, and
    /// growing it by doubling copied it and held the old and the new at once.
    pub fn with_capacity(dim: usize, rows: usize) -> DenseIndex {
        DenseIndex {
            dim,
            keys: Vec::with_capacity(rows),
            data: Vec::with_capacity(rows.saturating_mul(dim)),
            row_of: OnceLock::new(),
        }
    }

    /// Adds one row. The vector must have the index's dimension.
    pub fn push(&mut self, key: i64, vector: &[f32]) {
        assert_eq!(vector.len(), self.dim, "vector dimension");
        self.row_of.take();
        self.keys.push(key);
        self.data.extend_from_slice(vector);
    }

    /// Adds one row from its little-endian f32 bytes (as stored).
    pub(crate) fn push_le_bytes(&mut self, key: i64, bytes: &[u8]) -> anyhow::Result<()> {
        anyhow::ensure!(
            bytes.len() == self.dim * 4,
            "a stored vector has {} bytes, expected {} ({} dimensions)",
            bytes.len(),
            self.dim * 4,
            self.dim
        );
        self.row_of.take();
        self.keys.push(key);
        extend_from_le_bytes(&mut self.data, bytes);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The stored vector of `key`.
    pub fn vector(&self, key: i64) -> Option<&[f32]> {
        let r = self.row_of.get_or_init(|| RowOf::new(&self.keys)).get(key)?;
        Some(&self.data[r * self.dim..(r + 1) * self.dim])
    }

    /// The dot product of `query` with the row of `key` (the cosine, for unit vectors).
    pub fn score(&self, key: i64, query: &[f32]) -> Option<f32> {
        self.vector(key).map(|v| dot(v, query))
    }

    /// Every row's dot product with `query`, in row order.
    pub fn scores(&self, query: &[f32]) -> Vec<f32> {
        assert_eq!(query.len(), self.dim, "query dimension");
        let mut out = vec![0f32; self.keys.len()];
        let dim = self.dim;
        if self.keys.len() < PARALLEL_ROWS || dim == 0 {
            scan(&self.data, dim, query, &mut out);
        } else {
            out.par_chunks_mut(ROWS_PER_TASK)
                .zip(self.data.par_chunks(ROWS_PER_TASK * dim))
                .for_each(|(out, data)| scan(data, dim, query, out));
        }
        out
    }

    /// The `k` best rows for `query` as candidates (key, score), best
    /// first; ties by key ([`top_k`]).
    pub fn top_k(&self, query: &[f32], k: usize) -> Vec<Candidate> {
        let scores = self.scores(query);
        top_k(self.keys.iter().zip(scores).map(|(&doc, s)| Candidate { doc, score: f64::from(s) }), k)
    }
}

/// `out[i] = data[i·dim..(i+1)·dim] · query`.
fn scan(data: &[f32], dim: usize, query: &[f32], out: &mut [f32]) {
    for (row, o) in data.chunks_exact(dim).zip(out.iter_mut()) {
        *o = dot(row, query);
    }
}

/// A dot product written so the compiler vectorises it (eight independent sums).
#[inline]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        sum += x * y;
    }
    sum
}

/// Little-endian bytes of a vector, as stored: on a little-endian host the
/// floats' own bytes ([`bytemuck::cast_slice`]).
pub(crate) fn to_le_bytes(v: &[f32]) -> Vec<u8> {
    if cfg!(target_endian = "little") {
        bytemuck::cast_slice(v).to_vec()
    } else {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

/// The vector held in little-endian bytes (a trailing partial float is ignored).
#[cfg(test)]
fn from_le_bytes(bytes: &[u8]) -> Vec<f32> {
    let mut v = Vec::with_capacity(bytes.len() / 4);
    extend_from_le_bytes(&mut v, bytes);
    v
}

/// Appends the floats held in little-endian `bytes` to `out`. The bytes are
/// copied into `out`'s own (aligned) floats, so a blob SQLite hands back at
/// any alignment is fine.
pub(crate) fn extend_from_le_bytes(out: &mut Vec<f32>, bytes: &[u8]) {
    let n = bytes.len() / 4;
    let start = out.len();
    out.resize(start + n, 0.0);
    let new = &mut out[start..];
    bytemuck::cast_slice_mut::<f32, u8>(new).copy_from_slice(&bytes[..n * 4]);
    if cfg!(target_endian = "big") {
        for x in new {
            *x = f32::from_bits(u32::from_le(x.to_bits()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn top_k_is_the_brute_force_order() {
        let mut idx = DenseIndex::new(3);
        let rows = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [1.0, 0.1, 0.0]];
        for (i, r) in rows.iter().enumerate() {
            idx.push(i as i64 + 10, &unit(r));
        }
        let q = unit(&[1.0, 0.0, 0.0]);
        let top = idx.top_k(&q, 3);
        assert_eq!(top.iter().map(|t| t.doc).collect::<Vec<_>>(), vec![10, 14, 12]);
        assert!((top[0].score - 1.0).abs() < 1e-6);
        assert_eq!(idx.top_k(&q, 100).len(), 5);
        assert!(idx.top_k(&q, 0).is_empty());
        assert_eq!(idx.score(13, &q), Some(-1.0));
        assert_eq!(idx.score(99, &q), None);
    }

    /// A key's row is found by an array over small keys and by a map over
    /// huge or negative ones, and a push after a look-up is found too.
    #[test]
    fn every_key_finds_its_row_whatever_the_keys() {
        for keys in [vec![3i64, 1, 7], vec![-5, 2, i64::MAX], vec![0, 1 << 40]] {
            let mut idx = DenseIndex::new(1);
            for &k in &keys {
                idx.push(k, &[k as f32]);
            }
            let dense = matches!(RowOf::new(&keys), RowOf::Dense(_));
            assert_eq!(dense, keys == [3, 1, 7], "{keys:?}");
            for &k in &keys {
                assert_eq!(idx.vector(k), Some(&[k as f32][..]), "{keys:?}");
            }
            assert_eq!(idx.vector(4), None);
            assert_eq!(idx.vector(-1), None);
            idx.push(4, &[4.0]);
            assert_eq!(idx.vector(4), Some(&[4.0][..]), "pushed after a look-up");
        }
    }

    #[test]
    fn ties_go_by_key_and_bytes_round_trip() {
        let mut idx = DenseIndex::new(2);
        for k in [5, 3, 4] {
            idx.push_le_bytes(k, &to_le_bytes(&[0.6, 0.8])).unwrap();
        }
        assert!(idx.push_le_bytes(9, &[0u8; 4]).is_err());
        let top = idx.top_k(&[0.6, 0.8], 2);
        assert_eq!(top.iter().map(|t| t.doc).collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(from_le_bytes(&to_le_bytes(&[1.5, -2.25])), vec![1.5, -2.25]);
        assert_eq!(to_le_bytes(&[1.5]), 1.5f32.to_le_bytes());
        // Stored blobs come back at any alignment, and a trailing partial float is ignored.
        let mut blob = vec![0u8];
        blob.extend(to_le_bytes(&[0.25, -8.0]));
        blob.push(7);
        assert_eq!(from_le_bytes(&blob[1..]), vec![0.25, -8.0]);
    }

    #[test]
    fn parallel_scan_matches_the_serial_one() {
        let dim = 7;
        let n = PARALLEL_ROWS + 123;
        let mut idx = DenseIndex::new(dim);
        let mut state = 1u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        for k in 0..n {
            let v: Vec<f32> = (0..dim).map(|_| next()).collect();
            idx.push(k as i64, &v);
        }
        let q: Vec<f32> = (0..dim).map(|_| next()).collect();
        let all = idx.scores(&q);
        for (k, s) in all.iter().enumerate().step_by(997) {
            assert_eq!(*s, dot(idx.vector(k as i64).unwrap(), &q));
        }
        let best = all.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(idx.top_k(&q, 1)[0].score, f64::from(best));
    }

    /// Rows `n` of dimension `dim`, and a query, drawn from `seed`: each
    /// coordinate one of nine values in −1..1, so equal scores (ties) are common.
    fn seeded(seed: u64, n: usize, dim: usize) -> (DenseIndex, Vec<f32>) {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % 9) as f32 / 4.0 - 1.0
        };
        let mut idx = DenseIndex::new(dim);
        for k in 0..n {
            let v: Vec<f32> = (0..dim).map(|_| next()).collect();
            // Keys out of row order, so the ties' order by key is not the rows'.
            idx.push((k as i64 * 7919) % 100_003, &v);
        }
        let q = (0..dim).map(|_| next()).collect();
        (idx, q)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Threaded = serial: the scan rayon splits over the cores (past
        /// PARALLEL_ROWS rows, in tasks of ROWS_PER_TASK, the last one short)
        /// gives every row the score of one serial scan, and so the same top k.
        #[test]
        fn the_threaded_scan_equals_a_serial_scan(
            seed in proptest::prelude::any::<u64>(),
            extra in 0..3 * ROWS_PER_TASK,
            dim in 1usize..20,
            k in 0usize..50,
        ) {
            let n = PARALLEL_ROWS + extra;
            let (idx, q) = seeded(seed, n, dim);
            let threaded = idx.scores(&q);
            let mut serial = vec![0f32; n];
            scan(&idx.data, dim, &q, &mut serial);
            proptest::prop_assert_eq!(threaded.len(), n);
            let differ = threaded.iter().zip(&serial).position(|(a, b)| a.to_bits() != b.to_bits());
            proptest::prop_assert_eq!(differ, None, "row {:?} differs", differ);
            let serial_top = top_k(idx.keys.iter().zip(&serial).map(|(&doc, &s)| Candidate { doc, score: f64::from(s) }), k);
            let top = idx.top_k(&q, k);
            proptest::prop_assert_eq!(
                top.iter().map(|c| (c.doc, c.score.to_bits())).collect::<Vec<_>>(),
                serial_top.iter().map(|c| (c.doc, c.score.to_bits())).collect::<Vec<_>>()
            );
        }
    }
}
