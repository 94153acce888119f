//! The write side of full text (migration 010): a PDF's `documents` row, its
//! `sections`, its `passages` and their postings (`passage_terms`,
//! `passage_blocks`, `passage_meta`), kept exact under replacement: a
//! changed file's old passages are removed posting by posting (the stored
//! text re-tokenised gives exactly the terms that were posted), its new
//! ones added, the passage frequencies, N and the total length updated in
//! the same transaction.

use std::collections::HashMap;

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension, params};

use super::blocks::{Field, add_postings_in, remove_posting_in};
use super::{Handle, Posting};
use crate::analyzer::Analyzer;
use crate::fulltext::Document;
use crate::fulltext::passages::{Passage, cut, render};

/// A stored document as the ingest of its file sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredDocument {
    pub document: i64,
    /// blake3 of the bytes last read, hex.
    pub hash: String,
    /// The key of its `pdf` record.
    pub source_id: String,
}

/// What `graph`'s `write_document_links` is told about the document just written.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperDoc {
    /// `documents.document`: stable across re-ingests of the file at one path.
    pub document: i64,
    /// The canonical id of the paper the PDF is filed under now.
    pub paper_id: String,
    /// The key of the document's record (`records.source = 'pdf'`).
    pub source_id: String,
}

/// The document stored for the file at `path` (absolute), if any.
pub(crate) fn document_at(h: Handle<'_>, path: &str) -> anyhow::Result<Option<StoredDocument>> {
    Ok(h.conn
        .prepare_cached("SELECT document, hash, source_id FROM documents WHERE path = ?1")?
        .query_row([path], |r| Ok(StoredDocument { document: r.get(0)?, hash: r.get(1)?, source_id: r.get(2)? }))
        .optional()?)
}

/// The paper a `pdf` record is filed under (its canonical id).
pub(crate) fn paper_of_record(h: Handle<'_>, source_id: &str) -> anyhow::Result<Option<String>> {
    Ok(h.conn
        .prepare_cached("SELECT paper_id FROM records WHERE source = 'pdf' AND source_id = ?1")?
        .query_row([source_id], |r| r.get(0))
        .optional()?)
}

/// Deletes the document stored for the file at `path` (a Zotero attachment
/// whose item was trashed): its passages with their postings and
/// statistics, sections, reference entries and citation contexts. Returns
/// its record's key (source `pdf`), which the caller removes through the
/// engine (with the links it stated), or `None` when no document is there.
pub(crate) fn delete_document(h: Handle<'_>, path: &str) -> anyhow::Result<Option<String>> {
    let Some(old) = document_at(h, path)? else { return Ok(None) };
    let conn = h.conn;
    remove_passages(conn, analyzer_of(conn)?, old.document)?;
    for sql in [
        "DELETE FROM context_references WHERE document = ?1",
        "DELETE FROM citation_contexts WHERE document = ?1",
        "DELETE FROM doc_references WHERE document = ?1",
        "DELETE FROM documents WHERE document = ?1",
    ] {
        conn.prepare_cached(sql)?.execute([old.document])?;
    }
    Ok(Some(old.source_id))
}

/// Stores `doc` read from `path` (its bytes hashing to `hash`) as the
/// document of record `source_id`: a new row, or the row already at that
/// path with its sections and passages replaced. Returns the document id.
pub(crate) fn put_document(
    h: Handle<'_>,
    path: &str,
    hash: &str,
    source_id: &str,
    doc: &Document,
) -> anyhow::Result<i64> {
    let conn = h.conn;
    let analyzer = analyzer_of(conn)?;
    let front = serde_json::json!({
        "title": doc.title, "authors": doc.authors, "abstract": doc.abstract_,
        "year": doc.year, "doi": doc.doi, "arxiv": doc.arxiv,
    });
    let notes = serde_json::to_string(&doc.notes)?;
    let text = render(doc);
    let existing = document_at(h, path)?;
    let document = match existing {
        Some(old) => {
            remove_passages(conn, analyzer, old.document)?;
            conn.prepare_cached(
                "UPDATE documents SET hash = ?2, source_id = ?3, pages = ?4, notes = ?5, front = ?6, text = ?7,
                 ingested_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE document = ?1",
            )?
            .execute(params![old.document, hash, source_id, doc.pages, notes, front.to_string(), text])?;
            old.document
        }
        None => conn
            .prepare_cached(
                "INSERT INTO documents (path, hash, source_id, pages, notes, front, text, ingested_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) RETURNING document",
            )?
            .query_row(params![path, hash, source_id, doc.pages, notes, front.to_string(), text], |r| r.get(0))
            .with_context(|| format!("cannot store the document of {path}"))?,
    };
    let mut section =
        conn.prepare_cached("INSERT INTO sections (document, section, heading, level) VALUES (?1, ?2, ?3, ?4)")?;
    for (i, s) in doc.sections.iter().enumerate() {
        section.execute(params![document, i as i64, s.heading, s.level])?;
    }
    insert_passages(conn, analyzer, document, &cut(doc))?;
    Ok(document)
}

fn analyzer_of(conn: &Connection) -> anyhow::Result<Analyzer> {
    let name: String = conn.query_row("SELECT analyzer FROM index_meta WHERE id = 1", [], |r| r.get(0))?;
    name.parse()
}

