//! What the store's chunked copies share. `node_meta` (each node's doc id
//! and year) and `paper_lengths` / `passage_lengths` (each document's
//! length) hold a source table's column a chunk of rows to a blob, kept by
//! triggers that mark a changed row's chunk dirty: [`rewrite_dirty`] writes
//! the marked chunks again before a write commits, and [`stale`] is the
//! check that every clean chunk is what its source gives.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::{Connection, params};

/// One chunked copy's statements: the chunks (`chunk, data`), one chunk
/// written or removed, and the dirty marks read and cleared.
pub(in crate::store) struct ChunkSql {
    pub chunks: &'static str,
    pub put: &'static str,
    pub remove: &'static str,
    pub dirty: &'static str,
    pub clear: &'static str,
}

/// One chunked copy: its statements and its rows' encoding.
pub(in crate::store) trait Chunked {
    /// A source row.
    type Row;
    fn sql(&self) -> &ChunkSql;
    /// What a row is called in messages ("node", "doc").
    fn unit(&self) -> &'static str;
    /// A row's key (its node, its doc id).
    fn key(row: &Self::Row) -> i64;
    /// Chunk `chunk`'s bytes for its rows, in key order.
    fn encode(chunk: i64, rows: &[Self::Row]) -> Vec<u8>;
    /// What differs between a chunk's stored bytes and its rows.
    fn differs(chunk: i64, data: &[u8], rows: &[Self::Row]) -> String;
}

/// The chunks marked dirty.
pub(in crate::store) fn dirty(conn: &Connection, sql: &ChunkSql) -> anyhow::Result<Vec<i64>> {
    Ok(conn.prepare_cached(sql.dirty)?.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?)
}

/// Writes every chunk marked dirty again from `rows_of(chunk)` (and drops
/// a chunk left without rows), then clears the marks.
pub(in crate::store) fn rewrite_dirty<C: Chunked>(
    conn: &Connection,
    copy: &C,
    rows_of: impl Fn(i64) -> anyhow::Result<Vec<C::Row>>,
) -> anyhow::Result<()> {
    let sql = copy.sql();
    let marked = dirty(conn, sql)?;
    if marked.is_empty() {
        return Ok(());
    }
    let mut put = conn.prepare_cached(sql.put)?;
    let mut remove = conn.prepare_cached(sql.remove)?;
    for chunk in marked {
        let rows = rows_of(chunk)?;
        if rows.is_empty() {
            remove.execute([chunk])?;
        } else {
            put.execute(params![chunk, C::encode(chunk, &rows)])?;
        }
    }
    conn.prepare_cached(sql.clear)?.execute([])?;
    Ok(())
}

/// The clean chunks whose bytes differ from what the source's rows
/// (`by_chunk`) encode to, as `(chunk, what differs)`, sorted, at most
/// `limit`.
pub(in crate::store) fn stale<C: Chunked>(
    conn: &Connection,
    copy: &C,
    by_chunk: &BTreeMap<i64, Vec<C::Row>>,
    limit: usize,
) -> anyhow::Result<Vec<(i64, String)>> {
    let (sql, unit) = (copy.sql(), copy.unit());
    let dirty: HashSet<i64> = dirty(conn, sql)?.into_iter().collect();
    let mut stored: HashMap<i64, Vec<u8>> = HashMap::new();
    for row in conn.prepare(sql.chunks)?.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))? {
        let (chunk, data) = row?;
        stored.insert(chunk, data);
    }
    let mut out = Vec::new();
    for (&chunk, rows) in by_chunk.iter().filter(|(c, _)| !dirty.contains(c)) {
        match stored.remove(&chunk) {
            None => {
                let (first, last) = (rows.first().map_or(0, C::key), rows.last().map_or(0, C::key));
                out.push((chunk, format!("{unit}s {first}..{last} have no chunk")));
            }
            Some(data) if data != C::encode(chunk, rows) => out.push((chunk, C::differs(chunk, &data, rows))),
            Some(_) => {}
        }
    }
    for chunk in stored.into_keys().filter(|c| !dirty.contains(c)) {
        out.push((chunk, format!("a chunk of no {unit}")));
    }
    out.sort();
    out.truncate(limit);
    Ok(out)
}
