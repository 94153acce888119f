//! Index maintenance, keeping the BM25 statistics exact.
//!
//! Adding or removing a paper updates its postings, each term's document
//! frequency, N and the total length in the same transaction (through an
//! [`PostingsWriter`]), so an index grown by increments scores exactly like one
//! built in one go: `avgdl` is recomputed as `total_len / N` from the same
//! integers (see [`refresh_meta`]).

use std::collections::HashMap;

use anyhow::Context;
use compact_str::CompactString;
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

/// A paper's text analysed before the writer stores it (on another core,
/// while the writer stores the papers before it): its term frequencies and
/// length, used if the paper stored has exactly this title and abstract.
pub(crate) struct Analysed {
    title: String,
    abstract_: String,
    tf: HashMap<String, i64>,
    len: i64,
}

impl Analysed {
    pub(crate) fn new(analyzer: Analyzer, title: String, abstract_: String) -> Analysed {
        let (tf, len) = term_counts(analyzer, &title, &abstract_);
        Analysed { title, abstract_, tf, len }
    }

    #[cfg(test)]
    pub(crate) fn text(&self) -> (&str, &str) {
        (&self.title, &self.abstract_)
    }
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
    /// The term's id, 0 until [`PostingsWriter::resolve`] reads or creates its row.
    id: i64,
    /// Document frequency with this writer's changes.
    df: i64,
    /// Document frequency in the `terms` row (0 for a row this writer made).
    stored_df: i64,
    /// Whether the term may have posting blocks (its row existed, or a
    /// flush wrote its first run): a new term's run is written without
    /// looking for a last block to extend.
    blocks: bool,
}

/// Adds and removes papers with their postings, keeping the BM25
/// statistics exact, inside the caller's transaction.
///
/// Writing one paper at a time as SQL upserts costs ~250 statements a paper
/// and touches a leaf page of every term it holds. This writer keeps the
/// terms it has seen in memory (id and document frequency), buffers new
/// postings and writes them sorted by (term, paper) in large batches, each
/// term's run appended to its blocks (`posting_blocks`, rewriting only its
/// last, partly filled block); the terms a batch names are looked up (and
/// the new ones numbered, in term order) in one statement each when the
/// batch is written, not one statement per term; document
/// frequencies, N and the total length are written by [`PostingsWriter::finish`],
/// which must be called before the transaction commits. Until then `terms`
/// may hold rows with a stale `df` (and new terms with `df` 0), and
/// `posting_blocks` may lack the buffered postings.
pub struct PostingsWriter {
    analyzer: Analyzer,
    /// Each term seen, by its position in `entries`.
    terms: HashMap<CompactString, usize>,
    entries: Vec<TermEntry>,
    /// (position in `entries`, doc, tf, doc_len); a flush turns each
    /// position into its term's id in place, and keeps the buffer's memory.
    pending: Vec<(i64, i64, u32, u32)>,
    docs: i64,
    total_len: i64,
    /// The next paper's text analysed ahead, if given.
    ahead: Option<Analysed>,
}

impl PostingsWriter {
    pub fn new(analyzer: Analyzer) -> PostingsWriter {
        PostingsWriter {
            analyzer,
            terms: HashMap::new(),
            entries: Vec::new(),
            pending: Vec::new(),
            docs: 0,
            total_len: 0,
            ahead: None,
        }
    }

    /// The analyzer the postings are made with.
    pub(crate) fn analyzer(&self) -> Analyzer {
        self.analyzer
    }

    /// Gives the analysis of the next paper's text, done ahead; a paper
    /// stored with another text is analysed again.
    pub(crate) fn analysed_ahead(&mut self, analysed: Analysed) {
        self.ahead = Some(analysed);
    }

    /// The position of `term` in `entries`, added unresolved when new.
    fn entry(&mut self, term: &str) -> usize {
        if let Some(&i) = self.terms.get(term) {
            return i;
        }
        let i = self.entries.len();
        self.entries.push(TermEntry { id: 0, df: 0, stored_df: 0, blocks: false });
        self.terms.insert(CompactString::from(term), i);
        i
    }

