//! The statements of the explore commands (`related`, `gaps`) and of
//! evidence sentences: document frequencies of a few terms, co-citation and
//! coupling counts from one seed through the `edges` indexes, and the
//! dangling edge targets.

use std::collections::HashMap;

use super::Store;

impl Store {
    /// The document frequency of each of `terms` the vocabulary holds, in one statement.
    pub fn doc_freqs(&self, terms: &[String]) -> anyhow::Result<HashMap<String, u64>> {
        let json = serde_json::to_string(terms)?;
        let mut stmt = self
            .conn
            .prepare_cached("SELECT t.term, t.df FROM json_each(?1) AS j JOIN terms AS t ON t.term = j.value")?;
        let rows = stmt.query_map([json], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// Which way two papers share neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    /// Cited by the same papers (co-citation): the sharers are citing papers.
    Citers,
    /// Citing the same papers (bibliographic coupling): the sharers are cited ids.
    References,
}

impl Store {
    /// Every (other, sharer) pair such that `sharer` is a neighbour both of
    /// one of `seeds` and of `other` (citers for co-citation, references for
    /// coupling), `other` ranging over the seeds too. Read through the
    /// integer adjacency from the seeds outwards: two hops, no scan.
    pub fn shared_neighbours(&self, seeds: &[String], shared: Shared) -> anyhow::Result<Vec<(String, String)>> {
        let sql = match shared {
            Shared::Citers => {
                "SELECT DISTINCT o.id, s.id FROM json_each(?1) AS j JOIN nodes AS n ON n.id = j.value
                 JOIN adjacency_lists AS l1 ON l1.node = n.node JOIN json_each(l1.cited_by) AS a1
                 JOIN adjacency_lists AS l2 ON l2.node = a1.value JOIN json_each(l2.cites) AS a2
                 JOIN nodes AS o ON o.node = a2.value JOIN nodes AS s ON s.node = a1.value"
            }
            Shared::References => {
                "SELECT DISTINCT o.id, s.id FROM json_each(?1) AS j JOIN nodes AS n ON n.id = j.value
                 JOIN adjacency_lists AS l1 ON l1.node = n.node JOIN json_each(l1.cites) AS a1
                 JOIN adjacency_lists AS l2 ON l2.node = a1.value JOIN json_each(l2.cited_by) AS a2
                 JOIN nodes AS o ON o.node = a2.value JOIN nodes AS s ON s.node = a1.value"
            }
        };
        let json = serde_json::to_string(seeds)?;
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map([json], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many citers (`Citers`) or references (`References`) each of `ids` has, in one statement.
    pub fn degrees(&self, ids: &[&String], shared: Shared) -> anyhow::Result<HashMap<String, u64>> {
        let sql = match shared {
            Shared::Citers => {
                "SELECT j.value, (SELECT coalesce(sum(json_array_length(l.cited_by)), 0) FROM nodes AS n
                                  JOIN adjacency_lists AS l ON l.node = n.node WHERE n.id = j.value)
                 FROM json_each(?1) AS j"
            }
            Shared::References => {
                "SELECT j.value, (SELECT coalesce(sum(json_array_length(l.cites)), 0) FROM nodes AS n
                                  JOIN adjacency_lists AS l ON l.node = n.node WHERE n.id = j.value)
                 FROM json_each(?1) AS j"
            }
        };
        let json = serde_json::to_string(ids)?;
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map([json], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The most cited edge targets that are not indexed papers, with how
    /// many distinct papers cite them: cited by `from` (all citing ids when
    /// `None`), most cited first, ties by id, at most `limit`.
    pub fn dangling_targets(&self, from: Option<&[String]>, limit: u64) -> anyhow::Result<Vec<(String, u64)>> {
        const SQL_ALL: &str = "
            SELECT d.id, json_array_length(l.cited_by) AS n FROM adjacency_lists AS l JOIN nodes AS d ON d.node = l.node
            WHERE l.cited_by IS NOT NULL AND d.doc IS NULL
            ORDER BY n DESC, d.id LIMIT ?1";
        const SQL_FROM: &str = "
            SELECT d.id, count(*) AS n FROM (SELECT DISTINCT value FROM json_each(?2)) AS j
            JOIN nodes AS c ON c.id = j.value
            JOIN adjacency_lists AS l ON l.node = c.node JOIN json_each(l.cites) AS a
            JOIN nodes AS d ON d.node = a.value
            WHERE d.doc IS NULL
            GROUP BY d.id ORDER BY n DESC, d.id LIMIT ?1";
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let row = |r: &rusqlite::Row| Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?));
        let rows: Result<Vec<_>, _> = match from {
            None => self.conn.prepare_cached(SQL_ALL)?.query_map(rusqlite::params![limit], row)?.collect(),
            Some(ids) => {
                let json = serde_json::to_string(ids)?;
                self.conn.prepare_cached(SQL_FROM)?.query_map(rusqlite::params![limit, json], row)?.collect()
            }
        };
        Ok(rows?)
    }

    /// Up to `n` ids that cite `id`, among `from` when given, sorted.
    pub fn some_citers(&self, id: &str, from: Option<&[String]>, n: u64) -> anyhow::Result<Vec<String>> {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let json = serde_json::to_string(&from)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT c.id FROM nodes AS n JOIN adjacency_lists AS l ON l.node = n.node
             JOIN json_each(l.cited_by) AS a JOIN nodes AS c ON c.node = a.value
             WHERE n.id = ?1 AND (json_type(?2) = 'null' OR c.id IN (SELECT value FROM json_each(?2)))
             ORDER BY c.id LIMIT ?3",
        )?;
        let rows = stmt.query_map(rusqlite::params![id, json, n], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The papers that have a record from `source` (`records.source`: `bibtex`, `openalex`, …), sorted.
    pub fn papers_from_source(&self, source: &str) -> anyhow::Result<Vec<String>> {
        let mut stmt =
            self.conn.prepare_cached("SELECT DISTINCT paper_id FROM records WHERE source = ?1 ORDER BY paper_id")?;
        let rows = stmt.query_map([source], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every source the index has records from, sorted.
    pub fn record_sources(&self) -> anyhow::Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached("SELECT DISTINCT source FROM records ORDER BY source")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The aliases stored for `id` (as an alias or as a paper id), with their kinds.
    pub fn alias_kinds_of(&self, id: &str) -> anyhow::Result<Vec<(String, String)>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT alias, kind FROM aliases WHERE paper_id = ?1 OR alias = ?1 ORDER BY kind, alias")?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
