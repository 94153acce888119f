//! The ingest engine: files items into records, records into papers.
//!
//! For each record:
//! 1. An identical record already stored (same source, id and content) is a
//!    no-op. A changed one replaces the old record of that source.
//! 2. Its papers: every paper that already holds one of its ids (aliases).
//!    None: the title fallback may find one (same normalised title, years
//!    within one, same first-author surname; never across two different
//!    non-arXiv DOIs, never between two `paper`/`beir` records with
//!    different ids, never on a generic title). Several: the record bridges
//!    them and they become one paper.
//! 3. The paper is re-derived from all its records: canonical id by the
//!    fixed priority of [`PaperId::priority`], text fields by source
//!    precedence ([`text_rank`]), aliases from every id, postings and BM25
//!    statistics updated in place, and the edges touching any of its ids
//!    re-resolved from the stored links.
//!
//! The result does not depend on the order records arrive in, except where
//! a title fallback's candidates would themselves conflict.

use std::collections::BTreeSet;

use anyhow::Context;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use super::ids::PaperId;
use super::record::{text_rank, Link, Record};
use super::title::{surname, title_key};
use crate::analyzer::Analyzer;
use crate::failpoint::{failpoint, failpoint_at};
use crate::store::write::{refresh_meta, IndexWriter, PaperDraft};

/// What an ingest did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IngestReport {
    /// Records read (valid ones).
    pub records: u64,
    /// Records that made a new paper.
    pub added: u64,
    /// Records that replaced an older record of the same source.
    pub updated: u64,
    /// Records that joined an existing paper (shared id, title, or bridge).
    pub merged: u64,
    /// Records identical to what was stored.
    pub unchanged: u64,
    /// Citation links read, and how many were new.
    pub links: u64,
    pub links_added: u64,
    /// Invalid records skipped with `--skip-invalid`.
    pub skipped: u64,
    /// Entries without an id (S2 `paperId: null`, a null cited corpus id), skipped by design.
    pub skipped_null_ids: u64,
}

/// How one record was filed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Added,
    Updated,
    Merged,
    Unchanged,
}

/// Files records and links into an open index, inside the caller's
/// transaction. [`Ingester::finish`] must be called before it commits: the
/// postings are buffered and the edges derived there.
///
/// Edges are re-derived once, at the end, for every node a record or link
/// touched (a node touched by many records is done once). An index that
/// held no links when the ingester started (a new one, or one without a
/// graph) is the bulk case: every edge is derived by one sorted
/// `INSERT … SELECT`. Secondary indexes of tables that start empty are
/// dropped while loading and created again at the end ([`BULK_INDEXES`]),
/// which sorts each once instead of inserting into it at random.
pub struct Ingester<'c> {
    conn: &'c Connection,
    writer: IndexWriter,
    /// Nodes whose edges must be re-derived (incremental case).
    dirty: BTreeSet<String>,
    /// The bulk case: no links when it started, so `finish` derives every edge.
    bulk: bool,
    /// The `CREATE INDEX` statements of the indexes dropped for the load.
    dropped: Vec<String>,
    pub report: IngestReport,
}

/// `records.shared` bits: the field is left out of `data` (stored as "")
/// because the paper row holds exactly that text, taken from this record.
const SHARED_TITLE: i64 = 1;
const SHARED_ABSTRACT: i64 = 2;

/// Indexes nothing reads while records are filed: each is dropped when its
/// table (the second name) is empty as the ingester starts, and created
/// again, in one sort, by `finish`.
const BULK_INDEXES: [(&str, &str); 4] = [
    ("idx_links_cited", "links"),
    ("idx_edges_cited", "links"),
    ("idx_papers_year", "papers"),
    ("idx_papers_id_year", "papers"),
];

/// A stored record with its key and format.
struct Stored {
    record: Record,
    format: String,
}

