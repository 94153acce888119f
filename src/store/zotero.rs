//! litindex's own state of the Zotero libraries it read (`zotero_libraries`,
//! `zotero_items`, migration 013), and the Zotero tags and collections it
//! put on papers (rows of `mark_tags`). The Zotero database itself is read
//! by `ingest::formats::zotero`, never here.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::marks::NOW;
use super::{Handle, Store};

/// A library as last synced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoteroLibrary {
    pub path: String,
    pub data_dir: String,
    pub library_version: i64,
    pub userdata: i64,
    pub collections: String,
    pub synced_at: String,
    pub added: u64,
    pub updated: u64,
    pub removed: u64,
    pub unchanged: u64,
    /// Items held (rows of `zotero_items`).
    pub items: u64,
}

/// An item as last read: its stamps, and the tags it put on its paper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredItem {
    pub key: String,
    pub version: i64,
    pub date_modified: String,
    pub client_modified: String,
    pub children: String,
    pub tags: Vec<String>,
}

/// One item's row to write.
pub(crate) struct ItemRow<'a> {
    pub source_id: &'a str,
    pub key: &'a str,
    pub version: i64,
    pub date_modified: &'a str,
    pub client_modified: &'a str,
    pub children: &'a str,
    pub tags: &'a [String],
    pub data: &'a str,
}

pub(crate) fn library(h: Handle<'_>, path: &str) -> anyhow::Result<Option<ZoteroLibrary>> {
    Ok(h.conn
        .prepare_cached(
            "SELECT path, data_dir, library_version, userdata, collections, synced_at, added, updated, removed,
                    unchanged, (SELECT count(*) FROM zotero_items WHERE library = path)
             FROM zotero_libraries WHERE path = ?1",
        )?
        .query_row([path], library_row)
        .optional()?)
}

fn library_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ZoteroLibrary> {
    Ok(ZoteroLibrary {
        path: r.get(0)?,
        data_dir: r.get(1)?,
        library_version: r.get(2)?,
        userdata: r.get(3)?,
        collections: r.get(4)?,
        synced_at: r.get(5)?,
        added: r.get(6)?,
        updated: r.get(7)?,
        removed: r.get(8)?,
        unchanged: r.get(9)?,
        items: r.get(10)?,
    })
}

/// Writes a library's row (the counts of the sync that just ran).
pub(crate) fn put_library(h: Handle<'_>, lib: &ZoteroLibrary) -> anyhow::Result<()> {
    h.conn
        .prepare_cached(&format!(
            "INSERT INTO zotero_libraries (path, data_dir, library_version, userdata, collections, synced_at, added,
                                           updated, removed, unchanged)
             VALUES (?1, ?2, ?3, ?4, ?5, {NOW}, ?6, ?7, ?8, ?9)
             ON CONFLICT (path) DO UPDATE SET data_dir = ?2, library_version = ?3, userdata = ?4, collections = ?5,
                 synced_at = {NOW}, added = ?6, updated = ?7, removed = ?8, unchanged = ?9"
        ))?
        .execute(params![
            lib.path,
            lib.data_dir,
            lib.library_version,
            lib.userdata,
            lib.collections,
            lib.added,
            lib.updated,
            lib.removed,
            lib.unchanged
        ])?;
    Ok(())
}

/// The items of library `path`, by record key.
pub(crate) fn items(h: Handle<'_>, path: &str) -> anyhow::Result<HashMap<String, StoredItem>> {
    let mut stmt = h.conn.prepare_cached(
        "SELECT source_id, key, version, date_modified, client_modified, children, tags FROM zotero_items
         WHERE library = ?1",
    )?;
    let rows = stmt.query_map([path], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, String>(5)?,
            r.get::<_, String>(6)?,
        ))
    })?;
    let mut out = HashMap::new();
    for row in rows {
        let (source_id, key, version, date_modified, client_modified, children, tags) = row?;
        let tags: Vec<String> = serde_json::from_str(&tags)
            .map_err(|e| anyhow::anyhow!("zotero_items {source_id}: tags are not a JSON array of strings: {e}"))?;
        out.insert(source_id, StoredItem { key, version, date_modified, client_modified, children, tags });
    }
    Ok(out)
}

pub(crate) fn put_item(h: Handle<'_>, library: &str, row: &ItemRow<'_>) -> anyhow::Result<()> {
    h.conn
        .prepare_cached(
            "INSERT OR REPLACE INTO zotero_items (library, source_id, key, version, date_modified, client_modified,
                                                  children, tags, data)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            library,
            row.source_id,
            row.key,
            row.version,
            row.date_modified,
            row.client_modified,
            row.children,
            serde_json::to_string(row.tags)?,
            row.data
        ])?;
    Ok(())
}

