//! The papers' vectors as int8 codes, 4,096 doc ids of one model to a row
//! (`vector_codes`, migration 021): what a dense or hybrid search scans.
//! At 1M papers the f32 vectors are 1.5 GB in a million rows, and copying
//! them into one matrix was most of a hybrid `search` process; the codes
//! are a quarter of the bytes in 245 rows, scanned chunk by chunk into no
//! matrix at all. The scan bounds each paper's true score from its codes
//! and rescores with the f32 vector (`vectors`, the source) only the papers
//! that could be among the best, so the answer is the f32 scan's exactly
//! (`embed::quant`).
//!
//! `vectors` stays the source, as `papers` is for the lengths: triggers
//! mark the chunk of a vector inserted, changed or deleted in
//! `vector_codes_dirty`, [`refresh`] writes those chunks again before a
//! write commits, and a reader takes a chunk still marked (a user's sqlite3
//! edit) from `vectors`. `litindex check` compares the two.
//!
//! A chunk's blob, for `n` vectors of the model's dimension `dim`, in doc
//! order: `n` (u32), then `n` doc offsets in the chunk (u16 each), `n`
//! scales `s` (f32), `n` bounds `b` (f32), and `n · dim` codes (i8), all
//! little-endian. A vector `v` is `s · c` within `s / 2` in each
//! coordinate (`s = max |v_j| / 127`, `c_j = round(v_j / s)`), and
//! `b = s · (Σ |c_j| + dim / 2) ≥ Σ |v_j|`. A vector that is not finite, or
//! not of its model's dimension, has no code (`check` reports the latter).

use std::collections::{BTreeSet, HashSet};

use rusqlite::{Connection, OptionalExtension, params};

use super::Store;
use super::lengths::Lengths;

/// Doc ids per chunk: `2^CHUNK_BITS`.
const CHUNK_BITS: u32 = 12;
/// Bytes a vector takes in a chunk besides its codes: offset, scale, bound.
const ROW_META: usize = 2 + 4 + 4;

const CHUNK_ROWS: &str = "SELECT rowid, chunk FROM vector_codes WHERE model_id = ?1 ORDER BY chunk";
const PUT: &str = "INSERT OR REPLACE INTO vector_codes (model_id, chunk, data) VALUES (?1, ?2, ?3)";
const REMOVE: &str = "DELETE FROM vector_codes WHERE model_id = ?1 AND chunk = ?2";
const DIRTY: &str = "SELECT model_id, chunk FROM vector_codes_dirty ORDER BY model_id, chunk";
const CLEAR: &str = "DELETE FROM vector_codes_dirty";
const SOURCE_SPAN: &str = "SELECT doc, vector FROM vectors WHERE model_id = ?1 AND doc BETWEEN ?2 AND ?3 ORDER BY doc";
const DIM: &str = "SELECT dim FROM embed_models WHERE model_id = ?1";

/// One chunk's vectors as encoded: `(doc, f32 vector)` in doc order.
type Rows = Vec<(i64, Vec<f32>)>;

/// The model's dimension, or `None` for a model not recorded.
fn dim_of(conn: &Connection, model_id: i64) -> anyhow::Result<Option<usize>> {
    let dim: Option<i64> = conn.prepare_cached(DIM)?.query_row([model_id], |r| r.get(0)).optional()?;
    Ok(dim.and_then(|d| usize::try_from(d).ok()))
}

/// The vectors of `model_id` in chunk `chunk` that get codes: those of the
/// model's dimension, every value finite.
fn rows_of(conn: &Connection, model_id: i64, dim: usize, chunk: i64) -> anyhow::Result<Rows> {
    let first = chunk << CHUNK_BITS;
    let mut stmt = conn.prepare_cached(SOURCE_SPAN)?;
    let mut rows = stmt.query(params![model_id, first, first + (1 << CHUNK_BITS) - 1])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let bytes = r.get_ref(1)?.as_blob()?;
        if bytes.len() != dim * 4 {
            continue;
        }
        let v: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        if v.iter().all(|x| x.is_finite()) {
            out.push((r.get(0)?, v));
        }
    }
    Ok(out)
}

