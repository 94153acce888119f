//! The read side of full text: passage BM25 over the passage postings, the
//! passages and documents of a paper, and the `check` invariants of the
//! passage field.
//!
//! A passage's BM25 is the papers' formula over the passage field:
//! `Σ_t idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))` with
//! `idf = ln(1 + (N − df + 0.5)/(df + 0.5))`, N the passages, df the passages
//! holding the term, avglen their mean length, k1 and b the index's. Every
//! matching passage is scored (no pruning: passage postings are read whole,
//! one term's blocks at a time).

use std::collections::{BTreeMap, HashMap};

use anyhow::Context;
use rusqlite::OptionalExtension;
use serde::Serialize;

use super::Store;
use super::blocks::{Field, term_postings_in};
use super::documents::passage_terms;
use crate::candidate::DocScores;

/// The passage field's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PassageStats {
    pub num_passages: u64,
    pub total_len: u64,
}

/// A passage as stored, with its paper.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassageRow {
    pub passage: i64,
    pub document: i64,
    pub paper_id: Option<String>,
    /// The paper's `papers.doc` (None if the record's paper is not indexed).
    #[serde(skip)]
    pub paper_doc: Option<i64>,
    pub title: Option<String>,
    pub section: i64,
    pub heading: String,
    pub paragraph: u32,
    pub page_first: u32,
    pub page_last: u32,
    pub start: usize,
    pub end: usize,
    pub kind: String,
    pub text: String,
}

/// A stored document (one PDF file).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentRow {
    pub document: i64,
    pub path: String,
    pub hash: String,
    pub pages: u32,
    pub notes: Vec<String>,
    /// The structured text (`paper ID --text`).
    pub text: String,
    pub passages: u64,
}

const PASSAGE_COLUMNS: &str =
    "SELECT x.passage, x.document, r.paper_id, p.doc, p.title, x.section, x.heading, x.paragraph,
        x.page_first, x.page_last, x.start, x.end, x.kind, x.text
     FROM passages AS x JOIN documents AS d ON d.document = x.document
     LEFT JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
     LEFT JOIN papers AS p ON p.id = r.paper_id";

fn passage_row(r: &rusqlite::Row) -> rusqlite::Result<PassageRow> {
    Ok(PassageRow {
        passage: r.get(0)?,
        document: r.get(1)?,
        paper_id: r.get(2)?,
        paper_doc: r.get(3)?,
        title: r.get(4)?,
        section: r.get(5)?,
        heading: r.get(6)?,
        paragraph: r.get(7)?,
        page_first: r.get(8)?,
        page_last: r.get(9)?,
        start: r.get::<_, i64>(10)? as usize,
        end: r.get::<_, i64>(11)? as usize,
        kind: r.get(12)?,
        text: r.get(13)?,
    })
}

impl Store {
    /// N and the total length of the passage field (0 and 0 without full text).
    pub fn passage_stats(&self) -> anyhow::Result<PassageStats> {
        Ok(self
            .conn
            .prepare_cached("SELECT num_passages, total_len FROM passage_meta WHERE id = 1")?
            .query_row([], |r| Ok(PassageStats { num_passages: r.get(0)?, total_len: r.get(1)? }))?)
    }

