//! How a record is kept in `records.data`: its JSON without what is stored
//! elsewhere, and given back whole.
//!
//! Left out (`records.shared` says which of the first kind):
//! - a field the paper row holds exactly, taken from this record or equal
//!   to it: the title and the abstract (bits 1, 2), the authors (16), the
//!   year (32) and the venue (64);
//! - a reference or citation list the record's stated links give back
//!   exactly (bits 4, 8; see [`restorable`]);
//! - the `source`, which is the row's `source` column, and the `source_id`
//!   when the row's `source_id` column (its key) reads back as it;
//! - every field at its empty value (no ids, an empty title or abstract, no
//!   year, no authors, no references or citations, no arXiv version).
//!
//! A record stored before schema 19 has every field in its JSON and reads
//! back the same way.

use anyhow::Context;
use serde_json::{Map, Value};

use super::postings_writer::PaperDraft;
use crate::paper::{PaperId, Record};

pub(super) const SHARED_TITLE: i64 = 1;
pub(super) const SHARED_ABSTRACT: i64 = 2;
pub(super) const SHARED_REFERENCES: i64 = 4;
pub(super) const SHARED_CITATIONS: i64 = 8;
pub(super) const SHARED_AUTHORS: i64 = 16;
pub(super) const SHARED_YEAR: i64 = 32;
pub(super) const SHARED_VENUE: i64 = 64;
/// The bits restored from the paper row.
pub(super) const FROM_PAPER: i64 = SHARED_TITLE | SHARED_ABSTRACT | SHARED_AUTHORS | SHARED_YEAR | SHARED_VENUE;

