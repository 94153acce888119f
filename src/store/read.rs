//! Read queries over an open index. Every statement is parameterised and
//! cached; nothing here loads the corpus as a whole.

use std::collections::HashMap;

use anyhow::Context;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::Store;
use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::paper::PaperId;

/// The stored BM25 statistics and build settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexMeta {
    pub analyzer: String,
    pub k1: f64,
    pub b: f64,
    pub num_docs: u64,
    pub total_len: u64,
    pub avgdl: f64,
    pub min_year: Option<i32>,
    pub max_year: Option<i32>,
    pub built_at: String,
}

impl IndexMeta {
    pub fn bm25(&self) -> Bm25 {
        Bm25 { k1: self.k1, b: self.b }
    }

    pub fn analyzer(&self) -> anyhow::Result<Analyzer> {
        self.analyzer.parse().context("the index was built with an analyzer this litindex does not know")
    }
}

/// A paper as stored, with its graph neighbours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaperRow {
    pub id: String,
    pub title: String,
    #[serde(rename = "abstract")]
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    pub source: String,
    pub doc_len: u32,
    /// Where it was published, when a source said (`None` in an index
    /// migrated from schema 3 until the paper is ingested again).
    pub venue: Option<String>,
}

/// One posting of a term: the paper (by its integer doc id), the term
/// frequency, and the paper's length.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Posting {
    pub doc: i64,
    pub tf: u32,
    pub doc_len: u32,
}

