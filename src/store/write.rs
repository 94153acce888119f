//! Index maintenance, one paper at a time, keeping the BM25 statistics exact.
//!
//! Adding or removing a paper updates its postings, each term's document
//! frequency, N and the total length in the same transaction, so an index
//! grown by increments scores exactly like one built in one go: `avgdl` is
//! recomputed as `total_len / N` from the same integers (see [`refresh_meta`]).

use std::collections::HashMap;

use anyhow::Context;
use rusqlite::{params, Connection, OptionalExtension};

use crate::analyzer::{indexed_text, Analyzer};
use crate::bm25::Bm25;

/// What a paper row holds, borrowed from whoever derived it.
#[derive(Debug, Clone, Copy)]
pub struct PaperDraft<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub abstract_: &'a str,
    pub year: Option<i32>,
    pub authors: &'a [String],
    pub source: &'a str,
    pub arxiv_version: Option<u32>,
}

/// Writes the single `index_meta` row of a new, empty index.
pub fn init_meta(conn: &Connection, analyzer: Analyzer, bm25: Bm25) -> anyhow::Result<()> {
    conn.execute(
        "INSERT INTO index_meta (id, analyzer, k1, b, num_docs, total_len, avgdl, min_year, max_year, built_at)
         VALUES (1, ?1, ?2, ?3, 0, 0, 0.0, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
        params![analyzer.name(), bm25.k1, bm25.b],
    )?;
    Ok(())
}

/// Term frequencies of a paper's indexed text, and its length.
fn term_counts(analyzer: Analyzer, title: &str, abstract_: &str) -> (HashMap<String, i64>, i64) {
    let tokens = analyzer.tokenize(&indexed_text(title, abstract_));
    let len = tokens.len() as i64;
    let mut tf: HashMap<String, i64> = HashMap::new();
    for t in tokens {
        *tf.entry(t).or_default() += 1;
    }
    (tf, len)
}

/// Adds a paper and its postings; the id must not be indexed yet.
pub fn insert_paper(conn: &Connection, analyzer: Analyzer, p: &PaperDraft) -> anyhow::Result<()> {
    let (tf, len) = term_counts(analyzer, p.title, p.abstract_);
    let authors = serde_json::to_string(p.authors)?;
    conn.prepare_cached(
        "INSERT INTO papers (id, title, abstract, year, authors, source, doc_len, arxiv_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![p.id, p.title, p.abstract_, p.year, authors, p.source, len, p.arxiv_version])
    .with_context(|| format!("cannot store paper {}", p.id))?;
    let doc = conn.last_insert_rowid();
    let mut term = conn.prepare_cached(
        "INSERT INTO terms (term, df) VALUES (?1, 1) ON CONFLICT (term) DO UPDATE SET df = df + 1 RETURNING term_id",
    )?;
    let mut posting = conn.prepare_cached("INSERT INTO postings (term_id, doc, tf) VALUES (?1, ?2, ?3)")?;
    // Sorted, so the statement order (and so the file) does not depend on hashing.
    let mut terms: Vec<(&String, &i64)> = tf.iter().collect();
    terms.sort();
    for (t, f) in terms {
        let term_id: i64 = term.query_row([t], |r| r.get(0))?;
        posting.execute(params![term_id, doc, f])?;
    }
    conn.prepare_cached("UPDATE index_meta SET num_docs = num_docs + 1, total_len = total_len + ?1 WHERE id = 1")?
        .execute([len])?;
    Ok(())
}

/// Removes a paper and its postings; returns whether it was indexed.
/// Terms left with no document are removed, as a fresh build would not have them.
pub fn delete_paper(conn: &Connection, analyzer: Analyzer, id: &str) -> anyhow::Result<bool> {
    let row: Option<(i64, String, String, i64)> = conn
        .prepare_cached("SELECT doc, title, abstract, doc_len FROM papers WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()?;
    let Some((doc, title, abstract_, len)) = row else { return Ok(false) };
    // The stored text re-tokenised gives exactly the terms that were posted.
    let (tf, _) = term_counts(analyzer, &title, &abstract_);
    let mut find = conn.prepare_cached("SELECT term_id, df FROM terms WHERE term = ?1")?;
    let mut del_posting = conn.prepare_cached("DELETE FROM postings WHERE term_id = ?1 AND doc = ?2")?;
    let mut dec = conn.prepare_cached("UPDATE terms SET df = df - 1 WHERE term_id = ?1")?;
    let mut del_term = conn.prepare_cached("DELETE FROM terms WHERE term_id = ?1")?;
    for t in tf.keys() {
        let (term_id, df): (i64, i64) = find
            .query_row([t], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .with_context(|| format!("index damaged: term `{t}` of paper {id} is missing"))?;
        del_posting.execute(params![term_id, doc])?;
        if df <= 1 {
            del_term.execute([term_id])?;
        } else {
            dec.execute([term_id])?;
        }
    }
    conn.prepare_cached("DELETE FROM papers WHERE doc = ?1")?.execute([doc])?;
    conn.prepare_cached("UPDATE index_meta SET num_docs = num_docs - 1, total_len = total_len - ?1 WHERE id = 1")?
        .execute([len])?;
    Ok(true)
}

/// Recomputes the derived statistics: `avgdl = total_len / N` and the year range.
pub fn refresh_meta(conn: &Connection) -> anyhow::Result<()> {
    conn.execute(
        "UPDATE index_meta SET
            avgdl = CASE WHEN num_docs > 0 THEN CAST(total_len AS REAL) / num_docs ELSE 0.0 END,
            min_year = (SELECT min(year) FROM papers),
            max_year = (SELECT max(year) FROM papers)
         WHERE id = 1",
        [],
    )?;
    Ok(())
}
