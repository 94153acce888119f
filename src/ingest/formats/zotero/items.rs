//! Every statement run on a Zotero database (SELECTs on the copy only).

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::Snapshot;
use super::convert::{Attachment, Creator, Raw, ZoteroTag};

/// What tells whether an item changed since the last sync: its own version
/// and modification times, and its live children (notes, attachments):
/// their count and latest local modification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub item_id: i64,
    pub library_id: i64,
    pub key: String,
    pub version: i64,
    pub date_modified: String,
    pub client_modified: String,
    pub children: String,
}

/// Item types that are not papers.
const NOT_PAPERS: &str = "('attachment', 'note', 'annotation')";

impl Snapshot {
    /// The live (not trashed) regular items with their stamps, in itemID order.
    pub(crate) fn stamps(&self) -> anyhow::Result<Vec<Stamp>> {
        let types = self.either("itemTypesCombined", "itemTypes");
        let children = if self.has("itemNotes") && self.has("itemAttachments") {
            format!(
                "(SELECT count(*) || '/' || coalesce(CAST(max(x.clientDateModified) AS TEXT), '') FROM items AS x
                   WHERE x.itemID IN (SELECT itemID FROM itemNotes WHERE parentItemID = i.itemID
                                      UNION ALL SELECT itemID FROM itemAttachments WHERE parentItemID = i.itemID)
                   {})",
                self.live("x.itemID")
            )
        } else {
            "''".to_string()
        };
        let sql = format!(
            "SELECT i.itemID, i.libraryID, i.key, coalesce(i.version, 0), coalesce(CAST(i.dateModified AS TEXT), ''),
                    coalesce(CAST(i.clientDateModified AS TEXT), ''), {children}
             FROM items AS i JOIN {types} AS t ON t.itemTypeID = i.itemTypeID
             WHERE t.typeName NOT IN {NOT_PAPERS} {live}
             ORDER BY i.itemID",
            live = self.live("i.itemID"),
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([], |r| {
            Ok(Stamp {
                item_id: r.get(0)?,
                library_id: r.get(1)?,
                key: r.get(2)?,
                version: r.get(3)?,
                date_modified: r.get(4)?,
                client_modified: r.get(5)?,
                children: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// `AND <col> NOT IN (the trash)`, or nothing without a trash table.
    fn live(&self, col: &str) -> String {
        if self.has("deletedItems") {
            format!("AND {col} NOT IN (SELECT itemID FROM deletedItems)")
        } else {
            String::new()
        }
    }

    /// The type of library `library_id` (`user`, `group`, `feed`) and its version.
    pub(crate) fn library(&self, library_id: i64) -> anyhow::Result<(String, i64)> {
        if !self.has("libraries") {
            return Ok(("user".into(), 0));
        }
        let row: Option<(Option<String>, Option<i64>)> = self
            .conn
            .query_row("SELECT type, version FROM libraries WHERE libraryID = ?1", [library_id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .unwrap_or(None);
        let (kind, version) = row.unwrap_or((None, None));
        Ok((kind.unwrap_or_else(|| "user".into()), version.unwrap_or(0)))
    }

    /// Every live collection's path (`Thesis/Chapter 2`) by collectionID;
    /// a collection in the trash, or under one, has none.
    pub(crate) fn collection_paths(&self) -> anyhow::Result<HashMap<i64, String>> {
        if !self.has("collections") {
            return Ok(HashMap::new());
        }
        let trashed: std::collections::HashSet<i64> = if self.has("deletedCollections") {
            let mut stmt = self.conn.prepare("SELECT collectionID FROM deletedCollections")?;
            stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?
        } else {
            Default::default()
        };
        let mut stmt = self.conn.prepare("SELECT collectionID, collectionName, parentCollectionID FROM collections")?;
        let rows: Vec<(i64, String, Option<i64>)> =
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
        let by_id: HashMap<i64, (String, Option<i64>)> =
            rows.iter().map(|(id, name, parent)| (*id, (name.trim().replace('/', "∕"), *parent))).collect();
        let mut out = HashMap::new();
        'each: for (id, _, _) in &rows {
            let mut parts = Vec::new();
            let mut at = Some(*id);
            while let Some(c) = at {
                if trashed.contains(&c) || parts.len() > by_id.len() {
                    continue 'each; // in the trash, or a cycle
                }
                let Some((name, parent)) = by_id.get(&c) else { continue 'each };
                parts.push(name.clone());
                at = *parent;
            }
            parts.reverse();
            out.insert(*id, parts.join("/"));
        }
        Ok(out)
    }

    /// Item `item_id`: fields by name (a type-specific field also under its
    /// base field's name), creators in order, tags, collections, notes,
    /// attachments.
    pub(crate) fn item(&self, stamp: &Stamp, collections: &HashMap<i64, String>) -> anyhow::Result<Raw> {
        let id = stamp.item_id;
        let types = self.either("itemTypesCombined", "itemTypes");
        let type_name: String = self.conn.query_row(
            &format!(
                "SELECT t.typeName FROM items AS i JOIN {types} AS t ON t.itemTypeID = i.itemTypeID WHERE i.itemID = ?1"
            ),
            [id],
            |r| r.get(0),
        )?;
        let fields = self.either("fieldsCombined", "fields");
        let base = self.either("baseFieldMappingsCombined", "baseFieldMappings");
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT f.fieldName, v.value, bf.fieldName
             FROM itemData AS d JOIN items AS i ON i.itemID = d.itemID
             JOIN {fields} AS f ON f.fieldID = d.fieldID
             JOIN itemDataValues AS v ON v.valueID = d.valueID
             LEFT JOIN {base} AS b ON b.itemTypeID = i.itemTypeID AND b.fieldID = d.fieldID
             LEFT JOIN {fields} AS bf ON bf.fieldID = b.baseFieldID
             WHERE d.itemID = ?1"
        ))?;
        let mut field_values: Vec<(String, String, Option<String>)> = stmt
            .query_map([id], |r| Ok((r.get(0)?, value_text(r.get_ref(1)?), r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        field_values.sort();

        let primary = if self.has("itemTypeCreatorTypes") {
            ", coalesce((SELECT tc.primaryField FROM itemTypeCreatorTypes AS tc
                          WHERE tc.itemTypeID = i.itemTypeID AND tc.creatorTypeID = ic.creatorTypeID), 0)"
        } else {
            ", ct.creatorType = 'author'"
        };
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT coalesce(c.firstName, ''), coalesce(c.lastName, ''), coalesce(c.fieldMode, 0), ct.creatorType {primary}
             FROM itemCreators AS ic JOIN items AS i ON i.itemID = ic.itemID
             JOIN creators AS c ON c.creatorID = ic.creatorID
             JOIN creatorTypes AS ct ON ct.creatorTypeID = ic.creatorTypeID
             WHERE ic.itemID = ?1 ORDER BY ic.orderIndex"
        ))?;
        let creators: Vec<Creator> = stmt
            .query_map([id], |r| {
                Ok(Creator {
                    first: r.get(0)?,
                    last: r.get(1)?,
                    single_field: r.get::<_, i64>(2)? == 1,
                    role: r.get(3)?,
                    primary: r.get::<_, i64>(4)? != 0,
                })
            })?
            .collect::<Result<_, _>>()?;

        let tags: Vec<ZoteroTag> = if self.has("itemTags") && self.has("tags") {
            let mut stmt = self.conn.prepare_cached(
                "SELECT t.name, coalesce(it.type, 0) FROM itemTags AS it JOIN tags AS t ON t.tagID = it.tagID
                 WHERE it.itemID = ?1 ORDER BY t.name",
            )?;
            stmt.query_map([id], |r| Ok(ZoteroTag { name: r.get(0)?, automatic: r.get::<_, i64>(1)? != 0 }))?
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };

        let mut in_collections: Vec<String> = if self.has("collectionItems") {
            let mut stmt = self.conn.prepare_cached("SELECT collectionID FROM collectionItems WHERE itemID = ?1")?;
            let ids: Vec<i64> = stmt.query_map([id], |r| r.get(0))?.collect::<Result<_, _>>()?;
            ids.iter().filter_map(|c| collections.get(c).cloned()).collect()
        } else {
            Vec::new()
        };
        in_collections.sort();
        in_collections.dedup();

        let notes: Vec<String> = if self.has("itemNotes") {
            let mut stmt = self.conn.prepare_cached(&format!(
                "SELECT coalesce(n.note, '') FROM itemNotes AS n WHERE n.parentItemID = ?1 {} ORDER BY n.itemID",
                self.live("n.itemID")
            ))?;
            stmt.query_map([id], |r| r.get(0))?.collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };

        let attachments = self.attachments(Some(id))?;
        Ok(Raw {
            stamp: stamp.clone(),
            type_name,
            fields: field_values,
            creators,
            tags,
            collections: in_collections,
            notes,
            attachments,
        })
    }

    /// The live attachments of item `parent`, or the standalone ones (no parent) for `None`.
    pub(crate) fn attachments(&self, parent: Option<i64>) -> anyhow::Result<Vec<Attachment>> {
        if !self.has("itemAttachments") {
            return Ok(Vec::new());
        }
        let which = if parent.is_some() { "a.parentItemID = ?1" } else { "a.parentItemID IS NULL AND ?1 IS NULL" };
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT i.key, coalesce(a.linkMode, -1), coalesce(a.contentType, ''), a.path
             FROM itemAttachments AS a JOIN items AS i ON i.itemID = a.itemID
             WHERE {which} {} ORDER BY a.itemID",
            self.live("a.itemID")
        ))?;
        let rows = stmt.query_map(params![parent], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?, r.get::<_, Option<String>>(3)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (key, link_mode, content_type, path) = row?;
            out.push(Attachment::resolve(&self.data_dir, key, link_mode, content_type, path));
        }
        Ok(out)
    }

    /// Counts for the summary: standalone notes, annotations, trashed regular items.
    pub(crate) fn counts(&self) -> anyhow::Result<(u64, u64)> {
        let types = self.either("itemTypesCombined", "itemTypes");
        let trashed: i64 = if self.has("deletedItems") {
            self.conn.query_row(
                &format!(
                    "SELECT count(*) FROM deletedItems AS d JOIN items AS i ON i.itemID = d.itemID
                     JOIN {types} AS t ON t.itemTypeID = i.itemTypeID WHERE t.typeName NOT IN {NOT_PAPERS}"
                ),
                [],
                |r| r.get(0),
            )?
        } else {
            0
        };
        let collections: i64 = if self.has("collections") {
            self.conn.query_row("SELECT count(*) FROM collections", [], |r| r.get(0))?
        } else {
            0
        };
        Ok((trashed as u64, collections as u64))
    }

    /// A fingerprint of the collection tree (names and parents): when it
    /// changes, every item's collection tags are read again.
    pub(crate) fn collections_fingerprint(&self) -> anyhow::Result<String> {
        if !self.has("collections") {
            return Ok(String::new());
        }
        let mut stmt = self.conn.prepare(
            "SELECT collectionID || ':' || coalesce(parentCollectionID, '') || ':' || collectionName FROM collections
             ORDER BY collectionID",
        )?;
        let parts: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        let mut trashed = String::new();
        if self.has("deletedCollections") {
            let mut stmt = self.conn.prepare("SELECT collectionID FROM deletedCollections ORDER BY collectionID")?;
            let ids: Vec<i64> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            trashed = format!("{ids:?}");
        }
        Ok(blake3::hash(format!("{}\n{trashed}", parts.join("\n")).as_bytes()).to_hex()[..32].to_string())
    }
}

/// A value as text (Zotero keeps numbers in `itemDataValues` too).
fn value_text(v: rusqlite::types::ValueRef<'_>) -> String {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The least a file needs to be opened as a Zotero library, plus collections.
    fn minimal(dir: &std::path::Path, extra: &str) -> Snapshot {
        let db = dir.join("zotero.sqlite");
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(&format!(
            "CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
             INSERT INTO version VALUES ('userdata', 120);
             CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT, dateAdded, dateModified,
                                 clientDateModified, libraryID INT, key TEXT, version INT, synced INT);
             CREATE TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT);
             CREATE TABLE itemData (itemID INT, fieldID INT, valueID INT);
             CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value);
             CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT);
             CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName, lastName, fieldMode INT);
             CREATE TABLE itemCreators (itemID INT, creatorID INT, creatorTypeID INT, orderIndex INT);
             CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
             CREATE TABLE collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT, parentCollectionID INT);
             {extra}"
        ))
        .unwrap();
        drop(c);
        Snapshot::open(&db, dir).unwrap()
    }

    #[test]
    fn collection_paths_nest_and_skip_the_trash_and_cycles() {
        let dir = tempfile::tempdir().unwrap();
        let snap = minimal(
            dir.path(),
            "INSERT INTO collections VALUES (1, 'Thesis', NULL), (2, 'Chapter 2', 1), (3, 'a/b', 2),
                                            (4, 'Old', NULL), (5, 'Under old', 4), (6, 'Loop', 7), (7, 'Pool', 6);
             CREATE TABLE deletedCollections (collectionID INT, dateDeleted);
             INSERT INTO deletedCollections VALUES (4, '2020-01-01');",
        );
        let paths = snap.collection_paths().unwrap();
        assert_eq!(paths.get(&2).map(String::as_str), Some("Thesis/Chapter 2"));
        assert_eq!(paths.get(&3).map(String::as_str), Some("Thesis/Chapter 2/a\u{2215}b"));
        assert!(!paths.contains_key(&4) && !paths.contains_key(&5), "trashed, or under a trashed one");
        assert!(!paths.contains_key(&6) && !paths.contains_key(&7), "a cycle has no path");
        // Without the *Combined tables, the plain ones; no trash table: every item is live.
        assert_eq!(snap.either("itemTypesCombined", "itemTypes"), "itemTypes");
        assert_eq!(snap.live("i.itemID"), "");
        assert_eq!(snap.stamps().unwrap(), Vec::<Stamp>::new());
        assert_eq!(snap.schema_note(), None);
    }
}