/// The fields left out at their empty value, with that value.
fn empties() -> [(&'static str, Value); 8] {
    [
        ("ids", Value::Array(Vec::new())),
        ("title", Value::String(String::new())),
        ("abstract", Value::String(String::new())),
        ("year", Value::Null),
        ("authors", Value::Array(Vec::new())),
        ("references", Value::Array(Vec::new())),
        ("citations", Value::Array(Vec::new())),
        ("arxiv_version", Value::Null),
    ]
}

/// The `data` and `shared` of `record`, a record of the paper `paper`;
/// `text` says whether the paper row's title and abstract were taken from
/// this record.
pub(super) fn encode(record: &Record, paper: &PaperDraft, text: (bool, bool)) -> anyhow::Result<(String, i64)> {
    let key = record.source_id.key();
    let shared = if text.0 { SHARED_TITLE } else { 0 }
        | if text.1 { SHARED_ABSTRACT } else { 0 }
        | if restorable(&record.references, &key) { SHARED_REFERENCES } else { 0 }
        | if restorable(&record.citations, &key) { SHARED_CITATIONS } else { 0 }
        | if !record.authors.is_empty() && record.authors == paper.authors { SHARED_AUTHORS } else { 0 }
        | if record.year.is_some() && record.year == paper.year { SHARED_YEAR } else { 0 }
        | if record.venue.is_some() && record.venue.as_deref() == paper.venue { SHARED_VENUE } else { 0 };
    let mut stored = record.clone();
    if shared & SHARED_REFERENCES != 0 {
        stored.references.clear();
    }
    if shared & SHARED_CITATIONS != 0 {
        stored.citations.clear();
    }
    if shared & SHARED_TITLE != 0 {
        stored.title.clear();
    }
    if shared & SHARED_ABSTRACT != 0 {
        stored.abstract_.clear();
    }
    if shared & SHARED_AUTHORS != 0 {
        stored.authors.clear();
    }
    if shared & SHARED_YEAR != 0 {
        stored.year = None;
    }
    if shared & SHARED_VENUE != 0 {
        stored.venue = None;
    }
    let Value::Object(mut fields) = serde_json::to_value(&stored)? else {
        anyhow::bail!("a record did not serialise to a JSON object");
    };
    fields.remove("source");
    if PaperId::parse(&key) == record.source_id {
        fields.remove("source_id");
    }
    for (name, empty) in empties() {
        if fields.get(name) == Some(&empty) {
            fields.remove(name);
        }
    }
    Ok((serde_json::to_string(&fields)?, shared))
}

/// The record `data` holds, with the fields left out at their empty value
/// and its `source` and `source_id` from the row's columns (`key` is the
/// latter); what `shared` left out is the caller's to fill in.
pub(super) fn decode(data: &str, source: &str, key: &str) -> anyhow::Result<Record> {
    let mut fields: Map<String, Value> =
        serde_json::from_str(data).context("index damaged: a stored record is not a JSON object")?;
    fields.entry("source").or_insert_with(|| Value::String(source.to_string()));
    if !fields.contains_key("source_id") {
        fields.insert("source_id".to_string(), serde_json::to_value(PaperId::parse(key))?);
    }
    for (name, empty) in empties() {
        fields.entry(name).or_insert(empty);
    }
    serde_json::from_value(Value::Object(fields)).context("index damaged: a stored record is not a record")
}

/// Whether a record's reference (or citation) list is exactly what its
/// stated links give back: not empty (an empty list costs nothing), sorted
/// by id without repeats, no empty or own id (those are not stated), and
/// every id reading back as itself from its key.
pub(super) fn restorable(list: &[PaperId], own: &str) -> bool {
    let keys: Vec<String> = list.iter().map(PaperId::key).collect();
    !keys.is_empty()
        && keys.windows(2).all(|w| w[0] < w[1])
        && keys.iter().zip(list).all(|(k, id)| !k.is_empty() && k != own && PaperId::parse(k) == *id)
}

/// How a title signature (`paper::title::title_key`) is stored in
/// `records.title_key` and `doc_references.title_key` (schema 23): the
/// first 8 bytes of BLAKE3 of its text. Only compared for equality; a
/// reader that acts on a match compares the titles' own signatures.
pub(super) fn title_code(key: &str) -> Vec<u8> {
    blake3::hash(key.as_bytes()).as_bytes()[..8].to_vec()
}

/// Whether a stored record's title (`title`, as the row gives it back) has
/// the signature `key`: what makes a match on the code a match.
pub(super) fn titled(title: &str, key: &str) -> bool {
    crate::paper::title::title_key(title).as_deref() == Some(key)
}

/// The Rust half of migration 23: every title signature stored as text
/// becomes its code.
pub(super) fn code_title_keys(conn: &rusqlite::Connection) -> anyhow::Result<()> {
    let records: Vec<(i64, String)> = {
        let mut stmt = conn.prepare("SELECT rowid, title_key FROM records WHERE typeof(title_key) = 'text'")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut put = conn.prepare("UPDATE records SET title_key = ?2 WHERE rowid = ?1")?;
    for (rowid, text) in records {
        put.execute(rusqlite::params![rowid, title_code(&text)])?;
    }
    let entries: Vec<(i64, i64, String)> = {
        let mut stmt =
            conn.prepare("SELECT document, position, title_key FROM doc_references WHERE typeof(title_key) = 'text'")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut put = conn.prepare("UPDATE doc_references SET title_key = ?3 WHERE document = ?1 AND position = ?2")?;
    for (document, position, text) in entries {
        put.execute(rusqlite::params![document, position, title_code(&text)])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(json: &str) -> Record {
        serde_json::from_str(json).unwrap()
    }

    const FULL: &str = r#"{"source":"s2","source_id":{"kind":"s2","id":"abc"},
        "ids":[{"kind":"doi","id":"10.1/x"}],"title":"T","abstract":"A","year":2001,
        "authors":["A. B","C. D"],"references":[],"citations":[],"arxiv_version":2,"venue":"V"}"#;

    fn draft<'a>(authors: &'a [String], year: Option<i32>, venue: Option<&'a str>) -> PaperDraft<'a> {
        PaperDraft { id: "p", title: "T", abstract_: "A", year, authors, source: "s2", arxiv_version: None, venue }
    }

    #[test]
    fn a_record_without_shared_fields_reads_back_whole_and_leaves_out_its_source_and_empties() {
        let r = record(FULL);
        let mut r2 = r.clone();
        r2.ids.clear();
        r2.arxiv_version = None;
        r2.venue = Some(String::new());
        for r in [r, r2] {
            let (data, shared) = encode(&r, &draft(&[], None, None), (false, false)).unwrap();
            assert_eq!(shared, 0);
            assert!(!data.contains("\"source\"") && !data.contains("[]") && !data.contains("null"), "{data}");
            assert_eq!(decode(&data, "s2", &r.source_id.key()).unwrap(), r);
        }
    }

    #[test]
    fn fields_equal_to_the_paper_row_are_left_out_and_only_those() {
        let r = record(FULL);
        let authors = r.authors.clone();
        let (data, shared) = encode(&r, &draft(&authors, Some(2001), Some("V")), (true, false)).unwrap();
        assert_eq!(shared, SHARED_TITLE | SHARED_AUTHORS | SHARED_YEAR | SHARED_VENUE);
        let back = decode(&data, "s2", "s2:abc").unwrap();
        assert_eq!((back.title.as_str(), back.abstract_.as_str()), ("", "A"));
        assert!(back.authors.is_empty() && back.year.is_none() && back.venue.is_none());
        // A different value on the paper row is kept in the record.
        let other = vec!["E. F".to_string()];
        let (_, shared) = encode(&r, &draft(&other, Some(2002), Some("W")), (false, false)).unwrap();
        assert_eq!(shared, 0);
    }

    #[test]
    fn migration_23_codes_every_title_signature_stored_as_text() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE records (source TEXT, source_id TEXT, title_key TEXT);
             CREATE TABLE doc_references (document INTEGER, position INTEGER, title_key TEXT,
                                          PRIMARY KEY (document, position)) WITHOUT ROWID;
             INSERT INTO records VALUES ('s', 'a', 'graph walks for search'), ('s', 'b', NULL);
             INSERT INTO doc_references VALUES (1, 0, 'graph walks for search'), (1, 1, 'other words'), (2, 0, NULL);",
        )
        .unwrap();
        code_title_keys(&conn).unwrap();
        let keys = |sql: &str| -> Vec<Option<Vec<u8>>> {
            let mut stmt = conn.prepare(sql).unwrap();
            stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
        };
        let code = |t: &str| Some(title_code(t));
        assert_eq!(keys("SELECT title_key FROM records ORDER BY source_id"), [code("graph walks for search"), None]);
        assert_eq!(
            keys("SELECT title_key FROM doc_references ORDER BY document, position"),
            [code("graph walks for search"), code("other words"), None]
        );
        assert_ne!(title_code("graph walks for search"), title_code("graph walks for search "));
    }

    #[test]
    fn a_record_stored_whole_before_schema_19_still_reads() {
        assert_eq!(decode(FULL, "ignored", "ignored:too").unwrap(), record(FULL));
        assert!(decode("[1]", "s2", "s2:abc").is_err());
    }

    #[test]
    fn a_source_id_its_key_does_not_give_back_is_kept() {
        let mut r = record(FULL);
        let mut left_out = Vec::new();
        for id in ["10.1/X", "2101.00001", "W12", "corpusid:7", "g0000001", "s2:abc"] {
            r.source_id = PaperId::parse(id);
            let (data, _) = encode(&r, &draft(&[], None, None), (false, false)).unwrap();
            let key = r.source_id.key();
            assert_eq!(data.contains("source_id"), PaperId::parse(&key) != r.source_id, "{id}: {data}");
            assert_eq!(decode(&data, "s2", &key).unwrap(), r, "{id}");
            if !data.contains("source_id") {
                left_out.push(id);
            }
        }
        assert_eq!(left_out, ["10.1/X", "2101.00001", "W12", "corpusid:7", "g0000001", "s2:abc"]);
        // A kind its key does not spell (an s2 id that is no S2 hash) stays in the JSON.
        let kept = record(FULL);
        let (data, _) = encode(&kept, &draft(&[], None, None), (false, false)).unwrap();
        assert!(data.contains("source_id") && PaperId::parse(&kept.source_id.key()) != kept.source_id, "{data}");
    }
}
