//! The write side of an ingest: records, aliases, links, merges,
//! disagreements and edges, with the paper rows and postings through an
//! [`PostingsWriter`]. The ingest engine decides what to write; this type owns
//! how it is stored.
//!
//! **Shared text.** A record is stored without what the paper row or its
//! stated links hold, and without its empty fields (`record_data.rs`;
//! `records.shared` says which fields were left out);
//! [`IngestWriter::record`] and [`IngestWriter::records_of`] give records
//! back whole.
//!
//! **Bulk loads.** Edges are derived from the stated links once, in
//! [`IngestWriter::finish`] (the SQL of the graph is in `edges.rs`: links and
//! edges by integer node). An index that holds no links when the writer starts
//! (a new one, or one without a graph) is the bulk case: every edge comes
//! from one sorted `INSERT … SELECT`, and the secondary indexes of tables
//! that start empty are dropped while loading and created again at the end
//! ([`BULK_INDEXES`]), which sorts each once instead of inserting into it at
//! random. Otherwise the edges of every node a record or link touched are
//! re-derived.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use anyhow::Context;
use compact_str::CompactString;
use rusqlite::{Connection, OptionalExtension, params};

use super::adjacency::Edits;
use super::postings_writer::{PaperDraft, PostingsWriter, refresh_meta};
use super::record_data::{
    self, FROM_PAPER, SHARED_ABSTRACT, SHARED_AUTHORS, SHARED_CITATIONS, SHARED_REFERENCES, SHARED_TITLE, SHARED_VENUE,
    SHARED_YEAR,
};
use super::{Handle, edges};
use crate::analyzer::Analyzer;
use crate::paper::title::title_key;
use crate::paper::{Disagreement, Filed, PaperId, Record};

/// Indexes nothing reads while records are filed: each is dropped when its
/// table (the second name) is empty as the writer starts, and created
/// again, in one sort, by `finish`.
const BULK_INDEXES: [(&str, &str); 3] =
    [("idx_papers_year", "papers"), ("idx_paper_authors_surname", "papers"), ("idx_papers_doc_meta", "papers")];

/// `disagreements.origin` of the conflicts between the records of one paper
/// (re-derived with it), and of those between repeats of one record within
/// one command (kept until a later command replaces the record).
const ORIGIN_SOURCES: &str = "ingest";
const ORIGIN_REPEAT: &str = "repeat";

/// A record as stored, with the paper it belongs to.
pub struct StoredRecord {
    pub paper_id: String,
    pub filed: Filed,
    /// Whether this writer stored it (an earlier line of the same command).
    pub this_command: bool,
}

/// A paper a record may join by the title fallback: the paper and the
/// `(source, source_id)` of the record whose title matched.
pub struct TitleCandidate {
    pub paper_id: String,
    pub source: String,
    pub source_id: String,
}

/// Writes an ingest into an open index, inside the caller's transaction.
/// [`IngestWriter::finish`] must be called before it commits: postings are
/// buffered and edges derived there.
pub struct IngestWriter<'c> {
    conn: &'c Connection,
    index: PostingsWriter,
    /// No links when it started: `finish` derives every edge.
    bulk: bool,
    /// The highest `records` rowid when it started: a record stored (or
    /// replaced, which gives it a new rowid) by this writer has a higher one.
    records_before: i64,
    /// The `CREATE INDEX` statements of the indexes dropped for the load.
    dropped: Vec<String>,
    /// Nodes whose edges must be re-derived (incremental case).
    dirty: BTreeSet<String>,
    /// The links added outside a bulk load (nodes citing, cited): `finish`
    /// derives their edges, after every other write of the load (a PDF's
    /// references write theirs as they go), so no list is read before
    /// another write changes it.
    links: RefCell<Vec<(i64, i64)>>,
    /// The node of each id this writer has looked up or numbered (a node
    /// keeps its id and number for good): a 1M-paper build looks up 20M
    /// link ends, most of them more than once. An id of up to 24 bytes is
    /// kept inside its slot (see `PostingsWriter::terms`).
    nodes: RefCell<HashMap<CompactString, i64>>,
}

