//! Marks: the labels (`favorite`, `exclude`, `to-read`, `read`) and free tags
//! a user puts on papers (tables `marks` and `mark_tags`, migration 004).
//!
//! A mark names its paper by id as TEXT, with no foreign key: it is the
//! user's, not the index's. It is written under the paper's canonical id
//! (or, for an id the index does not hold, under that id's normal key) and
//! read back through the aliases, so it finds its paper again after a
//! rebuild that changed the canonical id; one that finds none is
//! *dangling*, kept and listed. A merge that retires a paper moves its
//! marks to the surviving id ([`super::ingest_writer::IngestWriter::retire_papers`]), and
//! `build` carries marks and watches into the new file before the rename
//! ([`Carried`]).

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use rusqlite::{Connection, params};
use serde::Serialize;

use super::read::resolve_on;
use super::{Handle, Notes, Store, Written, explain, open_for_writing, write_transaction_of};
use crate::choice::Choice;
use crate::paper::PaperId;

/// What a mark says about a paper.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Label {
    /// Useful: feeds the ranking of later searches (see `search::feedback`).
    Favorite,
    /// Noise: never shown by `search` (unless `--show-excluded`).
    Exclude,
    ToRead,
    Read,
}

/// Every label, in the order they are listed.
pub const LABELS: [Label; 4] = [Label::Favorite, Label::Exclude, Label::ToRead, Label::Read];

impl Label {
    pub fn name(self) -> &'static str {
        match self {
            Label::Favorite => "favorite",
            Label::Exclude => "exclude",
            Label::ToRead => "to-read",
            Label::Read => "read",
        }
    }

    /// The label this one replaces: `favorite` and `exclude` contradict each other.
    fn opposite(self) -> Option<Label> {
        match self {
            Label::Favorite => Some(Label::Exclude),
            Label::Exclude => Some(Label::Favorite),
            _ => None,
        }
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Label {
    type Err = String;

    fn from_str(s: &str) -> Result<Label, String> {
        LABELS.into_iter().find(|l| l.name() == s).ok_or_else(|| {
            let known: Vec<&str> = LABELS.iter().map(|l| l.name()).collect();
            format!("unknown label `{s}` (known: {})", known.join(", "))
        })
    }
}

impl Choice for Label {
    const WHAT: &'static str = "label";
    fn all() -> &'static [Label] {
        &LABELS
    }
    fn keyword(self) -> &'static str {
        self.name()
    }
    fn help(self) -> &'static str {
        match self {
            Label::Favorite => "Useful: feeds the ranking of later searches",
            Label::Exclude => "Noise: never shown by `search` (unless `--show-excluded`)",
            Label::ToRead => "To read",
            Label::Read => "Read",
        }
    }
}

/// One label on a paper.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelMark {
    pub label: Label,
    pub note: String,
    pub marked_at: String,
}

/// A paper with its marks, as `marks` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkedPaper {
    /// The id the marks are stored under.
    pub stored_id: String,
    /// The paper it names in this index (through the aliases); `None`: dangling.
    pub id: Option<String>,
    pub title: Option<String>,
    pub labels: Vec<LabelMark>,
    pub tags: Vec<String>,
}

/// Which marked papers to list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MarkFilter {
    pub label: Option<Label>,
    pub tag: Option<String>,
    /// Only those that name no paper of the index.
    pub dangling: bool,
}

/// The paper a stored mark id names now: itself when it is a paper, else the paper it is an alias of.
const RESOLVED: &str = "coalesce((SELECT p.id FROM papers AS p WHERE p.id = m.paper_id),
                                 (SELECT a.paper_id FROM aliases AS a WHERE a.alias = m.paper_id))";