/// Term frequencies of a passage's text and its length.
pub(super) fn passage_terms(analyzer: Analyzer, text: &str) -> (Vec<(String, u32)>, u32) {
    let tokens = analyzer.tokenize(text);
    let len = tokens.len() as u32;
    let mut tf: HashMap<String, u32> = HashMap::new();
    for t in tokens {
        *tf.entry(t).or_default() += 1;
    }
    let mut v: Vec<(String, u32)> = tf.into_iter().collect();
    v.sort_unstable();
    (v, len)
}

/// The id of passage term `term`, created with df 0 when absent (`create`).
fn term_id(conn: &Connection, term: &str, create: bool) -> anyhow::Result<Option<i64>> {
    let id: Option<i64> = conn
        .prepare_cached("SELECT term_id FROM passage_terms WHERE term = ?1")?
        .query_row([term], |r| r.get(0))
        .optional()?;
    match id {
        Some(id) => Ok(Some(id)),
        None if create => Ok(Some(
            conn.prepare_cached("INSERT INTO passage_terms (term, df) VALUES (?1, 0) RETURNING term_id")?
                .query_row([term], |r| r.get(0))?,
        )),
        None => Ok(None),
    }
}

/// Adds `passages` of `document` with their postings and statistics.
fn insert_passages(conn: &Connection, analyzer: Analyzer, document: i64, passages: &[Passage]) -> anyhow::Result<()> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO passages (document, seq, section, heading, paragraph, page_first, page_last, start, end, kind, text, len)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING passage",
    )?;
    // (term_id, passage, tf, len), written sorted: one run per term.
    let mut pending: Vec<(i64, i64, u32, u32)> = Vec::new();
    let mut df: HashMap<i64, i64> = HashMap::new();
    let mut total_len = 0i64;
    for (seq, p) in passages.iter().enumerate() {
        let (terms, len) = passage_terms(analyzer, &p.text);
        let id: i64 = insert.query_row(
            params![
                document,
                seq as i64,
                p.section,
                p.heading,
                p.paragraph,
                p.page_first,
                p.page_last,
                p.start as i64,
                p.end as i64,
                p.kind.name(),
                p.text,
                len
            ],
            |r| r.get(0),
        )?;
        for (t, f) in terms {
            let tid = term_id(conn, &t, true)?.expect("a created term");
            *df.entry(tid).or_default() += 1;
            pending.push((tid, id, f, len));
        }
        total_len += i64::from(len);
    }
    pending.sort_unstable();
    let mut run: Vec<Posting> = Vec::new();
    for (i, &(tid, passage, tf, len)) in pending.iter().enumerate() {
        run.push(Posting { doc: passage, tf, doc_len: len });
        if pending.get(i + 1).is_none_or(|next| next.0 != tid) {
            add_postings_in(conn, Field::Passages, tid, &run)?;
            run.clear();
        }
    }
    let mut update = conn.prepare_cached("UPDATE passage_terms SET df = df + ?2 WHERE term_id = ?1")?;
    for (tid, n) in df {
        update.execute(params![tid, n])?;
    }
    conn.prepare_cached(
        "UPDATE passage_meta SET num_passages = num_passages + ?1, total_len = total_len + ?2 WHERE id = 1",
    )?
    .execute(params![passages.len() as i64, total_len])?;
    Ok(())
}

/// Removes the passages and sections of `document`, their postings, their
/// vectors and their part of the statistics (terms no passage holds any more go).
fn remove_passages(conn: &Connection, analyzer: Analyzer, document: i64) -> anyhow::Result<()> {
    let rows: Vec<(i64, String, i64)> = conn
        .prepare_cached("SELECT passage, text, len FROM passages WHERE document = ?1")?
        .query_map([document], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut df: HashMap<i64, i64> = HashMap::new();
    let mut total_len = 0i64;
    for (passage, text, len) in &rows {
        for (t, _) in passage_terms(analyzer, text).0 {
            let tid = term_id(conn, &t, false)?
                .with_context(|| format!("index damaged: passage term `{t}` of passage {passage} is missing"))?;
            remove_posting_in(conn, Field::Passages, tid, *passage, *len as u32)?;
            *df.entry(tid).or_default() += 1;
        }
        total_len += len;
    }
    for (tid, n) in df {
        conn.prepare_cached("UPDATE passage_terms SET df = df - ?2 WHERE term_id = ?1")?.execute(params![tid, n])?;
        conn.prepare_cached("DELETE FROM passage_terms WHERE term_id = ?1 AND df <= 0")?.execute([tid])?;
    }
    // Explicit, not left to the cascade: a connection may run without foreign keys.
    super::passage_vectors::remove_of_document(conn, document)?;
    conn.prepare_cached("DELETE FROM passages WHERE document = ?1")?.execute([document])?;
    conn.prepare_cached("DELETE FROM sections WHERE document = ?1")?.execute([document])?;
    conn.prepare_cached(
        "UPDATE passage_meta SET num_passages = num_passages - ?1, total_len = total_len - ?2 WHERE id = 1",
    )?
    .execute(params![rows.len() as i64, total_len])?;
    Ok(())
}