impl<'c> IngestWriter<'c> {
    pub fn new(handle: Handle<'c>) -> anyhow::Result<IngestWriter<'c>> {
        let conn = handle.conn;
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
        let bulk = empty("stated_lists")?;
        let records_before: i64 = conn.query_row("SELECT coalesce(max(rowid), 0) FROM records", [], |r| r.get(0))?;
        Ok(IngestWriter {
            conn,
            index: PostingsWriter::new(analyzer),
            bulk,
            records_before,
            dropped,
            dirty: BTreeSet::new(),
            links: RefCell::default(),
            nodes: RefCell::default(),
        })
    }

    /// The index's analyzer.
    pub(crate) fn analyzer(&self) -> crate::analyzer::Analyzer {
        self.index.analyzer()
    }

    /// See [`PostingsWriter::analysed_ahead`].
    pub(crate) fn analysed_ahead(&mut self, analysed: super::postings_writer::Analysed) {
        self.index.analysed_ahead(analysed);
    }

    /// The stored record `(source, key)`, whole.
    pub fn record(&self, source: &str, key: &str) -> anyhow::Result<Option<StoredRecord>> {
        let row: Option<(String, String, String, i64, i64)> = self
            .conn
            .prepare_cached(
                "SELECT paper_id, data, format, shared, rowid FROM records WHERE source = ?1 AND source_id = ?2",
            )?
            .query_row(params![source, key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .optional()?;
        let Some((paper_id, data, format, shared, rowid)) = row else { return Ok(None) };
        let record = self.whole(&data, (source, key), shared, &paper_id)?;
        Ok(Some(StoredRecord { paper_id, filed: Filed { record, format }, this_command: rowid > self.records_before }))
    }

    /// The records of a paper, whole.
    pub(crate) fn records_of(&self, paper_id: &str) -> anyhow::Result<Vec<Filed>> {
        let rows: Vec<(String, String, String, String, i64)> = {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT source, source_id, data, format, shared FROM records WHERE paper_id = ?1")?;
            let rows = stmt.query_map([paper_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        rows.into_iter()
            .map(|(source, key, data, format, shared)| {
                Ok(Filed { record: self.whole(&data, (&source, &key), shared, paper_id)?, format })
            })
            .collect()
    }

    /// A stored record with the fields that `shared` says were left out
    /// filled back in: the title, abstract, authors, year and venue from the
    /// paper row, its reference and citation lists from its stated links.
    fn whole(&self, data: &str, (source, key): (&str, &str), shared: i64, paper_id: &str) -> anyhow::Result<Record> {
        let mut record = record_data::decode(data, source, key)?;
        let key = record.source_id.key();
        for (bit, own_is_cited) in [(SHARED_REFERENCES, false), (SHARED_CITATIONS, true)] {
            if shared & bit != 0 {
                let origin = edges::record_origin(self.conn, &record.source, own_is_cited)?;
                let list = edges::stated_by(self.conn, &key, origin)?.iter().map(|id| PaperId::parse(id)).collect();
                *(if own_is_cited { &mut record.citations } else { &mut record.references }) = list;
            }
        }
        if shared & FROM_PAPER == 0 {
            return Ok(record);
        }
        type Row = (String, String, Option<i32>, String, Option<String>);
        let (title, abstract_, year, authors, venue): Row = self
            .conn
            .prepare_cached("SELECT title, abstract, year, authors, venue FROM papers WHERE id = ?1")?
            .query_row([paper_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .optional()?
            .with_context(|| format!("index damaged: paper {paper_id} of a stored record is missing"))?;
        if shared & SHARED_TITLE != 0 {
            record.title = title;
        }
        if shared & SHARED_ABSTRACT != 0 {
            record.abstract_ = abstract_;
        }
        if shared & SHARED_YEAR != 0 {
            record.year = year;
        }
        if shared & SHARED_AUTHORS != 0 {
            record.authors = serde_json::from_str(&authors)
                .with_context(|| format!("index damaged: the authors of paper {paper_id} are not a JSON list"))?;
        }
        if shared & SHARED_VENUE != 0 {
            record.venue = venue;
        }
        Ok(record)
    }

    /// Papers holding a record whose normalised title is `key`, in a fixed order.
    pub(crate) fn title_candidates(&self, key: &str) -> anyhow::Result<Vec<TitleCandidate>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT r.paper_id, r.source, r.source_id,
                    CASE WHEN r.shared & 1 THEN p.title ELSE coalesce(json_extract(r.data, '$.title'), '') END
             FROM records AS r LEFT JOIN papers AS p ON p.id = r.paper_id WHERE r.title_key = ?1
             ORDER BY 1, 2, 3",
        )?;
        let rows = stmt.query_map([record_data::title_code(key)], |r| {
            let title: Option<String> = r.get(3)?;
            Ok((TitleCandidate { paper_id: r.get(0)?, source: r.get(1)?, source_id: r.get(2)? }, title))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (candidate, title) = row?;
            if record_data::titled(title.as_deref().unwrap_or_default(), key) {
                out.push(candidate);
            }
        }
        Ok(out)
    }

    /// The transaction this writer writes in.
    pub(crate) fn handle(&self) -> Handle<'c> {
        Handle::new(self.conn)
    }

    /// The alias `alias` as a typed id (from its `aliases` row's kind), if stored.
    pub(crate) fn alias_id(&self, alias: &str) -> anyhow::Result<Option<PaperId>> {
        let kind: Option<String> = self
            .conn
            .prepare_cached("SELECT kind FROM aliases WHERE alias = ?1")?
            .query_row([alias], |r| r.get(0))
            .optional()?;
        Ok(kind.and_then(|k| PaperId::from_alias(&k, alias)))
    }

    /// The canonical id of the paper `alias` names.
    pub(crate) fn resolve_alias(&self, alias: &str) -> anyhow::Result<Option<String>> {
        resolve_alias(self.conn, alias)
    }

    /// Replaces the links record `(source, key)` states: those of `old` (the
    /// record it replaces, if any) go, those of `new` come.
    pub(crate) fn replace_links(
        &self,
        source: &str,
        key: &str,
        old: Option<&Record>,
        new: &Record,
    ) -> anyhow::Result<(u64, u64)> {
        let (refs, cits) =
            (edges::record_origin(self.conn, source, false)?, edges::record_origin(self.conn, source, true)?);
        // The links the record's older version stated: not new when stated again.
        let mut before = std::collections::HashSet::new();
        if old.is_some() {
            if let Some(own) = edges::find_node(self.conn, key)? {
                for origin in [refs, cits] {
                    before.extend(edges::delete_record_links(self.conn, own, origin)?.into_iter().map(|l| (l, origin)));
                }
            }
        }
        let stated = |other: &crate::paper::PaperId| {
            let other = other.key();
            (other != key && !other.is_empty()).then_some(other)
        };
        let mut own = None;
        let (mut read, mut added) = (0, 0);
        for (list, origin) in [(&new.references, refs), (&new.citations, cits)] {
            let mut others = Vec::new();
            for other in list.iter().filter_map(stated) {
                if own.is_none() {
                    own = Some(self.node(key)?);
                }
                others.push(self.node(&other)?);
            }
            let Some(me) = own.filter(|_| !others.is_empty()) else { continue };
            read += others.len() as u64;
            for other in edges::add_record_links(self.conn, me, origin, &others)? {
                let link = if origin == refs { (me, other) } else { (other, me) };
                added += u64::from(!before.contains(&(link, origin)));
            }
        }
        Ok((read, added))
    }

    /// The node of `id`, numbered now if it is new.
    fn node(&self, id: &str) -> anyhow::Result<i64> {
        if let Some(&n) = self.nodes.borrow().get(id) {
            return Ok(n);
        }
        let n = edges::node_of(self.conn, id)?;
        self.nodes.borrow_mut().insert(CompactString::from(id), n);
        Ok(n)
    }

    /// Stores a bare citation link (edge files, S2 reference pages) and,
    /// outside a bulk load, its edge (at `finish`); returns whether it was new.
    pub(crate) fn add_link(&self, citing: &str, cited: &str) -> anyhow::Result<bool> {
        let (a, b) = (self.node(citing)?, self.node(cited)?);
        let added = edges::insert_link(self.conn, a, b, edges::ORIGIN_EDGES)?;
        if added && !self.bulk {
            self.links.borrow_mut().push((a, b));
        }
        Ok(added)
    }

    /// Notes a title-fallback or bridge merge.
    pub(crate) fn add_merge(
        &self,
        paper_id: &str,
        rule: &str,
        record: &str,
        other: &str,
        detail: &str,
    ) -> anyhow::Result<()> {
        self.conn
            .prepare_cached("INSERT INTO merges (paper_id, rule, record, other, detail) VALUES (?1, ?2, ?3, ?4, ?5)")?
            .execute(params![paper_id, rule, record, other, detail])?;
        Ok(())
    }

    /// Retires the paper rows of `old`: their postings and aliases go, and
    /// the disagreements between their records (re-derived with the new
    /// paper); everything else that named them now names `canonical`.
    pub(crate) fn retire_papers(&mut self, old: &BTreeSet<String>, canonical: &str) -> anyhow::Result<()> {
        for p in old {
            self.index.delete_paper(self.conn, p)?;
            self.conn.prepare_cached("DELETE FROM aliases WHERE paper_id = ?1")?.execute([p])?;
            self.conn
                .prepare_cached("DELETE FROM disagreements WHERE paper_id = ?1 AND origin = ?2")?
                .execute(params![p, ORIGIN_SOURCES])?;
            for sql in [
                "UPDATE disagreements SET paper_id = ?2 WHERE paper_id = ?1",
                "UPDATE merges SET paper_id = ?2 WHERE paper_id = ?1",
                "UPDATE records SET paper_id = ?2 WHERE paper_id = ?1",
            ] {
                self.conn.prepare_cached(sql)?.execute(params![p, canonical])?;
            }
            super::marks::follow_merge(self.conn, p, canonical)?;
        }
        if !self.bulk {
            self.dirty.extend(old.iter().cloned());
        }
        Ok(())
    }

    /// Removes the stored record `(source, key)` (a record its source
    /// withdrew: a Zotero item trashed or deleted). The engine re-derives or
    /// deletes its paper.
    pub(crate) fn delete_record(&mut self, source: &str, key: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached("DELETE FROM records WHERE source = ?1 AND source_id = ?2")?
            .execute(params![source, key])?;
        Ok(())
    }

    /// Deletes paper `paper_id`, which no record holds any more: its row and
    /// postings, aliases, disagreements and merges (the user's marks on it
    /// stay, dangling, as after a rebuild without it).
    pub(crate) fn delete_paper(&mut self, paper_id: &str) -> anyhow::Result<()> {
        let ids: Vec<String> = {
            let mut stmt = self.conn.prepare_cached("SELECT alias FROM aliases WHERE paper_id = ?1")?;
            stmt.query_map([paper_id], |r| r.get(0))?.collect::<Result<_, _>>()?
        };
        self.index.delete_paper(self.conn, paper_id)?;
        for sql in [
            "DELETE FROM aliases WHERE paper_id = ?1",
            "DELETE FROM disagreements WHERE paper_id = ?1",
            "DELETE FROM merges WHERE paper_id = ?1",
        ] {
            self.conn.prepare_cached(sql)?.execute([paper_id])?;
        }
        if !self.bulk {
            self.dirty.extend(ids);
            self.dirty.insert(paper_id.to_string());
        }
        Ok(())
    }

    /// Stores a paper row with its postings, its aliases (each id of `ids`
    /// with its kind) and the disagreements between its records.
    pub(crate) fn put_paper(
        &mut self,
        draft: &PaperDraft,
        ids: &BTreeSet<crate::paper::PaperId>,
        disagreements: &[Disagreement],
    ) -> anyhow::Result<()> {
        self.index.insert_paper(self.conn, draft)?;
        let mut alias =
            self.conn.prepare_cached("INSERT OR REPLACE INTO aliases (alias, paper_id, kind) VALUES (?1, ?2, ?3)")?;
        for id in ids {
            alias.execute(params![id.key(), draft.id, id.kind()])?;
        }
        self.put_disagreements(draft.id, disagreements, ORIGIN_SOURCES)?;
        if !self.bulk {
            self.dirty.extend(ids.iter().map(|id| id.key()));
            self.dirty.insert(draft.id.to_string());
        }
        Ok(())
    }

    /// Stores the records of the paper `paper` (its row just written):
    /// `new` (read from `origin`) is inserted or replaced, the others,
    /// already stored, are written again for what they now share with the
    /// row. `title_from` and `abstract_from` are the positions of the
    /// records whose text the paper row holds.
    pub(crate) fn put_records(
        &self,
        paper: &PaperDraft,
        records: &[Filed],
        new: (&str, &str),
        origin: &str,
        (title_from, abstract_from): (Option<usize>, Option<usize>),
    ) -> anyhow::Result<()> {
        for (i, f) in records.iter().enumerate() {
            let key = f.record.source_id.key();
            let (data, shared) =
                record_data::encode(&f.record, paper, (title_from == Some(i), abstract_from == Some(i)))?;
            if (f.record.source.as_str(), key.as_str()) == new {
                self.conn
                    .prepare_cached(
                        "INSERT OR REPLACE INTO records (source, source_id, paper_id, format, origin, title_key, data, shared)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    )?
                    .execute(params![
                        f.record.source,
                        key,
                        paper.id,
                        f.format,
                        origin,
                        title_key(&f.record.title).map(|k| record_data::title_code(&k)),
                        data,
                        shared
                    ])?;
            } else {
                self.conn
                    .prepare_cached("UPDATE records SET data = ?3, shared = ?4 WHERE source = ?1 AND source_id = ?2")?
                    .execute(params![f.record.source, key, data, shared])?;
            }
        }
        Ok(())
    }

    /// Notes the conflicts between repeats of one record within one command.
    pub(crate) fn put_repeat_conflicts(&self, paper_id: &str, conflicts: &[Disagreement]) -> anyhow::Result<()> {
        self.put_disagreements(paper_id, conflicts, ORIGIN_REPEAT)
    }

    /// Forgets the repeat conflicts of `source`'s records of a paper, when a
    /// later command replaces such a record.
    pub(crate) fn forget_repeat_conflicts(&self, paper_id: &str, source: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached("DELETE FROM disagreements WHERE paper_id = ?1 AND origin = ?2 AND kept_source = ?3")?
            .execute(params![paper_id, ORIGIN_REPEAT, source])?;
        Ok(())
    }

    fn put_disagreements(&self, paper_id: &str, list: &[Disagreement], origin: &str) -> anyhow::Result<()> {
        let mut ins = self.conn.prepare_cached(
            "INSERT INTO disagreements (paper_id, field, kept, kept_source, other, other_source, origin)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for d in list {
            ins.execute(params![paper_id, d.field, d.kept, d.kept_source, d.other, d.other_source, origin])?;
        }
        Ok(())
    }

    /// Writes what was held back (postings, statistics, edges), creates the
    /// indexes dropped for a bulk load, and recomputes the statistics
    /// derived from the running totals. `before_stats` runs between the
    /// postings and the rest (a failpoint).
    pub fn finish(self, before_stats: impl FnOnce()) -> anyhow::Result<()> {
        let IngestWriter { conn, index, bulk, dropped, dirty, links, .. } = self;
        index.finish(conn)?;
        before_stats();
        if bulk {
            edges::derive_all(conn)?;
        } else {
            let mut edits = Edits::default();
            for (a, b) in links.into_inner() {
                edges::derive_into(conn, &mut edits, a, b)?;
            }
            edges::rebuild(conn, &mut edits, &dirty)?;
            edits.flush(conn)?;
        }
        // PDFs' reference entries that matched no paper may match one this ingest brought.
        super::references::relink(conn)?;
        for sql in dropped {
            conn.execute(&sql, [])?;
        }
        refresh_meta(conn)?;
        Ok(())
    }
}

fn resolve_alias(conn: &Connection, alias: &str) -> anyhow::Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT paper_id FROM aliases WHERE alias = ?1")?
        .query_row([alias], |r| r.get(0))
        .optional()?)
}