/// A vector's scale and codes (see the module's notes).
pub(crate) fn quantise(v: &[f32]) -> (f32, Vec<i8>) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (0.0, vec![0; v.len()]);
    }
    let scale = max / 127.0;
    (scale, v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect())
}

/// Chunk `chunk`'s bytes for `rows` (in doc order, all of one dimension).
fn encode(chunk: i64, rows: &[(i64, Vec<f32>)]) -> Vec<u8> {
    let first = chunk << CHUNK_BITS;
    let dim = rows.first().map_or(0, |r| r.1.len());
    let n = rows.len();
    let mut data = Vec::with_capacity(4 + n * (ROW_META + dim));
    data.extend_from_slice(&(n as u32).to_le_bytes());
    for (doc, _) in rows {
        data.extend_from_slice(&((doc - first) as u16).to_le_bytes());
    }
    let coded: Vec<(f32, Vec<i8>)> = rows.iter().map(|(_, v)| quantise(v)).collect();
    for (scale, _) in &coded {
        data.extend_from_slice(&scale.to_le_bytes());
    }
    for (scale, codes) in &coded {
        let l1: f32 = codes.iter().map(|&c| f32::from(c).abs()).sum::<f32>() + dim as f32 / 2.0;
        data.extend_from_slice(&(scale * l1 * 1.0001).to_le_bytes());
    }
    for (_, codes) in &coded {
        data.extend(codes.iter().map(|&c| c as u8));
    }
    data
}

/// One chunk's codes as stored, read in place.
pub(crate) struct CodeChunk<'a> {
    first: i64,
    n: usize,
    body: &'a [u8],
    lengths: &'a Lengths,
}

impl<'a> CodeChunk<'a> {
    /// Chunk `chunk`'s bytes, checked against the model's dimension; a
    /// malformed chunk is an error naming it.
    fn parse(chunk: i64, dim: usize, data: &'a [u8], lengths: &'a Lengths) -> anyhow::Result<CodeChunk<'a>> {
        let n = data.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
        match n {
            Some(n) if n <= 1 << CHUNK_BITS && data.len() == 4 + n * (ROW_META + dim) => {
                Ok(CodeChunk { first: chunk << CHUNK_BITS, n, body: &data[4..], lengths })
            }
            _ => anyhow::bail!(
                "index damaged: the vector codes of chunk {chunk} are malformed ({} bytes for dimension {dim})",
                data.len()
            ),
        }
    }

    /// How many vectors the chunk holds.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// Vector `r`'s doc id.
    #[inline]
    pub(crate) fn doc(&self, r: usize) -> i64 {
        self.first + i64::from(u16::from_le_bytes([self.body[2 * r], self.body[2 * r + 1]]))
    }

    /// Whether vector `r`'s paper is indexed (has a length).
    #[inline]
    pub(crate) fn indexed(&self, r: usize) -> bool {
        self.lengths.get(self.doc(r)).is_some()
    }

    fn f32_at(&self, at: usize) -> f32 {
        let b = &self.body[at..at + 4];
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Vector `r`'s scale.
    #[inline]
    pub(crate) fn scale(&self, r: usize) -> f32 {
        self.f32_at(2 * self.n + 4 * r)
    }

    /// Vector `r`'s bound on its L1 norm.
    #[inline]
    pub(crate) fn bound(&self, r: usize) -> f32 {
        self.f32_at(6 * self.n + 4 * r)
    }

    /// Every vector's codes, row after row.
    pub(crate) fn codes(&self) -> &'a [i8] {
        bytemuck::cast_slice(&self.body[self.n * ROW_META..])
    }
}

/// The chunks marked dirty, as `(model_id, chunk)`.
fn dirty(conn: &Connection) -> anyhow::Result<Vec<(i64, i64)>> {
    Ok(conn.prepare_cached(DIRTY)?.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?)
}