/// The files of the attachments item `source_id` of `library` had when last read.
pub(crate) fn attachment_files(h: Handle<'_>, library: &str, source_id: &str) -> anyhow::Result<Vec<String>> {
    let mut stmt = h.conn.prepare_cached(
        "SELECT json_extract(a.value, '$.file') FROM zotero_items AS z, json_each(json_extract(z.data, '$.attachments')) AS a
         WHERE z.library = ?1 AND z.source_id = ?2 AND json_extract(a.value, '$.file') IS NOT NULL",
    )?;
    let rows = stmt.query_map(params![library, source_id], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(crate) fn delete_item(h: Handle<'_>, library: &str, source_id: &str) -> anyhow::Result<()> {
    h.conn
        .prepare_cached("DELETE FROM zotero_items WHERE library = ?1 AND source_id = ?2")?
        .execute(params![library, source_id])?;
    Ok(())
}

/// The libraries other than `library` that hold the item `source_id`.
pub(crate) fn other_holders(h: Handle<'_>, library: &str, source_id: &str) -> anyhow::Result<Vec<String>> {
    let mut stmt =
        h.conn.prepare_cached("SELECT library FROM zotero_items WHERE source_id = ?1 AND library <> ?2 ORDER BY 1")?;
    let rows = stmt.query_map(params![source_id, library], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The paper the `zotero` record `source_id` belongs to.
pub(crate) fn paper_of(h: Handle<'_>, source_id: &str) -> anyhow::Result<Option<String>> {
    Ok(h.conn
        .prepare_cached("SELECT paper_id FROM records WHERE source = 'zotero' AND source_id = ?1")?
        .query_row([source_id], |r| r.get(0))
        .optional()?)
}

/// Puts `new` on paper `paper_id` as tags, after taking off those of `old`
/// that `new` no longer has (the tags an item put there the last time).
pub(crate) fn replace_tags(h: Handle<'_>, paper_id: &str, old: &[String], new: &[String]) -> anyhow::Result<()> {
    let mut del = h.conn.prepare_cached("DELETE FROM mark_tags WHERE paper_id = ?1 AND tag = ?2")?;
    for t in old.iter().filter(|t| !new.contains(t)) {
        del.execute(params![paper_id, t])?;
    }
    let mut ins = h.conn.prepare_cached(&format!(
        "INSERT OR IGNORE INTO mark_tags (paper_id, tag, tagged_at) VALUES (?1, ?2, {NOW})"
    ))?;
    for t in new.iter().filter(|t| !t.is_empty()) {
        ins.execute(params![paper_id, t])?;
    }
    Ok(())
}

impl Store {
    /// The papers of the index tagged `tag` (every tag under it when it ends
    /// with `/`: `zotero/Thesis/` takes `zotero/Thesis/Chapter 2`), sorted.
    pub fn papers_tagged(&self, tag: &str) -> anyhow::Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT DISTINCT m.paper_id FROM mark_tags AS m JOIN papers AS p ON p.id = m.paper_id
             WHERE m.tag = ?1 OR (substr(?1, -1) = '/' AND substr(m.tag, 1, length(?1)) = ?1)
                OR (substr(?1, -1) = '/' AND m.tag = substr(?1, 1, length(?1) - 1))
             ORDER BY m.paper_id",
        )?;
        let rows = stmt.query_map([tag], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The Zotero libraries this index reads, as last synced.
    pub fn zotero_libraries(&self) -> anyhow::Result<Vec<ZoteroLibrary>> {
        let mut stmt = self.conn.prepare(
            "SELECT path, data_dir, library_version, userdata, collections, synced_at, added, updated, removed,
                    unchanged, (SELECT count(*) FROM zotero_items WHERE library = path)
             FROM zotero_libraries ORDER BY path",
        )?;
        let rows = stmt.query_map([], library_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The Zotero data (JSON: type, url, date, creators with roles,
    /// collections, tags, notes, attachments) of the items paper `paper_id` holds.
    pub fn zotero_data(&self, paper_id: &str) -> anyhow::Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT z.data FROM zotero_items AS z JOIN records AS r ON r.source = 'zotero' AND r.source_id = z.source_id
             WHERE r.paper_id = ?1 ORDER BY z.source_id",
        )?;
        let rows = stmt.query_map([paper_id], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
