//! The passage vectors of an index (`migrations/014_passage_vectors.sql`):
//! one vector per passage and model, for `search --passages --mode
//! dense|hybrid`. Blobs of little-endian f32, encoded and decoded by the
//! caller, as in [`super::vectors`].

use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::{Handle, Store};

/// A passage as `embed --passages` needs it.
#[derive(Debug, Clone)]
pub struct PassageText {
    pub passage: i64,
    pub text: String,
}

impl Store {
    /// How many passage vectors of any model the index holds.
    pub fn passage_vector_total(&self) -> anyhow::Result<u64> {
        Ok(self.conn.query_row("SELECT count(*) FROM passage_vectors", [], |r| r.get(0))?)
    }

    /// Hands `f` every passage vector blob of `model_id`, by passage id.
    pub(crate) fn for_each_passage_vector(
        &self,
        model_id: i64,
        mut f: impl FnMut(i64, &[u8]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut stmt = self.conn.prepare(
            "SELECT v.passage, v.vector FROM passage_vectors AS v JOIN passages AS x ON x.passage = v.passage
             WHERE v.model_id = ?1 ORDER BY v.passage",
        )?;
        let mut rows = stmt.query([model_id])?;
        while let Some(r) = rows.next()? {
            f(r.get(0)?, r.get_ref(1)?.as_blob()?)?;
        }
        Ok(())
    }
}

/// Every abstract, body and caption passage, by passage id (a reference
/// entry is another paper's title: not embedded).
pub(crate) fn passage_texts(handle: Handle<'_>) -> anyhow::Result<Vec<PassageText>> {
    let mut stmt = handle
        .conn
        .prepare("SELECT passage, text FROM passages WHERE kind IN ('abstract', 'body', 'caption') ORDER BY passage")?;
    let rows = stmt
        .query_map([], |r| Ok(PassageText { passage: r.get(0)?, text: r.get(1)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The stored text hash of every passage with a vector for `model_id`.
pub(crate) fn existing(handle: Handle<'_>, model_id: i64) -> anyhow::Result<HashMap<i64, String>> {
    let mut stmt = handle.conn.prepare("SELECT passage, text_hash FROM passage_vectors WHERE model_id = ?1")?;
    let rows = stmt.query_map([model_id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<HashMap<_, _>, _>>()?;
    Ok(rows)
}

/// Removes the vectors whose passage is gone (left by a connection without
/// foreign keys, or an older litindex); returns how many.
pub(crate) fn remove_orphans(handle: Handle<'_>) -> anyhow::Result<usize> {
    Ok(handle.conn.execute("DELETE FROM passage_vectors WHERE passage NOT IN (SELECT passage FROM passages)", [])?)
}

/// Stores a passage's vector, replacing any older one.
pub(crate) fn put(handle: Handle<'_>, model_id: i64, passage: i64, hash: &str, vector: &[u8]) -> anyhow::Result<()> {
    handle
        .conn
        .prepare_cached(
            "INSERT INTO passage_vectors (model_id, passage, text_hash, vector) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (model_id, passage) DO UPDATE SET text_hash = excluded.text_hash, vector = excluded.vector",
        )?
        .execute(params![model_id, passage, hash, vector])?;
    Ok(())
}

/// Removes the vectors of `document`'s passages (before the passages go).
pub(super) fn remove_of_document(conn: &Connection, document: i64) -> anyhow::Result<()> {
    conn.prepare_cached(
        "DELETE FROM passage_vectors WHERE passage IN (SELECT passage FROM passages WHERE document = ?1)",
    )?
    .execute([document])?;
    Ok(())
}
