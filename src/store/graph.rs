//! The citation graph as stored: integer nodes (`nodes`) and their
//! adjacency in both directions (`adjacency_lists`: `dir` 0 = references,
//! 1 = citations; [`super::adjacency`]). Neighbours of one id or of a whole
//! frontier (the [`Adjacency`] a BFS walks), and the same walk as one
//! recursive CTE over the lists, which property tests hold equal to the BFS. Ids map to
//! nodes once before a walk and back once after it.

use std::collections::{BTreeMap, HashMap};

use anyhow::Context;
use rusqlite::params;

use super::Store;
use crate::graph::{Adjacency, Direction, EachList, Node};

/// The directions (0 references, 1 citers) a direction reads, as a range.
pub(super) fn dirs(direction: Direction) -> (i64, i64) {
    (if direction.follows_references() { 0 } else { 1 }, if direction.follows_citations() { 1 } else { 0 })
}

/// The way a direction code goes: 0 a paper's references, 1 its citers.
pub(super) fn way(dir: i64) -> Direction {
    if dir == 0 { Direction::References } else { Direction::Citations }
}

/// A reached paper's doc id and year, by id.
pub(crate) type DocsAndYears = HashMap<String, (i64, Option<i32>), foldhash::fast::FixedState>;

impl Store {
    /// Ids `id` cites (`References`) or that cite it (`Citations`), sorted.
    pub fn linked(&self, id: &str, direction: Direction) -> anyhow::Result<Vec<String>> {
        let (lo, hi) = dirs(direction);
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT m.id FROM nodes AS n JOIN adjacency_lists AS l ON l.node = n.node
             JOIN json_each(CASE WHEN ?2 = 0 THEN l.cites END) AS a JOIN nodes AS m ON m.node = a.value
             WHERE n.id = ?1
             UNION
             SELECT m.id FROM nodes AS n JOIN adjacency_lists AS l ON l.node = n.node
             JOIN json_each(CASE WHEN ?3 = 1 THEN l.cited_by END) AS a JOIN nodes AS m ON m.node = a.value
             WHERE n.id = ?1 ORDER BY 1",
        )?;
        let rows = stmt.query_map(params![id, lo, hi], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether `id` is a node of the graph: an indexed paper or an edge end.
    pub fn is_node(&self, id: &str) -> anyhow::Result<bool> {
        if self.doc_of(id)?.is_some() {
            return Ok(true);
        }
        let n: i64 = self
            .conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM nodes AS n JOIN adjacency_lists AS l ON l.node = n.node WHERE n.id = ?1)",
            )?
            .query_row([id], |r| r.get(0))?;
        Ok(n != 0)
    }

    /// The same expansion as one recursive CTE over `adjacency_lists`.
    pub fn expand_cte(
        &self,
        seeds: &[String],
        hops: u32,
        direction: Direction,
    ) -> anyhow::Result<BTreeMap<String, u32>> {
        // `walk` holds (node, distance) pairs; UNION drops repeats, and the
        // depth bound ends cycles. One arm follows both directions through
        // the primary key (node, dir, nbr). Seeds map to nodes at the start
        // and the result back to ids at the end; a seed the graph does not
        // know is at 0.
        const SQL: &str = "
            WITH RECURSIVE walk (node, d) AS (
                SELECT n.node, 0 FROM json_each(?1) AS j JOIN nodes AS n ON n.id = j.value
                UNION
                SELECT a.value, w.d + 1 FROM walk AS w JOIN adjacency_lists AS l ON l.node = w.node
                JOIN json_each(l.cites) AS a WHERE w.d < ?2 AND ?3 = 0
                UNION
                SELECT a.value, w.d + 1 FROM walk AS w JOIN adjacency_lists AS l ON l.node = w.node
                JOIN json_each(l.cited_by) AS a WHERE w.d < ?2 AND ?4 = 1
            )
            SELECT n.id, min(w.d) FROM walk AS w JOIN nodes AS n ON n.node = w.node GROUP BY w.node
            UNION ALL
            SELECT j.value, 0 FROM json_each(?1) AS j WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE id = j.value)";
        let seeds_json = serde_json::to_string(seeds)?;
        let (lo, hi) = dirs(direction);
        let mut stmt = self.conn.prepare_cached(SQL).context("cannot prepare the graph walk")?;
        let rows =
            stmt.query_map(params![seeds_json, hops, lo, hi], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// The persisted adjacency, read a frontier at a time: a walk loads only
/// the edges it touches.
pub struct StoreAdjacency<'a>(pub &'a Store);

impl Adjacency for StoreAdjacency<'_> {
    fn nodes_of(&self, ids: &[String]) -> anyhow::Result<Vec<(String, Node)>> {
        self.pairs("SELECT n.id, n.node FROM json_each(?1) AS j JOIN nodes AS n ON n.id = j.value", ids)
    }

    fn ids_of(&self, nodes: &[Node]) -> anyhow::Result<Vec<(Node, String)>> {
        self.pairs("SELECT n.node, n.id FROM json_each(?1) AS j JOIN nodes AS n ON n.node = j.value", &sorted(nodes))
    }

    fn neighbor_lists(&self, nodes: &[Node], direction: Direction, each: &mut EachList) -> anyhow::Result<()> {
        super::adjacency::read_lists(&self.0.conn, &sorted(nodes), dirs(direction), &mut |node, dir, list| {
            each(node, way(dir), &list)
        })
    }
}

/// `nodes` in ascending order without repeats: a statement that looks each
/// of them up then reads the B-tree's pages in order, each page once.
pub(super) fn sorted(nodes: &[Node]) -> Vec<Node> {
    let mut v = nodes.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

impl StoreAdjacency<'_> {
    /// The two-column rows of `sql` run over `list` as a JSON array: one
    /// statement for a whole list.
    fn pairs<A: rusqlite::types::FromSql, B: rusqlite::types::FromSql>(
        &self,
        sql: &str,
        list: &[impl serde::Serialize],
    ) -> anyhow::Result<Vec<(A, B)>> {
        let mut stmt = self.0.conn.prepare_cached(sql)?;
        let rows = stmt.query_map([serde_json::to_string(list)?], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
