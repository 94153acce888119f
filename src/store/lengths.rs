//! Every document's length, 4,096 documents to a row (`paper_lengths` for
//! the papers' `doc_len`, `passage_lengths` for the passages' `len`;
//! migration 020): BM25 needs the length of every paper whose posting it
//! scores. A posting held it until schema 20, as its third varint: 43 % of
//! the postings' bytes, the same number repeated in each of a paper's ~130
//! postings. Now a reader loads a field's lengths once (2 bytes a paper in
//! the file and in memory: 2 MB at 1M papers, a length from `0xFFFE` up in
//! a map beside them) and a block's decoder looks each doc up.
//!
//! `papers` and `passages` stay the source, as `nodes` is for `node_meta`:
//! triggers mark the chunk of a row inserted, changed or deleted in the
//! `*_lengths_dirty` table, [`refresh`] writes those chunks again before a
//! write commits, and [`Lengths::load`] takes a chunk still marked (a user's
//! sqlite3 edit) from the source table. `litindex check` compares the two.
//!
//! A chunk's blob: one byte giving the width of its entries (2 or 4), then
//! one little-endian entry per document from the chunk's first up to its
//! last, all ones (`0xFFFF` or `0xFFFFFFFF`) for a doc id without a
//! document. Width 4 only when a length does not fit below `0xFFFF`.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::Connection;

use super::chunked::{self, ChunkSql, Chunked};
use super::field::Field;

/// Documents per chunk: `2^CHUNK_BITS`.
const CHUNK_BITS: u32 = 12;
/// A doc id without a document, in memory.
const NONE: u32 = u32::MAX;

fn chunk_of(doc: i64) -> i64 {
    doc >> CHUNK_BITS
}

/// The SQL of one field's lengths: its chunks and marks, and its source.
struct Sql {
    chunk: ChunkSql,
    count: &'static str,
    source_span: &'static str,
    source_all: &'static str,
    source_one: &'static str,
}

const PAPERS: Sql = Sql {
    chunk: ChunkSql {
        chunks: "SELECT chunk, data FROM paper_lengths ORDER BY chunk",
        put: "INSERT OR REPLACE INTO paper_lengths (chunk, data) VALUES (?1, ?2)",
        remove: "DELETE FROM paper_lengths WHERE chunk = ?1",
        dirty: "SELECT chunk FROM paper_lengths_dirty ORDER BY chunk",
        clear: "DELETE FROM paper_lengths_dirty",
    },
    count: "SELECT count(*) FROM paper_lengths",
    source_span: "SELECT doc, doc_len FROM papers WHERE doc BETWEEN ?1 AND ?2 ORDER BY doc",
    source_all: "SELECT doc, doc_len FROM papers ORDER BY doc",
    source_one: "SELECT doc_len FROM papers WHERE doc = ?1",
};

const PASSAGES: Sql = Sql {
    chunk: ChunkSql {
        chunks: "SELECT chunk, data FROM passage_lengths ORDER BY chunk",
        put: "INSERT OR REPLACE INTO passage_lengths (chunk, data) VALUES (?1, ?2)",
        remove: "DELETE FROM passage_lengths WHERE chunk = ?1",
        dirty: "SELECT chunk FROM passage_lengths_dirty ORDER BY chunk",
        clear: "DELETE FROM passage_lengths_dirty",
    },
    count: "SELECT count(*) FROM passage_lengths",
    source_span: "SELECT passage, len FROM passages WHERE passage BETWEEN ?1 AND ?2 ORDER BY passage",
    source_all: "SELECT passage, len FROM passages ORDER BY passage",
    source_one: "SELECT len FROM passages WHERE passage = ?1",
};

fn sql(field: Field) -> &'static Sql {
    match field {
        Field::Papers => &PAPERS,
        Field::Passages => &PASSAGES,
    }
}

/// One field's lengths as a chunked copy of its source.
struct Copy(Field);

impl Chunked for Copy {
    type Row = (i64, u32);
    fn sql(&self) -> &ChunkSql {
        &sql(self.0).chunk
    }
    fn unit(&self) -> &'static str {
        "doc"
    }
    fn key(row: &(i64, u32)) -> i64 {
        row.0
    }
    fn encode(chunk: i64, rows: &[(i64, u32)]) -> Vec<u8> {
        encode(chunk, rows)
    }
    fn differs(chunk: i64, data: &[u8], rows: &[(i64, u32)]) -> String {
        let mut lengths = Lengths::for_chunks(1);
        if let Err(e) = decode_into(chunk, data, &mut lengths) {
            return e.to_string();
        }
        match rows.iter().find(|&&(doc, len)| lengths.get(doc) != Some(len)) {
            Some(&(doc, len)) => format!("doc {doc}: the chunk says {:?}, the source {len}", lengths.get(doc)),
            None => "it holds a length for a doc id without a document".to_string(),
        }
    }
}

