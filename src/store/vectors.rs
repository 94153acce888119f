//! The vector tables of an index (`migrations/002_vectors.sql`): which models
//! embedded it (`embed_models`), one vector per paper and model (`vectors`)
//! and the chunk vectors (`chunk_vectors`). Vectors are stored as BLOBs of
//! little-endian f32, encoded and decoded by the caller.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use super::lengths::Lengths;
use super::{Handle, Store};

/// A model recorded in an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredModel {
    pub model_id: i64,
    pub name: String,
    pub dim: usize,
    pub dir: String,
    pub fingerprint: String,
    pub max_seq_len: usize,
    pub created_at: String,
    pub updated_at: String,
}

/// A model to record.
#[derive(Debug, Clone, Copy)]
pub struct ModelEntry<'a> {
    pub name: &'a str,
    pub dim: usize,
    pub dir: &'a str,
    pub fingerprint: &'a str,
    pub max_seq_len: usize,
}

/// A paper as `embed` needs it.
#[derive(Debug, Clone)]
pub struct PaperText {
    pub doc: i64,
    pub title: String,
    pub abstract_: String,
}

/// One chunk of a paper's abstract with its vector blob.
#[derive(Debug, Clone)]
pub struct ChunkBlob {
    pub position: usize,
    /// Byte range in the abstract.
    pub start: usize,
    pub end: usize,
    pub vector: Vec<u8>,
}

/// The vector tables as an open index's readers see them.
impl Store {
    /// Every recorded model, the most recently embedded first.
    pub fn vector_models(&self) -> anyhow::Result<Vec<StoredModel>> {
        models(Handle::new(&self.conn))
    }

    /// How many papers have a vector, and how many chunks are stored, for `model_id`.
    pub fn vector_counts(&self, model_id: i64) -> anyhow::Result<(u64, u64)> {
        counts(&self.conn, &*self.lengths(super::field::Field::Papers)?, model_id)
    }

