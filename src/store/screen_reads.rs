//! Reads the screening learner needs (`crate::screen::features`): each
//! candidate paper's citation neighbourhood as graph nodes, both directions,
//! including references to papers the index does not hold (they are what
//! bibliographic coupling shares).

use rusqlite::params;

use super::Store;

/// One candidate's neighbours: the graph node of the paper itself (if it is
/// a node), its references (`dir` 0) and its citers (`dir` 1).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Neighbourhood {
    pub node: Option<i64>,
    pub references: Vec<i64>,
    pub citers: Vec<i64>,
}

impl Store {
    /// The neighbourhood of each of `docs` (integer doc ids), in that order;
    /// an unknown doc id gets an empty one.
    pub fn neighbourhoods(&self, docs: &[i64]) -> anyhow::Result<Vec<Neighbourhood>> {
        let mut node_of = self.conn.prepare_cached(
            // By the paper's id (unique in both tables): `nodes.doc` has no
            // index, and a scan per candidate was 45 % of a profile of
            // `screen next` on 1,175 candidates.
            "SELECT n.node FROM papers AS p JOIN nodes AS n ON n.id = p.id WHERE p.doc = ?1",
        )?;
        let mut out = Vec::with_capacity(docs.len());
        for &doc in docs {
            let node: Option<i64> = {
                let mut rows = node_of.query(params![doc])?;
                match rows.next()? {
                    Some(r) => Some(r.get(0)?),
                    None => None,
                }
            };
            let mut n = Neighbourhood { node, ..Neighbourhood::default() };
            if let Some(node) = node {
                [n.references, n.citers] = super::adjacency::lists_of(&self.conn, node)?;
            }
            out.push(n);
        }
        Ok(out)
    }

    /// The doc ids of every indexed paper, ascending.
    pub fn all_docs(&self) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self.conn.prepare_cached("SELECT doc FROM papers ORDER BY doc")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
