//! The statements of the explore commands (`related`, `gaps`) and of
//! evidence sentences: document frequencies of a few terms, the seeds'
//! co-citation and coupling neighbours and degrees by node (through the
//! parsed adjacency lists), and the dangling edge targets.

use std::collections::HashMap;

use super::{Store, StoreAdjacency};
use crate::graph::{Adjacency, Direction, Node, NodeMap};

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
    /// Every (other, sharer) pair, by node, sorted and distinct, such that
    /// `sharer` is a neighbour both of one of `seeds` and of `other`
    /// (citers for co-citation, references for coupling), `other` ranging
    /// over the seeds too. Read through the parsed adjacency lists from the
    /// seeds outwards: two statements; ids are read only for what is shown
    /// (at 1M a hub seed's pairs were 200,000 rows of two ids from a join).
    pub(crate) fn shared_nodes(&self, seeds: &[Node], shared: Shared) -> anyhow::Result<Vec<(Node, Node)>> {
        let (out, back) = match shared {
            Shared::Citers => (Direction::Citations, Direction::References),
            Shared::References => (Direction::References, Direction::Citations),
        };
        let graph = StoreAdjacency(self);
        let mut sharers = Vec::new();
        graph.neighbor_lists(seeds, out, &mut |_, _, list| sharers.extend_from_slice(list))?;
        let mut pairs = Vec::new();
        graph.neighbor_lists(&sharers, back, &mut |sharer, _, list| {
            pairs.extend(list.iter().map(|&other| (other, sharer)));
        })?;
        pairs.sort_unstable();
        pairs.dedup();
        Ok(pairs)
    }

    /// How many references and how many citers each of `nodes` has, in one
    /// statement (a node with neither is left out).
    pub(crate) fn node_degrees(&self, nodes: &[Node]) -> anyhow::Result<NodeMap<(u64, u64)>> {
        let mut out = NodeMap::default();
        StoreAdjacency(self).neighbor_lists(nodes, Direction::Both, &mut |node, way, list| {
            let e: &mut (u64, u64) = out.entry(node).or_default();
            match way {
                Direction::Citations => e.1 = list.len() as u64,
                _ => e.0 = list.len() as u64,
            }
        })?;
        Ok(out)
    }

    /// The doc id of each of `nodes` that is an indexed paper (a chunk of
    /// `node_meta` per 256 nodes).
    pub(crate) fn docs_of_nodes(&self, nodes: &[Node]) -> anyhow::Result<Vec<(Node, i64)>> {
        let nodes = super::graph::sorted(nodes);
        let mut out = Vec::new();
        super::node_meta::doc_years(&self.conn, &nodes, |i, doc, _| {
            if let Some(doc) = doc {
                out.push((nodes[i], doc));
            }
        })?;
        Ok(out)
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
