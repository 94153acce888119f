//! The citation graph as stored: neighbours of one node or of a whole
//! frontier (the [`Adjacency`] a BFS walks), and the same walk as one
//! recursive CTE over `edges`, which property tests hold equal to the BFS.

use std::collections::BTreeMap;

use anyhow::Context;

use super::Store;
use crate::graph::{Adjacency, Direction};

impl Store {
    /// Ids `id` cites (`References`) or that cite it (`Citations`), sorted.
    pub fn linked(&self, id: &str, direction: Direction) -> anyhow::Result<Vec<String>> {
        let mut out = Vec::new();
        if direction.follows_references() {
            let mut stmt = self.conn.prepare_cached("SELECT cited FROM edges WHERE citing = ?1")?;
            for r in stmt.query_map([id], |r| r.get::<_, String>(0))? {
                out.push(r?);
            }
        }
        if direction.follows_citations() {
            let mut stmt = self.conn.prepare_cached("SELECT citing FROM edges WHERE cited = ?1")?;
            for r in stmt.query_map([id], |r| r.get::<_, String>(0))? {
                out.push(r?);
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Whether `id` is a node of the graph: an indexed paper or an edge end.
    pub fn is_node(&self, id: &str) -> anyhow::Result<bool> {
        if self.doc_of(id)?.is_some() {
            return Ok(true);
        }
        let n: i64 = self
            .conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM edges WHERE citing = ?1) OR EXISTS (SELECT 1 FROM edges WHERE cited = ?1)",
            )?
            .query_row([id], |r| r.get(0))?;
        Ok(n != 0)
    }

    /// The same expansion as one recursive CTE over the `edges` table.
    pub fn expand_cte(
        &self,
        seeds: &[String],
        hops: u32,
        direction: Direction,
    ) -> anyhow::Result<BTreeMap<String, u32>> {
        // `walk` holds (id, distance) pairs; UNION drops repeats, and the depth
        // bound ends cycles. Each arm follows one direction of `edges`, through
        // its primary key (citing) or idx_edges_cited.
        const SQL: &str = "
            WITH RECURSIVE walk (id, d) AS (
                SELECT value, 0 FROM json_each(?1)
                UNION
                SELECT e.cited, w.d + 1 FROM walk AS w JOIN edges AS e ON e.citing = w.id
                WHERE ?3 AND w.d < ?2
                UNION
                SELECT e.citing, w.d + 1 FROM walk AS w JOIN edges AS e ON e.cited = w.id
                WHERE ?4 AND w.d < ?2
            )
            SELECT id, min(d) FROM walk GROUP BY id";
        let seeds_json = serde_json::to_string(seeds)?;
        let mut stmt = self.conn.prepare_cached(SQL).context("cannot prepare the graph walk")?;
        let rows = stmt.query_map(
            rusqlite::params![seeds_json, hops, direction.follows_references(), direction.follows_citations()],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// The persisted adjacency, read one visited node at a time: a walk loads
/// only the edges it touches.
pub struct StoreAdjacency<'a>(pub &'a Store);

impl Adjacency for StoreAdjacency<'_> {
    fn neighbors(&self, id: &str, direction: Direction) -> anyhow::Result<Vec<String>> {
        self.0.linked(id, direction)
    }

    fn neighbors_of_all(&self, ids: &[String], direction: Direction) -> anyhow::Result<Vec<String>> {
        let json = serde_json::to_string(ids)?;
        let mut out = Vec::new();
        let mut follow = |sql: &str| -> anyhow::Result<()> {
            let mut stmt = self.0.conn.prepare_cached(sql)?;
            for r in stmt.query_map([&json], |r| r.get::<_, String>(0))? {
                out.push(r?);
            }
            Ok(())
        };
        if direction.follows_references() {
            follow("SELECT e.cited FROM json_each(?1) AS j JOIN edges AS e ON e.citing = j.value")?;
        }
        if direction.follows_citations() {
            follow("SELECT e.citing FROM json_each(?1) AS j JOIN edges AS e ON e.cited = j.value")?;
        }
        Ok(out)
    }
}