impl Store {
    /// Every marked paper that `filter` lets through, by stored id.
    pub fn marked(&self, filter: &MarkFilter) -> anyhow::Result<Vec<MarkedPaper>> {
        let mut papers: BTreeMap<String, MarkedPaper> = BTreeMap::new();
        let sql = format!(
            "SELECT m.paper_id, {RESOLVED}, m.label, m.note, m.marked_at FROM marks AS m ORDER BY m.paper_id, m.label"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, String>(2)?, r.get(3)?, r.get(4)?))
        })?;
        for row in rows {
            let (stored, id, label, note, marked_at) = row?;
            let label: Label = label.parse().map_err(|e| anyhow::anyhow!("table marks, paper {stored}: {e}"))?;
            entry(&mut papers, stored, id).labels.push(LabelMark { label, note, marked_at });
        }
        let sql = format!("SELECT m.paper_id, {RESOLVED}, m.tag FROM mark_tags AS m ORDER BY m.paper_id, m.tag");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?, r.get(2)?)))?;
        for row in rows {
            let (stored, id, tag) = row?;
            entry(&mut papers, stored, id).tags.push(tag);
        }
        let mut out = Vec::new();
        for mut p in papers.into_values() {
            let keep = filter.label.is_none_or(|l| p.labels.iter().any(|m| m.label == l))
                && filter.tag.as_ref().is_none_or(|t| p.tags.contains(t))
                && (!filter.dangling || p.id.is_none());
            if keep {
                if let Some(id) = &p.id {
                    p.title = self.paper(id)?.map(|row| row.title);
                }
                out.push(p);
            }
        }
        Ok(out)
    }

    /// The papers of this index that carry `label` (through the aliases), sorted.
    pub fn papers_labelled(&self, label: Label) -> anyhow::Result<Vec<String>> {
        let sql = format!(
            "SELECT DISTINCT {RESOLVED} AS id FROM marks AS m WHERE m.label = ?1 AND id IS NOT NULL ORDER BY id"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([label.name()], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// [`Store::papers_labelled`] `exclude`, as a set.
    pub fn excluded(&self) -> anyhow::Result<HashSet<String>> {
        Ok(self.papers_labelled(Label::Exclude)?.into_iter().collect())
    }
}

fn entry(papers: &mut BTreeMap<String, MarkedPaper>, stored: String, id: Option<String>) -> &mut MarkedPaper {
    papers.entry(stored.clone()).or_insert_with(|| MarkedPaper {
        stored_id: stored,
        id,
        title: None,
        labels: Vec::new(),
        tags: Vec::new(),
    })
}

/// A write transaction on the user's tables (marks, tags, watches): see [`edit`].
pub struct UserEdit<'c> {
    pub(super) conn: &'c Connection,
}

/// Runs `f` in one write transaction on the index at `path` (WAL, busy
/// timeout: a concurrent ingest or `mark` waits for it or it for them; none
/// is lost). Nothing is written unless `f` succeeds.
pub fn edit<T>(path: &Path, notes: Notes, f: impl FnOnce(&UserEdit) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let mut conn = open_for_writing(path, notes).map_err(|e| explain(e, path))?;
    write_transaction_of(&mut conn, Written::UserTables, |tx| f(&UserEdit { conn: tx })).map_err(|e| explain(e, path))
}

/// The time as the user's tables store it: UTC, RFC 3339, to the millisecond.
pub(super) const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

impl UserEdit<'_> {
    /// The canonical id of the paper `input` names (any alias), if the index holds it.
    pub fn resolve(&self, input: &str) -> anyhow::Result<Option<String>> {
        resolve_on(self.conn, input)
    }

    /// The id a mark of an id the index does not hold is stored under: its normal key.
    pub fn dangling_key(input: &str) -> String {
        PaperId::parse(input.trim()).key()
    }

    /// Puts `label` on paper `id` (replacing its opposite). `note`, when
    /// given, replaces the label's note; otherwise the note is kept.
    pub fn mark(&self, id: &str, label: Label, note: Option<&str>) -> anyhow::Result<()> {
        if let Some(opposite) = label.opposite() {
            self.conn
                .prepare_cached("DELETE FROM marks WHERE paper_id = ?1 AND label = ?2")?
                .execute(params![id, opposite.name()])?;
        }
        let sql = format!(
            "INSERT INTO marks (paper_id, label, note, marked_at) VALUES (?1, ?2, coalesce(?3, ''), {NOW})
             ON CONFLICT (paper_id, label) DO UPDATE SET note = coalesce(?3, note), marked_at = excluded.marked_at"
        );
        self.conn.prepare_cached(&sql)?.execute(params![id, label.name(), note])?;
        Ok(())
    }

    /// Tags paper `id` with `tag` (non-empty; the caller checks).
    pub fn tag(&self, id: &str, tag: &str) -> anyhow::Result<()> {
        let sql = format!("INSERT OR IGNORE INTO mark_tags (paper_id, tag, tagged_at) VALUES (?1, ?2, {NOW})");
        self.conn.prepare_cached(&sql)?.execute(params![id, tag])?;
        Ok(())
    }

    /// Removes `label` (every label when `None`) from the marks stored under
    /// any of `ids`; returns how many were removed.
    pub fn unmark(&self, ids: &[String], label: Option<Label>) -> anyhow::Result<usize> {
        let mut n = 0;
        for id in ids {
            n += self
                .conn
                .prepare_cached("DELETE FROM marks WHERE paper_id = ?1 AND (?2 IS NULL OR label = ?2)")?
                .execute(params![id, label.map(Label::name)])?;
        }
        Ok(n)
    }

    /// Removes `tag` from the papers stored under any of `ids`; returns how many were removed.
    pub fn untag(&self, ids: &[String], tag: &str) -> anyhow::Result<usize> {
        let mut n = 0;
        for id in ids {
            n += self
                .conn
                .prepare_cached("DELETE FROM mark_tags WHERE paper_id = ?1 AND tag = ?2")?
                .execute(params![id, tag])?;
        }
        Ok(n)
    }
}