/// Writes every chunk marked dirty again from `vectors` (and drops a chunk
/// left without vectors), then clears the marks. Run inside each write
/// transaction, before it commits.
pub(in crate::store) fn refresh(conn: &Connection) -> anyhow::Result<()> {
    let marked = dirty(conn)?;
    if marked.is_empty() {
        return Ok(());
    }
    for (model_id, chunk) in marked {
        let rows = match dim_of(conn, model_id)? {
            Some(dim) => rows_of(conn, model_id, dim, chunk)?,
            None => Vec::new(),
        };
        if rows.is_empty() {
            conn.prepare_cached(REMOVE)?.execute([model_id, chunk])?;
        } else {
            conn.prepare_cached(PUT)?.execute(params![model_id, chunk, encode(chunk, &rows)])?;
        }
    }
    conn.prepare_cached(CLEAR)?.execute([])?;
    Ok(())
}

impl Store {
    /// How many vectors of `model_id` have codes (papers indexed or not),
    /// counted from the chunks' sizes without reading them.
    pub(crate) fn vector_code_count(&self, model_id: i64) -> anyhow::Result<u64> {
        let Some(dim) = dim_of(&self.conn, model_id)? else { return Ok(0) };
        let dirty: BTreeSet<i64> = dirty(&self.conn)?.into_iter().filter(|d| d.0 == model_id).map(|d| d.1).collect();
        let mut count = 0u64;
        let mut stmt = self.conn.prepare_cached("SELECT chunk, length(data) FROM vector_codes WHERE model_id = ?1")?;
        let mut rows = stmt.query([model_id])?;
        while let Some(r) = rows.next()? {
            let (chunk, len): (i64, i64) = (r.get(0)?, r.get(1)?);
            if !dirty.contains(&chunk) {
                count += u64::try_from(len - 4).unwrap_or(0) / (ROW_META + dim) as u64;
            }
        }
        for chunk in dirty {
            count += rows_of(&self.conn, model_id, dim, chunk)?.len() as u64;
        }
        Ok(count)
    }