    /// Gives every unresolved entry its id: the stored terms read in one
    /// statement (with their document frequency, to which the entry's
    /// changes so far are added), the others inserted, in term order.
    fn resolve(&mut self, conn: &Connection) -> anyhow::Result<()> {
        let mut todo: Vec<(&str, usize)> =
            self.terms.iter().filter(|&(_, &i)| self.entries[i].id == 0).map(|(t, &i)| (t.as_str(), i)).collect();
        if todo.is_empty() {
            return Ok(());
        }
        todo.sort_unstable();
        let names: Vec<&str> = todo.iter().map(|t| t.0).collect();
        let mut found: HashMap<String, (i64, i64)> = HashMap::with_capacity(todo.len());
        {
            let mut stmt = conn.prepare_cached(
                "SELECT t.term, t.term_id, t.df FROM json_each(?1) AS j JOIN terms AS t ON t.term = j.value",
            )?;
            let rows = stmt.query_map([serde_json::to_string(&names)?], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
            for row in rows {
                let (term, v): (String, (i64, i64)) = row?;
                found.insert(term, v);
            }
        }
        // A plain INSERT and `last_insert_rowid`, not `RETURNING`: a statement
        // with `RETURNING` that may abort on a constraint makes SQLite keep a
        // statement journal of the pages it changes (outside a new index's
        // fill, a temporary file written for every insert).
        let mut insert = conn.prepare_cached("INSERT INTO terms (term, df) VALUES (?1, 0)")?;
        for (term, i) in todo {
            let e = &mut self.entries[i];
            match found.get(term) {
                Some(&(id, df)) => {
                    e.id = id;
                    e.stored_df = df;
                    e.df += df;
                    e.blocks = true;
                }
                None => {
                    insert.execute([term])?;
                    e.id = conn.last_insert_rowid();
                }
            }
        }
        Ok(())
    }

    /// The entry of a stored term (`None` when the index has no such term), resolved now.
    fn stored(&mut self, conn: &Connection, term: &str) -> anyhow::Result<Option<&mut TermEntry>> {
        if !self.terms.contains_key(term) {
            let row: Option<(i64, i64)> = conn
                .prepare_cached("SELECT term_id, df FROM terms WHERE term = ?1")?
                .query_row([term], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((id, df)) = row else { return Ok(None) };
            let i = self.entry(term);
            self.entries[i] = TermEntry { id, df, stored_df: df, blocks: true };
        }
        let i = self.terms[term];
        if self.entries[i].id == 0 {
            self.resolve(conn)?;
        }
        Ok(Some(&mut self.entries[i]))
    }

    /// Adds a paper and its postings; the id must not be indexed yet.
    pub(crate) fn insert_paper(&mut self, conn: &Connection, p: &PaperDraft) -> anyhow::Result<()> {
        let (tf, len) = match self.ahead.take() {
            Some(a) if a.title == p.title && a.abstract_ == p.abstract_ => (a.tf, a.len),
            _ => term_counts(self.analyzer, p.title, p.abstract_),
        };
        let authors = serde_json::to_string(p.authors)?;
        conn.prepare_cached(
            "INSERT INTO papers (id, title, abstract, year, authors, source, doc_len, arxiv_version, venue)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![p.id, p.title, p.abstract_, p.year, authors, p.source, len, p.arxiv_version, p.venue])
        .with_context(|| format!("cannot store paper {}", p.id))?;
        let doc = conn.last_insert_rowid();
        insert_surnames(conn, doc, p.authors)?;
        for (t, f) in tf {
            let i = self.entry(&t);
            self.entries[i].df += 1;
            self.pending.push((i as i64, doc, f as u32, len as u32));
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
            let entry =
                self.stored(conn, t)?.with_context(|| format!("index damaged: term `{t}` of paper {id} is missing"))?;
            entry.df -= 1;
            let term_id = entry.id;
            super::blocks::remove_posting(conn, term_id, doc, len as u32)?;
        }
        conn.prepare_cached("DELETE FROM paper_authors WHERE doc = ?1")?.execute([doc])?;
        conn.prepare_cached("DELETE FROM papers WHERE doc = ?1")?.execute([doc])?;
        self.docs -= 1;
        self.total_len -= len;
        Ok(true)
    }

    /// Writes the buffered postings, sorted by (term, paper), into each
    /// term's blocks (see [`super::blocks::add_postings`]; a new term's
    /// first run straight into new blocks).
    fn flush_postings(&mut self, conn: &Connection) -> anyhow::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.resolve(conn)?;
        // Taken and given back with its capacity: a new buffer of 5M postings
        // each batch was its growth and its pages' faults again (7 % of a
        // 1M-paper build).
        let mut pending = std::mem::take(&mut self.pending);
        for p in &mut pending {
            p.0 = self.entries[p.0 as usize].id;
        }
        pending.sort_unstable();
        let blocks: HashMap<i64, usize> =
            self.entries.iter().enumerate().filter(|(_, e)| !e.blocks).map(|(i, e)| (e.id, i)).collect();
        let mut run: Vec<Posting> = Vec::new();
        for (k, &(term_id, doc, tf, len)) in pending.iter().enumerate() {
            run.push(Posting { doc, tf, doc_len: len });
            if pending.get(k + 1).is_none_or(|next| next.0 != term_id) {
                match blocks.get(&term_id) {
                    Some(&i) => {
                        super::blocks::new_postings(conn, term_id, &run)?;
                        self.entries[i].blocks = true;
                    }
                    None => super::blocks::add_postings(conn, term_id, &run)?,
                }
                run.clear();
            }
        }
        pending.clear();
        self.pending = pending;
        Ok(())
    }

    /// Writes everything held back: the buffered postings, each changed
    /// term's document frequency (removing terms no paper holds any more),
    /// N and the total length. Then [`refresh_meta`] derives `avgdl`.
    pub fn finish(mut self, conn: &Connection) -> anyhow::Result<()> {
        self.flush_postings(conn)?;
        self.resolve(conn)?;
        let mut changed: Vec<(i64, i64)> =
            self.entries.iter().filter(|e| e.df != e.stored_df || e.df == 0).map(|e| (e.id, e.df)).collect();
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
