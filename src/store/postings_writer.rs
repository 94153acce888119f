//! Index maintenance, keeping the BM25 statistics exact.
//!
//! Adding or removing a paper updates its postings, each term's document
//! frequency, N and the total length in the same transaction (through an
//! [`PostingsWriter`]), so an index grown by increments scores exactly like one
//! built in one go: `avgdl` is recomputed as `total_len / N` from the same
//! integers (see [`refresh_meta`]).

use std::collections::HashMap;

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension, params};

use crate::analyzer::{Analyzer, indexed_text};
use crate::bm25::Bm25;

use super::Posting;

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
    pub venue: Option<&'a str>,
}

/// Writes the single `index_meta` row of a new, empty index.
pub(crate) fn init_meta(conn: &Connection, analyzer: Analyzer, bm25: Bm25) -> anyhow::Result<()> {
    conn.execute(
        "INSERT INTO index_meta (id, analyzer, k1, b, num_docs, total_len, avgdl, min_year, max_year, built_at)
         VALUES (1, ?1, ?2, ?3, 0, 0, 0.0, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
        params![analyzer.name(), bm25.k1, bm25.b],
    )?;
    Ok(())
}

/// The `paper_authors` rows of paper `doc`: each distinct surname key of its authors.
pub(crate) fn insert_surnames(conn: &Connection, doc: i64, authors: &[String]) -> anyhow::Result<()> {
    let mut stmt = conn.prepare_cached("INSERT OR IGNORE INTO paper_authors (doc, surname) VALUES (?1, ?2)")?;
    for key in authors.iter().filter_map(|a| crate::names::surname_key(a)) {
        stmt.execute(params![doc, key])?;
    }
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

/// Postings not yet written are flushed, sorted, when this many are held
/// (24 bytes each: about 115 MiB).
const FLUSH_POSTINGS_AT: usize = 5_000_000;

/// One vocabulary entry as this writer knows it.
struct TermEntry {
    id: i64,
    /// Document frequency with this writer's changes.
    df: i64,
    /// Document frequency in the `terms` row.
    stored_df: i64,
}

/// Adds and removes papers with their postings, keeping the BM25
/// statistics exact, inside the caller's transaction.
///
/// Writing one paper at a time as SQL upserts costs ~250 statements a paper
/// and touches a leaf page of every term it holds. This writer keeps the
/// terms it has seen in memory (id and document frequency), buffers new
/// postings and writes them sorted by (term, paper) in large batches, each
/// term's run appended to its blocks (`posting_blocks`, rewriting only its
/// last, partly filled block); document
/// frequencies, N and the total length are written by [`PostingsWriter::finish`],
/// which must be called before the transaction commits. Until then `terms`
/// may hold rows with a stale `df` (and new terms with `df` 0), and
/// `posting_blocks` may lack the buffered postings.
pub struct PostingsWriter {
    analyzer: Analyzer,
    terms: HashMap<String, TermEntry>,
    /// (term_id, doc, tf, doc_len)
    pending: Vec<(i64, i64, u32, u32)>,
    docs: i64,
    total_len: i64,
}

impl PostingsWriter {
    pub fn new(analyzer: Analyzer) -> PostingsWriter {
        PostingsWriter { analyzer, terms: HashMap::new(), pending: Vec::new(), docs: 0, total_len: 0 }
    }

    /// The entry of `term`, read from `terms` on first use; a new term is
    /// stored with `df` 0 when `create`, else absent terms are `None`.
    fn term(&mut self, conn: &Connection, term: &str, create: bool) -> anyhow::Result<Option<&mut TermEntry>> {
        if !self.terms.contains_key(term) {
            let row: Option<(i64, i64)> = conn
                .prepare_cached("SELECT term_id, df FROM terms WHERE term = ?1")?
                .query_row([term], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let (id, df) = match row {
                Some(row) => row,
                None if create => {
                    let id: i64 = conn
                        .prepare_cached("INSERT INTO terms (term, df) VALUES (?1, 0) RETURNING term_id")?
                        .query_row([term], |r| r.get(0))?;
                    (id, 0)
                }
                None => return Ok(None),
            };
            self.terms.insert(term.to_string(), TermEntry { id, df, stored_df: df });
        }
        Ok(self.terms.get_mut(term))
    }

    /// Adds a paper and its postings; the id must not be indexed yet.
    pub(crate) fn insert_paper(&mut self, conn: &Connection, p: &PaperDraft) -> anyhow::Result<()> {
        let (tf, len) = term_counts(self.analyzer, p.title, p.abstract_);
        let authors = serde_json::to_string(p.authors)?;
        conn.prepare_cached(
            "INSERT INTO papers (id, title, abstract, year, authors, source, doc_len, arxiv_version, venue)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![p.id, p.title, p.abstract_, p.year, authors, p.source, len, p.arxiv_version, p.venue])
        .with_context(|| format!("cannot store paper {}", p.id))?;
        let doc = conn.last_insert_rowid();
        insert_surnames(conn, doc, p.authors)?;
        // Sorted, so new term ids (and so the file) do not depend on hashing.
        let mut terms: Vec<(String, i64)> = tf.into_iter().collect();
        terms.sort_unstable();
        for (t, f) in terms {
            let entry = self.term(conn, &t, true)?.expect("a created term");
            entry.df += 1;
            let id = entry.id;
            self.pending.push((id, doc, f as u32, len as u32));
        }
        self.docs += 1;
        self.total_len += len;
        if self.pending.len() >= FLUSH_POSTINGS_AT {
            self.flush_postings(conn)?;
        }
        Ok(())
    }

    /// Removes a paper and its postings; returns whether it was indexed.
    /// Terms left with no document are removed by [`PostingsWriter::finish`],
    /// as a fresh build would not have them.
    pub(crate) fn delete_paper(&mut self, conn: &Connection, id: &str) -> anyhow::Result<bool> {
        let row: Option<(i64, String, String, i64)> = conn
            .prepare_cached("SELECT doc, title, abstract, doc_len FROM papers WHERE id = ?1")?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()?;
        let Some((doc, title, abstract_, len)) = row else { return Ok(false) };
        self.flush_postings(conn)?;
        // The stored text re-tokenised gives exactly the terms that were posted.
        let (tf, _) = term_counts(self.analyzer, &title, &abstract_);
        for t in tf.keys() {
            let entry = self
                .term(conn, t, false)?
                .with_context(|| format!("index damaged: term `{t}` of paper {id} is missing"))?;
            entry.df -= 1;
            let term_id = entry.id;
            super::blocks::remove_posting(conn, term_id, doc)?;
        }
        conn.prepare_cached("DELETE FROM paper_authors WHERE doc = ?1")?.execute([doc])?;
        conn.prepare_cached("DELETE FROM papers WHERE doc = ?1")?.execute([doc])?;
        self.docs -= 1;
        self.total_len -= len;
        Ok(true)
    }

    /// Writes the buffered postings, sorted by (term, paper), into each
    /// term's blocks (see [`super::blocks::add_postings`]).
    fn flush_postings(&mut self, conn: &Connection) -> anyhow::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.pending.sort_unstable();
        let mut run: Vec<Posting> = Vec::new();
        for (i, &(term_id, doc, tf, len)) in self.pending.iter().enumerate() {
            run.push(Posting { doc, tf, doc_len: len });
            if self.pending.get(i + 1).is_none_or(|next| next.0 != term_id) {
                super::blocks::add_postings(conn, term_id, &run)?;
                run.clear();
            }
        }
        self.pending.clear();
        Ok(())
    }

    /// Writes everything held back: the buffered postings, each changed
    /// term's document frequency (removing terms no paper holds any more),
    /// N and the total length. Then [`refresh_meta`] derives `avgdl`.
    pub fn finish(mut self, conn: &Connection) -> anyhow::Result<()> {
        self.flush_postings(conn)?;
        let mut changed: Vec<(i64, i64)> =
            self.terms.values().filter(|e| e.df != e.stored_df || e.df == 0).map(|e| (e.id, e.df)).collect();
        changed.sort_unstable();
        let mut update = conn.prepare_cached("UPDATE terms SET df = ?2 WHERE term_id = ?1")?;
        let mut delete = conn.prepare_cached("DELETE FROM terms WHERE term_id = ?1")?;
        for (id, df) in changed {
            anyhow::ensure!(df >= 0, "index damaged: term {id} would have a negative document frequency");
            if df == 0 {
                delete.execute([id])?;
            } else {
                update.execute(params![id, df])?;
            }
        }
        conn.prepare_cached("UPDATE index_meta SET num_docs = num_docs + ?1, total_len = total_len + ?2 WHERE id = 1")?
            .execute(params![self.docs, self.total_len])?;
        Ok(())
    }
}

/// Recomputes the derived statistics: `avgdl = total_len / N` and the year range.
pub(crate) fn refresh_meta(conn: &Connection) -> anyhow::Result<()> {
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