    /// Hands `f` each chunk of `model_id`'s codes, the clean ones in chunk
    /// order, then any still marked dirty, encoded from `vectors`. `dim` is
    /// the model's.
    ///
    /// Two chunks or more are read on this thread and handed to `f` on a
    /// second one, so that reading the next chunk out of SQLite overlaps
    /// `f`'s work on the last (at 1M papers the two took about the same
    /// time, docs/PERFORMANCE.md, "The codes read on one core, scored on the
    /// other"). Each blob is read into one of a few buffers, reused: read as
    /// a column, SQLite put each 1.6 MB blob in new memory, whose pages the
    /// kernel zeroed first (15 % of a dense `search` process at 1M papers).
    pub(crate) fn for_each_code_chunk(
        &self,
        model_id: i64,
        dim: usize,
        mut f: impl FnMut(&CodeChunk<'_>) -> anyhow::Result<()> + Send,
    ) -> anyhow::Result<()> {
        let lengths = self.lengths(super::field::Field::Papers)?;
        let dirty: BTreeSet<i64> = dirty(&self.conn)?.into_iter().filter(|d| d.0 == model_id).map(|d| d.1).collect();
        let chunks: Vec<(i64, i64)> = self
            .conn
            .prepare_cached(CHUNK_ROWS)?
            .query_map([model_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .filter(|c| c.as_ref().map_or(true, |(_, chunk)| !dirty.contains(chunk)))
            .collect::<Result<_, _>>()?;
        let read = |rowid: i64, buf: &mut Vec<u8>| -> anyhow::Result<()> {
            let blob = self.conn.blob_open(rusqlite::MAIN_DB, "vector_codes", "data", rowid, true)?;
            buf.resize(blob.len(), 0);
            blob.read_at_exact(buf, 0)?;
            Ok(())
        };
        let encoded = |chunk: i64| -> anyhow::Result<Vec<u8>> {
            let rows = rows_of(&self.conn, model_id, dim, chunk)?;
            Ok(if rows.is_empty() { Vec::new() } else { encode(chunk, &rows) })
        };
        if chunks.len() + dirty.len() < 2 {
            let mut buf = Vec::new();
            for &(rowid, chunk) in &chunks {
                read(rowid, &mut buf)?;
                f(&CodeChunk::parse(chunk, dim, &buf, &lengths)?)?;
            }
            for &chunk in &dirty {
                let data = encoded(chunk)?;
                if !data.is_empty() {
                    f(&CodeChunk::parse(chunk, dim, &data, &lengths)?)?;
                }
            }
            return Ok(());
        }
        std::thread::scope(|scope| {
            // Three buffers go round: one read into, one waiting, one scored.
            let (full, to_score) = std::sync::mpsc::sync_channel::<(i64, Vec<u8>)>(1);
            let (done, empty) = std::sync::mpsc::channel::<Vec<u8>>();
            for _ in 0..3 {
                let _ = done.send(Vec::new());
            }
            let lengths = &lengths;
            let scorer = scope.spawn(move || -> anyhow::Result<()> {
                for (chunk, data) in to_score {
                    f(&CodeChunk::parse(chunk, dim, &data, lengths)?)?;
                    // The reader may have stopped on an error of its own.
                    let _ = done.send(data);
                }
                Ok(())
            });
            let reading = (|| -> anyhow::Result<()> {
                for &(rowid, chunk) in &chunks {
                    let Ok(mut buf) = empty.recv() else { return Ok(()) }; // `f` failed
                    read(rowid, &mut buf)?;
                    if full.send((chunk, buf)).is_err() {
                        return Ok(()); // `f` failed: its error is the one returned
                    }
                }
                for &chunk in &dirty {
                    let data = encoded(chunk)?;
                    if !data.is_empty() && full.send((chunk, data)).is_err() {
                        return Ok(());
                    }
                }
                Ok(())
            })();
            drop(full);
            let scored = scorer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            reading.and(scored)
        })
    }

    /// The f32 vector blob of `doc` for `model_id`, when it has one and
    /// its paper is indexed.
    pub(crate) fn paper_vector(&self, model_id: i64, doc: i64) -> anyhow::Result<Option<Vec<u8>>> {
        if self.lengths(super::field::Field::Papers)?.get(doc).is_none() {
            return Ok(None);
        }
        Ok(self
            .conn
            .prepare_cached("SELECT vector FROM vectors WHERE model_id = ?1 AND doc = ?2")?
            .query_row([model_id, doc], |r| r.get(0))
            .optional()?)
    }
}

/// The chunks whose bytes differ from what `vectors` holds (not counting
/// those marked dirty, which readers take from the source), as
/// `"model M, chunk C: what differs"`, at most `limit`. One chunk of
/// vectors is in memory at a time.
pub(in crate::store) fn stale_chunks(conn: &Connection, limit: usize) -> anyhow::Result<Vec<String>> {
    let dirty: HashSet<(i64, i64)> = dirty(conn)?.into_iter().collect();
    let mut keys: BTreeSet<(i64, i64)> = BTreeSet::new();
    for row in conn
        .prepare("SELECT model_id, chunk FROM vector_codes UNION SELECT DISTINCT model_id, doc >> 12 FROM vectors")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
    {
        keys.insert(row?);
    }
    let mut out = Vec::new();
    for (model_id, chunk) in keys.into_iter().filter(|k| !dirty.contains(k)) {
        let rows = match dim_of(conn, model_id)? {
            Some(dim) => rows_of(conn, model_id, dim, chunk)?,
            None => Vec::new(),
        };
        let stored: Option<Vec<u8>> = conn
            .prepare_cached("SELECT data FROM vector_codes WHERE model_id = ?1 AND chunk = ?2")?
            .query_row([model_id, chunk], |r| r.get(0))
            .optional()?;
        let what = match (stored, rows.is_empty()) {
            (None, true) => continue,
            (None, false) => format!("{} vectors have no codes", rows.len()),
            (Some(_), true) => "codes for no vector".to_string(),
            (Some(data), false) if data != encode(chunk, &rows) => {
                format!("the codes are not those of its {} vectors", rows.len())
            }
            (Some(_), false) => continue,
        };
        out.push(format!("model {model_id}, chunk {chunk}: {what}"));
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}

/// Edits of an index made by hand, as a user's sqlite3 would (tests of
/// how the codes follow them): the SQL stays in the store.
#[cfg(test)]
pub(crate) mod by_hand {
    use std::path::Path;

    use rusqlite::{Connection, params};

    fn open(path: &Path) -> Connection {
        Connection::open(path).unwrap()
    }

    /// Model 1 of dimension `dim`, the papers `papers` (doc ids) and the
    /// vector blobs `vectors`, in one transaction, the triggers marking chunks.
    pub(crate) fn write(path: &Path, dim: usize, papers: &[i64], vectors: &[(i64, Vec<u8>)]) {
        let mut conn = open(path);
        let tx = conn.transaction().unwrap();
        tx.execute("INSERT INTO embed_models VALUES (1, 'm', ?1, '/m', 'f', 8, 't', 't')", [dim as i64]).unwrap();
        for &doc in papers {
            tx.execute(
                "INSERT INTO papers (doc, id, title, source, doc_len) VALUES (?1, ?2, 't', 'paper', 3)",
                params![doc, format!("p{doc}")],
            )
            .unwrap();
        }
        for (doc, blob) in vectors {
            tx.execute("INSERT INTO vectors VALUES (1, ?1, 'h', 0, ?2)", params![doc, blob]).unwrap();
        }
        tx.commit().unwrap();
    }

    /// `embed`'s upsert of one vector.
    pub(crate) fn upsert(path: &Path, doc: i64, blob: &[u8]) {
        open(path)
            .execute(
                "INSERT INTO vectors (model_id, doc, text_hash, chunked, vector) VALUES (1, ?1, 'h', 0, ?2)
                 ON CONFLICT (model_id, doc) DO UPDATE SET vector = excluded.vector",
                params![doc, blob],
            )
            .unwrap();
    }

    pub(crate) fn delete_paper(path: &Path, doc: i64) {
        open(path).execute("DELETE FROM papers WHERE doc = ?1", [doc]).unwrap();
    }

    /// Writes the marked chunks, as a write transaction does; returns how
    /// many chunks are still marked and how many are stored.
    pub(crate) fn refresh(path: &Path) -> (i64, i64) {
        let conn = open(path);
        super::refresh(&conn).unwrap();
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get(0)).unwrap();
        (count("SELECT count(*) FROM vector_codes_dirty"), count("SELECT count(*) FROM vector_codes"))
    }

    /// Deletes a vector without marking its chunk (its trigger dropped):
    /// the chunk goes stale.
    pub(crate) fn delete_vector_unmarked(path: &Path, doc: i64) {
        open(path)
            .execute_batch(&format!("DROP TRIGGER vectors_codes_delete; DELETE FROM vectors WHERE doc = {doc}"))
            .unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_is_its_codes_times_its_scale_within_half_a_step() {
        let v = [0.5f32, -0.25, 0.125, 0.0, -0.5, 0.3];
        let (s, c) = quantise(&v);
        assert_eq!(s, 0.5 / 127.0);
        for (x, &q) in v.iter().zip(&c) {
            assert!((x - s * f32::from(q)).abs() <= s / 2.0 * 1.0001, "{x} {q}");
        }
        assert_eq!((c[0], c[4]), (127, -127));
        assert_eq!(quantise(&[0.0, 0.0]), (0.0, vec![0, 0]));
    }

    #[test]
    fn a_chunk_reads_back_what_was_encoded() {
        let rows = vec![(4096 * 3 + 1, vec![0.6f32, 0.8]), (4096 * 3 + 4095, vec![-1.0, 0.0])];
        let data = encode(3, &rows);
        let lengths = Lengths::from_pairs([(4096 * 3 + 1, 5)]);
        let c = CodeChunk::parse(3, 2, &data, &lengths).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!((c.doc(0), c.doc(1)), (4096 * 3 + 1, 4096 * 3 + 4095));
        assert!(c.indexed(0) && !c.indexed(1));
        assert_eq!(c.scale(1), 1.0 / 127.0);
        assert_eq!(&c.codes()[2..], &[-127, 0]);
        assert!(c.bound(0) >= 1.4 && c.bound(0) < 1.42, "{}", c.bound(0));
        assert!(CodeChunk::parse(3, 3, &data, &lengths).is_err(), "another dimension");
        assert!(CodeChunk::parse(3, 2, &data[..7], &lengths).is_err(), "cut short");
        assert!(CodeChunk::parse(3, 2, &[], &lengths).is_err(), "empty");
    }
}