    /// Whether any indexed paper has a vector of `model_id`: stops at the
    /// first (`vector_counts` reads every paper's row at 1M).
    pub(crate) fn model_has_vectors(&self, model_id: i64) -> anyhow::Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM vectors v JOIN papers p ON p.doc = v.doc WHERE v.model_id = ?1)",
            [model_id],
            |r| r.get(0),
        )?)
    }

    /// How many vectors of any model the index holds, and how many papers.
    pub(crate) fn vector_totals(&self) -> anyhow::Result<(u64, u64)> {
        totals(&self.conn)
    }

    /// Hands `f` every vector blob of `model_id` whose paper is indexed, by doc id.
    pub(crate) fn for_each_vector(
        &self,
        model_id: i64,
        f: impl FnMut(i64, &[u8]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for_each_vector(&self.conn, &*self.lengths(super::blocks::Field::Papers)?, model_id, f)
    }

    /// Hands `f` every chunk vector blob of `model_id` whose paper is indexed,
    /// by doc id and position.
    pub(crate) fn for_each_chunk(
        &self,
        model_id: i64,
        f: impl FnMut(i64, &[u8]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for_each_chunk(&self.conn, model_id, f)
    }
}

/// Every recorded model, the most recently embedded first.
pub(crate) fn models(handle: Handle<'_>) -> anyhow::Result<Vec<StoredModel>> {
    let conn = handle.conn;
    let mut stmt = conn.prepare_cached(
        "SELECT model_id, name, dim, dir, fingerprint, max_seq_len, created_at, updated_at FROM embed_models
         ORDER BY updated_at DESC, model_id DESC",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(StoredModel {
                model_id: r.get(0)?,
                name: r.get(1)?,
                dim: r.get::<_, i64>(2)? as usize,
                dir: r.get(3)?,
                fingerprint: r.get(4)?,
                max_seq_len: r.get::<_, i64>(5)? as usize,
                created_at: r.get(6)?,
                updated_at: r.get(7)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Records `model` (or refreshes its directory and time) and returns its id.
pub(crate) fn register(handle: Handle<'_>, model: &ModelEntry) -> anyhow::Result<i64> {
    let conn = handle.conn;
    let existing: Option<i64> = conn
        .prepare_cached("SELECT model_id FROM embed_models WHERE fingerprint = ?1")?
        .query_row([model.fingerprint], |r| r.get(0))
        .optional()?;
    match existing {
        Some(id) => {
            conn.execute(
                "UPDATE embed_models SET dir = ?1, name = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                 WHERE model_id = ?3",
                params![model.dir, model.name, id],
            )?;
            Ok(id)
        }
        None => {
            conn.execute(
                "INSERT INTO embed_models (name, dim, dir, fingerprint, max_seq_len, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                params![model.name, model.dim as i64, model.dir, model.fingerprint, model.max_seq_len as i64],
            )?;
            Ok(conn.last_insert_rowid())
        }
    }
}

/// Every paper's doc id, title and abstract.
pub(crate) fn paper_texts(handle: Handle<'_>) -> anyhow::Result<Vec<PaperText>> {
    let conn = handle.conn;
    let mut stmt = conn.prepare("SELECT doc, title, abstract FROM papers ORDER BY doc")?;
    let rows = stmt
        .query_map([], |r| Ok(PaperText { doc: r.get(0)?, title: r.get(1)?, abstract_: r.get(2)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The stored (text hash, chunked) of every paper with a vector for `model_id`.
pub(crate) fn existing(handle: Handle<'_>, model_id: i64) -> anyhow::Result<HashMap<i64, (String, bool)>> {
    let conn = handle.conn;
    let mut stmt = conn.prepare("SELECT doc, text_hash, chunked FROM vectors WHERE model_id = ?1")?;
    let rows = stmt
        .query_map([model_id], |r| Ok((r.get::<_, i64>(0)?, (r.get::<_, String>(1)?, r.get::<_, i64>(2)? != 0))))?
        .collect::<Result<HashMap<_, _>, _>>()?;
    Ok(rows)
}

/// Removes the vectors and chunks of papers no longer in the index; returns how many papers.
pub(crate) fn remove_orphans(handle: Handle<'_>) -> anyhow::Result<usize> {
    let conn = handle.conn;
    conn.execute("DELETE FROM chunk_vectors WHERE doc NOT IN (SELECT doc FROM papers)", [])?;
    Ok(conn.execute("DELETE FROM vectors WHERE doc NOT IN (SELECT doc FROM papers)", [])?)
}

/// Stores a paper's vector (replacing any older one) and, when given, its chunks.
pub(crate) fn put_vector(
    handle: Handle<'_>,
    model_id: i64,
    doc: i64,
    hash: &str,
    vector: &[u8],
    chunks: Option<&[ChunkBlob]>,
) -> anyhow::Result<()> {
    let conn = handle.conn;
    conn.prepare_cached(
        "INSERT INTO vectors (model_id, doc, text_hash, chunked, vector) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (model_id, doc) DO UPDATE SET text_hash = excluded.text_hash, chunked = excluded.chunked,
         vector = excluded.vector",
    )?
    .execute(params![model_id, doc, hash, chunks.is_some() as i64, vector])?;
    match chunks {
        Some(chunks) => put_chunks(handle, model_id, doc, chunks)?,
        // The text changed: older chunks no longer belong to it.
        None => {
            conn.prepare_cached("DELETE FROM chunk_vectors WHERE model_id = ?1 AND doc = ?2")?
                .execute(params![model_id, doc])?;
        }
    }
    Ok(())
}

/// Stores a paper's chunks (replacing any older ones) and marks its vector chunked.
pub(crate) fn put_chunks(handle: Handle<'_>, model_id: i64, doc: i64, chunks: &[ChunkBlob]) -> anyhow::Result<()> {
    let conn = handle.conn;
    conn.prepare_cached("DELETE FROM chunk_vectors WHERE model_id = ?1 AND doc = ?2")?
        .execute(params![model_id, doc])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO chunk_vectors (model_id, doc, position, start, end, vector) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for c in chunks {
        insert.execute(params![model_id, doc, c.position as i64, c.start as i64, c.end as i64, c.vector])?;
    }
    conn.prepare_cached("UPDATE vectors SET chunked = 1 WHERE model_id = ?1 AND doc = ?2")?
        .execute(params![model_id, doc])?;
    Ok(())
}

/// How many papers have a vector, and how many chunks are stored, for
/// `model_id`, counting only indexed papers' (those with a length in
/// `lengths`, already in memory). The doc ids come from the tables' key
/// indexes; asking `papers` for each (`doc IN (SELECT doc FROM papers)`)
/// read every paper's row, 0.7–0.8 s at 1M papers in every MCP `describe_index`.
pub(crate) fn counts(conn: &Connection, lengths: &Lengths, model_id: i64) -> anyhow::Result<(u64, u64)> {
    let indexed = |sql: &str| -> anyhow::Result<u64> {
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query([model_id])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            n += u64::from(lengths.get(r.get(0)?).is_some());
        }
        Ok(n)
    };
    Ok((
        indexed("SELECT doc FROM vectors WHERE model_id = ?1")?,
        indexed("SELECT doc FROM chunk_vectors WHERE model_id = ?1")?,
    ))
}

/// How many vectors of any model the index holds, and how many papers.
pub(crate) fn totals(conn: &Connection) -> anyhow::Result<(u64, u64)> {
    let vectors: u64 = conn.query_row("SELECT count(*) FROM vectors", [], |r| r.get(0))?;
    let papers: u64 = conn.query_row("SELECT count(*) FROM papers", [], |r| r.get(0))?;
    Ok((vectors, papers))
}

/// Hands `f` every vector blob of `model_id` whose paper is indexed (has a
/// length in `lengths`, the papers' own), in the table's order.
pub(crate) fn for_each_vector(
    conn: &Connection,
    lengths: &Lengths,
    model_id: i64,
    mut f: impl FnMut(i64, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    // The table read in its own order, without its key's index: read
    // through the index (`ORDER BY doc`), each row was a look-up of the
    // table, and asking `papers` (even its small index) whether the paper
    // is indexed was another per row: together most of a hybrid `search`
    // process at 1M papers. The papers' lengths, already in memory, answer it.
    let mut stmt = conn.prepare("SELECT doc, vector FROM vectors NOT INDEXED WHERE model_id = ?1")?;
    let mut rows = stmt.query([model_id])?;
    while let Some(r) = rows.next()? {
        let doc: i64 = r.get(0)?;
        if lengths.get(doc).is_some() {
            f(doc, r.get_ref(1)?.as_blob()?)?;
        }
    }
    Ok(())
}

/// Hands `f` every chunk vector blob of `model_id` whose paper is indexed,
/// by doc id and position.
pub(crate) fn for_each_chunk(
    conn: &Connection,
    model_id: i64,
    mut f: impl FnMut(i64, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT c.doc, c.vector FROM chunk_vectors AS c JOIN papers AS p INDEXED BY idx_papers_doc_meta ON p.doc = c.doc
         WHERE c.model_id = ?1
         ORDER BY c.doc, c.position",
    )?;
    let mut rows = stmt.query([model_id])?;
    while let Some(r) = rows.next()? {
        f(r.get(0)?, r.get_ref(1)?.as_blob()?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vectors_of_papers_no_longer_indexed_are_not_handed_over() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::migrate::migrate(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO papers (doc, id, title, source, doc_len) VALUES (1, 'a', 'x', 'paper', 1), (2, 'b', 'y', 'paper', 1);
             INSERT INTO embed_models VALUES (1, 'm', 1, '/m', 'f', 8, 't', 't');
             INSERT INTO vectors VALUES (1, 1, 'h', 1, x'0000803f'), (1, 2, 'h', 1, x'0000803f'), (1, 3, 'h', 1, x'0000803f');
             INSERT INTO chunk_vectors VALUES (1, 2, 0, 0, 1, x'0000803f'), (1, 3, 0, 0, 1, x'0000803f');",
        )
        .unwrap();
        let mut docs = Vec::new();
        let lengths = Lengths::load(&conn, super::super::blocks::Field::Papers).unwrap();
        for_each_vector(&conn, &lengths, 1, |doc, bytes| {
            docs.push((doc, bytes.len()));
            Ok(())
        })
        .unwrap();
        assert_eq!(docs, [(1, 4), (2, 4)], "doc 3's paper is gone");
        let mut chunks = Vec::new();
        for_each_chunk(&conn, 1, |doc, _| {
            chunks.push(doc);
            Ok(())
        })
        .unwrap();
        assert_eq!(chunks, [2]);
        assert_eq!(counts(&conn, &lengths, 1).unwrap(), (2, 1), "doc 3's vector and chunk left out");
        assert_eq!(counts(&conn, &lengths, 2).unwrap(), (0, 0), "another model");
    }
}