/// Moves the marks and tags of a retired paper `old` to `canonical` (a
/// merge): a label both carry keeps the surviving paper's row, and so does
/// its `favorite` or `exclude` when the retired paper had the other.
pub(super) fn follow_merge(conn: &Connection, old: &str, canonical: &str) -> anyhow::Result<()> {
    // A paper re-derived under the id it had (a record of it updated) is no
    // merge: moving its rows onto themselves would delete them.
    if old == canonical {
        return Ok(());
    }
    for sql in [
        "DELETE FROM marks WHERE paper_id = ?1 AND label IN ('favorite', 'exclude')
            AND EXISTS (SELECT 1 FROM marks WHERE paper_id = ?2 AND label IN ('favorite', 'exclude'))",
        "UPDATE OR IGNORE marks SET paper_id = ?2 WHERE paper_id = ?1",
        "DELETE FROM marks WHERE paper_id = ?1 AND ?2 IS NOT NULL",
        "UPDATE OR IGNORE mark_tags SET paper_id = ?2 WHERE paper_id = ?1",
        "DELETE FROM mark_tags WHERE paper_id = ?1 AND ?2 IS NOT NULL",
    ] {
        conn.prepare_cached(sql)?.execute(params![old, canonical])?;
    }
    super::screening::follow_merge(conn, old, canonical)
}

/// The user's rows of an index, read before `build` replaces it and written
/// into the new file before the rename, so a crash of the build leaves them
/// in the old file and a finished build has them in the new one.
#[derive(Debug, Default)]
pub(crate) struct Carried {
    marks: Vec<(String, String, String, String)>,
    tags: Vec<(String, String, String)>,
    watches: Vec<(String, String, String, String, Option<String>)>,
    seen: Vec<(String, String, i64)>,
    /// The screening reviews and their decisions.
    screen: super::screening::Carried,
    /// The old index, whose fetch response cache is copied over by `restore`.
    responses_from: Option<std::path::PathBuf>,
}

impl Carried {
    /// Reads them from the index at `path`. Nothing to carry when there is no
    /// file, when it is not a litindex index (a build may replace such a
    /// file), or when its schema predates the marks (it is read as it is:
    /// an older index is not migrated just to be replaced).
    pub(crate) fn read(path: &Path) -> anyhow::Result<Carried> {
        if !path.is_file() {
            return Ok(Carried::default());
        }
        // Read as every reader reads (query_only, so closing it removes the
        // -wal and -shm it opened), never migrated.
        let Ok((c, _)) = super::open_read_only(path, &|_| {}) else { return Ok(Carried::default()) };
        let ours = |c: &Connection| -> rusqlite::Result<bool> {
            let id: i32 = c.query_row("PRAGMA application_id", [], |r| r.get(0))?;
            let tables: i64 =
                c.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'marks'", [], |r| {
                    r.get(0)
                })?;
            Ok(id == super::APPLICATION_ID && tables == 1)
        };
        if !ours(&c).unwrap_or(false) {
            return Ok(Carried::default());
        }
        let c = &c;
        let read = || -> rusqlite::Result<Carried> {
            Ok(Carried {
                marks: collect(c, "SELECT paper_id, label, note, marked_at FROM marks", |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?,
                tags: collect(c, "SELECT paper_id, tag, tagged_at FROM mark_tags", |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?,
                watches: collect(c, "SELECT name, query, flags, created_at, last_checked FROM watches", |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?,
                seen: collect(c, "SELECT watch, paper_id, rank FROM watch_seen", |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?,
                screen: super::screening::Carried::read(c)?,
                responses_from: Some(path.to_path_buf()),
            })
        };
        read().map_err(|e| anyhow::anyhow!("cannot read the marks and watches of {} to keep them: {e}", path.display()))
    }

    /// Writes them into the new index on `conn` (inside its build
    /// transaction), each mark under the id its paper has there when the new
    /// index knows the stored id as an alias.
    pub(crate) fn restore(&self, handle: Handle<'_>) -> anyhow::Result<()> {
        let conn = handle.conn;
        const NEW_ID: &str = "coalesce((SELECT paper_id FROM aliases WHERE alias = ?1), ?1)";
        let mut mark = conn.prepare(&format!(
            "INSERT OR IGNORE INTO marks (paper_id, label, note, marked_at) VALUES ({NEW_ID}, ?2, ?3, ?4)"
        ))?;
        for (id, label, note, at) in &self.marks {
            mark.execute(params![id, label, note, at])?;
        }
        let mut tag = conn.prepare(&format!(
            "INSERT OR IGNORE INTO mark_tags (paper_id, tag, tagged_at) VALUES ({NEW_ID}, ?2, ?3)"
        ))?;
        for (id, t, at) in &self.tags {
            tag.execute(params![id, t, at])?;
        }
        let mut watch = conn.prepare(
            "INSERT INTO watches (name, query, flags, created_at, last_checked) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (name, query, flags, at, last) in &self.watches {
            watch.execute(params![name, query, flags, at, last])?;
        }
        let mut seen = conn.prepare("INSERT INTO watch_seen (watch, paper_id, rank) VALUES (?1, ?2, ?3)")?;
        for (w, id, rank) in &self.seen {
            seen.execute(params![w, id, rank])?;
        }
        self.screen.restore(handle)?;
        if let Some(old) = &self.responses_from {
            super::fetch::carry_responses(old, conn)
                .map_err(|e| anyhow::anyhow!("cannot keep the fetch cache of {}: {e:#}", old.display()))?;
        }
        Ok(())
    }
}

fn collect<T>(
    conn: &Connection,
    sql: &str,
    row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    conn.prepare(sql)?.query_map([], row)?.collect()
}