/// A length as stored: a length outside `0..=u32::MAX - 1` cannot be one.
fn stored_len(doc: i64, len: i64) -> anyhow::Result<u32> {
    u32::try_from(len)
        .ok()
        .filter(|&l| l != NONE)
        .ok_or_else(|| anyhow::anyhow!("doc {doc}: length {len} is out of range"))
}

/// The chunk's bytes for `rows` (its documents' `(doc, length)`, in doc order).
fn encode(chunk: i64, rows: &[(i64, u32)]) -> Vec<u8> {
    let first = chunk << CHUNK_BITS;
    let wide = rows.iter().any(|&(_, l)| l >= 0xFFFF);
    let width = if wide { 4 } else { 2 };
    let last = rows.last().map_or(first, |r| r.0);
    let mut data = Vec::with_capacity(1 + (last - first + 1) as usize * width);
    data.push(width as u8);
    for &(doc, len) in rows {
        let at = 1 + (doc - first) as usize * width;
        while data.len() < at {
            data.extend_from_slice(&[0xFF; 4][..width]);
        }
        if wide {
            data.extend_from_slice(&len.to_le_bytes());
        } else {
            data.extend_from_slice(&(len as u16).to_le_bytes());
        }
    }
    data
}

/// Writes chunk `chunk`'s lengths into `lengths`; a malformed chunk is an
/// error naming it.
fn decode_into(chunk: i64, data: &[u8], lengths: &mut Lengths) -> anyhow::Result<()> {
    let (width, body) = match data.split_first() {
        Some((&w @ (2 | 4), body)) if body.len() % usize::from(w) == 0 => (usize::from(w), body),
        _ => anyhow::bail!("index damaged: the lengths of chunk {chunk} are malformed ({} bytes)", data.len()),
    };
    let count = body.len() / width;
    anyhow::ensure!(count <= 1 << CHUNK_BITS, "index damaged: the lengths of chunk {chunk} hold {count} entries");
    let value = |e: &[u8]| -> u32 {
        match *e {
            [lo, hi] => match u16::from_le_bytes([lo, hi]) {
                0xFFFF => NONE,
                v => u32::from(v),
            },
            [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
            _ => unreachable!("entries are 2 or 4 bytes"),
        }
    };
    let first = chunk << CHUNK_BITS;
    // A 2-byte chunk's entries are the array's as they are (but for a
    // length of `LONG`, rare enough to go through `set`): its own loop, with
    // no branch on the width per entry (a search at 1M papers loads a
    // million of them first).
    match lengths.near(first, count) {
        Some(out) if width == 2 => {
            let mut long = Vec::new();
            for (i, (o, e)) in out.iter_mut().zip(body.chunks_exact(2)).enumerate() {
                *o = u16::from_le_bytes([e[0], e[1]]);
                if *o == LONG {
                    long.push(i);
                }
            }
            long.into_iter().for_each(|i| lengths.set(first + i as i64, u32::from(LONG)));
        }
        _ => body.chunks_exact(width).enumerate().for_each(|(i, e)| lengths.set(first + i as i64, value(e))),
    }
    Ok(())
}

/// The `(doc, length)` rows of the source in chunk `chunk`, in doc order.
fn rows_of(conn: &Connection, field: Field, chunk: i64) -> anyhow::Result<Vec<(i64, u32)>> {
    let first = chunk << CHUNK_BITS;
    let mut stmt = conn.prepare_cached(sql(field).source_span)?;
    let rows =
        stmt.query_map([first, first + (1 << CHUNK_BITS) - 1], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
    rows.map(|row| {
        let (doc, len) = row?;
        Ok((doc, stored_len(doc, len)?))
    })
    .collect()
}

fn dirty_chunks(conn: &Connection, field: Field) -> anyhow::Result<Vec<i64>> {
    chunked::dirty(conn, &sql(field).chunk)
}

/// Writes every chunk of both fields marked dirty again from its source (and
/// drops a chunk left without documents), then clears the marks. Run inside
/// each write transaction, before it commits.
pub(in crate::store) fn refresh(conn: &Connection) -> anyhow::Result<()> {
    for field in [Field::Papers, Field::Passages] {
        chunked::rewrite_dirty(conn, &Copy(field), |chunk| rows_of(conn, field, chunk))?;
    }
    Ok(())
}

/// The length of one document, read from its source row (`None` when there
/// is no such document): what a writer rewriting a block asks, inside its
/// transaction, where the chunks may be behind.
pub(in crate::store) fn length_of(conn: &Connection, field: Field, doc: i64) -> anyhow::Result<Option<u32>> {
    use rusqlite::OptionalExtension;
    let len: Option<i64> = conn.prepare_cached(sql(field).source_one)?.query_row([doc], |r| r.get(0)).optional()?;
    len.map(|l| stored_len(doc, l)).transpose()
}

/// One field's lengths in memory, by doc id: an array of 2-byte entries up
/// to a bound set by the number of chunks (doc ids are SQLite's rowids,
/// dense from 1: 2 MB at 1M papers), a map for the lengths that do not fit
/// in an entry, and a map for a doc id past the bound (a row a user
/// numbered by hand), so that no doc id can make the array huge.
#[derive(Debug, Default)]
pub struct Lengths {
    /// A length below [`LONG`]; [`SHORT_NONE`] for no document; [`LONG`]
    /// for a length in `long`.
    lens: Vec<u16>,
    /// The lengths of docs in `lens` from [`LONG`] up.
    long: HashMap<i64, u32>,
    far: HashMap<i64, u32>,
    /// Doc ids below this go in `lens`.
    bound: usize,
}

/// An entry of [`Lengths`]'s array for a doc id without a document.
const SHORT_NONE: u16 = u16::MAX;
/// An entry of [`Lengths`]'s array whose length is in its `long` map.
const LONG: u16 = u16::MAX - 1;

impl Lengths {
    /// Empty lengths for an index of `chunks` chunks.
    fn for_chunks(chunks: usize) -> Lengths {
        let bound = chunks.saturating_add(1).saturating_mul(2 << CHUNK_BITS).saturating_add(1 << 20);
        // Doc ids are dense from 1, so the array spans about the chunks':
        // room for it at once. Grown chunk by chunk, a 1M-paper array was
        // copied and faulted in afresh at each doubling.
        let lens = Vec::with_capacity(chunks.saturating_mul(1 << CHUNK_BITS).min(bound));
        Lengths { lens, long: HashMap::new(), far: HashMap::new(), bound }
    }

    /// The array's entries for docs `first..first + count`, grown to hold
    /// them, or `None` when they are not all below the bound.
    fn near(&mut self, first: i64, count: usize) -> Option<&mut [u16]> {
        let first = usize::try_from(first).ok()?;
        let end = first.checked_add(count).filter(|&e| e <= self.bound)?;
        if self.lens.len() < end {
            self.lens.resize(end, SHORT_NONE);
        }
        Some(&mut self.lens[first..end])
    }

    /// Sets (or, with [`NONE`], clears) the length of `doc`.
    fn set(&mut self, doc: i64, len: u32) {
        match self.near(doc, 1) {
            Some(slot) => {
                slot[0] = match len {
                    NONE => SHORT_NONE,
                    short if short < u32::from(LONG) => short as u16,
                    _ => LONG,
                };
                if slot[0] == LONG {
                    self.long.insert(doc, len);
                } else {
                    self.long.remove(&doc);
                }
            }
            None if len == NONE => {
                self.far.remove(&doc);
            }
            None => {
                self.far.insert(doc, len);
            }
        }
    }

    /// Every length of `field`: its chunks, and the chunks still marked
    /// dirty from the source table.
    pub(in crate::store) fn load(conn: &Connection, field: Field) -> anyhow::Result<Lengths> {
        let dirty: HashSet<i64> = dirty_chunks(conn, field)?.into_iter().collect();
        let s = sql(field);
        let chunks: i64 = conn.prepare_cached(s.count)?.query_row([], |r| r.get(0))?;
        let mut lengths = Lengths::for_chunks(usize::try_from(chunks).unwrap_or(0) + dirty.len());
        let mut stmt = conn.prepare_cached(s.chunk.chunks)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let chunk: i64 = row.get(0)?;
            if dirty.contains(&chunk) {
                continue;
            }
            decode_into(chunk, row.get_ref(1)?.as_blob()?, &mut lengths)?;
        }
        for chunk in dirty {
            let first = chunk << CHUNK_BITS;
            match lengths.near(first, 1 << CHUNK_BITS) {
                Some(out) => {
                    out.fill(SHORT_NONE);
                    lengths.long.retain(|&doc, _| chunk_of(doc) != chunk);
                }
                None => lengths.far.retain(|&doc, _| chunk_of(doc) != chunk),
            }
            for (doc, len) in rows_of(conn, field, chunk)? {
                lengths.set(doc, len);
            }
        }
        Ok(lengths)
    }

    /// The length of `doc`, or `None` for a doc id without a document.
    #[inline(always)]
    pub(crate) fn get(&self, doc: i64) -> Option<u32> {
        let len = match self.lens.get(usize::try_from(doc).ok()?) {
            Some(&short) if short < LONG => return Some(u32::from(short)),
            Some(&SHORT_NONE) => return None,
            Some(_) => *self.long.get(&doc)?,
            None if self.far.is_empty() => return None,
            None => *self.far.get(&doc)?,
        };
        (len != NONE).then_some(len)
    }

    /// Lengths from `(doc, length)` pairs (tests).
    #[cfg(test)]
    pub(crate) fn from_pairs(pairs: impl IntoIterator<Item = (i64, u32)>) -> Lengths {
        let mut lengths = Lengths::for_chunks(0);
        for (doc, len) in pairs {
            lengths.set(doc, len);
        }
        lengths
    }
}

/// Each field's lengths as a [`super::Store`] last loaded them, with the
/// `PRAGMA data_version` they were loaded at (an `Arc`, so that a `Store`
/// stays `Send`, as its connection is).
pub(in crate::store) type Cache = std::cell::RefCell<[Option<(i64, std::sync::Arc<Lengths>)>; 2]>;

impl super::Store {
    /// `field`'s lengths, loaded once and kept while no other connection
    /// writes the file (`PRAGMA data_version` moves when one commits; this
    /// connection only reads).
    pub(in crate::store) fn lengths(&self, field: Field) -> anyhow::Result<std::sync::Arc<Lengths>> {
        let version: i64 = self.conn.prepare_cached("PRAGMA data_version")?.query_row([], |r| r.get(0))?;
        let slot = match field {
            Field::Papers => 0,
            Field::Passages => 1,
        };
        if let Some((v, l)) = &self.lengths.borrow()[slot] {
            if *v == version {
                return Ok(l.clone());
            }
        }
        let loaded = std::sync::Arc::new(Lengths::load(&self.conn, field)?);
        self.lengths.borrow_mut()[slot] = Some((version, loaded.clone()));
        Ok(loaded)
    }
}

/// The chunks whose bytes differ from what the source holds (not counting
/// those marked dirty, which readers take from the source), as `(chunk,
/// what differs)`, at most `limit`.
pub(in crate::store) fn stale_chunks(
    conn: &Connection,
    field: Field,
    limit: usize,
) -> anyhow::Result<Vec<(i64, String)>> {
    let mut by_chunk: BTreeMap<i64, Vec<(i64, u32)>> = BTreeMap::new();
    for row in conn.prepare(sql(field).source_all)?.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
        let (doc, len) = row?;
        by_chunk.entry(chunk_of(doc)).or_default().push((doc, stored_len(doc, len)?));
    }
    chunked::stale(conn, &Copy(field), &by_chunk, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lengths' cache keeps a `Store` movable to another thread, as its
    /// connection is (a server may hand one to a worker).
    #[test]
    fn a_store_stays_send() {
        fn send<T: Send>() {}
        send::<super::super::Store>();
    }

    #[test]
    fn a_chunk_holds_each_doc_at_its_place_and_gaps_as_none() {
        let rows = vec![(4096, 7), (4098, 0), (4099, 300)];
        let data = encode(1, &rows);
        assert_eq!(data.len(), 1 + 4 * 2, "a width byte, then up to the last doc");
        let mut l = Lengths::for_chunks(1);
        decode_into(1, &data, &mut l).unwrap();
        assert_eq!(
            (l.get(4096), l.get(4097), l.get(4098), l.get(4099), l.get(4100)),
            (Some(7), None, Some(0), Some(300), None)
        );
        assert_eq!(l.get(-1), None);
        let wide = encode(0, &[(1, 70_000), (2, 5)]);
        assert_eq!(wide[0], 4);
        let mut l = Lengths::for_chunks(1);
        decode_into(0, &wide, &mut l).unwrap();
        assert_eq!(l.get(1), Some(70_000));
        // The lengths around the array's two marks, from chunks of either width.
        for rows in
            [vec![(1, 65_533), (2, 65_534), (4, 0)], vec![(1, 65_534), (2, 65_535), (3, 65_536), (5, u32::MAX - 1)]]
        {
            let data = encode(0, &rows);
            let mut l = Lengths::for_chunks(1);
            decode_into(0, &data, &mut l).unwrap();
            let got: Vec<Option<u32>> = (1..=5).map(|doc| l.get(doc)).collect();
            let want: Vec<Option<u32>> = (1..=5).map(|doc| rows.iter().find(|r| r.0 == doc).map(|r| r.1)).collect();
            assert_eq!(got, want, "width {}", data[0]);
            assert!(l.far.is_empty() && l.long.len() == rows.iter().filter(|r| r.1 >= 65_534).count());
            // Set again, short: the map lets the length go.
            l.set(2, 7);
            l.set(1, NONE);
            assert_eq!((l.get(1), l.get(2)), (None, Some(7)));
            assert!(!l.long.contains_key(&1) && !l.long.contains_key(&2));
        }
        for bad in [&[][..], &[3, 0, 0, 0][..], &[2, 0, 0, 0][..]] {
            assert!(decode_into(0, bad, &mut Lengths::for_chunks(1)).is_err(), "{bad:?} is malformed");
        }
        // A chunk far past the others (a doc id numbered by hand) is kept in
        // the map, not an array of its size.
        let far = 1i64 << 50;
        let mut l = Lengths::for_chunks(1);
        decode_into(far >> CHUNK_BITS, &encode(far >> CHUNK_BITS, &[(far + 3, 9)]), &mut l).unwrap();
        assert!(l.lens.len() < 1 << 21, "{}", l.lens.len());
        assert_eq!((l.get(far + 3), l.get(far + 2), l.get(far + 4)), (Some(9), None, None));
    }

    /// The chunks read back what the source holds, a chunk marked dirty
    /// comes from the source, and a stale chunk is reported.
    #[test]
    fn lengths_follow_their_source() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE papers (doc INTEGER PRIMARY KEY, doc_len INTEGER NOT NULL);
             CREATE TABLE paper_lengths (chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);
             CREATE TABLE paper_lengths_dirty (chunk INTEGER PRIMARY KEY);
             CREATE TABLE passages (passage INTEGER PRIMARY KEY, len INTEGER NOT NULL);
             CREATE TABLE passage_lengths (chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);
             CREATE TABLE passage_lengths_dirty (chunk INTEGER PRIMARY KEY);",
        )
        .unwrap();
        for doc in (1..20_000).step_by(3) {
            conn.execute("INSERT INTO papers VALUES (?1, ?2)", [doc, doc % 500]).unwrap();
        }
        conn.execute_batch("INSERT INTO paper_lengths_dirty SELECT DISTINCT doc >> 12 FROM papers").unwrap();
        let before = Lengths::load(&conn, Field::Papers).unwrap();
        refresh(&conn).unwrap();
        let after = Lengths::load(&conn, Field::Papers).unwrap();
        for doc in 0..20_005 {
            let want = (doc % 3 == 1 && doc < 20_000).then_some((doc % 500) as u32);
            assert_eq!((before.get(doc), after.get(doc)), (want, want), "doc {doc}");
        }
        assert!(stale_chunks(&conn, Field::Papers, 10).unwrap().is_empty());
        conn.execute("UPDATE papers SET doc_len = 9 WHERE doc = 4", []).unwrap();
        let stale = stale_chunks(&conn, Field::Papers, 10).unwrap();
        assert_eq!(stale, [(0, "doc 4: the chunk says Some(4), the source 9".to_string())]);
        conn.execute("INSERT INTO paper_lengths_dirty VALUES (0)", []).unwrap();
        assert_eq!(Lengths::load(&conn, Field::Papers).unwrap().get(4), Some(9), "a dirty chunk from the source");
        assert_eq!(length_of(&conn, Field::Papers, 4).unwrap(), Some(9));
        assert_eq!(length_of(&conn, Field::Papers, 5).unwrap(), None);
        // A length past two bytes: from the source while marked, then from a chunk of 4-byte entries.
        conn.execute("UPDATE papers SET doc_len = 70000 WHERE doc = 4", []).unwrap();
        assert_eq!(Lengths::load(&conn, Field::Papers).unwrap().get(4), Some(70_000));
        refresh(&conn).unwrap();
        let wide = Lengths::load(&conn, Field::Papers).unwrap();
        assert_eq!((wide.get(4), wide.get(7), wide.get(5)), (Some(70_000), Some(7), None));
    }
}