    /// The BM25 score of every passage matching a term (see the module's
    /// formula), by passage id.
    pub fn passage_scores(&self, terms: &[(String, u32)]) -> anyhow::Result<DocScores> {
        let stats = self.passage_stats()?;
        let mut scores = DocScores::default();
        if stats.num_passages == 0 {
            return Ok(scores);
        }
        let bm25 = self.meta()?.bm25();
        let avg = stats.total_len as f64 / stats.num_passages as f64;
        let lengths = self.lengths(Field::Passages)?;
        for (term, count) in terms {
            let row: Option<(i64, u64)> = self
                .conn
                .prepare_cached("SELECT term_id, df FROM passage_terms WHERE term = ?1")?
                .query_row([term], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((term_id, df)) = row else { continue };
            let weight = bm25.weight(stats.num_passages, avg, df, *count);
            for p in term_postings_in(&self.conn, Field::Passages, term_id, &lengths)? {
                *scores.entry(p.doc).or_default() += weight.score(p.tf, p.doc_len);
            }
        }
        Ok(scores)
    }

    /// The stored passages `ids`, in the order asked (unknown ids left out).
    pub fn passages(&self, ids: &[i64]) -> anyhow::Result<Vec<PassageRow>> {
        let sql = format!("{PASSAGE_COLUMNS} WHERE x.passage = ?1");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(row) = stmt.query_row([id], passage_row).optional()? {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// The paper doc id and kind of each passage given. Every search of an
    /// index with full text asks this for all its matching passages, so the
    /// ids are looked up `CHUNK` at a time, not one query each.
    pub fn passage_papers(&self, ids: &[i64]) -> anyhow::Result<HashMap<i64, (i64, String)>> {
        const CHUNK: usize = 500;
        let mut out = HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(CHUNK) {
            let marks = vec!["?"; chunk.len()].join(",");
            let mut stmt = self.conn.prepare_cached(&format!(
                "SELECT x.passage, p.doc, x.kind FROM passages AS x JOIN documents AS d ON d.document = x.document
                 JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
                 JOIN papers AS p ON p.id = r.paper_id WHERE x.passage IN ({marks})"
            ))?;
            let rows =
                stmt.query_map(rusqlite::params_from_iter(chunk), |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
            for row in rows {
                let (passage, paper) = row?;
                out.insert(passage, paper);
            }
        }
        Ok(out)
    }

    /// The passages of paper `id`'s documents, in reading order.
    pub fn passages_of_paper(&self, id: &str) -> anyhow::Result<Vec<PassageRow>> {
        let sql = format!("{PASSAGE_COLUMNS} WHERE r.paper_id = ?1 ORDER BY x.document, x.seq");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([id], passage_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The documents (PDF files) filed under paper `id`.
    pub fn documents_of_paper(&self, id: &str) -> anyhow::Result<Vec<DocumentRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT d.document, d.path, d.hash, d.pages, d.notes, d.text,
                    (SELECT count(*) FROM passages AS x WHERE x.document = d.document)
             FROM documents AS d JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
             WHERE r.paper_id = ?1 ORDER BY d.document",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get::<_, String>(4)?, r.get(5)?, r.get(6)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (document, path, hash, pages, notes, text, passages) = row?;
            let notes: Vec<String> = serde_json::from_str(&notes)
                .with_context(|| format!("document {document}: notes is not a JSON array of strings"))?;
            out.push(DocumentRow { document, path, hash, pages, notes, text, passages });
        }
        Ok(out)
    }
}

/// The passage field's invariants for `check`: every passage's postings
/// are exactly its text's terms, each term's df is its postings' count,
/// N and the total length are the passages', every block decodes.
pub(crate) fn check_passages(conn: &rusqlite::Connection) -> anyhow::Result<Vec<String>> {
    let mut problems = Vec::new();
    let analyzer: crate::analyzer::Analyzer =
        conn.query_row("SELECT analyzer FROM index_meta WHERE id = 1", [], |r| r.get::<_, String>(0))?.parse()?;
    // The postings the passages' text gives: term -> passage -> (tf, len).
    let mut want: BTreeMap<String, BTreeMap<i64, (u32, u32)>> = BTreeMap::new();
    let (mut n, mut total) = (0u64, 0u64);
    {
        let mut stmt = conn.prepare("SELECT passage, text, len FROM passages")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (passage, text, len): (i64, String, u32) = (r.get(0)?, r.get(1)?, r.get(2)?);
            let (terms, got_len) = passage_terms(analyzer, &text);
            if got_len != len {
                problems.push(format!("passage {passage}: len {len}, its text has {got_len} tokens"));
            }
            for (t, tf) in terms {
                want.entry(t).or_default().insert(passage, (tf, got_len));
            }
            n += 1;
            total += u64::from(len);
        }
    }
    let (sn, st): (u64, u64) =
        conn.query_row("SELECT num_passages, total_len FROM passage_meta WHERE id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    if (sn, st) != (n, total) {
        problems.push(format!("passage_meta says N {sn}, total length {st}; the passages give {n}, {total}"));
    }
    let terms: Vec<(i64, String, u64)> = conn
        .prepare("SELECT term_id, term, df FROM passage_terms ORDER BY term")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut seen = 0usize;
    let lengths = super::lengths::Lengths::load(conn, Field::Passages)?;
    for (chunk, what) in super::lengths::stale_chunks(conn, Field::Passages, 5)? {
        problems.push(format!("passage_lengths chunk {chunk}: {what}"));
    }
    for (term_id, term, df) in &terms {
        let got = match term_postings_in(conn, Field::Passages, *term_id, &lengths) {
            Ok(p) => p,
            Err(e) => {
                problems.push(format!("passage term `{term}`: {e:#}"));
                continue;
            }
        };
        let got: BTreeMap<i64, (u32, u32)> = got.iter().map(|p| (p.doc, (p.tf, p.doc_len))).collect();
        if got.len() as u64 != *df {
            problems.push(format!("passage term `{term}`: df {df}, {} postings", got.len()));
        }
        match want.get(term) {
            Some(w) if *w == got => seen += 1,
            Some(_) => problems.push(format!("passage term `{term}`: its postings differ from the passages' text")),
            None => problems.push(format!("passage term `{term}`: no passage holds it")),
        }
    }
    let stored: std::collections::BTreeSet<&str> = terms.iter().map(|t| t.1.as_str()).collect();
    let missing = want.keys().filter(|t| !stored.contains(t.as_str())).count();
    if missing > 0 {
        problems.push(format!("{missing} terms of the passages' text are not in passage_terms (seen {seen})"));
    }
    Ok(problems)
}