impl Store {
    /// The index's generation: a number that changes with every write to its
    /// content and not with a write to the user's tables alone
    /// (`index_generation`, migrations/015_generation.sql).
    pub fn generation(&self) -> anyhow::Result<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT generation FROM index_generation WHERE id = 1")?
            .query_row([], |r| r.get(0))?)
    }

    /// The single `index_meta` row.
    pub fn meta(&self) -> anyhow::Result<IndexMeta> {
        self.conn
            .prepare_cached(
                "SELECT analyzer, k1, b, num_docs, total_len, avgdl, min_year, max_year, built_at FROM index_meta WHERE id = 1",
            )?
            .query_row([], |r| {
                Ok(IndexMeta {
                    analyzer: r.get(0)?,
                    k1: r.get(1)?,
                    b: r.get(2)?,
                    num_docs: r.get(3)?,
                    total_len: r.get(4)?,
                    avgdl: r.get(5)?,
                    min_year: r.get(6)?,
                    max_year: r.get(7)?,
                    built_at: r.get(8)?,
                })
            })
            .optional()?
            .with_context(|| format!("{} has no index statistics; rebuild it with `litindex build`", self.path.display()))
    }

    /// A term's document frequency, or `None` for an unknown term.
    pub fn doc_freq(&self, term: &str) -> anyhow::Result<Option<u64>> {
        Ok(self
            .conn
            .prepare_cached("SELECT df FROM terms WHERE term = ?1")?
            .query_row([term], |r| r.get(0))
            .optional()?)
    }

    /// A term's document frequency and postings, or `None` for an unknown term.
    pub fn postings(&self, term: &str) -> anyhow::Result<Option<(u64, Vec<Posting>)>> {
        let Some((term_id, df)) = super::blocks::term_id_df(&self.conn, term)? else {
            return Ok(None);
        };
        let lengths = self.lengths(super::blocks::Field::Papers)?;
        let postings = super::blocks::term_postings(&self.conn, term_id, &lengths)
            .with_context(|| format!("index damaged: the postings of term `{term}` do not decode"))?;
        Ok(Some((df, postings)))
    }

    /// The paper with integer doc id `doc`.
    pub fn paper_by_doc(&self, doc: i64) -> anyhow::Result<PaperRow> {
        self.paper_where("doc = ?1", params![doc])?.with_context(|| format!("no paper with doc id {doc}"))
    }

    /// The paper id and year of each of `docs`, in that order, read by one
    /// statement that touches only those two (not the title, abstract or
    /// authors a [`PaperRow`] holds): what a first-stage list needs of its
    /// papers, and the merge after it (their years, without a look-up by id).
    pub(crate) fn ids_by_doc(&self, docs: &[i64]) -> anyhow::Result<Vec<(String, Option<i32>)>> {
        let json = serde_json::to_string(docs)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT j.value, p.id, p.year FROM json_each(?1) AS j
             JOIN papers AS p INDEXED BY idx_papers_doc_meta ON p.doc = j.value",
        )?;
        let rows = stmt.query_map([json], |r| Ok((r.get::<_, i64>(0)?, (r.get::<_, String>(1)?, r.get(2)?))))?;
        let ids: HashMap<i64, (String, Option<i32>)> = rows.collect::<Result<_, _>>()?;
        docs.iter().map(|doc| ids.get(doc).cloned().with_context(|| format!("no paper with doc id {doc}"))).collect()
    }

    /// The paper with id `id`, if indexed.
    pub fn paper(&self, id: &str) -> anyhow::Result<Option<PaperRow>> {
        self.paper_where("id = ?1", params![id])
    }

    /// The doc id and year of each of `ids` that is an indexed paper, read by
    /// one statement (by id; the papers a walk reaches come with theirs,
    /// read by integer: [`super::SearchGraph::walk_papers`]).
    pub(crate) fn docs_and_years<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a String>,
    ) -> anyhow::Result<super::graph::DocsAndYears> {
        let ids: Vec<&String> = ids.into_iter().collect();
        let json = serde_json::to_string(&ids)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT j.value, p.doc, p.year FROM json_each(?1) AS j
             JOIN papers AS p ON p.id = j.value",
        )?;
        let rows = stmt.query_map([json], |r| Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?))))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Runs `f` inside one read transaction, so every statement in it sees
    /// the same snapshot and the file's locks are taken once (a no-op
    /// wrapper when a transaction is already open).
    pub fn snapshot<T>(&self, f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
        if !self.conn.is_autocommit() {
            return f();
        }
        self.conn.execute_batch("BEGIN")?;
        let out = f();
        // A read transaction has nothing to lose: end it whatever `f` did.
        let end = self.conn.execute_batch("COMMIT");
        let out = out?;
        end?;
        Ok(out)
    }

    /// Whether the index holds any citation link (what makes the `weighted`
    /// graph score the default: [`crate::search::defaults`]).
    pub fn has_citations(&self) -> anyhow::Result<bool> {
        Ok(self.conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM adjacency_lists)")?.query_row([], |r| r.get(0))?)
    }

    /// Whether the index holds any paper vector (what makes a `hybrid` first
    /// stage the default, when the configured model is the one they were made with).
    pub fn has_vectors(&self) -> anyhow::Result<bool> {
        Ok(self.conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM vectors)")?.query_row([], |r| r.get(0))?)
    }

    /// The integer doc id of paper `id`, if indexed.
    pub fn doc_of(&self, id: &str) -> anyhow::Result<Option<i64>> {
        Ok(self
            .conn
            .prepare_cached("SELECT doc FROM papers WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?)
    }

    fn paper_where(&self, cond: &'static str, args: impl rusqlite::Params) -> anyhow::Result<Option<PaperRow>> {
        let sql = format!("SELECT id, title, abstract, year, authors, source, doc_len, venue FROM papers WHERE {cond}");
        let row = self
            .conn
            .prepare_cached(&sql)?
            .query_row(args, |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<i32>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, u32>(6)?,
                    r.get::<_, Option<String>>(7)?,
                ))
            })
            .optional()?;
        row.map(|(id, title, abstract_, year, authors, source, doc_len, venue)| {
            let authors: Vec<String> = serde_json::from_str(&authors)
                .with_context(|| format!("paper {id}: authors column is not a JSON array of strings"))?;
            Ok(PaperRow { id, title, abstract_, year, authors, source, doc_len, venue })
        })
        .transpose()
    }

    /// The canonical id of the paper a user named by its id or any alias, in
    /// any usual spelling (arXiv id with or without version or as a URL, DOI
    /// in any case or as a URL, `CorpusId:N`, OpenAlex `W…` or URL, S2 sha,
    /// or a citation key an imported library gave it, with or without `citekey:`).
    pub fn resolve(&self, input: &str) -> anyhow::Result<Option<String>> {
        resolve_on(&self.conn, input)
    }
}

/// [`Store::resolve`] on any connection to an index (the marks' write path
/// resolves inside its own transaction).
pub(crate) fn resolve_on(conn: &rusqlite::Connection, input: &str) -> anyhow::Result<Option<String>> {
    let input = input.trim();
    let normal = PaperId::parse(input).key();
    let citekey = PaperId::Citekey(input.to_string()).key();
    for candidate in [input, normal.as_str(), citekey.as_str()] {
        for sql in ["SELECT id FROM papers WHERE id = ?1", "SELECT paper_id FROM aliases WHERE alias = ?1"] {
            let id: Option<String> = conn.prepare_cached(sql)?.query_row([candidate], |r| r.get(0)).optional()?;
            if id.is_some() {
                return Ok(id);
            }
        }
    }
    Ok(None)
}
