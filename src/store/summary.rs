//! What `stats` and `dupes` report: table sizes, disagreements per field,
//! the schema version, and the merges made without a shared id.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Store;

impl Store {
    /// Table sizes and source disagreements, for `stats`.
    pub fn counts(&self) -> anyhow::Result<Counts> {
        let count = |sql: &str| -> anyhow::Result<u64> { Ok(self.conn.query_row(sql, [], |r| r.get(0))?) };
        let mut disagreements = BTreeMap::new();
        let mut stmt = self.conn.prepare("SELECT field, count(*) FROM disagreements GROUP BY field ORDER BY field")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?)))? {
            let (field, n) = row?;
            disagreements.insert(field, n);
        }
        Ok(Counts {
            papers: count("SELECT count(*) FROM papers")?,
            terms: count("SELECT count(*) FROM terms")?,
            postings: count("SELECT coalesce(sum(n), 0) FROM posting_blocks")?,
            edges: count(super::adjacency::COUNT_EDGES)?,
            dangling_edges: count(super::adjacency::COUNT_DANGLING_EDGES)?,
            disagreements,
        })
    }

    /// The schema version the file is at (`PRAGMA user_version`).
    pub fn schema_version(&self) -> anyhow::Result<i64> {
        Ok(self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// Every title-fallback and bridge merge, by paper, in the order made.
    pub fn merges(&self) -> anyhow::Result<Vec<Merge>> {
        let mut stmt =
            self.conn.prepare("SELECT paper_id, rule, record, other, detail FROM merges ORDER BY paper_id, id")?;
        let rows = stmt.query_map([], |r| {
            Ok(Merge { paper_id: r.get(0)?, rule: r.get(1)?, record: r.get(2)?, other: r.get(3)?, detail: r.get(4)? })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// Table sizes reported by `stats`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counts {
    pub papers: u64,
    pub terms: u64,
    pub postings: u64,
    pub edges: u64,
    pub dangling_edges: u64,
    /// Per field, how many times two sources disagreed.
    pub disagreements: BTreeMap<String, u64>,
}

/// A merge made by the title fallback or by a record bridging two papers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Merge {
    pub paper_id: String,
    /// `title-fallback` or `bridge`.
    pub rule: String,
    /// `source:source_id` of the record that caused it.
    pub record: String,
    /// What it was merged with.
    pub other: String,
    pub detail: String,
}