impl<'c> Ingester<'c> {
    pub fn new(conn: &'c Connection) -> anyhow::Result<Ingester<'c>> {
        let analyzer: String = conn.query_row("SELECT analyzer FROM index_meta WHERE id = 1", [], |r| r.get(0))?;
        let analyzer: Analyzer = analyzer.parse()?;
        let empty = |table: &str| -> rusqlite::Result<bool> {
            conn.query_row(&format!("SELECT NOT EXISTS (SELECT 1 FROM {table})"), [], |r| r.get(0))
        };
        let mut dropped = Vec::new();
        for (name, table) in BULK_INDEXES {
            if !empty(table)? {
                continue;
            }
            let sql: Option<String> = conn
                .query_row("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1", [name], |r| r.get(0))
                .optional()?;
            if let Some(sql) = sql {
                conn.execute(&format!("DROP INDEX {name}"), [])?;
                dropped.push(sql);
            }
        }
        let bulk = empty("links")?;
        Ok(Ingester {
            conn,
            writer: IndexWriter::new(analyzer),
            dirty: BTreeSet::new(),
            bulk,
            dropped,
            report: IngestReport::default(),
        })
    }

    /// Files one record read in `format` from `origin` (`file:line`).
    pub fn add_record(&mut self, rec: Record, format: &str, origin: &str) -> anyhow::Result<Outcome> {
        self.report.records += 1;
        let source = rec.source.clone();
        let key = rec.source_id.key();
        anyhow::ensure!(!key.is_empty(), "{origin}: the record has an empty id");
        let data = serde_json::to_string(&rec)?;
        let existing: Option<(String, String, String, i64)> = self
            .conn
            .prepare_cached("SELECT paper_id, data, format, shared FROM records WHERE source = ?1 AND source_id = ?2")?
            .query_row(params![source, key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()?;
        if let Some((paper_id, old_data, old_format, shared)) = &existing {
            if old_format == format && self.read_record(old_data, *shared, paper_id)?.1 == data {
                self.report.unchanged += 1;
                return Ok(Outcome::Unchanged);
            }
        }

        // The papers this record belongs to.
        let mut papers: BTreeSet<String> = BTreeSet::new();
        if let Some((paper_id, ..)) = &existing {
            papers.insert(paper_id.clone());
        }
        for id in rec.all_ids() {
            if let Some(p) = self.resolve_alias(&id.key())? {
                papers.insert(p);
            }
        }
        let mut merge_note: Option<(&'static str, String, String)> = None;
        if papers.is_empty() {
            if let Some((paper_id, other, detail)) = self.title_match(&rec, format)? {
                merge_note = Some(("title-fallback", other, detail));
                papers.insert(paper_id);
            }
        } else if papers.len() > 1 {
            let list: Vec<&str> = papers.iter().map(String::as_str).collect();
            merge_note = Some(("bridge", list.join(", "), "the record holds ids of each".to_string()));
        }
        let outcome = match (&existing, papers.is_empty()) {
            (Some(_), _) => Outcome::Updated,
            (None, true) => Outcome::Added,
            (None, false) => Outcome::Merged,
        };

        // Store its links (the record itself is stored by `rederive`).
        // The replaced record's links (a new record has none): its references
        // are the links it made with its own id citing, its citations are
        // found by primary key from the old record's list.
        if let Some((_, old_data, ..)) = &existing {
            self.conn
                .prepare_cached("DELETE FROM links WHERE citing = ?2 AND origin_source = ?1 AND origin_id = ?2")?
                .execute(params![source, key])?;
            let old: Record = serde_json::from_str(old_data).context("a stored record is not valid JSON")?;
            let mut del = self.conn.prepare_cached(
                "DELETE FROM links WHERE citing = ?3 AND cited = ?2 AND origin_source = ?1 AND origin_id = ?2",
            )?;
            for c in &old.citations {
                del.execute(params![source, key, c.key()])?;
            }
        }
        {
            let mut link = self.conn.prepare_cached(
                "INSERT OR IGNORE INTO links (origin_source, origin_id, citing, cited) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for r in &rec.references {
                let r = r.key();
                if r != key && !r.is_empty() {
                    link.execute(params![source, key, key, r])?;
                }
            }
            for c in &rec.citations {
                let c = c.key();
                if c != key && !c.is_empty() {
                    link.execute(params![source, key, c, key])?;
                }
            }
        }

        let canonical = self.rederive(&papers, Stored { record: rec, format: format.to_string() }, origin)?;
        if let Some((rule, other, detail)) = merge_note {
            self.conn
                .prepare_cached(
                    "INSERT INTO merges (paper_id, rule, record, other, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
                )?
                .execute(params![canonical, rule, format!("{source}:{key}"), other, detail])?;
        }
        match outcome {
            Outcome::Added => self.report.added += 1,
            Outcome::Updated => self.report.updated += 1,
            Outcome::Merged => self.report.merged += 1,
            Outcome::Unchanged => {}
        }
        Ok(outcome)
    }

    /// Files one bare citation link (edge files, S2 reference pages).
    pub fn add_link(&mut self, link: &Link) -> anyhow::Result<()> {
        self.report.links += 1;
        let (citing, cited) = (link.citing.key(), link.cited.key());
        if citing == cited || citing.is_empty() || cited.is_empty() {
            return Ok(());
        }
        let added = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO links (origin_source, origin_id, citing, cited) VALUES ('edges', '', ?1, ?2)",
            )?
            .execute(params![citing, cited])?;
        if added > 0 {
            self.report.links_added += 1;
            // In bulk, `finish` derives it with the rest.
            if !self.bulk {
                let (a, b) = (resolve(self.conn, &citing)?, resolve(self.conn, &cited)?);
                if a != b {
                    self.conn
                        .prepare_cached("INSERT OR IGNORE INTO edges (citing, cited) VALUES (?1, ?2)")?
                        .execute(params![a, b])?;
                }
            }
        }
        Ok(())
    }

    /// Writes what was held back (postings, statistics, edges) and
    /// recomputes the statistics derived from the running totals.
    pub fn finish(self) -> anyhow::Result<IngestReport> {
        let Ingester { conn, writer, dirty, bulk, dropped, report } = self;
        writer.finish(conn)?;
        failpoint("before-stats");
        if bulk {
            conn.execute(
                "INSERT OR IGNORE INTO edges (citing, cited)
                 SELECT citing, cited FROM (
                     SELECT coalesce((SELECT paper_id FROM aliases WHERE alias = l.citing), l.citing) AS citing,
                            coalesce((SELECT paper_id FROM aliases WHERE alias = l.cited), l.cited) AS cited
                     FROM links AS l)
                 WHERE citing <> cited
                 ORDER BY citing, cited",
                [],
            )?;
        } else {
            rebuild_edges(conn, &dirty)?;
        }
        for sql in dropped {
            conn.execute(&sql, [])?;
        }
        refresh_meta(conn)?;
        Ok(report)
    }

    fn resolve_alias(&self, alias: &str) -> anyhow::Result<Option<String>> {
        resolve_alias(self.conn, alias)
    }

    /// The records of a paper, whole (text its paper row holds filled back in).
    fn records_of(&self, paper_id: &str) -> anyhow::Result<Vec<Stored>> {
        let rows: Vec<(String, String, i64)> = {
            let mut stmt = self.conn.prepare_cached("SELECT data, format, shared FROM records WHERE paper_id = ?1")?;
            let rows = stmt.query_map([paper_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let mut out = Vec::new();
        for (data, format, shared) in rows {
            out.push(Stored { record: self.read_record(&data, shared, paper_id)?.0, format });
        }
        Ok(out)
    }

    /// A stored record, whole, and its JSON: the title and abstract that
    /// `shared` says were left out are the paper row's.
    fn read_record(&self, data: &str, shared: i64, paper_id: &str) -> anyhow::Result<(Record, String)> {
        let mut record: Record = serde_json::from_str(data).context("a stored record is not valid JSON")?;
        if shared == 0 {
            return Ok((record, data.to_string()));
        }
        let (title, abstract_): (String, String) = self
            .conn
            .prepare_cached("SELECT title, abstract FROM papers WHERE id = ?1")?
            .query_row([paper_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .with_context(|| format!("index damaged: paper {paper_id} of a stored record is missing"))?;
        if shared & SHARED_TITLE != 0 {
            record.title = title;
        }
        if shared & SHARED_ABSTRACT != 0 {
            record.abstract_ = abstract_;
        }
        let json = serde_json::to_string(&record)?;
        Ok((record, json))
    }

    /// A paper the record matches by the title fallback: (paper, record, why).
    fn title_match(&self, rec: &Record, format: &str) -> anyhow::Result<Option<(String, String, String)>> {
        let Some(key) = title_key(&rec.title) else { return Ok(None) };
        let (Some(year), Some(author)) = (rec.year, rec.authors.first().and_then(|a| surname(a))) else {
            return Ok(None);
        };
        let candidates: Vec<(String, String, String)> = {
            let mut stmt = self.conn.prepare_cached(
                "SELECT DISTINCT paper_id, source, source_id FROM records WHERE title_key = ?1
                 ORDER BY paper_id, source, source_id",
            )?;
            let rows = stmt.query_map([&key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let own_key = rec.source_id.key();
        let user_ids = |f: &str| f == "paper" || f == "beir";
        'candidates: for (paper_id, source, source_id) in candidates {
            if source == rec.source && source_id == own_key {
                continue;
            }
            let paper_records = self.records_of(&paper_id)?;
            let Some(cand) =
                paper_records.iter().find(|s| s.record.source == source && s.record.source_id.key() == source_id)
            else {
                continue;
            };
            let c = &cand.record;
            let (Some(cy), Some(ca)) = (c.year, c.authors.first().and_then(|a| surname(a))) else { continue };
            if (cy - year).abs() > 1 || ca != author {
                continue;
            }
            // Never across two different DOIs, nor two users' own ids, anywhere in the paper.
            for other in &paper_records {
                if let (Some(a), Some(b)) = (rec.doi(), other.record.doi()) {
                    if a != b {
                        continue 'candidates;
                    }
                }
                if user_ids(format) && user_ids(&other.format) && other.record.source_id.key() != own_key {
                    continue 'candidates;
                }
            }
            let detail = format!("title \"{key}\", years {year}/{cy}, first author {author}");
            return Ok(Some((paper_id, format!("{source}:{source_id}"), detail)));
        }
        Ok(None)
    }

    /// Re-derives the paper made of the records of `papers` plus the record
    /// `new` (read from `origin`), stores them; returns its canonical id.
    fn rederive(&mut self, papers: &BTreeSet<String>, new: Stored, origin: &str) -> anyhow::Result<String> {
        let (source, key) = (new.record.source.clone(), new.record.source_id.key());
        let mut cluster: Vec<Stored> = Vec::new();
        for p in papers {
            cluster.extend(self.records_of(p)?);
        }
        // An older version of the new record is replaced by it.
        cluster.retain(|s| !(s.record.source == source && s.record.source_id.key() == key));
        cluster.push(new);
        cluster.sort_by(|a, b| {
            (text_rank(&a.record.source), &a.record.source, a.record.source_id.key()).cmp(&(
                text_rank(&b.record.source),
                &b.record.source,
                b.record.source_id.key(),
            ))
        });

        let ids: BTreeSet<PaperId> = cluster.iter().flat_map(|s| s.record.all_ids()).collect();
        let canonical = ids
            .iter()
            .min_by(|a, b| (a.priority(), a.key()).cmp(&(b.priority(), b.key())))
            .map(PaperId::key)
            .context("a record without ids")?;

        // Retire the old paper rows; everything that named them follows.
        for p in papers {
            self.writer.delete_paper(self.conn, p)?;
            for sql in [
                "DELETE FROM aliases WHERE paper_id = ?1",
                "DELETE FROM disagreements WHERE paper_id = ?1 AND origin = 'ingest'",
            ] {
                self.conn.prepare_cached(sql)?.execute([p])?;
            }
            for sql in [
                "UPDATE disagreements SET paper_id = ?2 WHERE paper_id = ?1",
                "UPDATE merges SET paper_id = ?2 WHERE paper_id = ?1",
                "UPDATE records SET paper_id = ?2 WHERE paper_id = ?1",
            ] {
                self.conn.prepare_cached(sql)?.execute(params![p, canonical])?;
            }
        }
        {
            let mut alias = self
                .conn
                .prepare_cached("INSERT OR REPLACE INTO aliases (alias, paper_id, kind) VALUES (?1, ?2, ?3)")?;
            for id in &ids {
                alias.execute(params![id.key(), canonical, id.kind()])?;
            }
        }

        // Text by precedence: the first non-empty value of each field wins.
        let first = |f: &dyn Fn(&Record) -> bool| cluster.iter().map(|s| &s.record).find(|r| f(r));
        let title_rec = first(&|r| !r.title.trim().is_empty());
        let abstract_rec = first(&|r| !r.abstract_.trim().is_empty());
        let year_rec = first(&|r| r.year.is_some());
        let authors_rec = first(&|r| !r.authors.is_empty());
        let mut sources: Vec<&str> = Vec::new();
        for s in &cluster {
            if !sources.contains(&s.record.source.as_str()) {
                sources.push(&s.record.source);
            }
        }
        let source_label = sources.join("+");
        let empty: Vec<String> = Vec::new();
        self.writer.insert_paper(
            self.conn,
            &PaperDraft {
                id: &canonical,
                title: title_rec.map_or("", |r| r.title.as_str()),
                abstract_: abstract_rec.map_or("", |r| r.abstract_.as_str()),
                year: year_rec.and_then(|r| r.year),
                authors: authors_rec.map_or(&empty, |r| &r.authors),
                source: &source_label,
                arxiv_version: cluster.iter().filter_map(|s| s.record.arxiv_version).max(),
            },
        )?;
        // The paper's postings and statistics are written, its edges not yet.
        failpoint_at("mid-postings", self.report.records);

        // The records, each without the text the paper row now holds from it.
        let title_at = cluster.iter().position(|s| !s.record.title.trim().is_empty());
        let abstract_at = cluster.iter().position(|s| !s.record.abstract_.trim().is_empty());
        for (i, s) in cluster.iter().enumerate() {
            let shared = if title_at == Some(i) { SHARED_TITLE } else { 0 }
                | if abstract_at == Some(i) { SHARED_ABSTRACT } else { 0 };
            let mut stored = s.record.clone();
            if shared & SHARED_TITLE != 0 {
                stored.title = String::new();
            }
            if shared & SHARED_ABSTRACT != 0 {
                stored.abstract_ = String::new();
            }
            let data = serde_json::to_string(&stored)?;
            let (s_source, s_key) = (&s.record.source, s.record.source_id.key());
            if *s_source == source && s_key == key {
                self.conn
                    .prepare_cached(
                        "INSERT OR REPLACE INTO records (source, source_id, paper_id, format, origin, title_key, data, shared)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    )?
                    .execute(params![
                        source,
                        key,
                        canonical,
                        s.format,
                        origin,
                        title_key(&s.record.title),
                        data,
                        shared
                    ])?;
            } else {
                self.conn
                    .prepare_cached("UPDATE records SET data = ?3, shared = ?4 WHERE source = ?1 AND source_id = ?2")?
                    .execute(params![s_source, s_key, data, shared])?;
            }
        }

        // Disagreements between the kept value and every other source's.
        {
            let mut ins = self.conn.prepare_cached(
                "INSERT INTO disagreements (paper_id, field, kept, kept_source, other, other_source, origin)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'ingest')",
            )?;
            type Getter = fn(&Record) -> Option<String>;
            let fields: [(&str, Getter); 4] = [
                ("title", |r| Some(r.title.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|s| !s.is_empty())),
                ("abstract", |r| {
                    Some(r.abstract_.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|s| !s.is_empty())
                }),
                ("year", |r| r.year.map(|y| y.to_string())),
                ("authors", |r| Some(r.authors.join("; ")).filter(|s| !s.is_empty())),
            ];
            for (field, get) in fields {
                let mut values = cluster.iter().filter_map(|s| get(&s.record).map(|v| (v, &s.record.source)));
                let Some((kept, kept_source)) = values.next() else { continue };
                for (other, other_source) in values {
                    if other != kept {
                        ins.execute(params![canonical, field, kept, kept_source, other, other_source])?;
                    }
                }
            }
        }

        // Edges touching any id of the paper are re-resolved from the links by `finish`.
        if !self.bulk {
            self.dirty.extend(ids.iter().map(PaperId::key));
            self.dirty.extend(papers.iter().cloned());
            self.dirty.insert(canonical.clone());
        }
        Ok(canonical)
    }
}

fn resolve_alias(conn: &Connection, alias: &str) -> anyhow::Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT paper_id FROM aliases WHERE alias = ?1")?
        .query_row([alias], |r| r.get(0))
        .optional()?)
}

/// A node id: the canonical paper of an alias, or the id itself.
fn resolve(conn: &Connection, id: &str) -> anyhow::Result<String> {
    Ok(resolve_alias(conn, id)?.unwrap_or_else(|| id.to_string()))
}

/// Deletes and re-derives every edge with an end in `nodes`.
fn rebuild_edges(conn: &Connection, nodes: &BTreeSet<String>) -> anyhow::Result<()> {
    for n in nodes {
        conn.prepare_cached("DELETE FROM edges WHERE citing = ?1")?.execute([n])?;
        conn.prepare_cached("DELETE FROM edges WHERE cited = ?1")?.execute([n])?;
    }
    let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
    {
        let mut by_citing = conn.prepare_cached("SELECT citing, cited FROM links WHERE citing = ?1")?;
        let mut by_cited = conn.prepare_cached("SELECT citing, cited FROM links WHERE cited = ?1")?;
        for n in nodes {
            for stmt in [&mut by_citing, &mut by_cited] {
                let rows = stmt.query_map([n], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
                for row in rows {
                    pairs.insert(row?);
                }
            }
        }
    }
    let mut ins = conn.prepare_cached("INSERT OR IGNORE INTO edges (citing, cited) VALUES (?1, ?2)")?;
    for (citing, cited) in pairs {
        let (a, b) = (resolve(conn, &citing)?, resolve(conn, &cited)?);
        if a != b {
            ins.execute(params![a, b])?;
        }
    }
    Ok(())
}
